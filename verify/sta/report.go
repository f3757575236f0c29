package sta

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/timing/liberty"
)

// DefaultBandPct is the project's goal: the sized model within ±25% of the
// timing-driven flow.
const DefaultBandPct = 25

// Report is the cross-check of a set of units, the document of `lsugen
// crosscheck-timing --json`.
type Report struct {
	// Library is the liberty's library name, Liberty the file given.
	Library string `json:"library"`
	Liberty string `json:"liberty"`
	// Yosys and STA are the tool versions.
	Yosys string `json:"yosys"`
	STA   string `json:"sta"`
	// Driver is the cell driving every input; DriverCapFF its input
	// capacitance and OutputLoadFF the load on every output bit, in fF.
	Driver       string  `json:"driver"`
	DriverCapFF  float64 `json:"driver_cap_ff"`
	OutputLoadFF float64 `json:"output_load_ff"`
	// Source is what was synthesised: "rtl" or "gates".
	Source string `json:"source"`
	// RemovedCells counts the don't-use cells cut from the liberty.
	RemovedCells int `json:"removed_cells"`
	// FraigConflicts is the conflict limit per candidate of ABC's SAT
	// sweeping in both flows.
	FraigConflicts int `json:"fraig_conflicts"`
	// FO4 is the library's FO4 delay as OpenSTA measures it on an FO4
	// chain (Flow.MeasureFO4): a check of Model.FO4PS, beside which the
	// reports show it.
	FO4 FO4 `json:"fo4"`
	// Model is the library as the logical-effort model sees it, from
	// liberty.Characterize: τ, the reference inverter's parasitic delay,
	// the library's FO4, the cell chosen for each gate kind.
	Model ModelTech `json:"model"`
	// BandPct is the tolerance of the sized model (characterized from the
	// library) against the timing-driven flow, in percent.
	BandPct float64      `json:"band_pct"`
	Units   []UnitReport `json:"units"`
	// Skipped lists units not run (too large for the --max-gates limit).
	Skipped []Skipped `json:"skipped"`
	// OutsideBand names the units whose sized error exceeds BandPct (or
	// cannot be computed).
	OutsideBand []string `json:"outside_band"`
	// FlowFrom is true when the flow figures (FO4, plain, timing-driven,
	// mapped, tool versions, seconds) were read from a previous run's
	// report and only lsugen's estimates computed (Recompute).
	FlowFrom bool `json:"flow_from,omitempty"`
	// Seconds is the flow run's wall time (0 when not known).
	Seconds float64 `json:"seconds,omitempty"`
}

// ModelTech summarizes a characterization.
type ModelTech struct {
	Inverter  string  `json:"inverter"`
	TauPS     float64 `json:"tau_ps"`
	PInv      float64 `json:"p_inv"`
	InputPInv float64 `json:"input_p_inv"`
	SlewPS    float64 `json:"slew_ps"`
	// FO4PS is the library's FO4 delay, the one figure by which every FO4
	// of the report converts from ps (Report.FO4PS):
	// liberty.Characterization.FO4PS, which is timing.Options.FO4PS of the
	// characterized Tech.
	FO4PS    float64           `json:"fo4_ps"`
	WireLoad string            `json:"wire_load"`
	Cells    map[string]string `json:"cells"`
	// NAND2Area is the area of the NAND2 cell (Cells["NAND2"]) in the
	// library's area unit (µm² for sky130): the library's NAND2
	// equivalent, by which the units' areas convert to GE. The
	// characterized model's GE are the same unit.
	NAND2Area float64 `json:"nand2_area"`
}

// NewModelTech summarizes ch.
func NewModelTech(ch *liberty.Characterization) ModelTech {
	m := ModelTech{Inverter: ch.Inverter, TauPS: round(ch.TauPS, 3), PInv: round(ch.PInv, 3), InputPInv: round(ch.InputPInv, 3),
		SlewPS: round(ch.SlewPS, 2), FO4PS: round(ch.FO4PS, 4), WireLoad: ch.WireLoad, Cells: map[string]string{}}
	for _, k := range ch.Kinds {
		m.Cells[k.Kind] = k.Cell
	}
	return m
}

// FO4PS is the library's FO4 in ps by which the report converts every
// delay to FO4: the characterized figure (Model.FO4PS), the one that
// lsugen characterize, the SDC and the timing model use, not OpenSTA's
// measured FO4, which the report shows beside it as a check.
func (r *Report) FO4PS() float64 { return r.Model.FO4PS }

// Skipped is a unit left out of the run.
type Skipped struct {
	Name   string `json:"name"`
	Gates  int    `json:"gates"`
	Reason string `json:"reason"`
}

