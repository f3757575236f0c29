package sta

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/lsugen/lsugen/timing"
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
	// FO4 is the library's FO4 delay as measured.
	FO4 FO4 `json:"fo4"`
	// BandPct is the tolerance of the sized model against the
	// timing-driven flow, in percent.
	BandPct float64      `json:"band_pct"`
	Units   []UnitReport `json:"units"`
	// Skipped lists units not run (too large for the --max-gates limit).
	Skipped []Skipped `json:"skipped"`
	// OutsideBand names the units whose sized error exceeds BandPct (or
	// cannot be computed).
	OutsideBand []string `json:"outside_band"`
}

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
	// UnsizedFO4 and SizedFO4 are lsugen's estimates (timing.Analyze with
	// the default options in Mode Unsized and Sized), UnsizedDepth and
	// SizedDepth the gate levels of their critical paths.
	UnsizedFO4   float64 `json:"unsized_fo4"`
	SizedFO4     float64 `json:"sized_fo4"`
	UnsizedDepth int     `json:"unsized_depth"`
	SizedDepth   int     `json:"sized_depth"`
	// SizedErrorPct is 100·(SizedFO4 − timing-driven FO4) / timing-driven
	// FO4, UnsizedErrorPct the same of UnsizedFO4 against the plain flow;
	// null when the flow's delay is 0.
	SizedErrorPct   *float64 `json:"sized_error_pct"`
	UnsizedErrorPct *float64 `json:"unsized_error_pct"`
	// WithinBand is |SizedErrorPct| ≤ the report's BandPct.
	WithinBand bool `json:"within_band"`
	// Seconds is the unit's wall time through both flows.
	Seconds float64 `json:"seconds"`
}

// FlowReport is one flow's result for a unit.
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

// NewReport starts a report of flow f whose FO4 was measured as fo4.
func NewReport(f *Flow, fo4 FO4, bandPct float64) *Report {
	return &Report{
		Library:      f.Lib.Name,
		Liberty:      f.Lib.Source,
		Yosys:        f.Yosys.Version,
		STA:          f.STA.Version,
		Driver:       f.Driver.Name,
		DriverCapFF:  round(f.DriverCap*f.Lib.CapUnitFF, 4),
		OutputLoadFF: round(f.OutputLoad*f.Lib.CapUnitFF, 4),
		Source:       string(f.Source()),
		RemovedCells: len(f.Lib.Removed),
		FO4:          FO4{RisePS: round(fo4.RisePS, 2), FallPS: round(fo4.FallPS, 2), PS: round(fo4.PS, 2)},
		BandPct:      bandPct,
		Units:        []UnitReport{},
		Skipped:      []Skipped{},
		OutsideBand:  []string{},
	}
}

// Add compares a unit's flow results with lsugen's unsized and sized
// analyses of the same design and appends the comparison.
func (r *Report) Add(u *UnitResult, kind, variant string, gates int, unsized, sized *timing.Result, seconds float64) UnitReport {
	fo4 := r.FO4.PS
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
		UnsizedFO4: unsized.FO4, SizedFO4: sized.FO4, UnsizedDepth: unsized.Depth, SizedDepth: sized.Depth,
		Seconds: round(seconds, 2),
	}
	// Errors from the unrounded flow delays.
	ur.SizedErrorPct = errorPct(sized.FO4, u.TimingDriven.DelayPS/fo4)
	ur.UnsizedErrorPct = errorPct(unsized.FO4, u.Plain.DelayPS/fo4)
	ur.WithinBand = ur.SizedErrorPct != nil && math.Abs(*ur.SizedErrorPct) <= r.BandPct
	if !ur.WithinBand {
		r.OutsideBand = append(r.OutsideBand, u.Name)
	}
	r.Units = append(r.Units, ur)
	return ur
}

func errorPct(model, ref float64) *float64 {
	if !(ref > 0) {
		return nil
	}
	e := round(100*(model-ref)/ref, 1)
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
	fmt.Fprintf(w, "source    %s\n", r.Source)
	fmt.Fprintf(w, "driver    %s (input %.2f fF); output load %.2f fF per bit\n", r.Driver, r.DriverCapFF, r.OutputLoadFF)
	fmt.Fprintf(w, "FO4       %.2f ps (rise %.2f, fall %.2f): %s driving 4 copies of itself\n\n", r.FO4.PS, r.FO4.RisePS, r.FO4.FallPS, r.Driver)
	// Numbers right-aligned; names padded to one width so that they read
	// left-aligned.
	nw := len("unit")
	for _, u := range r.Units {
		nw = max(nw, len(u.Name))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\tgates\tcells\tplain ps\tplain FO4\ttd cells\ttd ps\ttd FO4\tunsized FO4\tsized FO4\tunsized err\tsized err\ttime\t\n", nw, "unit")
	for _, u := range r.Units {
		mark := ""
		if !u.WithinBand {
			mark = " *"
		}
		fmt.Fprintf(tw, "%-*s\t%d\t%d\t%.1f\t%.2f\t%d\t%.1f\t%.2f\t%.2f\t%.2f\t%s\t%s%s\t%.1fs\t\n",
			nw, u.Name, u.Gates, u.Plain.Cells, u.Plain.DelayPS, u.Plain.FO4, u.TimingDriven.Cells, u.TimingDriven.DelayPS, u.TimingDriven.FO4,
			u.UnsizedFO4, u.SizedFO4, pct(u.UnsizedErrorPct), pct(u.SizedErrorPct), mark, u.Seconds)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(w, "skipped   %s (%d gates): %s\n", s.Name, s.Gates, s.Reason)
	}
	in := len(r.Units) - len(r.OutsideBand)
	fmt.Fprintf(w, "\nsized model within ±%g%% of the timing-driven flow: %d of %d units", r.BandPct, in, len(r.Units))
	if len(r.OutsideBand) > 0 {
		var out []string
		for _, u := range r.Units {
			if !u.WithinBand {
				out = append(out, fmt.Sprintf("%s (%s)", u.Name, pct(u.SizedErrorPct)))
			}
		}
		fmt.Fprintf(w, "; outside: %s", strings.Join(out, ", "))
	}
	fmt.Fprintln(w)
	return nil
}

func pct(p *float64) string {
	if p == nil {
		return "n/a"
	}
	return fmt.Sprintf("%+.1f%%", *p)
}
