package gen

import (
	"fmt"

	nl "github.com/lsugen/lsugen/netlist"
)

// sig is one signal built twice: as gate-level nets and as the word-level
// expression the readable RTL prints. Sequential generators use it so the
// two views cannot drift apart structurally: every operation below makes
// both. len(n) == e.W always.
type sig struct {
	n nl.Bus
	e *nl.Expr
}

func (s sig) w() int { return len(s.n) }

// dual builds a design's netlist and its word-level view together.
type dual struct {
	b *nl.Builder
	r *nl.RTL
}

func newDual(name string) *dual { return &dual{b: nl.NewBuilder(name), r: &nl.RTL{}} }

func (g *dual) input(name string, w int, doc string) sig {
	return sig{g.b.Input(name, w, doc), nl.Ref(name, w)}
}

func (g *dual) output(name string, s sig, doc string) {
	g.b.Output(name, s.n, doc)
	g.r.Assigns = append(g.r.Assigns, nl.Assign{Name: name, Expr: s.e, Doc: doc})
}

// wire names s: a local wire in the RTL, named nets in the netlist.
func (g *dual) wire(name string, s sig, doc string) sig {
	g.b.Name(name, s.n)
	return sig{s.n, addWire(g.r, name, s.e, doc)}
}

// reg declares a register; next gives its next value.
func (g *dual) reg(name string, w int, doc string) sig {
	g.r.Regs = append(g.r.Regs, nl.Reg{Name: name, Width: w, Doc: doc})
	return sig{g.b.Reg(name, w), nl.Ref(name, w)}
}

// next sets register r's next value d, or 0 when clear is 1 (clear.n nil:
// no clear).
func (g *dual) next(r, clear, d sig) {
	for i := range g.r.Regs {
		reg := &g.r.Regs[i]
		if reg.Name != r.e.Name {
			continue
		}
		reg.Next = d.e
		if clear.n != nil {
			reg.Clear = clear.e
			g.b.NextClear(r.n, d.n, clear.n[0])
		} else {
			g.b.Next(r.n, d.n)
		}
		return
	}
	panic(fmt.Sprintf("gen: next of %s, which is not a register", r.e.Name))
}

func (g *dual) konst(v uint64, w int) sig { return sig{nl.Const(v, w), nl.ConstExpr(v, w)} }

var noClear sig

func (g *dual) not(a sig) sig {
	out := make(nl.Bus, a.w())
	for i, n := range a.n {
		out[i] = g.b.Not(n)
	}
	if a.e.Op == nl.OpNot {
		return sig{out, a.e.Args[0]}
	}
	if a.e.Op == nl.OpConst && a.w() == 1 {
		return g.konst(1-a.e.Val.Uint64()&1, 1)
	}
	return sig{out, nl.NotE(a.e)}
}

// bitwise applies a builder gate per bit to equal-width operands.
func (g *dual) bitwise(f func(...nl.Net) nl.Net, mk func(...*nl.Expr) *nl.Expr, xs []sig) sig {
	if len(xs) == 1 {
		return xs[0]
	}
	out := make(nl.Bus, xs[0].w())
	es := make([]*nl.Expr, len(xs))
	for i := range out {
		ins := make([]nl.Net, len(xs))
		for j, x := range xs {
			ins[j] = x.n[i]
		}
		out[i] = f(ins...)
	}
	for j, x := range xs {
		es[j] = x.e
	}
	return sig{out, mk(es...)}
}

func (g *dual) and(xs ...sig) sig { return g.bitwise(g.b.And, nl.AndE, dropConst(xs, true)) }
func (g *dual) or(xs ...sig) sig  { return g.bitwise(g.b.Or, nl.OrE, dropConst(xs, false)) }

// dropConst leaves out operands that are the identity of AND (all ones,
// ones set) or OR (zero), so the RTL reads without "| 1'b0"; the netlist
// builder folds them anyway. At least one operand stays.
func dropConst(xs []sig, ones bool) []sig {
	var keep []sig
	for _, x := range xs {
		if x.e.Op == nl.OpConst && isIdentity(x, ones) {
			continue
		}
		keep = append(keep, x)
	}
	if len(keep) == 0 {
		return xs[:1]
	}
	return keep
}

func isIdentity(x sig, ones bool) bool {
	v := x.e.Val
	if !ones {
		return v == nil || v.Sign() == 0
	}
	return v != nil && v.BitLen() == x.w() && v.TrailingZeroBits() == 0 && popcount(v.Bytes()) == x.w()
}

func popcount(b []byte) int {
	n := 0
	for _, c := range b {
		for ; c != 0; c &= c - 1 {
			n++
		}
	}
	return n
}

func (g *dual) xor(a, c sig) sig {
	out := make(nl.Bus, a.w())
	for i := range out {
		out[i] = g.b.Xor(a.n[i], c.n[i])
	}
	return sig{out, nl.XorE(a.e, c.e)}
}

// mux is s ? a1 : a0 for a one-bit s.
func (g *dual) mux(s, a1, a0 sig) sig {
	return sig{g.b.MuxBus(s.n[0], a0.n, a1.n), nl.MuxE(s.e, a1.e, a0.e)}
}

