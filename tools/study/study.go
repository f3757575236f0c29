// Package study holds what every study of the papers' results shares: a
// study's interface, its options, and its result (tables, notes and a
// figure), printed as text, JSON or SVG by the command. Each study lives
// in its own package under tools/study (atomics: 002_*, ...) and computes
// every figure it shows; the paper's figures appear only beside lsugen's,
// in the study's doc section and in its notes, never as a result.
package study

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/lsugen/lsugen/plot"
)

// Study is one experiment of a paper, run by lsugen's models.
type Study interface {
	// Name is the study's name on the command line (lower case, '-').
	Name() string
	// Paper is the seed paper it reproduces, e.g. "002" for 002_*.
	Paper() string
	// Summary is one line for `lsugen study --list`.
	Summary() string
	// Params are the study's parameters with their defaults and meaning,
	// settable with --set NAME=VALUE.
	Params() []Param
	// Run computes the study. It honours ctx (a cancelled run returns
	// ctx.Err() promptly) and refuses a parameter it does not know or
	// cannot use, naming it, before any work.
	Run(ctx context.Context, opt Options) (*Result, error)
}

// Param is a study parameter: its name, default (as written on the
// command line) and what it means.
type Param struct {
	Name, Default, Help string
}

// Options are the inputs of one run.
type Options struct {
	// Set holds --set NAME=VALUE, by name; Value reads them with the
	// study's defaults.
	Set map[string]string
	// Inputs are workload files (traces), where the study reads any.
	Inputs []string
	// Progress, when not nil, is told now and then how far the run is
	// (done of total steps).
	Progress func(done, total int)
}

// Value is the value of parameter name: from opt.Set, else the default
// in params. It panics when name is not among params (a study's bug).
func (opt Options) Value(params []Param, name string) string {
	for _, p := range params {
		if p.Name == name {
			if v, ok := opt.Set[name]; ok {
				return v
			}
			return p.Default
		}
	}
	panic("study: parameter " + name + " not declared")
}

// CheckSet refuses a --set name that params do not declare.
func (opt Options) CheckSet(params []Param) error {
	names := make([]string, 0, len(opt.Set))
	for n := range opt.Set {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		known := false
		for _, p := range params {
			known = known || p.Name == n
		}
		if !known {
			var all []string
			for _, p := range params {
				all = append(all, p.Name)
			}
			if len(all) == 0 {
				return Paramf("unknown parameter %q: this study takes none", n)
			}
			return Paramf("unknown parameter %q (this study takes %s)", n, strings.Join(all, ", "))
		}
	}
	return nil
}

// Result is what a study computed.
type Result struct {
	Study  string    `json:"study"`
	Paper  string    `json:"paper"`
	Title  string    `json:"title"`
	Params []Setting `json:"params"` // the values used
	Tables []Table   `json:"tables"`
	Notes  []string  `json:"notes,omitempty"` // computed observations, e.g. against the paper's claims
	// Charts are the study's figure, one panel each (--svg).
	Charts []plot.LineChart `json:"-"`
}

// Table is a titled table of text cells; Rows have len(Columns) cells.
type Table struct {
	Title   string     `json:"title"`
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
}

// Cell is the cell in column col of the first row whose first cells are
// key.
func (t Table) Cell(col string, key ...string) (string, error) {
	ci := slices.Index(t.Columns, col)
	if ci < 0 {
		return "", fmt.Errorf("%s: no column %q", t.Title, col)
	}
	for _, row := range t.Rows {
		if len(row) > ci && len(row) >= len(key) && slices.Equal(row[:len(key)], key) {
			return row[ci], nil
		}
	}
	return "", fmt.Errorf("%s: no row %q", t.Title, key)
}