// UnitReport is one unit: the flow's delays beside lsugen's model.
type UnitReport struct {
	Name       string `json:"name"`
	Kind       string `json:"kind"`
	Variant    string `json:"variant"`
	Sequential bool   `json:"sequential"`
	// Gates is lsugen's gate count of the unit.
	Gates int `json:"gates"`
	// Plain and TimingDriven are the two flows; TargetPS the
	// timing-driven delay target.
	Plain        FlowReport `json:"plain"`
	TimingDriven FlowReport `json:"timing_driven"`
	TargetPS     float64    `json:"target_ps"`
	// Mapped is OpenSTA's timing of lsugen's own gate netlist in the
	// characterized library cells (MappedVerilog), no synthesis: the
	// reference for the model's arithmetic (Lib.MappedErrorPct).
	Mapped FlowReport `json:"mapped"`
	// Lib is lsugen's estimate with the gate table characterized from the
	// library, the flow's driver and output load: unsized (against the
	// plain flow) and sized (against the timing-driven flow).
	Lib ModelEstimate `json:"lib"`
	// Textbook is lsugen's default estimate (the textbook gate table and
	// wire model fitted to 003_*, timing.DefaultOptions) beside the same
	// flows.
	Textbook ModelEstimate `json:"textbook"`
	// LibFixedSlew is Lib with every delay table read at the reference
	// transition (timing.Options.FixedSlew), as the model was before it
	// propagated transitions; absent when the library has no transition
	// tables (the two are then the same).
	LibFixedSlew *ModelEstimate `json:"lib_fixed_slew,omitempty"`
	// WithinBand is |Lib.SizedErrorPct| ≤ the report's BandPct.
	WithinBand bool `json:"within_band"`
	// Area is the unit's cell area in the three netlists beside lsugen's
	// unsized and sized estimates (area.go); absent when the report has
	// no NAND2 area (a --flow-from report of an older run).
	Area *AreaReport `json:"area,omitempty"`
	// Pipeline is a pipelined unit's stages, OpenSTA's beside the
	// model's (stages.go); absent for other units and for a
	// variable-latency one.
	Pipeline *PipelineReport `json:"pipeline,omitempty"`
	// Seconds is the unit's wall time through both flows.
	Seconds float64 `json:"seconds"`
}

// ModelEstimate is lsugen's timing of a unit in both modes, in the
// library's FO4 (Report.FO4PS): the characterized model's delays in ps
// divided by it; the textbook model's in its own FO4. The
// errors are 100·(model − flow)/flow against the unrounded flow delays,
// unsized against the plain flow and sized against the timing-driven one;
// null when the flow's delay is 0.
type ModelEstimate struct {
	UnsizedFO4      float64  `json:"unsized_fo4"`
	SizedFO4        float64  `json:"sized_fo4"`
	UnsizedDepth    int      `json:"unsized_depth"`
	SizedDepth      int      `json:"sized_depth"`
	UnsizedErrorPct *float64 `json:"unsized_error_pct"`
	SizedErrorPct   *float64 `json:"sized_error_pct"`
	// MappedErrorPct is the unsized estimate against OpenSTA's timing of
	// the same gates in library cells (for the characterized model).
	MappedErrorPct *float64 `json:"mapped_error_pct,omitempty"`
}

// FlowReport is one flow's result for a unit. Cells and Area (in the
// library's unit) are Yosys's stat -liberty for the flows; for the mapped
// netlist, its cell instances (a gate built as core and inverter is two)
// and the sum of their areas in the library (MappedArea), memory macros
// left out.
type FlowReport struct {
	DelayPS  float64 `json:"delay_ps"`
	FO4      float64 `json:"fo4"`
	Depth    int     `json:"depth"`
	Endpoint string  `json:"endpoint"`
	Cells    int     `json:"cells"`
	Area     float64 `json:"area"`
	SynthS   float64 `json:"synth_s"`
	STAS     float64 `json:"sta_s"`
}

// NewReport starts a report of flow f whose FO4 OpenSTA measured as fo4;
// the caller sets Model, whose FO4PS converts the report's delays.
func NewReport(f *Flow, fo4 FO4, bandPct float64) *Report {
	return &Report{
		Library:        f.Lib.Name,
		Liberty:        f.Lib.Source,
		Yosys:          f.Yosys.Version,
		STA:            f.STA.Version,
		Driver:         f.Driver.Name,
		DriverCapFF:    round(f.DriverCap*f.Lib.CapUnitFF, 4),
		OutputLoadFF:   round(f.OutputLoad*f.Lib.CapUnitFF, 4),
		Source:         string(f.Source()),
		RemovedCells:   len(f.Lib.Removed),
		FraigConflicts: f.FraigConflicts(),
		FO4:            FO4{RisePS: round(fo4.RisePS, 2), FallPS: round(fo4.FallPS, 2), PS: round(fo4.PS, 2)},
		BandPct:        bandPct,
		Units:          []UnitReport{},
		Skipped:        []Skipped{},
		OutsideBand:    []string{},
	}
}

