// Package liberty reads Liberty (.lib) cell libraries, the format in which
// standard-cell vendors publish their cells' timing, and characterizes a
// library into the terms of lsugen's logical-effort model (timing.Tech):
// for every gate kind of the netlist, the library cell that implements it
// at unit drive, and that cell's input capacitances, logical effort and
// parasitic delay, fitted to its NLDM delay tables; the wire-load model;
// τ in ps.
//
// The reader keeps the structure of the file (groups, simple and complex
// attributes) and builds a typed view of what timing needs: units, cells,
// pins, Boolean functions, flip-flops, timing arcs with their delay and
// transition tables, and wire-load models. It does not evaluate
// expressions, CCS or ECSM data, or power.
package liberty

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/lsugen/lsugen/internal/interp"
)

// Library is a parsed liberty library.
type Library struct {
	// Name is the library's name, e.g. "sky130_fd_sc_hd__tt_025C_1v80".
	Name string
	// TimeUnitPS is one library time unit in ps (1000 for "1ns");
	// CapUnitFF one capacitance unit in fF (1000 for pF).
	TimeUnitPS float64
	CapUnitFF  float64
	// Cells by name, and their names in file order.
	Cells map[string]*Cell
	Order []string
	// WireLoads by name; DefaultWireLoad names the one that applies when
	// the design selects none ("" when the library names none).
	WireLoads       map[string]*WireLoad
	DefaultWireLoad string
}

// Cell is one library cell.
type Cell struct {
	Name string
	// Area in the library's area unit (µm² for sky130).
	Area float64
	// Inputs and Outputs are the signal pins in file order.
	Inputs  []*Pin
	Outputs []*Pin
	// Sequential is true for cells with an ff, latch or statetable group;
	// FF describes a single flip-flop (nil for other cells).
	Sequential bool
	FF         *FF
	// DontUse is the cell's dont_use attribute.
	DontUse bool
	// Span is the cell group's byte range in the source (whole lines).
	Span [2]int
}

// FF is a cell's ff group: ff (IQ, IQN) { next_state; clocked_on; ... }.
type FF struct {
	IQ, IQN            string
	NextState          string
	ClockedOn          string
	Clear, Preset      string
	ClearPresetVarious bool // clear_preset_var1/2 given
}

// Pin is a signal pin.
type Pin struct {
	Name string
	// Cap is an input pin's capacitance in library units: capacitance,
	// or the larger of rise_ and fall_capacitance.
	Cap float64
	// Function is an output pin's Boolean function as the file writes it.
	Function string
	// Arcs are an output pin's timing arcs.
	Arcs []*Arc
	// Setup is an input pin's setup_rising constraint, if any (setup.go).
	Setup *Constraint
}

// Arc is one timing group of an output pin.
type Arc struct {
	RelatedPin string
	// Type is timing_type ("combinational" when absent), Sense
	// timing_sense, When the condition, if any.
	Type, Sense, When string
	// Delay and transition tables (nil where absent), in library units,
	// indexed by input transition and output load.
	CellRise, CellFall, RiseTransition, FallTransition *Table
	// Err is the first table of the arc that could not be read; it is an
	// error only for a user of the arc, so that one malformed cell does
	// not make the whole library unreadable.
	Err error
}

// Table is an NLDM lookup table over input transition (Slew) and total
// output capacitance (Load), in library units; Values[i][j] is at Slew[i],
// Load[j]. A table without one of the indices has one entry there.
type Table struct {
	Slew, Load []float64
	Values     [][]float64
}

// At interpolates the table bilinearly at (slew, load) and extrapolates
// linearly outside it, as static timing tools do.
func (t *Table) At(slew, load float64) float64 {
	i, fi := interp.Bracket(t.Slew, slew)
	j, fj := interp.Bracket(t.Load, load)
	v := func(a, b int) float64 { return t.Values[a][b] }
	i1, j1 := min(i+1, len(t.Slew)-1), min(j+1, len(t.Load)-1)
	lo := v(i, j) + fj*(v(i, j1)-v(i, j))
	hi := v(i1, j) + fj*(v(i1, j1)-v(i1, j))
	return lo + fi*(hi-lo)
}

