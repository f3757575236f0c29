package timing

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"text/tabwriter"
)

// UnitReport is the timing of one spec unit, as `lsugen timing` reports it.
type UnitReport struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`    // the spec block type, e.g. "hash"
	Variant string `json:"variant"` // e.g. "bitvector_xor, configurable"
	// Cycles is the number of clock cycles of ClockFO4 the critical path
	// needs, when a clock was given.
	Cycles []ClockCycles `json:"cycles,omitempty"`
	*Result
}

// ClockCycles is the cycle count of a unit at one clock period.
type ClockCycles struct {
	ClockFO4 float64 `json:"clock_fo4"`
	Cycles   int     `json:"cycles"`
}

// CyclesAt is the number of whole clock periods of clockFO4 that a path of
// fo4 needs: ceil(fo4 / clock), at least 1.
func CyclesAt(fo4, clockFO4 float64) int {
	return max(1, int(math.Ceil(fo4/clockFO4-1e-9)))
}

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
	if len(r.Units) > 0 {
		for _, c := range r.Units[0].Cycles {
			head += fmt.Sprintf("\t@%g FO4", c.ClockFO4)
		}
	}
	fmt.Fprintln(tw, head)
	for _, u := range r.Units {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%7.2f\t%6d\t%9.1f\t%11d\t%7d", u.Name, u.Kind, u.Variant, u.FO4, u.Depth, u.AreaGE, u.Transistors, u.Gates)
		for _, c := range u.Cycles {
			fmt.Fprintf(tw, "\t%d cycles", c.Cycles)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}
