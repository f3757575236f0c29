package sta

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/timing/liberty"
)

// AreaReport is a unit's cell area in every view, memory macros left out
// of all of them (the flows keep the banks as black boxes): the three
// netlists' areas beside lsugen's estimates in NAND2 equivalents.
type AreaReport struct {
	// Mapped is lsugen's own gates in the characterized cells
	// (MappedVerilog), summed from the library's cell areas; Plain and
	// TimingDriven are Yosys's stat -liberty of the two flows.
	Mapped       AreaFigure `json:"mapped"`
	Plain        AreaFigure `json:"plain"`
	TimingDriven AreaFigure `json:"timing_driven"`
	// Lib is lsugen's area with the characterized gate table (its GE are
	// the library's NAND2 equivalents), Textbook with the default table
	// (GE from transistor counts).
	Lib      AreaEstimate `json:"lib"`
	Textbook AreaEstimate `json:"textbook"`
}

// AreaFigure is one netlist's area: in the library's area unit (µm² for
// sky130) and in the library's NAND2 equivalents (Area / the area of the
// characterized NAND2 cell, ModelTech.NAND2Area).
type AreaFigure struct {
	Area float64 `json:"area"`
	GE   float64 `json:"ge"`
}

// AreaEstimate is lsugen's area of a unit in NAND2 equivalents, unsized
// (the gates as built) and sized (with the inverters the sized model puts
// in its buffer trees), and the errors, 100·(model − flow)/flow against
// the flows' GE (null when the flow's area is 0):
//   - MappedErrorPct, unsized against Mapped: the same gates, each in its
//     library cell, so it measures the gate table's areas alone (0 for
//     the characterized table up to rounding);
//   - PlainErrorPct, unsized against Plain: what area-oriented synthesis
//     makes of the same logic;
//   - TimingDrivenErrorPct, sized against TimingDriven: both buffer and
//     size for speed.
type AreaEstimate struct {
	UnsizedGE            float64  `json:"unsized_ge"`
	SizedGE              float64  `json:"sized_ge"`
	MappedErrorPct       *float64 `json:"mapped_error_pct"`
	PlainErrorPct        *float64 `json:"plain_error_pct"`
	TimingDrivenErrorPct *float64 `json:"timing_driven_error_pct"`
}

// MappedArea is the area of MappedVerilog's netlist of d in lib's unit
// and its cell count: the sum over d's gates of the area of the cell ch
// chose for the gate's kind (core and inverter for a composite kind).
// Memory macros are not counted.
func MappedArea(d *netlist.Design, ch *liberty.Characterization, lib *liberty.Library) (area float64, cells int, err error) {
	if len(ch.Kinds) != netlist.NumKinds {
		return 0, 0, fmt.Errorf("sta: characterization of %d kinds, want %d", len(ch.Kinds), netlist.NumKinds)
	}
	for k, cnt := range d.Stats() {
		if cnt == 0 {
			continue
		}
		kf := &ch.Kinds[k]
		a, err := kindCellArea(kf, lib)
		if err != nil {
			return 0, 0, err
		}
		area += float64(cnt) * a
		cells += cnt
		if kf.Inverter != "" {
			cells += cnt
		}
	}
	return area, cells, nil
}

// NAND2Area is the area in lib's unit of the cell ch chose for NAND2,
// the library's NAND2 equivalent.
func NAND2Area(ch *liberty.Characterization, lib *liberty.Library) (float64, error) {
	if len(ch.Kinds) != netlist.NumKinds {
		return 0, fmt.Errorf("sta: characterization of %d kinds, want %d", len(ch.Kinds), netlist.NumKinds)
	}
	a, err := kindCellArea(&ch.Kinds[netlist.NAND2], lib)
	if err == nil && !(a > 0) {
		err = fmt.Errorf("sta: library %s: the NAND2 cell %s has no area", lib.Name, ch.Kinds[netlist.NAND2].Cell)
	}
	return a, err
}