// WireLoad is a wire-load model: a net of fanout F has wire length
// FanoutLength[F] (beyond the table, the last entry plus Slope per extra
// fanout), capacitance Capacitance per unit length.
type WireLoad struct {
	Name         string
	Capacitance  float64
	Resistance   float64
	Slope        float64
	FanoutLength map[int]float64
}

// Length is the wire length of a net of the given fanout: the table entry,
// interpolated between entries, and extrapolated by Slope beyond the
// largest fanout in the table (below the smallest, in proportion to it).
func (w *WireLoad) Length(fanout int) float64 {
	if fanout <= 0 || len(w.FanoutLength) == 0 {
		return 0
	}
	if l, ok := w.FanoutLength[fanout]; ok {
		return l
	}
	fs := make([]int, 0, len(w.FanoutLength))
	for f := range w.FanoutLength {
		fs = append(fs, f)
	}
	sort.Ints(fs)
	lo, hi := fs[0], fs[len(fs)-1]
	switch {
	case fanout > hi:
		return w.FanoutLength[hi] + float64(fanout-hi)*w.Slope
	case fanout < lo:
		return w.FanoutLength[lo] * float64(fanout) / float64(lo)
	}
	k := sort.SearchInts(fs, fanout) // fs[k-1] < fanout < fs[k]
	a, b := fs[k-1], fs[k]
	return w.FanoutLength[a] + (w.FanoutLength[b]-w.FanoutLength[a])*float64(fanout-a)/float64(b-a)
}

// MaxBytes is the most a liberty file may hold once decompressed: 512 MiB,
// forty times the largest library lsugen is tested with (sky130_fd_sc_hd's
// typical corner inflates to 12.8 MB). ReadFile counts bytes while it
// streams (under the gzip reader too), so /dev/zero or a gzip bomb is
// refused after reading at most MaxBytes+1 bytes, not after inflating it.
const MaxBytes = 512 << 20

// MaxToken is the longest one word or quoted string of a liberty file may
// be: 1 MiB (a real library's longest line is a few hundred bytes).
const MaxToken = 1 << 20

// maxBytes and maxToken are MaxBytes and MaxToken; tests lower them.
var (
	maxBytes int64 = MaxBytes
	maxToken       = MaxToken
)

// ReadFile reads a liberty file, gzipped or plain (by gzip's magic
// number), refusing one that holds more than MaxBytes once decompressed.
// A regular file is measured first, streaming into nothing, so a gzip
// bomb is refused in constant memory and an accepted file is read into a
// buffer of its exact size; a pipe or device is read once, holding at
// most MaxBytes+1 bytes.
func ReadFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("liberty: %w", err)
	}
	defer f.Close()
	tooBig := func() error {
		return fmt.Errorf("liberty %s: larger than the limit of %s (MaxBytes) once decompressed", name, sizeName(maxBytes))
	}
	size := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		n, err := readLimited(f, io.Discard)
		if err != nil {
			return nil, fmt.Errorf("liberty %s: %w", name, err)
		}
		if n > maxBytes {
			return nil, tooBig()
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("liberty %s: %w", name, err)
		}
		size = n
	}
	var w chunks
	if size >= 0 {
		w.buf = make([]byte, 0, size+1)
	}
	n, err := readLimited(f, &w)
	if err != nil {
		return nil, fmt.Errorf("liberty %s: %w", name, err)
	}
	if n > maxBytes {
		return nil, tooBig()
	}
	return w.bytes(), nil
}

// chunks collects what it is written in blocks of up to 4 MiB (into buf
// while buf has room), so that reading a stream of unknown length never
// holds much more than what it has read.
type chunks struct {
	buf  []byte
	full [][]byte
}

func (c *chunks) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if len(c.buf) == cap(c.buf) {
			if len(c.buf) > 0 {
				c.full = append(c.full, c.buf)
			}
			c.buf = make([]byte, 0, 4<<20)
		}
		k := copy(c.buf[len(c.buf):cap(c.buf)], p)
		c.buf, p = c.buf[:len(c.buf)+k], p[k:]
	}
	return n, nil
}

func (c *chunks) bytes() []byte {
	if len(c.full) == 0 {
		return c.buf
	}
	return bytes.Join(append(c.full, c.buf), nil)
}

