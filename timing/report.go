package timing

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/lsugen/lsugen/netlist"
)

// UnitReport is the timing of one spec unit, as `lsugen timing` reports it.
// Every figure is in the one model the embedded Result's Mode names; for a
// pipelined or clocked unit with a period, its FO4 (and Tau, DelayPS,
// CriticalPath) is its worst stage: the slowest register-to-register path
// with the setup time, the period the unit needs.
type UnitReport struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`    // the spec block type, e.g. "hash"
	Variant string `json:"variant"` // e.g. "bitvector_xor, configurable"
	// Cycles is the number of clock cycles of ClockFO4 the critical path
	// needs, when a clock was given.
	Cycles []ClockCycles `json:"cycles,omitempty"`
	// Pipeline is the clocking of a pipelined unit (clock_fo4) or of a
	// clocked unit with a latency of its own; nil for a combinational one.
	Pipeline *PipelineReport `json:"pipeline,omitempty"`
	// FO4PS is the library's FO4 delay in ps (Options.FO4PS of the
	// characterized library), by which every *_ps figure of the report is
	// converted; 0 without a library.
	FO4PS float64 `json:"fo4_ps,omitempty"`
	fo4ps float64 // FO4PS unrounded, which converts
	*Result
}

// PipelineReport is the clocking of a pipelined or clocked unit. Its
// stage delays are timed in the report's model (UnitReport.Mode); the
// model that placed the registers is PlacedUnder, and may differ.
type PipelineReport struct {
	// PlacedUnder is the timing model that placed the registers at
	// ClockFO4 (the spec's timing_mode); "" for a unit without a period.
	PlacedUnder string `json:"placed_under,omitempty"`
	// ClockFO4 is the period the registers were placed at; ClockPS, and
	// every other *_ps figure, the same at the library's FO4 delay (with
	// --liberty only).
	ClockFO4 float64 `json:"clock_fo4,omitempty"`
	ClockPS  float64 `json:"clock_ps,omitempty"`
	// LatencyCycles is L: an operation's answer comes L cycles after it.
	LatencyCycles int `json:"latency_cycles"`
	// A variable-latency unit (the speculative coalescer at clock_fo4)
	// answers fast warps in FastLatencyCycles and the others in
	// LatencyCycles; its stages are not one chain, so it has no
	// StageFO4, only WorstStageFO4.
	FastLatencyCycles int `json:"fast_latency_cycles,omitempty"`
	// StageFO4 is each of a fixed-latency pipeline's L stages: the worst
	// arrival at the registers that end it, plus the setup time.
	StageFO4 []float64 `json:"stage_fo4,omitempty"`
	StagePS  []float64 `json:"stage_ps,omitempty"`
	// WorstStageFO4 is the slowest register-to-register path with the
	// setup time (the largest of StageFO4 where there are stages): the
	// unit's critical path.
	WorstStageFO4 float64 `json:"worst_stage_fo4,omitempty"`
	WorstStagePS  float64 `json:"worst_stage_ps,omitempty"`
}

// Variable is what the composer of a variable-latency unit (package
// compose) knows of it, kept beside its design: the latency of its fast
// answers (its slow answers' is the design's Pipeline.Latency). Its
// slowest stage the report times itself, in the report's model.
type Variable struct {
	FastLatency int
}

// DefaultReportOptions is the model of every lsugen command that times
// (timing, its sweep, profile) unless told otherwise: DefaultOptions,
// sized, the model clock_fo4 places registers under by default, so that
// a unit reads the same FO4 in each.
func DefaultReportOptions() Options {
	o := DefaultOptions()
	o.Mode = Sized
	return o
}

// NewUnitReport times the unit d under opt: its critical path, area and
// named paths (Analyze), and for a pipelined or clocked unit with a
// period its stages, the worst of them its critical path; v is the
// composer's measure of a variable-latency unit, nil for others. With a
// library (opt.Tech) every FO4 figure has its ps beside it. lsugen timing
// and the golden timing reports are made by it.
func NewUnitReport(name, kind, variant string, d *netlist.Design, v *Variable, opt Options) (UnitReport, error) {
	res, err := Analyze(d, opt)
	if err != nil {
		return UnitReport{}, err
	}
	u := UnitReport{Name: name, Kind: kind, Variant: variant, Result: res}
	if err := u.addPipeline(d, v, opt); err != nil {
		return UnitReport{}, err
	}
	if opt.Tech != nil {
		u.fo4ps = OptionsFor(opt.Tech).FO4PS()
		u.FO4PS = round4(u.fo4ps)
		u.DelayPS = u.ps(u.FO4)
		for i := range u.Paths {
			u.Paths[i].DelayPS = u.ps(u.Paths[i].FO4)
		}
		if p := u.Pipeline; p != nil {
			p.ClockPS, p.WorstStagePS = u.ps(p.ClockFO4), u.ps(p.WorstStageFO4)
			for _, t := range p.StageFO4 {
				p.StagePS = append(p.StagePS, u.ps(t))
			}
		}
	}
	return u, nil
}

// ps converts fo4 FO4 to ps with the report's library FO4; 0 without one.
func (u *UnitReport) ps(fo4 float64) float64 {
	if u.fo4ps == 0 { // a report read back from JSON
		return round4(fo4 * u.FO4PS)
	}
	return round4(fo4 * u.fo4ps)
}

// addPipeline fills the pipeline of a pipelined or clocked unit's report
// and, where it has a period, makes its worst stage the critical path.
func (u *UnitReport) addPipeline(d *netlist.Design, v *Variable, opt Options) error {
	var p *PipelineReport
	switch {
	case d.Pipeline != nil && v != nil:
		p = &PipelineReport{PlacedUnder: d.Pipeline.Mode, ClockFO4: d.Pipeline.PeriodFO4, LatencyCycles: d.Pipeline.Latency, FastLatencyCycles: v.FastLatency}
	case d.Pipeline != nil:
		st, err := StageDelays(d, opt)
		if err != nil {
			return err
		}
		p = &PipelineReport{PlacedUnder: d.Pipeline.Mode, ClockFO4: d.Pipeline.PeriodFO4, LatencyCycles: d.Pipeline.Latency, StageFO4: st}
	case d.Protocol != nil:
		p = &PipelineReport{LatencyCycles: d.Protocol.Latency}
		if d.Protocol.PeriodFO4 > 0 {
			p.PlacedUnder, p.ClockFO4 = d.Protocol.Mode, d.Protocol.PeriodFO4
		}
	default:
		return nil
	}
	u.Pipeline = p
	if p.ClockFO4 == 0 {
		return nil
	}
	w, err := SlowestPath(d, opt)
	if err != nil {
		return err
	}
	for _, t := range p.StageFO4 {
		w = max(w, t)
	}
	p.WorstStageFO4 = w
	u.endWithSetup(w)
	return nil
}

// endWithSetup makes the critical path the worst stage of fo4: a path
// that ends at a register's D input gets a last step for the setup time,
// and the path's delay becomes the stage's.
func (u *UnitReport) endWithSetup(fo4 float64) {
	r := *u.Result // the analysis's result stays as it was
	u.Result = &r
	if fo4 <= r.FO4 {
		return
	}
	if n := len(r.CriticalPath); n > 0 && strings.HasSuffix(r.Endpoint, ".D") {
		last := r.CriticalPath[n-1]
		r.CriticalPath = append(slices.Clone(r.CriticalPath), Step{Gate: r.Endpoint, Cell: netlist.DFF.String(), From: last.Net, Net: last.Net,
			Fanout: last.Fanout, Load: last.Load, Delay: round4(fo4 - last.Arrival), Arrival: fo4})
	}
	r.FO4, r.Tau = fo4, round4(fo4*r.TauPerFO4)
}

// ClockCycles is the cycle count of a unit at one clock period (in ps
// too, with a library).
type ClockCycles struct {
	ClockFO4 float64 `json:"clock_fo4"`
	ClockPS  float64 `json:"clock_ps,omitempty"`
	// Cycles is the latency of the unit clock_fo4 builds at this period
	// (a variable-latency unit's slow answers') when Built, else the
	// critical path's ⌈FO4 / period⌉.
	Cycles int `json:"cycles"`
	// FastCycles is a variable-latency unit's fast answers' latency; 0
	// for any other.
	FastCycles int `json:"fast_cycles,omitempty"`
	// Built tells whether Cycles is the latency of a unit built at the
	// period (package flow's AddLatencies), not ⌈FO4 / period⌉.
	Built bool `json:"built"`
}

// AddCycles sets the cycles the unit's critical path needs at each clock
// period, in FO4: ⌈FO4 / period⌉ (package flow's AddLatencies replaces
// them with the latencies of the units built at those periods).
func (u *UnitReport) AddCycles(periodsFO4 []float64) {
	u.Cycles = nil
	for _, p := range periodsFO4 {
		u.Cycles = append(u.Cycles, ClockCycles{ClockFO4: p, ClockPS: u.ps(p), Cycles: CyclesAt(u.FO4, p)})
	}
}

// CyclesAt is the number of whole clock periods of clockFO4 that a path of
// fo4 needs: ceil(fo4 / clock), at least 1. The clock must be positive
// and finite (the CLI refuses other --clock periods); a count beyond
// maxCycles, or a NaN one, is maxCycles, never a wrapped integer.
func CyclesAt(fo4, clockFO4 float64) int {
	q := math.Ceil(fo4/clockFO4 - 1e-9)
	if !(q <= maxCycles) { // also NaN
		return maxCycles
	}
	return max(1, int(q))
}

// maxCycles bounds CyclesAt: 2^53, the largest count a float64 (and a
// JSON reader) holds exactly.
const maxCycles = 1 << 53

// Report is the JSON document of `lsugen timing --json`.
type Report struct {
	Units []UnitReport `json:"units"`
}

// JSON renders the report deterministically, indented, with a final newline.
func (r *Report) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// WriteTable prints one line per unit: its critical path (a pipelined
// unit's worst stage), in ps too where a library is known, its area and
// gates; then the pipelines, named paths and storage of the units that
// have them.
func (r *Report) WriteTable(w io.Writer) error {
	// Text columns left, numbers right.
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "unit\tkind\tvariant\t    FO4\tlevels\t  area GE\ttransistors\t  gates"
	withPS := len(r.Units) > 0 && r.Units[0].FO4PS > 0
	if withPS {
		head = "unit\tkind\tvariant\t    FO4\t     ps\tlevels\t  area GE\ttransistors\t  gates"
	}
	if len(r.Units) > 0 {
		for _, c := range r.Units[0].Cycles {
			head += fmt.Sprintf("\t@%.4g FO4", c.ClockFO4)
			if withPS {
				head += fmt.Sprintf(" (%.0f ps)", c.ClockPS)
			}
		}
	}
	fmt.Fprintln(tw, head)
	for _, u := range r.Units {
		if withPS {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%7.2f\t%7.1f\t%6d\t%9.1f\t%11d\t%7d", u.Name, u.Kind, u.Variant, u.FO4, u.DelayPS, u.Depth, u.AreaGE, u.Transistors, u.Gates)
		} else {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%7.2f\t%6d\t%9.1f\t%11d\t%7d", u.Name, u.Kind, u.Variant, u.FO4, u.Depth, u.AreaGE, u.Transistors, u.Gates)
		}
		for _, c := range u.Cycles {
			fmt.Fprintf(tw, "\t%s", c.String())
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Units) > 0 && len(r.Units[0].Cycles) > 0 {
		fmt.Fprintln(w, "@ period: the latency of the unit clock_fo4 builds at that period (F/S: a variable-latency unit's fast and slow answers);")
		fmt.Fprintln(w, "~N: ⌈FO4 / period⌉ where none is built (a clocked unit, a period outside 4..10000 FO4, or a unit that cannot be cut at it)")
	}
	return r.writeDetails(w)
}

// String is the table's cell: "2 cycles", "1/2 cycles" for a
// variable-latency unit's fast and slow answers, "~3 cycles" for the
// critical path's ⌈FO4 / period⌉ where no unit was built.
func (c ClockCycles) String() string {
	switch {
	case !c.Built:
		return fmt.Sprintf("~%d cycles", c.Cycles)
	case c.FastCycles > 0:
		return fmt.Sprintf("%d/%d cycles", c.FastCycles, c.Cycles)
	}
	return fmt.Sprintf("%d cycles", c.Cycles)
}

// fo4 prints a delay in FO4, and in ps beside it where a library is known.
func (u *UnitReport) fo4(f float64) string {
	if u.FO4PS > 0 {
		return fmt.Sprintf("%.2f FO4 (%.1f ps)", f, u.ps(f))
	}
	return fmt.Sprintf("%.2f FO4", f)
}

// period prints a clock period given in FO4, and in ps where a library is
// known.
func (u *UnitReport) period(f float64) string {
	if u.FO4PS > 0 {
		return fmt.Sprintf("%.4g FO4 (%.1f ps)", f, u.ps(f))
	}
	return fmt.Sprintf("%.4g FO4", f)
}

// pipelineLine is the detail line of a pipelined or clocked unit: its
// latency, its period and the model that placed its registers, and its
// stages (the worst one is the unit's FO4).
func (u *UnitReport) pipelineLine() string {
	p := u.Pipeline
	at := ""
	if p.ClockFO4 > 0 {
		at = fmt.Sprintf("\tat %s, registers placed %s", u.period(p.ClockFO4), p.PlacedUnder)
	}
	switch {
	case p.FastLatencyCycles > 0:
		lat := fmt.Sprintf("%d cycles fast, %d slow", p.FastLatencyCycles, p.LatencyCycles)
		if p.FastLatencyCycles == p.LatencyCycles {
			lat = fmt.Sprintf("%d cycles, fast or slow", p.LatencyCycles)
		}
		return fmt.Sprintf("  pipeline\t%s%s\tvariable latency, worst stage %s\n", lat, at, u.fo4(p.WorstStageFO4))
	case len(p.StageFO4) > 0:
		st := make([]string, len(p.StageFO4))
		for i, t := range p.StageFO4 {
			st[i] = fmt.Sprintf("%.2f", t)
		}
		stages := strings.Join(st, ", ") + " FO4"
		if u.FO4PS > 0 {
			for i, t := range p.StagePS {
				st[i] = fmt.Sprintf("%.1f", t)
			}
			stages += " (" + strings.Join(st, ", ") + " ps)"
		}
		return fmt.Sprintf("  pipeline\t%s%s\tstages %s, worst %s\n", cyclesWord(p.LatencyCycles), at, stages, u.fo4(p.WorstStageFO4))
	case p.ClockFO4 > 0:
		return fmt.Sprintf("  latency\t%s%s\tworst register-to-register stage %s\n", cyclesWord(p.LatencyCycles), at, u.fo4(p.WorstStageFO4))
	}
	return fmt.Sprintf("  latency\t%s\n", cyclesWord(p.LatencyCycles))
}

// cyclesWord is "1 cycle" or "N cycles".
func cyclesWord(n int) string {
	if n == 1 {
		return "1 cycle"
	}
	return fmt.Sprintf("%d cycles", n)
}

// writeDetails prints, under the table, the pipelines, the named paths
// (delay, gates, area) and the storage of the units that have them.
func (r *Report) writeDetails(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, u := range r.Units {
		if len(u.Paths) == 0 && len(u.Storage) == 0 && u.Pipeline == nil {
			continue
		}
		fmt.Fprintf(tw, "\n%s:\n", u.Name)
		if u.Pipeline != nil {
			fmt.Fprint(tw, u.pipelineLine())
		}
		for _, p := range u.Paths {
			delay := fmt.Sprintf("%7.2f FO4", p.FO4)
			if u.FO4PS > 0 {
				delay += fmt.Sprintf(" %9.1f ps", p.DelayPS)
			}
			cells := strings.Join(p.Cells, " ")
			if len(p.Cells) > 6 {
				cells = fmt.Sprintf("%s ... %s (%d stages)", strings.Join(p.Cells[:2], " "), strings.Join(p.Cells[len(p.Cells)-2:], " "), len(p.Cells))
			}
			fmt.Fprintf(tw, "  path %s\t%s\t%7d gates\t%9.1f GE\t%s\t%s\n", p.Name, delay, p.Gates, p.AreaGE, cells, p.Doc)
		}
		if len(u.Paths) > 1 {
			fmt.Fprintf(tw, "  paths together\t\t%7d gates\t%9.1f GE\ta path's gates: its logic between its start and end points, no flip-flops; paths may share gates, here counted once\n", u.PathsGates, u.PathsAreaGE)
		}
		for _, s := range u.Storage {
			fmt.Fprintf(tw, "  storage %s\t%7d bits\t(%s bytes)\t%s\n", s.Name, s.Bits, bytesOf(s.Bits), s.Doc)
		}
		if len(u.Storage) > 0 {
			fmt.Fprintf(tw, "  storage total\t%7d bits\t(%s bytes)\tall flip-flops\n", u.StorageBits, bytesOf(u.StorageBits))
		}
	}
	return tw.Flush()
}

// bytesOf prints bits/8, with a fraction when bits is not a whole number
// of bytes.
func bytesOf(bits int) string {
	if bits%8 == 0 {
		return fmt.Sprint(bits / 8)
	}
	return fmt.Sprintf("%.3f", float64(bits)/8)
}
