package liberty

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Group is one liberty group, e.g. `cell ("inv_1") { ... }`, with its
// simple attributes (`area : 1.25;`), its complex attributes
// (`index_1 ("0.01, 0.02");`, repeated ones such as fanout_length kept in
// order) and its subgroups.
type Group struct {
	Type    string
	Args    []string
	Attrs   map[string]string
	Complex []Complex
	Subs    []*Group
	// Line is the line of the group's first token; Span is its byte range
	// [start, end) in the source, whole lines: from the start of the
	// first line (when only blanks precede the group) to the end of the
	// last.
	Line int
	Span [2]int
}

// Complex is a complex attribute: name (arg, ...);
type Complex struct {
	Name string
	Args []string
}

// Complex1 returns the arguments of the first complex attribute called
// name, or nil.
func (g *Group) Complex1(name string) []string {
	for _, c := range g.Complex {
		if c.Name == name {
			return c.Args
		}
	}
	return nil
}

// maxDepth bounds group nesting, so that no input can exhaust the stack.
const maxDepth = 64

// Parse reads liberty source into its top-level groups (normally one
// library group).
func Parse(src []byte) ([]*Group, error) {
	lx := &lexer{src: src}
	if err := lx.next(); err != nil {
		return nil, err
	}
	var top []*Group
	for lx.tok.kind != tEOF {
		g, err := parseStatement(lx, nil, 0)
		if err != nil {
			return nil, err
		}
		if g != nil {
			top = append(top, g)
		}
	}
	return top, nil
}

// parseStatement parses one statement: a simple attribute, a complex
// attribute or a group. Attributes go into parent (nil at the top level);
// a group is returned.
func parseStatement(lx *lexer, parent *Group, depth int) (*Group, error) {
	if lx.isPunct(";") {
		return nil, lx.next()
	}
	if lx.tok.kind != tWord && lx.tok.kind != tString {
		return nil, fmt.Errorf("line %d: unexpected %s", lx.line(lx.tok.start), clip(lx.tok.text))
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
		if parent != nil {
			parent.Attrs[name] = strings.Join(val, " ")
		}
		return nil, nil
	case lx.isPunct("("):
		var args []string
		if err := lx.next(); err != nil {
			return nil, err
		}
		for !lx.isPunct(")") {
			if lx.tok.kind == tEOF {
				return nil, fmt.Errorf("line %d: unterminated argument list of %s", lx.line(start), clipName(name))
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
			if lx.isPunct(";") {
				if err := lx.next(); err != nil {
					return nil, err
				}
			}
			if parent != nil {
				parent.Complex = append(parent.Complex, Complex{Name: name, Args: args})
			}
			return nil, nil
		}
		if depth >= maxDepth {
			return nil, fmt.Errorf("line %d: groups nested deeper than %d", lx.line(start), maxDepth)
		}
		if err := lx.next(); err != nil {
			return nil, err
		}
		g := &Group{Type: name, Args: args, Attrs: map[string]string{}, Line: lx.line(start)}
		for !lx.isPunct("}") {
			if lx.tok.kind == tEOF {
				return nil, fmt.Errorf("line %d: group %s(%s) is not closed", lx.line(start), clipName(name), clipName(strings.Join(args, ",")))
			}
			sub, err := parseStatement(lx, g, depth+1)
			if err != nil {
				return nil, err
			}
			if sub != nil {
				g.Subs = append(g.Subs, sub)
			}
		}
		end := lx.pos // just past '}'
		if err := lx.next(); err != nil {
			return nil, err
		}
		g.Span = lineSpan(lx.src, start, end)
		return g, nil
	default:
		return nil, fmt.Errorf("line %d: %s: expected ':' or '('", lx.line(start), clipName(name))
	}
}

// lineSpan widens [start, end) to whole lines where only blanks lie
// between it and the line breaks.
func lineSpan(src []byte, start, end int) [2]int {
	s := start
	for s > 0 && (src[s-1] == ' ' || src[s-1] == '\t') {
		s--
	}
	if s > 0 && src[s-1] != '\n' {
		s = start
	}
	e := end
	for e < len(src) && (src[e] == ' ' || src[e] == '\t' || src[e] == '\r') {
		e++
	}
	if e < len(src) && src[e] == '\n' {
		e++
	} else {
		e = end
	}
	return [2]int{s, e}
}

// The tokenizer.

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
	src   []byte
	pos   int
	tok   token // current token
	lines []int // offsets of line starts, built on the first error or group
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
		if err := lx.checkLen(start, i+1); err != nil {
			return err
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
		if err := lx.checkLen(start, i); err != nil {
			return err
		}
		lx.pos = i
		lx.tok = token{kind: tWord, text: string(lx.src[start:i]), start: start, newline: nl}
	}
	return nil
}

// checkLen refuses a token src[start:end] longer than MaxToken, quoting
// only its beginning.
func (lx *lexer) checkLen(start, end int) error {
	if end-start > maxToken {
		return fmt.Errorf("line %d: a token of %d bytes, longer than the limit of %s (MaxToken): %s",
			lx.line(start), end-start, sizeName(int64(maxToken)), strconv.Quote(string(lx.src[start:start+min(80, end-start)]))+"...")
	}
	return nil
}

// line is the 1-based line of byte offset off.
func (lx *lexer) line(off int) int {
	if lx.lines == nil {
		lx.lines = []int{0}
		for i, c := range lx.src {
			if c == '\n' {
				lx.lines = append(lx.lines, i+1)
			}
		}
	}
	lo, hi := 0, len(lx.lines)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if lx.lines[mid] <= off {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + 1
}

func (lx *lexer) isPunct(p string) bool { return lx.tok.kind == tPunct && lx.tok.text == p }
