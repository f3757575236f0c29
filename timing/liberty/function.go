package liberty

import (
	"fmt"
	"strings"
)

// A Function is a parsed Boolean function of a liberty pin. Operators,
// from the tightest binding: ! (prefix) and ' (postfix) invert, ^ is XOR,
// & * and juxtaposition are AND, | and + are OR; 0 and 1 are constants.
type Function struct {
	vars []string // variable names, in order of first appearance
	root *fnode
}

type fnode struct {
	op   byte // 'v' variable, 'c' constant, '!', '&', '|', '^'
	v    int  // variable index or constant value
	a, b *fnode
}

// maxFunctionLen bounds the text a function may have.
const maxFunctionLen = 4096

// ParseFunction parses a liberty Boolean function.
func ParseFunction(s string) (*Function, error) {
	if len(s) > maxFunctionLen {
		return nil, fmt.Errorf("function of %d characters", len(s))
	}
	p := &fparser{s: s, f: &Function{}}
	n, err := p.or(0)
	if err != nil {
		return nil, fmt.Errorf("function %q: %w", s, err)
	}
	p.space()
	if p.i < len(p.s) {
		return nil, fmt.Errorf("function %s: unexpected %q at %d", clip(s), p.s[p.i], p.i)
	}
	p.f.root = n
	return p.f, nil
}

// Vars are the function's variables in order of first appearance.
func (f *Function) Vars() []string { return f.vars }

// Eval evaluates the function with variable values given by value.
func (f *Function) Eval(value func(name string) bool) bool {
	vals := make([]bool, len(f.vars))
	for i, v := range f.vars {
		vals[i] = value(v)
	}
	return f.root.eval(vals)
}

func (n *fnode) eval(vals []bool) bool {
	switch n.op {
	case 'v':
		return vals[n.v]
	case 'c':
		return n.v == 1
	case '!':
		return !n.a.eval(vals)
	case '&':
		return n.a.eval(vals) && n.b.eval(vals)
	case '|':
		return n.a.eval(vals) || n.b.eval(vals)
	default: // '^'
		return n.a.eval(vals) != n.b.eval(vals)
	}
}

type fparser struct {
	s string
	i int
	f *Function
}

// maxFunctionDepth bounds nesting, so that no input exhausts the stack.
const maxFunctionDepth = 100

func (p *fparser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *fparser) peek() byte {
	p.space()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *fparser) or(depth int) (*fnode, error) {
	a, err := p.and(depth)
	if err != nil {
		return nil, err
	}
	for c := p.peek(); c == '|' || c == '+'; c = p.peek() {
		p.i++
		b, err := p.and(depth)
		if err != nil {
			return nil, err
		}
		a = &fnode{op: '|', a: a, b: b}
	}
	return a, nil
}

// startsFactor reports whether c can begin a factor: juxtaposition is AND.
func startsFactor(c byte) bool { return c == '!' || c == '(' || isIdentByte(c) }

func (p *fparser) and(depth int) (*fnode, error) {
	a, err := p.xor(depth)
	if err != nil {
		return nil, err
	}
	for {
		c := p.peek()
		if c == '&' || c == '*' {
			p.i++
		} else if !startsFactor(c) {
			return a, nil
		}
		b, err := p.xor(depth)
		if err != nil {
			return nil, err
		}
		a = &fnode{op: '&', a: a, b: b}
	}
}

func (p *fparser) xor(depth int) (*fnode, error) {
	a, err := p.factor(depth)
	if err != nil {
		return nil, err
	}
	for p.peek() == '^' {
		p.i++
		b, err := p.factor(depth)
		if err != nil {
			return nil, err
		}
		a = &fnode{op: '^', a: a, b: b}
	}
	return a, nil
}

func isIdentByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '[' || c == ']' || c == '.'
}

func (p *fparser) factor(depth int) (*fnode, error) {
	if depth > maxFunctionDepth {
		return nil, fmt.Errorf("nested deeper than %d", maxFunctionDepth)
	}
	var n *fnode
	switch c := p.peek(); {
	case c == '!':
		p.i++
		a, err := p.factor(depth + 1)
		if err != nil {
			return nil, err
		}
		n = &fnode{op: '!', a: a}
	case c == '(':
		p.i++
		a, err := p.or(depth + 1)
		if err != nil {
			return nil, err
		}
		if p.peek() != ')' {
			return nil, fmt.Errorf("missing ) at %d", p.i)
		}
		p.i++
		n = a
	case isIdentByte(c):
		start := p.i
		for p.i < len(p.s) && isIdentByte(p.s[p.i]) {
			p.i++
		}
		name := p.s[start:p.i]
		switch name {
		case "0", "1":
			n = &fnode{op: 'c', v: int(name[0] - '0')}
		default:
			idx := -1
			for i, v := range p.f.vars {
				if v == name {
					idx = i
				}
			}
			if idx < 0 {
				idx = len(p.f.vars)
				p.f.vars = append(p.f.vars, name)
			}
			n = &fnode{op: 'v', v: idx}
		}
	case c == 0:
		return nil, fmt.Errorf("unexpected end")
	default:
		return nil, fmt.Errorf("unexpected %q at %d", c, p.i)
	}
	for p.i < len(p.s) && p.s[p.i] == '\'' {
		p.i++
		n = &fnode{op: '!', a: n}
	}
	return n, nil
}

// TruthTable evaluates f over the listed inputs: bit k of the result is
// f's value when input i is bit i of k. Variables f uses that are not in
// inputs are an error, as are more than 6 inputs.
func (f *Function) TruthTable(inputs []string) (uint64, error) {
	if len(inputs) > 6 {
		return 0, fmt.Errorf("%d inputs: at most 6", len(inputs))
	}
	pos := map[string]int{}
	for i, in := range inputs {
		pos[in] = i
	}
	for _, v := range f.vars {
		if _, ok := pos[v]; !ok {
			return 0, fmt.Errorf("variable %s is not an input (%s)", v, strings.Join(inputs, ", "))
		}
	}
	var tt uint64
	for k := 0; k < 1<<len(inputs); k++ {
		if f.Eval(func(name string) bool { return k>>pos[name]&1 == 1 }) {
			tt |= 1 << k
		}
	}
	return tt, nil
}
