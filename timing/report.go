package timing

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/lsugen/lsugen/netlist"
)

// UnitReport is the timing of one spec unit, as `lsugen timing` reports it.
type UnitReport struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`    // the spec block type, e.g. "hash"
	Variant string `json:"variant"` // e.g. "bitvector_xor, configurable"
	// Cycles is the number of clock cycles of ClockFO4 the critical path
	// needs, when a clock was given.
	Cycles []ClockCycles `json:"cycles,omitempty"`
	// A unit pipelined at clock_fo4: the period, the timing model that
	// placed its registers, its latency L in cycles and each of its L
	// stages' delay in FO4 under that model (each at most ClockFO4).
	ClockFO4      float64   `json:"clock_fo4,omitempty"`
	TimingMode    string    `json:"timing_mode,omitempty"`
	LatencyCycles int       `json:"latency_cycles,omitempty"`
	StageFO4      []float64 `json:"stage_fo4,omitempty"`
	// A variable-latency unit (the speculative coalescer at clock_fo4)
	// answers fast warps in FastLatencyCycles and the others in
	// LatencyCycles; its stages are not one chain, so instead of
	// StageFO4 it reports its slowest register-to-register path. A
	// clocked unit with a protocol of its own (the shared memory) states
	// LatencyCycles, and at its clock_fo4 the same slowest path.
	FastLatencyCycles int     `json:"fast_latency_cycles,omitempty"`
	WorstStageFO4     float64 `json:"worst_stage_fo4,omitempty"`
	*Result
}

// Variable is what the composer of a variable-latency unit (package
// compose) measured of it, kept beside its design: the latency of its fast
// answers (its slow answers' is the design's Pipeline.Latency) and its
// slowest register-to-register path, with clock-to-Q and setup.
type Variable struct {
	FastLatency   int
	WorstStageFO4 float64
}

// AddPipeline fills the pipeline fields of a pipelined unit's report
// from its design, timing its stages under the model that cut them; v
// is the composer's measure of a variable-latency unit, nil for others.
func (u *UnitReport) AddPipeline(d *netlist.Design, v *Variable) error {
	if pr := d.Protocol; pr != nil {
		u.LatencyCycles = pr.Latency
		if pr.PeriodFO4 > 0 {
			w, err := SlowestPath(d, PipelineOptions(pr.Mode))
			if err != nil {
				return err
			}
			u.ClockFO4, u.TimingMode, u.WorstStageFO4 = pr.PeriodFO4, pr.Mode, w
		}
	}
	p := d.Pipeline
	if p == nil {
		return nil
	}
	if v != nil {
		u.ClockFO4, u.TimingMode, u.LatencyCycles = p.PeriodFO4, p.Mode, p.Latency
		u.FastLatencyCycles, u.WorstStageFO4 = v.FastLatency, round4(v.WorstStageFO4)
		return nil
	}
	st, err := StageDelays(d, PipelineOptions(p.Mode))
	if err != nil {
		return err
	}
	u.ClockFO4, u.TimingMode, u.LatencyCycles, u.StageFO4 = p.PeriodFO4, p.Mode, p.Latency, st
	return nil
}

// ClockCycles is the cycle count of a unit at one clock period.
type ClockCycles struct {
	ClockFO4 float64 `json:"clock_fo4"`
	Cycles   int     `json:"cycles"`
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

// WriteTable prints one line per unit.
func (r *Report) WriteTable(w io.Writer) error {
	// Text columns left, numbers right.
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "unit\tkind\tvariant\t    FO4\tlevels\t  area GE\ttransistors\t  gates"
	withPS := len(r.Units) > 0 && r.Units[0].Tech != ""
	if withPS {
		head = "unit\tkind\tvariant\t    FO4\t     ps\tlevels\t  area GE\ttransistors\t  gates"
	}
	if len(r.Units) > 0 {
		for _, c := range r.Units[0].Cycles {
			head += fmt.Sprintf("\t@%g FO4", c.ClockFO4)
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
			fmt.Fprintf(tw, "\t%d cycles", c.Cycles)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return r.writeDetails(w)
}

// writeDetails prints, under the table, the named paths (delay, gates,
// area) and the storage of the units that have them.
func (r *Report) writeDetails(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, u := range r.Units {
		if len(u.Paths) == 0 && len(u.Storage) == 0 && u.LatencyCycles == 0 {
			continue
		}
		fmt.Fprintf(tw, "\n%s:\n", u.Name)
		if u.FastLatencyCycles > 0 {
			lat := fmt.Sprintf("%d cycles fast, %d slow", u.FastLatencyCycles, u.LatencyCycles)
			if u.FastLatencyCycles == u.LatencyCycles {
				lat = fmt.Sprintf("%d cycles, fast or slow", u.LatencyCycles)
			}
			fmt.Fprintf(tw, "  pipeline\t%s\tat %g FO4 (%s)\tvariable latency, slowest stage %.2f FO4\n", lat, u.ClockFO4, u.TimingMode, u.WorstStageFO4)
		} else if u.LatencyCycles > 0 && len(u.StageFO4) == 0 {
			at := ""
			if u.ClockFO4 > 0 {
				at = fmt.Sprintf("\tat %g FO4 (%s)\tslowest register-to-register path %.2f FO4", u.ClockFO4, u.TimingMode, u.WorstStageFO4)
			}
			fmt.Fprintf(tw, "  latency\t%d cycles%s\n", u.LatencyCycles, at)
		} else if u.LatencyCycles > 0 {
			st := make([]string, len(u.StageFO4))
			for i, t := range u.StageFO4 {
				st[i] = fmt.Sprintf("%.2f", t)
			}
			fmt.Fprintf(tw, "  pipeline\t%d cycles\tat %g FO4 (%s)\tstages %s FO4\n", u.LatencyCycles, u.ClockFO4, u.TimingMode, strings.Join(st, ", "))
		}
		for _, p := range u.Paths {
			cells := strings.Join(p.Cells, " ")
			if len(p.Cells) > 6 {
				cells = fmt.Sprintf("%s ... %s (%d stages)", strings.Join(p.Cells[:2], " "), strings.Join(p.Cells[len(p.Cells)-2:], " "), len(p.Cells))
			}
			fmt.Fprintf(tw, "  path %s\t%7.2f FO4\t%7d gates\t%9.1f GE\t%s\t%s\n", p.Name, p.FO4, p.Gates, p.AreaGE, cells, p.Doc)
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