// kindCellArea is the area of kf's cell (plus its inverter).
func kindCellArea(kf *liberty.KindFit, lib *liberty.Library) (float64, error) {
	a := 0.0
	for _, name := range []string{kf.Core, kf.Inverter} {
		if name == "" {
			continue
		}
		c, ok := lib.Cells[name]
		if !ok {
			return 0, fmt.Errorf("sta: library %s has no cell %s (the %s cell)", lib.Name, name, kf.Kind)
		}
		a += c.Area
	}
	return a, nil
}

// setArea sets ur.Area from the flows' areas in ur (Mapped.Area, Plain.Area,
// TimingDriven.Area) and lsugen's analyses; none when the report has no
// NAND2 area to convert by.
func (r *Report) setArea(ur *UnitReport, lib, textbook [2]*timing.Result) {
	ur.Area = nil
	nand2 := r.Model.NAND2Area
	if !(nand2 > 0) {
		return
	}
	fig := func(area float64) AreaFigure { return AreaFigure{Area: round(area, 2), GE: round(area/nand2, 1)} }
	a := &AreaReport{Mapped: fig(ur.Mapped.Area), Plain: fig(ur.Plain.Area), TimingDriven: fig(ur.TimingDriven.Area)}
	mapped, plain, td := ur.Mapped.Area/nand2, ur.Plain.Area/nand2, ur.TimingDriven.Area/nand2
	// Logic only: the flows leave the memory macros out.
	logic := func(res *timing.Result) float64 { return res.AreaGE - res.MemoryAreaGE }
	estimate := func(res [2]*timing.Result) AreaEstimate {
		u, s := logic(res[0]), logic(res[1])
		return AreaEstimate{UnsizedGE: round(u, 1), SizedGE: round(s, 1),
			MappedErrorPct: errorPct(u, mapped), PlainErrorPct: errorPct(u, plain), TimingDrivenErrorPct: errorPct(s, td)}
	}
	a.Lib, a.Textbook = estimate(lib), estimate(textbook)
	ur.Area = a
}

// areaUnits are the units with an area report.
func (r *Report) areaUnits() []UnitReport {
	var out []UnitReport
	for _, u := range r.Units {
		if u.Area != nil {
			out = append(out, u)
		}
	}
	return out
}