// Add compares a unit's flow results with lsugen's analyses of the same
// design, unsized and sized, with the library's characterized gate table
// (lib) and with the textbook one, and appends the comparison. mappedArea
// and mappedCells are the area and the cell count of the unit's gates in
// library cells (MappedArea).
func (r *Report) Add(u *UnitResult, mapped *Timing, mappedArea float64, mappedCells int, kind, variant string, gates int, lib, textbook [2]*timing.Result, seconds float64) UnitReport {
	return r.add(u, mapped, mappedArea, mappedCells, kind, variant, gates, lib, textbook, [2]*timing.Result{}, seconds)
}

// add is Add with the characterized table's analyses at a fixed
// transition too (fixed; none when fixed[0] is nil).
func (r *Report) add(u *UnitResult, mapped *Timing, mappedArea float64, mappedCells int, kind, variant string, gates int, lib, textbook, fixed [2]*timing.Result, seconds float64) UnitReport {
	fo4 := r.FO4PS()
	flow := func(res Result) FlowReport {
		return FlowReport{
			DelayPS: round(res.DelayPS, 1), FO4: round(res.DelayPS/fo4, 2),
			Depth: res.Depth, Endpoint: res.Endpoint, Cells: res.Cells, Area: round(res.Area, 2),
			SynthS: round(res.Netlist.Seconds, 2), STAS: round(res.Timing.Seconds, 2),
		}
	}
	ur := UnitReport{
		Name: u.Name, Kind: kind, Variant: variant, Sequential: u.Clock != "", Gates: gates,
		Plain: flow(u.Plain), TimingDriven: flow(u.TimingDriven), TargetPS: u.TargetPS,
		Mapped: FlowReport{DelayPS: round(mapped.DelayPS, 1), FO4: round(mapped.DelayPS/fo4, 2), Depth: mapped.Depth,
			Endpoint: mapped.Endpoint, Cells: mappedCells, Area: round(mappedArea, 2), STAS: round(mapped.Seconds, 2)},
		Seconds: round(seconds, 2),
	}
	r.setEstimates(&ur, mapped.DelayPS, u.Plain.DelayPS, u.TimingDriven.DelayPS, lib, textbook, fixed)
	r.Units = append(r.Units, ur)
	return ur
}

// setEstimates sets ur's model figures from lsugen's analyses (see add)
// against the flows' delays in ps, and its band; a unit outside the band
// is added to OutsideBand.
func (r *Report) setEstimates(ur *UnitReport, mappedPS, plainPS, tdPS float64, lib, textbook, fixed [2]*timing.Result) {
	fo4 := r.FO4PS()
	plain, td := plainPS/fo4, tdPS/fo4
	estimate := func(unsized, sized float64, res [2]*timing.Result) ModelEstimate {
		return ModelEstimate{UnsizedFO4: round(unsized, 2), SizedFO4: round(sized, 2),
			UnsizedDepth: res[0].Depth, SizedDepth: res[1].Depth,
			UnsizedErrorPct: errorPct(unsized, plain), SizedErrorPct: errorPct(sized, td)}
	}
	ur.Lib = estimate(lib[0].DelayPS/fo4, lib[1].DelayPS/fo4, lib)
	ur.Lib.MappedErrorPct = errorPct(lib[0].DelayPS/fo4, mappedPS/fo4)
	ur.Textbook = estimate(textbook[0].FO4, textbook[1].FO4, textbook)
	ur.LibFixedSlew = nil
	if fixed[0] != nil {
		e := estimate(fixed[0].DelayPS/fo4, fixed[1].DelayPS/fo4, fixed)
		e.MappedErrorPct = errorPct(fixed[0].DelayPS/fo4, mappedPS/fo4)
		ur.LibFixedSlew = &e
	}
	r.setArea(ur, lib, textbook)
	ur.WithinBand = ur.Lib.SizedErrorPct != nil && math.Abs(*ur.Lib.SizedErrorPct) <= r.BandPct
	if !ur.WithinBand {
		r.OutsideBand = append(r.OutsideBand, ur.Name)
	}
}

func errorPct(model, ref float64) *float64 {
	if !(ref > 0) {
		return nil
	}
	// + 0 turns a rounded -0 into 0, so that no report shows "-0.0%".
	e := round(100*(model-ref)/ref, 1) + 0
	return &e
}

func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}

