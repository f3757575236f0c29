package rapsim

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// JSON is the report as indented JSON with a trailing newline.
func (r *Report) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// WriteTable prints one block per array shape in the layout of the paper's
// tables: a row per (mapping, access), a column per w.
func (r *Report) WriteTable(out io.Writer) error {
	var ws []int
	for _, q := range r.Results {
		if !slices.Contains(ws, q.W) {
			ws = append(ws, q.W)
		}
	}
	slices.Sort(ws)
	blocks := []struct {
		array    Array
		title    string
		mappings []Mapping
		accesses []Access
	}{
		{Matrix, "w×w matrix (Table II)", MatrixMappings, MatrixAccesses},
		{Array4, "w×w×w×w array (Table IV; malicious = the worst access above it)", Array4Mappings, Array4Accesses},
	}
	first := true
	for _, b := range blocks {
		if !slices.ContainsFunc(r.Results, func(q Result) bool { return q.Array == b.array }) {
			continue
		}
		if !first {
			fmt.Fprintln(out)
		}
		first = false
		fmt.Fprintf(out, "%s: mean congestion over %d trials, seed %d\n", b.title, r.Trials, r.Seed)
		tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
		head := []string{"mapping", "access"}
		for _, w := range ws {
			head = append(head, fmt.Sprintf("w=%d", w))
		}
		fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
		for _, m := range b.mappings {
			for _, a := range b.accesses {
				row := []string{string(m), string(a)}
				any := false
				var from []string
				for _, w := range ws {
					q, ok := r.Cell(b.array, w, m, a)
					if !ok {
						row = append(row, "-")
						continue
					}
					row = append(row, fmt.Sprintf("%.2f", q.Congestion))
					any = true
					if q.From != "" && !slices.Contains(from, string(q.From)) {
						from = append(from, string(q.From))
					}
				}
				line := strings.Join(row, "\t") + "\t"
				if len(from) > 0 {
					line += "  (" + strings.Join(from, ", ") + ")" // past the last tab: not a column
				}
				if any {
					fmt.Fprintln(tw, line)
				}
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}