// readLimited copies f, inflated when it starts with gzip's magic number,
// to w and returns how many bytes it copied, stopping at maxBytes+1 (the
// compressed bytes read are capped likewise).
func readLimited(f io.Reader, w io.Writer) (int64, error) {
	br := bufio.NewReader(&io.LimitedReader{R: f, N: maxBytes + 1})
	var r io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return 0, err
		}
		defer zr.Close()
		r = zr
	}
	return io.Copy(w, io.LimitReader(r, maxBytes+1))
}

// clipName is a name for a message: as it is when it is short and
// printable, else quoted and clipped as clip does.
func clipName(s string) string {
	if len(s) <= 80 && s != "" && strconv.CanBackquote(s) && !strings.ContainsAny(s, " `") {
		return s
	}
	return clip(s)
}

// sizeName writes a byte count in MiB when it is a whole number of them.
func sizeName(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// clip quotes s for a message, Go-escaped, keeping at most its first 80
// bytes, so that no diagnostic echoes a huge or binary token whole.
func clip(s string) string {
	const n = 80
	if len(s) <= n {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:n]) + fmt.Sprintf("... (%d bytes)", len(s))
}

// Load reads and parses a liberty file.
func Load(name string) (*Library, error) {
	b, err := ReadFile(name)
	if err != nil {
		return nil, err
	}
	l, err := ParseLibrary(b)
	if err != nil {
		return nil, fmt.Errorf("liberty %s: %w", name, err)
	}
	return l, nil
}

// ParseLibrary parses liberty source and builds the typed view of its
// library group.
func ParseLibrary(src []byte) (*Library, error) {
	top, err := Parse(src)
	if err != nil {
		return nil, err
	}
	var lg *Group
	for _, g := range top {
		if g.Type == "library" {
			lg = g
			break
		}
	}
	if lg == nil {
		return nil, fmt.Errorf("no library group")
	}
	l := &Library{Cells: map[string]*Cell{}, WireLoads: map[string]*WireLoad{}}
	if len(lg.Args) > 0 {
		l.Name = lg.Args[0]
	}
	if l.TimeUnitPS, err = timeUnitPS(lg.Attrs["time_unit"]); err != nil {
		return nil, err
	}
	if l.CapUnitFF, err = capUnitFF(strings.Join(lg.Complex1("capacitive_load_unit"), ",")); err != nil {
		return nil, err
	}
	l.DefaultWireLoad = lg.Attrs["default_wire_load"]
	templates := map[string]*Group{}
	for _, g := range lg.Subs {
		if g.Type == "lu_table_template" && len(g.Args) > 0 {
			templates[g.Args[0]] = g
		}
	}
	for _, g := range lg.Subs {
		switch {
		case g.Type == "wire_load" && len(g.Args) > 0:
			w, err := wireLoad(g)
			if err != nil {
				return nil, err
			}
			l.WireLoads[w.Name] = w
		case g.Type == "cell" && len(g.Args) > 0:
			c := cell(g, templates)
			if _, dup := l.Cells[c.Name]; !dup {
				l.Order = append(l.Order, c.Name)
			}
			l.Cells[c.Name] = c
		}
	}
	if l.DefaultWireLoad != "" && l.WireLoads[l.DefaultWireLoad] == nil {
		return nil, fmt.Errorf("default_wire_load %s is not defined", clip(l.DefaultWireLoad))
	}
	return l, nil
}

func num(s string) float64 {
	v, _ := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return v
}

func wireLoad(g *Group) (*WireLoad, error) {
	w := &WireLoad{Name: g.Args[0], FanoutLength: map[int]float64{},
		Capacitance: num(g.Attrs["capacitance"]), Resistance: num(g.Attrs["resistance"]), Slope: num(g.Attrs["slope"])}
	for _, c := range g.Complex {
		if c.Name != "fanout_length" {
			continue
		}
		if len(c.Args) != 2 {
			return nil, fmt.Errorf("wire_load %s: fanout_length wants 2 arguments, has %d", clipName(w.Name), len(c.Args))
		}
		f, err := strconv.Atoi(strings.TrimSpace(c.Args[0]))
		if err != nil || f < 1 {
			return nil, fmt.Errorf("wire_load %s: fanout_length fanout %s", clipName(w.Name), clip(c.Args[0]))
		}
		w.FanoutLength[f] = num(c.Args[1])
	}
	return w, nil
}

