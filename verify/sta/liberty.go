package sta

import (
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
)

// DefaultDontUse are the cells, as path.Match patterns on the cell name,
// that the flow removes from the liberty before synthesis. Yosys 0.23 has no
// -dont_use option for abc or dfflibmap, so the flow does what OpenLane's
// "trimmed" liberty does: the cells are cut from a copy of the file in the
// work directory. For the SkyWater sky130 libraries these are
//
//   - *lpflow_*: multi-power-domain cells (isolation, level shifters,
//     keep-alive buffers); ABC otherwise maps AND-with-inverted-input to
//     lpflow_isobufsrc;
//   - *probe*: probe-point cells with metal on every layer;
//   - *clkbuf*, *clkinv*, *clkdlybuf*, *dlygate*, *dlymetal*: clock-tree
//     and hold-fixing delay cells, which a place-and-route flow reserves
//     for clock-tree synthesis and hold repair.
//
// Patterns that match nothing (in other libraries) are harmless.
var DefaultDontUse = []string{
	"*lpflow_*", "*probe*",
	"*clkbuf*", "*clkinv*", "*clkdlybuf*", "*dlygate*", "*dlymetal*",
}

// Library is a liberty file prepared for the flow: decompressed, with the
// don't-use cells cut out, written into the work directory, and the few
// figures the flow needs read from it.
type Library struct {
	// Name is the library's name, e.g. "sky130_fd_sc_hd__tt_025C_1v80".
	Name string
	// Path is the prepared liberty file the tools read.
	Path string
	// Source is the file it was prepared from.
	Source string
	// TimeUnitPS is one library time unit in ps (1000 for "1ns").
	TimeUnitPS float64
	// CapUnitFF is one library capacitance unit in fF (1000 for pF).
	CapUnitFF float64
	// Cells are the cells kept, by name.
	Cells map[string]*LibCell
	// Removed are the names of the cells cut out, sorted.
	Removed []string
}

// LibCell is what the flow knows about one library cell.
type LibCell struct {
	Name string
	// Area in the library's area unit (µm² for sky130).
	Area float64
	// Inputs and Outputs are the signal pins in file order.
	Inputs  []LibPin
	Outputs []LibPin
	// Sequential is true for cells with an ff or latch group.
	Sequential bool
}

// LibPin is one signal pin of a cell.
type LibPin struct {
	Name string
	// Cap is the input pin's capacitance in library units (0 for outputs).
	Cap float64
	// Function is an output pin's Boolean function as the file writes it.
	Function string
}

// output reports whether c has an output pin named name.
func (c *LibCell) output(name string) bool {
	for _, p := range c.Outputs {
		if p.Name == name {
			return true
		}
	}
	return false
}

// isInverter reports whether c is a one-input, one-output inverter.
func (c *LibCell) isInverter() bool {
	if len(c.Inputs) != 1 || len(c.Outputs) != 1 || c.Sequential {
		return false
	}
	f := strings.NewReplacer(" ", "", "(", "", ")", "").Replace(c.Outputs[0].Function)
	a := c.Inputs[0].Name
	return f == "!"+a || f == a+"'"
}

// SmallestInverter is the inverter of least area; ties go to the smaller
// input capacitance, then to the name. It is the flow's default driver, the
// library's counterpart of lsugen's unit inverter.
func (l *Library) SmallestInverter() (*LibCell, error) {
	var best *LibCell
	for _, c := range l.Cells {
		if !c.isInverter() {
			continue
		}
		if best == nil || c.Area < best.Area ||
			c.Area == best.Area && (c.Inputs[0].Cap < best.Inputs[0].Cap ||
				c.Inputs[0].Cap == best.Inputs[0].Cap && c.Name < best.Name) {
			best = c
		}
	}
	if best == nil {
		return nil, fmt.Errorf("sta: library %s has no inverter", l.Name)
	}
	return best, nil
}

// Driver returns the cell to drive the inputs with: name, or the smallest
// inverter when name is "". The cell must have one input and one output
// pin and be combinational.
func (l *Library) Driver(name string) (*LibCell, error) {
	if name == "" {
		return l.SmallestInverter()
	}
	c, ok := l.Cells[name]
	if !ok {
		hint := ""
		for _, r := range l.Removed {
			if r == name {
				hint = " (it is one of the don't-use cells the flow removes)"
			}
		}
		return nil, fmt.Errorf("sta: library %s has no cell %q%s", l.Name, name, hint)
	}
	if len(c.Inputs) != 1 || len(c.Outputs) != 1 || c.Sequential {
		return nil, fmt.Errorf("sta: driver cell %s must have one input and one output pin", name)
	}
	return c, nil
}

