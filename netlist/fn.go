package netlist

import "strings"

// Fn is a gate kind's Boolean function: a small expression over the
// kind's input pins. It is data, so that every consumer (the simulator,
// the readable and the gate-level Verilog, the truth tables) reads one
// statement of what a kind computes.
type Fn struct {
	Op   FnOp
	Pin  int  // the pin index, for FnPin
	Args []Fn // the operands; for FnMux: select, value when 1, value when 0
}

// FnOp is an operator of Fn.
type FnOp uint8

const (
	FnNone FnOp = iota // no combinational function (DFF)
	FnPin              // an input pin
	FnNot
	FnAnd
	FnOr
	FnXor
	FnMux // Args[0] ? Args[1] : Args[2]
)

func pin(i int) Fn        { return Fn{Op: FnPin, Pin: i} }
func not(a Fn) Fn         { return Fn{Op: FnNot, Args: []Fn{a}} }
func and(a ...Fn) Fn      { return Fn{Op: FnAnd, Args: a} }
func or(a ...Fn) Fn       { return Fn{Op: FnOr, Args: a} }
func xor(a ...Fn) Fn      { return Fn{Op: FnXor, Args: a} }
func mux(s, a1, a0 Fn) Fn { return Fn{Op: FnMux, Args: []Fn{s, a1, a0}} }

// pins is pins 0..n-1 in order.
func pins(n int) []Fn {
	p := make([]Fn, n)
	for i := range p {
		p[i] = pin(i)
	}
	return p
}

// Eval computes f word-wide: in[i] holds pin i's value in each bit lane.
func (f Fn) Eval(in []uint64) uint64 {
	switch f.Op {
	case FnPin:
		return in[f.Pin]
	case FnNot:
		return ^f.Args[0].Eval(in)
	case FnAnd:
		v := ^uint64(0)
		for _, a := range f.Args {
			v &= a.Eval(in)
		}
		return v
	case FnOr:
		v := uint64(0)
		for _, a := range f.Args {
			v |= a.Eval(in)
		}
		return v
	case FnXor:
		v := uint64(0)
		for _, a := range f.Args {
			v ^= a.Eval(in)
		}
		return v
	case FnMux:
		s := f.Args[0].Eval(in)
		return f.Args[1].Eval(in)&s | f.Args[2].Eval(in)&^s
	}
	panic("netlist: no function to evaluate")
}

// TruthOf is the truth table of f over n pins, in the layout of
// KindInfo.Truth.
func (f Fn) TruthOf(n int) uint16 {
	// Lane m of pin i carries bit i of m, so lane m of the result is the
	// output for input combination m.
	in := make([]uint64, n)
	for i := range in {
		for m := range 1 << n {
			in[i] |= uint64(m>>i&1) << m
		}
	}
	return uint16(f.Eval(in) & (1<<(1<<n) - 1))
}

// Expr is f over word-level operand expressions, for readable views
// printed gate by gate.
func (f Fn) Expr(in []*Expr) *Expr {
	args := func() []*Expr {
		e := make([]*Expr, len(f.Args))
		for i, a := range f.Args {
			e[i] = a.Expr(in)
		}
		return e
	}
	switch f.Op {
	case FnPin:
		return in[f.Pin]
	case FnNot:
		return NotE(f.Args[0].Expr(in))
	case FnAnd:
		return AndE(args()...)
	case FnOr:
		return OrE(args()...)
	case FnXor:
		return XorE(args()...)
	case FnMux:
		a := args()
		return MuxE(a[0], a[1], a[2])
	}
	return nil
}

// Formula writes f over the pin names for documentation, e.g. "!(A&B)".
func (f Fn) Formula(pins []string) string {
	operand := func(a Fn) string {
		if a.Op == FnPin {
			return pins[a.Pin]
		}
		return "(" + a.Formula(pins) + ")"
	}
	switch f.Op {
	case FnPin:
		return pins[f.Pin]
	case FnNot:
		return "!" + operand(f.Args[0])
	case FnAnd, FnOr, FnXor:
		parts := make([]string, len(f.Args))
		for i, a := range f.Args {
			parts[i] = operand(a)
		}
		return strings.Join(parts, map[FnOp]string{FnAnd: "&", FnOr: "|", FnXor: "^"}[f.Op])
	case FnMux:
		return operand(f.Args[0]) + "?" + operand(f.Args[1]) + ":" + operand(f.Args[2])
	}
	return ""
}

// Func is kind k's function for documentation, over its pin names.
func (k Kind) Func() string {
	if k == DFF {
		return "Q<=D at the rising clock edge"
	}
	return Kinds[k].Fn.Formula(Kinds[k].Pins)
}