func cell(g *Group, templates map[string]*Group) *Cell {
	c := &Cell{Name: g.Args[0], Area: num(g.Attrs["area"]), Span: g.Span, DontUse: g.Attrs["dont_use"] == "true"}
	for _, pg := range g.Subs {
		switch pg.Type {
		case "ff":
			c.Sequential = true
			ff := &FF{NextState: pg.Attrs["next_state"], ClockedOn: pg.Attrs["clocked_on"],
				Clear: pg.Attrs["clear"], Preset: pg.Attrs["preset"],
				ClearPresetVarious: pg.Attrs["clear_preset_var1"] != "" || pg.Attrs["clear_preset_var2"] != ""}
			if len(pg.Args) > 0 {
				ff.IQ = pg.Args[0]
			}
			if len(pg.Args) > 1 {
				ff.IQN = pg.Args[1]
			}
			c.FF = ff
		case "latch", "ff_bank", "latch_bank", "statetable":
			c.Sequential = true
		case "pin":
			for _, name := range pg.Args {
				switch strings.Trim(pg.Attrs["direction"], `"`) {
				case "input":
					cp := num(pg.Attrs["capacitance"])
					if cp == 0 {
						cp = math.Max(num(pg.Attrs["rise_capacitance"]), num(pg.Attrs["fall_capacitance"]))
					}
					c.Inputs = append(c.Inputs, &Pin{Name: name, Cap: cp, Setup: setupArc(pg, templates)})
				case "output", "inout":
					p := &Pin{Name: name, Function: pg.Attrs["function"]}
					for _, tg := range pg.Subs {
						if tg.Type != "timing" {
							continue
						}
						p.Arcs = append(p.Arcs, arc(tg, templates))
					}
					c.Outputs = append(c.Outputs, p)
				}
			}
		}
	}
	return c
}

func arc(g *Group, templates map[string]*Group) *Arc {
	a := &Arc{RelatedPin: g.Attrs["related_pin"], Type: g.Attrs["timing_type"], Sense: g.Attrs["timing_sense"], When: g.Attrs["when"]}
	if a.Type == "" {
		a.Type = "combinational"
	}
	a.Err = readTables(g, templates, table, map[string]**Table{
		"cell_rise": &a.CellRise, "cell_fall": &a.CellFall,
		"rise_transition": &a.RiseTransition, "fall_transition": &a.FallTransition,
	})
	return a
}

// readTables reads the table groups of timing group g that dst names
// (by group type) with read; the error is the first table's that could
// not be read, with its line, and that table is left nil.
func readTables(g *Group, templates map[string]*Group, read func(*Group, map[string]*Group) (*Table, error), dst map[string]**Table) error {
	var first error
	for _, tg := range g.Subs {
		p, ok := dst[tg.Type]
		if !ok {
			continue
		}
		t, err := read(tg, templates)
		if err != nil {
			if first == nil {
				first = fmt.Errorf("%s (line %d): %w", clipName(tg.Type), tg.Line, err)
			}
			continue
		}
		*p = t
	}
	return first
}

// tableParts reads a lookup table group's indices and rows as written,
// and its template's variables.
func tableParts(g *Group, templates map[string]*Group) (i1, i2 []float64, rows [][]float64, v1, v2 string, err error) {
	var tmpl *Group
	if len(g.Args) > 0 {
		tmpl = templates[g.Args[0]]
	}
	index := func(n string) ([]float64, error) {
		a := g.Complex1(n)
		if a == nil && tmpl != nil {
			a = tmpl.Complex1(n)
		}
		return floats(strings.Join(a, ","))
	}
	if i1, err = index("index_1"); err != nil {
		return
	}
	if i2, err = index("index_2"); err != nil {
		return
	}
	for _, r := range g.Complex1("values") {
		v, ferr := floats(r)
		if ferr != nil {
			return nil, nil, nil, "", "", ferr
		}
		rows = append(rows, v)
	}
	if tmpl != nil {
		v1, v2 = strings.Trim(tmpl.Attrs["variable_1"], `"`), strings.Trim(tmpl.Attrs["variable_2"], `"`)
	}
	return
}