// WriteAreaMarkdown prints the units' areas as a Markdown table: the
// three netlists in the library's unit and in its NAND2 equivalents,
// lsugen's estimates in GE with their errors (unsized against lsugen's
// gates in library cells and against the plain flow, sized against the
// timing-driven flow). It writes nothing when no unit has an area.
func (r *Report) WriteAreaMarkdown(w io.Writer) error {
	units := r.areaUnits()
	if len(units) == 0 {
		return nil
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("| unit | lsugen's gates in library cells | flow plain | flow timing-driven | model unsized GE | error (gates; plain) | model sized GE | error | textbook unsized GE | error (gates; plain) | textbook sized GE | error |\n")
	bw.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, u := range units {
		a := u.Area
		fmt.Fprintf(bw, "| %s | %s | %s | %s | %.1f | %s; %s | %.1f | %s | %.1f | %s; %s | %.1f | %s |\n", u.Name,
			areaCell(a.Mapped), areaCell(a.Plain), areaCell(a.TimingDriven),
			a.Lib.UnsizedGE, pct(a.Lib.MappedErrorPct), pct(a.Lib.PlainErrorPct), a.Lib.SizedGE, pct(a.Lib.TimingDrivenErrorPct),
			a.Textbook.UnsizedGE, pct(a.Textbook.MappedErrorPct), pct(a.Textbook.PlainErrorPct), a.Textbook.SizedGE, pct(a.Textbook.TimingDrivenErrorPct))
	}
	return bw.Flush()
}

// areaCell is "1234.5 GE (4633.9)": NAND2 equivalents, the library's unit
// in parentheses.
func areaCell(f AreaFigure) string { return fmt.Sprintf("%.1f GE (%.1f)", f.GE, f.Area) }

// writeAreaText prints the area table of WriteText.
func (r *Report) writeAreaText(w io.Writer, nw int) error {
	units := r.areaUnits()
	if len(units) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\narea      in the library's NAND2 equivalents (%s, %g %s per GE; memory macros left out); errors: unsized against mapped (the same gates) and plain, sized against td\n",
		r.Model.Cells[netlist.NAND2.String()], r.Model.NAND2Area, areaUnit(r.Library))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\tmapped GE\tarea\tplain GE\tarea\ttd GE\tarea\tlib unsized\terr mapped\terr plain\tlib sized\terr td\ttextbook unsized\terr mapped\terr plain\ttextbook sized\terr td\t\n", nw, "unit")
	for _, u := range units {
		a := u.Area
		fmt.Fprintf(tw, "%-*s\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%s\t%s\t%.1f\t%s\t%.1f\t%s\t%s\t%.1f\t%s\t\n", nw, u.Name,
			a.Mapped.GE, a.Mapped.Area, a.Plain.GE, a.Plain.Area, a.TimingDriven.GE, a.TimingDriven.Area,
			a.Lib.UnsizedGE, pct(a.Lib.MappedErrorPct), pct(a.Lib.PlainErrorPct), a.Lib.SizedGE, pct(a.Lib.TimingDrivenErrorPct),
			a.Textbook.UnsizedGE, pct(a.Textbook.MappedErrorPct), pct(a.Textbook.PlainErrorPct), a.Textbook.SizedGE, pct(a.Textbook.TimingDrivenErrorPct))
	}
	return tw.Flush()
}

// areaUnit names the library's area unit: the liberty format gives
// none, so µm² for the libraries known to use it, else "area units".
func areaUnit(library string) string {
	if strings.HasPrefix(library, "sky130_") || strings.HasPrefix(library, "gf180mcu_") {
		return "µm²"
	}
	return "area units"
}

// writeAreaSummary gives the range of each area error over the units.
func (r *Report) writeAreaSummary(w *bufio.Writer) {
	units := r.areaUnits()
	if len(units) == 0 {
		return
	}
	span := func(e func(*AreaReport) *float64) string {
		lo, hi, n := math.Inf(1), math.Inf(-1), 0
		for _, u := range units {
			if p := e(u.Area); p != nil {
				lo, hi, n = math.Min(lo, *p), math.Max(hi, *p), n+1
			}
		}
		if n == 0 {
			return "n/a"
		}
		if n == 1 {
			return fmt.Sprintf("%+.1f%% (1 unit)", lo)
		}
		return fmt.Sprintf("%+.1f%% to %+.1f%% (%d units)", lo, hi, n)
	}
	fmt.Fprintf(w, "Area errors, from the least to the greatest, of %d units:\n\n", len(units))
	for _, row := range []struct {
		name string
		est  func(*AreaReport) *AreaEstimate
	}{{"the characterized model", func(a *AreaReport) *AreaEstimate { return &a.Lib }}, {"the textbook model", func(a *AreaReport) *AreaEstimate { return &a.Textbook }}} {
		fmt.Fprintf(w, "- %s: unsized against lsugen's gates in library cells %s; unsized against the plain flow %s; sized against the timing-driven flow %s;\n", row.name,
			span(func(a *AreaReport) *float64 { return row.est(a).MappedErrorPct }),
			span(func(a *AreaReport) *float64 { return row.est(a).PlainErrorPct }),
			span(func(a *AreaReport) *float64 { return row.est(a).TimingDrivenErrorPct }))
	}
	fmt.Fprintf(w, "- the plain flow against lsugen's gates in library cells %s.\n\n",
		span(func(a *AreaReport) *float64 { return errorPct(a.Plain.GE, a.Mapped.GE) }))
}