// WriteText prints r as aligned plain-text tables.
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s_*)\n", r.Title, r.Paper)
	if len(r.Params) > 0 {
		var ps []string
		for _, p := range r.Params {
			ps = append(ps, p.Name+"="+p.Value)
		}
		fmt.Fprintf(&b, "parameters: %s\n", strings.Join(ps, " "))
	}
	for _, t := range r.Tables {
		b.WriteString("\n")
		if t.Title != "" {
			b.WriteString(t.Title + "\n")
		}
		widths := make([]int, len(t.Columns))
		for i, c := range t.Columns {
			widths[i] = len(c)
		}
		for _, row := range t.Rows {
			for i, c := range row {
				widths[i] = max(widths[i], len(c))
			}
		}
		line := func(cells []string) {
			for i, c := range cells {
				if i > 0 {
					b.WriteString("  ")
				}
				if i == 0 {
					fmt.Fprintf(&b, "%-*s", widths[i], c)
				} else {
					fmt.Fprintf(&b, "%*s", widths[i], c)
				}
			}
			b.WriteString("\n")
		}
		line(t.Columns)
		for _, row := range t.Rows {
			line(row)
		}
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n")
		for _, n := range r.Notes {
			b.WriteString("- " + n + "\n")
		}
	}
	// Trailing spaces of a left-aligned last column are dropped.
	out := strings.Join(trimRight(strings.Split(b.String(), "\n")), "\n")
	_, err := io.WriteString(w, out)
	return err
}

func trimRight(lines []string) []string {
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}

// JSON is r as indented JSON, ending in a newline.
func (r *Result) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// SVG is r's figure, or an error when the study has none or a panel
// could not be drawn.
func (r *Result) SVG() ([]byte, error) {
	if len(r.Charts) == 0 {
		return nil, fmt.Errorf("study %s draws no figure", r.Study)
	}
	f := plot.NewFigure()
	for i := range r.Charts {
		f.LineChart(&r.Charts[i])
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	return f.SVG(), nil
}

// Setting is a parameter's value in one run.
type Setting struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Resolved is the value of each of params in this run, for Result.Params.
func (opt Options) Resolved(params []Param) []Setting {
	out := make([]Setting, len(params))
	for i, p := range params {
		out[i] = Setting{Name: p.Name, Value: opt.Value(params, p.Name)}
	}
	return out
}

// ParamError is a parameter refused before the run: the command reports
// it as a usage error.
type ParamError struct{ Err error }

func (e *ParamError) Error() string { return e.Err.Error() }
func (e *ParamError) Unwrap() error { return e.Err }

// Paramf is a ParamError.
func Paramf(format string, a ...any) error { return &ParamError{fmt.Errorf(format, a...)} }

// IsParamError says whether err is, or wraps, a ParamError.
func IsParamError(err error) bool {
	var p *ParamError
	return errors.As(err, &p)
}

// Int is integer parameter name, refused (ParamError) unless in lo..hi.
func (opt Options) Int(params []Param, name string, lo, hi int64) (int64, error) {
	s := opt.Value(params, name)
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, Paramf("%s: %q is not an integer", name, s)
	}
	if v < lo || v > hi {
		return 0, Paramf("%s: %d is out of range %d..%d", name, v, lo, hi)
	}
	return v, nil
}

// Ints is parameter name as a comma-separated list of at most n integers,
// each in lo..hi.
func (opt Options) Ints(params []Param, name string, lo, hi, n int) ([]int, error) {
	s := opt.Value(params, name)
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, Paramf("%s: %q is not an integer", name, f)
		}
		if v < lo || v > hi {
			return nil, Paramf("%s: %d is out of range %d..%d", name, v, lo, hi)
		}
		out = append(out, v)
	}
	if len(out) > n {
		return nil, Paramf("%s: %d values, at most %d", name, len(out), n)
	}
	return out, nil
}

// NoInputs refuses inputs, for a study that generates its workloads.
func (opt Options) NoInputs() error {
	if len(opt.Inputs) > 0 {
		return Paramf("%q: this study reads no input files (it generates its workloads)", opt.Inputs[0])
	}
	return nil
}