func (g *dual) eq(a, c sig) sig { return sig{nl.Bus{g.b.Equal(a.n, c.n)}, nl.EqE(a.e, c.e)} }

// nonzero is |a, one bit.
func (g *dual) nonzero(a sig) sig {
	return sig{nl.Bus{g.b.Or(a.n...)}, nl.NotE(nl.EqE(a.e, nl.ConstExpr(0, a.w())))}
}

func (g *dual) slice(a sig, hi, lo int) sig {
	if lo == 0 && hi == a.w()-1 {
		return a
	}
	return sig{a.n[lo : hi+1], nl.Slice(a.e, hi, lo)}
}

func (g *dual) bit(a sig, i int) sig { return g.slice(a, i, i) }

// concat joins parts, parts[0] least significant.
func (g *dual) concat(parts ...sig) sig {
	if len(parts) == 1 {
		return parts[0]
	}
	var n nl.Bus
	es := make([]*nl.Expr, len(parts))
	for i, p := range parts {
		n = append(n, p.n...)
		es[i] = p.e
	}
	return sig{n, nl.Concat(es...)}
}

// zext zero-extends a to w bits.
func (g *dual) zext(a sig, w int) sig {
	if a.w() >= w {
		return a
	}
	return g.concat(a, g.konst(0, w-a.w()))
}

// add is a + c mod 2^w (ripple carry: the operands here are a few bits).
func (g *dual) add(a, c sig) sig {
	return sig{rippleAdd(g.b, a.n, c.n, nl.Const0), nl.AddE(a.e, c.e)}
}

// dec is a - 1 mod 2^w.
func (g *dual) dec(a sig) sig {
	ones := g.konst(1<<uint(a.w())-1, a.w())
	return g.add(a, ones)
}

// shl is a << amt, logical, truncated to a's width.
func (g *dual) shl(a, amt sig) sig {
	// Reverse, shift right, reverse: the barrel shifter is shared.
	rev := func(x nl.Bus) nl.Bus {
		out := make(nl.Bus, len(x))
		for i, n := range x {
			out[len(x)-1-i] = n
		}
		return out
	}
	return sig{rev(shiftRight(g.b, rev(a.n), amt.n)), nl.ShlE(a.e, amt.e)}
}

// mem is a memory of depth words of w bits with one write port: the
// netlist holds depth*w DFFs, each reloading itself unless its word is
// written, and reads through a multiplexer tree per bit.
type mem struct {
	name  string
	w     int
	words []nl.Bus
}

func (g *dual) mem(name string, w, depth int, doc string) *mem {
	m := &mem{name: name, w: w}
	for i := range depth {
		m.words = append(m.words, g.b.Reg(fmt.Sprintf("%s_%d", name, i), w))
	}
	g.r.Mems = append(g.r.Mems, nl.Mem{Name: name, Width: w, Depth: depth, Doc: doc})
	return m
}

// read is word addr of m.
func (g *dual) read(m *mem, addr sig) sig {
	out := make(nl.Bus, m.w)
	for bit := range out {
		col := make(nl.Bus, len(m.words))
		for i, word := range m.words {
			col[i] = word[bit]
		}
		out[bit] = g.b.Select(addr.n, col)
	}
	return sig{out, nl.MemE(m.name, m.w, addr.e)}
}

// write sets m's write port: word addr takes data at the edge when when is 1.
func (g *dual) write(m *mem, when, addr, data sig) {
	sel := g.decode(addr)
	for i, word := range m.words {
		we := g.b.And(when.n[0], sel[i])
		g.b.Next(word, g.b.MuxBus(we, word, data.n))
	}
	for i := range g.r.Mems {
		if mm := &g.r.Mems[i]; mm.Name == m.name {
			mm.When, mm.Addr, mm.Data = when.e, addr.e, data.e
		}
	}
}

// decode is the one-hot decode of a: bit i is 1 when a == i.
func (g *dual) decode(a sig) nl.Bus {
	out := make(nl.Bus, 1<<uint(a.w()))
	for i := range out {
		lits := make([]nl.Net, a.w())
		for j, n := range a.n {
			if i>>uint(j)&1 == 1 {
				lits[j] = n
			} else {
				lits[j] = g.b.Not(n)
			}
		}
		out[i] = g.b.And(lits...)
	}
	return out
}

func (g *dual) build() (*nl.Design, error) {
	g.b.SetRTL(g.r)
	return g.b.Build()
}

// bitAt is vec[idx], idx a run-time index that cannot exceed vec's width.
func (g *dual) bitAt(vec, idx sig) sig {
	return sig{nl.Bus{g.b.Select(idx.n, vec.n)}, nl.BitAt(vec.e, idx.e)}
}

// onehot is 1 << a, 2^(a's width) bits wide.
func (g *dual) onehot(a sig) sig {
	w := 1 << uint(a.w())
	return sig{g.decode(a), nl.ShlE(nl.ConstExpr(1, w), a.e)}
}
