package timing

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
)

// UnitReport is the timing of one spec unit, as `lsugen timing` reports it.
type UnitReport struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`    // the spec block type, e.g. "hash"
	Variant string `json:"variant"` // e.g. "bitvector_xor, configurable"
	*Result
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
	fmt.Fprintln(tw, "unit\tkind\tvariant\t    FO4\tlevels\t  area GE\ttransistors\t  gates")
	for _, u := range r.Units {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%7.2f\t%6d\t%9.1f\t%11d\t%7d\n", u.Name, u.Kind, u.Variant, u.FO4, u.Depth, u.AreaGE, u.Transistors, u.Gates)
	}
	return tw.Flush()
}