// JSON renders the report indented, with a final newline.
func (r *Report) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// WriteText prints the header, one line per unit and the summary.
func (r *Report) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "library   %s (%s)\n", r.Library, r.Liberty)
	fmt.Fprintf(w, "tools     yosys %s, OpenSTA %s\n", r.Yosys, r.STA)
	fmt.Fprintf(w, "source    %s; ABC: Yosys's default scripts, &fraig -x -C %d\n", r.Source, r.FraigConflicts)
	fmt.Fprintf(w, "driver    %s (input %.2f fF); output load %.2f fF per bit\n", r.Driver, r.DriverCapFF, r.OutputLoadFF)
	m := r.Model
	fmt.Fprintf(w, "FO4       %.2f ps, the library's (lsugen characterize: %s driving 4 copies of itself and their wire); every FO4 below is ps / this\n", m.FO4PS, m.Inverter)
	fmt.Fprintf(w, "          check: OpenSTA measures %.2f ps (rise %.2f, fall %.2f) on an FO4 chain of %s, %+.1f%% from it\n",
		r.FO4.PS, r.FO4.RisePS, r.FO4.FallPS, r.Driver, 100*(m.FO4PS-r.FO4.PS)/r.FO4.PS)
	fmt.Fprintf(w, "model     characterized from the library: tau %.2f ps, p_inv %.2f tau, wire load %q\n",
		m.TauPS, m.PInv, m.WireLoad)
	fmt.Fprintf(w, "          lib: the model with that gate table; textbook: lsugen's default table and wire model\n")
	fmt.Fprintf(w, "          mapped: lsugen's gates in those cells, timed by OpenSTA (against lib unsized); plain and td (timing-driven): Yosys + ABC\n\n")
	// Numbers right-aligned; names padded to one width so that they read
	// left-aligned.
	nw := len("unit")
	for _, u := range r.Units {
		nw = max(nw, len(u.Name))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\tgates\tmapped FO4\tlib unsized\terr\tplain FO4\terr\ttd cells\ttd ps\ttd FO4\tlib sized\terr\ttextbook sized\terr\ttime\t\n", nw, "unit")
	for _, u := range r.Units {
		mark := ""
		if !u.WithinBand {
			mark = " *"
		}
		fmt.Fprintf(tw, "%-*s\t%d\t%.2f\t%.2f\t%s\t%.2f\t%s\t%d\t%.1f\t%.2f\t%.2f\t%s%s\t%.2f\t%s\t%.1fs\t\n",
			nw, u.Name, u.Gates, u.Mapped.FO4, u.Lib.UnsizedFO4, pct(u.Lib.MappedErrorPct), u.Plain.FO4, pct(u.Lib.UnsizedErrorPct),
			u.TimingDriven.Cells, u.TimingDriven.DelayPS, u.TimingDriven.FO4,
			u.Lib.SizedFO4, pct(u.Lib.SizedErrorPct), mark, u.Textbook.SizedFO4, pct(u.Textbook.SizedErrorPct), u.Seconds)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := r.writeAreaText(w, nw); err != nil {
		return err
	}
	if err := r.writeStagesText(w); err != nil {
		return err
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(w, "skipped   %s (%d gates): %s\n", s.Name, s.Gates, s.Reason)
	}
	in := len(r.Units) - len(r.OutsideBand)
	fmt.Fprintf(w, "\nsized model (lib) within ±%g%% of the timing-driven flow: %d of %d units", r.BandPct, in, len(r.Units))
	if len(r.OutsideBand) > 0 {
		var out []string
		for _, u := range r.Units {
			if !u.WithinBand {
				out = append(out, fmt.Sprintf("%s (%s)", u.Name, pct(u.Lib.SizedErrorPct)))
			}
		}
		fmt.Fprintf(w, "; outside: %s", strings.Join(out, ", "))
	}
	fmt.Fprintln(w)
	return nil
}

// WriteMarkdown prints the units as a Markdown table (as in docs/crosscheck-timing.md): FO4
// figures in the library's FO4 (the textbook model's in its own),
// the timing-driven delay also in ps, ✗ after a sized error outside the
// band.
func (r *Report) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("| unit | gates | lsugen's gates in library cells | model unsized | error | flow plain | error | flow timing-driven | model sized | error | textbook sized | error |\n")
	bw.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, u := range r.Units {
		mark := ""
		if !u.WithinBand {
			mark = " ✗"
		}
		fmt.Fprintf(bw, "| %s | %d | %.2f | %.2f | %s | %.2f | %s | %.2f (%.0f ps) | %.2f | %s%s | %.2f | %s |\n",
			u.Name, u.Gates, u.Mapped.FO4, u.Lib.UnsizedFO4, pct(u.Lib.MappedErrorPct), u.Plain.FO4, pct(u.Lib.UnsizedErrorPct),
			u.TimingDriven.FO4, u.TimingDriven.DelayPS, u.Lib.SizedFO4, pct(u.Lib.SizedErrorPct), mark,
			u.Textbook.SizedFO4, pct(u.Textbook.SizedErrorPct))
	}
	return bw.Flush()
}

func pct(p *float64) string {
	if p == nil {
		return "n/a"
	}
	return fmt.Sprintf("%+.1f%%", *p)
}