// table reads an NLDM table, putting its axes in (transition, load) order
// whatever order its template gives them.
func table(g *Group, templates map[string]*Group) (*Table, error) {
	i1, i2, rows, v1, v2, err := tableParts(g, templates)
	if err != nil {
		return nil, err
	}
	if g.Args != nil && g.Args[0] == "scalar" || len(i1) == 0 && len(i2) == 0 {
		if len(rows) != 1 || len(rows[0]) != 1 {
			return nil, fmt.Errorf("a scalar table wants one value")
		}
		return &Table{Slew: []float64{0}, Load: []float64{0}, Values: rows}, nil
	}
	if len(i2) == 0 {
		// One index: one row of values.
		if len(rows) != 1 || len(rows[0]) != len(i1) {
			return nil, fmt.Errorf("a table of %d points has %d rows", len(i1), len(rows))
		}
		switch {
		case isLoad(v1):
			return &Table{Slew: []float64{0}, Load: i1, Values: rows}, nil
		case isSlew(v1):
			col := make([][]float64, len(i1))
			for i, x := range rows[0] {
				col[i] = []float64{x}
			}
			return &Table{Slew: i1, Load: []float64{0}, Values: col}, nil
		}
		return nil, fmt.Errorf("table variable %s is neither a transition nor a load", clip(v1))
	}
	if len(rows) != len(i1) {
		return nil, fmt.Errorf("%d rows for %d index_1 points", len(rows), len(i1))
	}
	for _, r := range rows {
		if len(r) != len(i2) {
			return nil, fmt.Errorf("a row of %d values for %d index_2 points", len(r), len(i2))
		}
	}
	for _, idx := range [][]float64{i1, i2} {
		if !sort.Float64sAreSorted(idx) {
			return nil, fmt.Errorf("index not in increasing order: %v", idx)
		}
	}
	switch {
	case isSlew(v1) && isLoad(v2) || v1 == "" && v2 == "":
		return &Table{Slew: i1, Load: i2, Values: rows}, nil
	case isLoad(v1) && isSlew(v2):
		tr := make([][]float64, len(i2))
		for j := range i2 {
			tr[j] = make([]float64, len(i1))
			for i := range i1 {
				tr[j][i] = rows[i][j]
			}
		}
		return &Table{Slew: i2, Load: i1, Values: tr}, nil
	}
	return nil, fmt.Errorf("table variables %s, %s are not a transition and a load", clip(v1), clip(v2))
}

func isSlew(v string) bool {
	return v == "input_net_transition" || v == "input_transition_time" || v == "related_pin_transition"
}
func isLoad(v string) bool {
	return v == "total_output_net_capacitance" || v == "output_net_capacitance"
}

// floats reads a comma-separated list of numbers.
func floats(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s is not a number", clip(f))
		}
		out = append(out, v)
	}
	return out, nil
}

var unitRE = regexp.MustCompile(`^\s*([0-9.eE+-]+)\s*([a-zA-Z]+)\s*$`)

// timeUnitPS reads a time_unit value such as "1ns" into ps.
func timeUnitPS(s string) (float64, error) {
	s = strings.Trim(s, `"`)
	if s == "" {
		return 1000, nil // the liberty default is 1ns
	}
	m := unitRE.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("time_unit %s: not a number and unit", clip(s))
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("time_unit %s: not a positive number", clip(s))
	}
	scale := map[string]float64{"s": 1e12, "ms": 1e9, "us": 1e6, "ns": 1e3, "ps": 1, "fs": 1e-3}[strings.ToLower(m[2])]
	if scale == 0 {
		return 0, fmt.Errorf("time_unit %s: unknown unit", clip(s))
	}
	return v * scale, nil
}

// capUnitFF reads capacitive_load_unit's arguments ("1.0,pf") into fF.
func capUnitFF(s string) (float64, error) {
	if s == "" {
		return 1000, nil // assume pF, the common choice
	}
	parts := strings.Split(s, ",")
	if len(parts) != 2 {
		return 0, fmt.Errorf("capacitive_load_unit (%s): want a number and a unit", clip(s))
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(parts[0]), 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("capacitive_load_unit (%s): not a positive number", clip(s))
	}
	scale := map[string]float64{"pf": 1000, "ff": 1, "nf": 1e6}[strings.ToLower(strings.TrimSpace(parts[1]))]
	if scale == 0 {
		return 0, fmt.Errorf("capacitive_load_unit (%s): unknown unit", clip(s))
	}
	return v * scale, nil
}

// MatchAny reports whether name matches one of the path.Match patterns.
func MatchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}