// PrepareLibrary reads the liberty file src (gzipped when it starts with
// gzip's magic number), removes the cells whose names match a dontUse
// pattern, and writes the result to dir/NAME.lib.
func PrepareLibrary(src, dir string, dontUse []string) (*Library, error) {
	raw, err := readMaybeGzip(src)
	if err != nil {
		return nil, err
	}
	for _, p := range dontUse {
		if _, err := path.Match(p, ""); err != nil {
			return nil, fmt.Errorf("sta: don't-use pattern %q: %w", p, err)
		}
	}
	lib, cuts, err := parseLiberty(raw, func(name string) bool {
		for _, p := range dontUse {
			if ok, _ := path.Match(p, name); ok {
				return true
			}
		}
		return false
	})
	if err != nil {
		return nil, fmt.Errorf("sta: %s: %w", src, err)
	}
	lib.Source = src
	var out bytes.Buffer
	out.Grow(len(raw))
	last := 0
	for _, c := range cuts {
		out.Write(raw[last:c[0]])
		last = c[1]
	}
	out.Write(raw[last:])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	lib.Path = dir + string(os.PathSeparator) + safeFileName(lib.Name) + ".lib"
	if err := os.WriteFile(lib.Path, out.Bytes(), 0o644); err != nil {
		return nil, err
	}
	return lib, nil
}

func readMaybeGzip(name string) ([]byte, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("sta: liberty: %w", err)
	}
	if len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("sta: liberty %s: %w", name, err)
		}
		defer zr.Close()
		if b, err = io.ReadAll(zr); err != nil {
			return nil, fmt.Errorf("sta: liberty %s: %w", name, err)
		}
	}
	return b, nil
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9_.+-]`)

func safeFileName(s string) string {
	s = unsafeChars.ReplaceAllString(s, "_")
	if s == "" || s[0] == '.' {
		s = "lib" + s
	}
	return s
}

// The liberty reader: a tokenizer and a recursive-descent parser of the
// statement structure (groups, simple and complex attributes). It keeps
// only what the flow needs and the byte ranges of the top-level cells.

type tokKind int

const (
	tEOF tokKind = iota
	tWord
	tString
	tPunct // one of ( ) { } : ; ,
)

type token struct {
	kind    tokKind
	text    string
	start   int  // byte offset
	newline bool // a newline precedes the token
}

type lexer struct {
	src []byte
	pos int
	tok token // current token
}

// skipSpace skips blanks, comments and line continuations, and reports
// whether it passed a newline.
func (lx *lexer) skipSpace() (nl bool, err error) {
	for lx.pos < len(lx.src) {
		c := lx.src[lx.pos]
		switch {
		case c == '\n':
			nl = true
			lx.pos++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			lx.pos++
		case c == '\\' && lx.pos+1 < len(lx.src) && (lx.src[lx.pos+1] == '\n' || lx.src[lx.pos+1] == '\r'):
			lx.pos += 2 // line continuation
		case c == '/' && lx.pos+1 < len(lx.src) && lx.src[lx.pos+1] == '*':
			end := bytes.Index(lx.src[lx.pos+2:], []byte("*/"))
			if end < 0 {
				return nl, fmt.Errorf("line %d: unterminated comment", lx.line(lx.pos))
			}
			lx.pos += end + 4
		case c == '/' && lx.pos+1 < len(lx.src) && lx.src[lx.pos+1] == '/':
			end := bytes.IndexByte(lx.src[lx.pos:], '\n')
			if end < 0 {
				end = len(lx.src) - lx.pos
			}
			lx.pos += end
		default:
			return nl, nil
		}
	}
	return nl, nil
}

// next reads the next token into lx.tok.
func (lx *lexer) next() error {
	nl, err := lx.skipSpace()
	if err != nil {
		return err
	}
	if lx.pos >= len(lx.src) {
		lx.tok = token{kind: tEOF, start: lx.pos, newline: true}
		return nil
	}
	start := lx.pos
	c := lx.src[lx.pos]
	switch {
	case strings.IndexByte("(){}:;,", c) >= 0:
		lx.pos++
		lx.tok = token{kind: tPunct, text: string(c), start: start, newline: nl}
	case c == '"':
		i := lx.pos + 1
		for i < len(lx.src) && lx.src[i] != '"' {
			if lx.src[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(lx.src) {
			return fmt.Errorf("line %d: unterminated string", lx.line(start))
		}
		lx.pos = i + 1
		lx.tok = token{kind: tString, text: string(lx.src[start+1 : i]), start: start, newline: nl}
	default:
		i := lx.pos
		for i < len(lx.src) {
			d := lx.src[i]
			if d == ' ' || d == '\t' || d == '\n' || d == '\r' || d == '"' || strings.IndexByte("(){}:;,", d) >= 0 {
				break
			}
			i++
		}
		lx.pos = i
		lx.tok = token{kind: tWord, text: string(lx.src[start:i]), start: start, newline: nl}
	}
	return nil
}

func (lx *lexer) line(off int) int {
	return 1 + bytes.Count(lx.src[:min(off, len(lx.src))], []byte("\n"))
}

func (lx *lexer) isPunct(p string) bool { return lx.tok.kind == tPunct && lx.tok.text == p }

// group is a parsed group: its type, arguments, simple attributes and the
// subgroups the reader keeps.
type group struct {
	typ   string
	args  []string
	attrs map[string]string
	subs  []*group
	// span is a cell's byte range [start, end) in the source: its whole
	// lines, from the start of the first to the end of the last.
	span [2]int
}

// keep says which subgroups of a group of type parent are kept.
func keep(parent, typ string) bool {
	switch parent {
	case "":
		return typ == "library"
	case "library":
		return typ == "cell"
	case "cell":
		return typ == "pin" || typ == "ff" || typ == "latch" || typ == "ff_bank" || typ == "latch_bank" || typ == "statetable"
	}
	return false
}

// parseLiberty parses src; drop says which cells to cut. It returns the
// library and the byte ranges of the cut cells, in order.
func parseLiberty(src []byte, drop func(string) bool) (*Library, [][2]int, error) {
	lx := &lexer{src: src}
	if err := lx.next(); err != nil {
		return nil, nil, err
	}
	// Statements at the top level: the library group (and nothing else of
	// interest).
	var lib *group
	for lx.tok.kind != tEOF {
		g, err := parseStatement(lx, "", nil)
		if err != nil {
			return nil, nil, err
		}
		if g != nil && g.typ == "library" && lib == nil {
			lib = g
		}
	}
	if lib == nil {
		return nil, nil, fmt.Errorf("no library group")
	}
	var cuts [][2]int
	for _, c := range lib.subs {
		if c.typ == "cell" && len(c.args) > 0 && drop(c.args[0]) {
			cuts = append(cuts, c.span)
		}
	}

	l := &Library{Cells: map[string]*LibCell{}}
	if len(lib.args) > 0 {
		l.Name = lib.args[0]
	}
	var err error
	if l.TimeUnitPS, err = timeUnitPS(lib.attrs["time_unit"]); err != nil {
		return nil, nil, err
	}
	if l.CapUnitFF, err = capUnitFF(lib.attrs["capacitive_load_unit"]); err != nil {
		return nil, nil, err
	}
	for _, cg := range lib.subs {
		if cg.typ != "cell" || len(cg.args) == 0 {
			continue
		}
		name := cg.args[0]
		if drop(name) {
			l.Removed = append(l.Removed, name)
			continue
		}
		c := &LibCell{Name: name}
		c.Area, _ = strconv.ParseFloat(cg.attrs["area"], 64)
		for _, pg := range cg.subs {
			switch pg.typ {
			case "ff", "latch", "ff_bank", "latch_bank", "statetable":
				c.Sequential = true
			case "pin":
				for _, pn := range pg.args {
					switch pg.attrs["direction"] {
					case "input":
						cp, _ := strconv.ParseFloat(pg.attrs["capacitance"], 64)
						if cp == 0 {
							r, _ := strconv.ParseFloat(pg.attrs["rise_capacitance"], 64)
							f, _ := strconv.ParseFloat(pg.attrs["fall_capacitance"], 64)
							cp = math.Max(r, f)
						}
						c.Inputs = append(c.Inputs, LibPin{Name: pn, Cap: cp})
					case "output", "inout":
						c.Outputs = append(c.Outputs, LibPin{Name: pn, Function: pg.attrs["function"]})
					}
				}
			}
		}
		l.Cells[name] = c
	}
	sort.Strings(l.Removed)
	return l, cuts, nil
}

// parseStatement parses one statement. It returns the group when the
// statement is a group that keep retains, else nil. attrs receives simple
// attributes and the first argument of complex ones (as "name" ->
// "arg1,arg2").
func parseStatement(lx *lexer, parent string, into *group) (*group, error) {
	if lx.isPunct(";") {
		return nil, lx.next()
	}
	if lx.tok.kind != tWord && lx.tok.kind != tString {
		return nil, fmt.Errorf("line %d: unexpected %q", lx.line(lx.tok.start), lx.tok.text)
	}
	name, start := lx.tok.text, lx.tok.start
	if err := lx.next(); err != nil {
		return nil, err
	}
	switch {
	case lx.isPunct(":"):
		if err := lx.next(); err != nil {
			return nil, err
		}
		var val []string
		for lx.tok.kind != tEOF && !lx.isPunct(";") && !lx.isPunct("}") && !(len(val) > 0 && lx.tok.newline) {
			val = append(val, lx.tok.text)
			if err := lx.next(); err != nil {
				return nil, err
			}
		}
		if lx.isPunct(";") {
			if err := lx.next(); err != nil {
				return nil, err
			}
		}
		if into != nil {
			into.attrs[name] = strings.Join(val, " ")
		}
		return nil, nil
	case lx.isPunct("("):
		var args []string
		if err := lx.next(); err != nil {
			return nil, err
		}
		for !lx.isPunct(")") {
			if lx.tok.kind == tEOF {
				return nil, fmt.Errorf("line %d: unterminated argument list of %s", lx.line(start), name)
			}
			if !lx.isPunct(",") {
				args = append(args, lx.tok.text)
			}
			if err := lx.next(); err != nil {
				return nil, err
			}
		}
		if err := lx.next(); err != nil {
			return nil, err
		}
		if !lx.isPunct("{") {
			// A complex attribute.
			if lx.isPunct(";") {
				if err := lx.next(); err != nil {
					return nil, err
				}
			}
			if into != nil && len(name) < 40 {
				into.attrs[name] = strings.Join(args, ",")
			}
			return nil, nil
		}
		if err := lx.next(); err != nil {
			return nil, err
		}
		var g *group
		if keep(parent, name) {
			g = &group{typ: name, args: args, attrs: map[string]string{}}
		}
		for !lx.isPunct("}") {
			if lx.tok.kind == tEOF {
				return nil, fmt.Errorf("line %d: group %s(%s) is not closed", lx.line(start), name, strings.Join(args, ","))
			}
			sub, err := parseStatement(lx, name, g)
			if err != nil {
				return nil, err
			}
			if sub != nil && g != nil {
				g.subs = append(g.subs, sub)
			}
		}
		end := lx.pos // just past '}'
		if err := lx.next(); err != nil {
			return nil, err
		}
		if g != nil && name == "cell" {
			// The cut takes the cell's whole lines: from the start of
			// its first line (when only blanks precede it) to the end of
			// its last.
			s := start
			for s > 0 && (lx.src[s-1] == ' ' || lx.src[s-1] == '\t') {
				s--
			}
			if s > 0 && lx.src[s-1] != '\n' {
				s = start
			}
			e := end
			for e < len(lx.src) && (lx.src[e] == ' ' || lx.src[e] == '\t' || lx.src[e] == '\r') {
				e++
			}
			if e < len(lx.src) && lx.src[e] == '\n' {
				e++
			} else {
				e = end
			}
			g.span = [2]int{s, e}
		}
		return g, nil
	default:
		return nil, fmt.Errorf("line %d: %s: expected ':' or '('", lx.line(start), name)
	}
}

var unitRE = regexp.MustCompile(`^\s*([0-9.eE+-]+)\s*([a-zA-Z]+)\s*$`)

// timeUnitPS reads a time_unit value such as "1ns" into ps.
func timeUnitPS(s string) (float64, error) {
	if s == "" {
		return 1000, nil // the liberty default is 1ns
	}
	m := unitRE.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("time_unit %q: not a number and unit", s)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, fmt.Errorf("time_unit %q: %w", s, err)
	}
	scale := map[string]float64{"s": 1e12, "ms": 1e9, "us": 1e6, "ns": 1e3, "ps": 1, "fs": 1e-3}[strings.ToLower(m[2])]
	if scale == 0 {
		return 0, fmt.Errorf("time_unit %q: unknown unit", s)
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
		return 0, fmt.Errorf("capacitive_load_unit (%s): want a number and a unit", s)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(parts[0]), 64)
	if err != nil {
		return 0, fmt.Errorf("capacitive_load_unit (%s): %w", s, err)
	}
	scale := map[string]float64{"pf": 1000, "ff": 1, "nf": 1e6}[strings.ToLower(strings.TrimSpace(parts[1]))]
	if scale == 0 {
		return 0, fmt.Errorf("capacitive_load_unit (%s): unknown unit", s)
	}
	return v * scale, nil
}
