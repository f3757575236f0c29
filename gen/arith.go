package gen

import (
	"fmt"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
)

// Adder architectures shared by every generator that adds.

// rippleAdd returns (a + c + cin) truncated to len(a) bits: a chain of full
// adders, the carry two gate levels per bit (NAND-NAND majority).
func rippleAdd(b *netlist.Builder, a, c netlist.Bus, cin netlist.Net) netlist.Bus {
	sum := make(netlist.Bus, len(a))
	carry := cin
	for i := range a {
		p := b.Xor(a[i], c[i])
		sum[i] = b.Xor(p, carry)
		if i+1 < len(a) {
			// carry' = a&c | p&carry
			carry = b.Nand(b.Nand(a[i], c[i]), b.Nand(p, carry))
		}
	}
	return sum
}

// claAdd returns (a + c + cin) truncated to len(a) bits, with carries from
// a hierarchical carry-lookahead tree of 4-bit lookahead blocks.
func claAdd(b *netlist.Builder, a, c netlist.Bus, cin netlist.Net) netlist.Bus {
	g, p := genProp(b, a, c)
	carries := lookaheadCarries(b, g, p, cin)
	sum := make(netlist.Bus, len(a))
	for i := range sum {
		sum[i] = b.Xor(p[i], carries[i])
	}
	return sum
}

// cascadeAdd returns (a + c + cin) truncated to len(a) bits, the way 003_*
// builds its subtractor: a 4-bit carry-lookahead adder "expanded to compute
// 8-bits, then to do 16, then to compute all 33 bits", each wider adder
// made of two narrower ones with the carry passed from one to the next.
// Carries are looked ahead inside each 4-bit block and ripple from block
// to block, two gate levels (AND-OR) per block.
func cascadeAdd(b *netlist.Builder, a, c netlist.Bus, cin netlist.Net) netlist.Bus {
	sum := make(netlist.Bus, len(a))
	carry := cin
	for lo := 0; lo < len(a); lo += 4 {
		hi := min(lo+4, len(a))
		g, p := genProp(b, a[lo:hi], c[lo:hi])
		carries := append(netlist.Bus{carry}, lookaheadBlock(b, g, p, carry)...)
		for i := lo; i < hi; i++ {
			sum[i] = b.Xor(p[i-lo], carries[i-lo])
		}
		carry = carries[hi-lo]
	}
	return sum
}

// genProp returns each bit's carry generate a&c and propagate a^c.
func genProp(b *netlist.Builder, a, c netlist.Bus) (g, p netlist.Bus) {
	g, p = make(netlist.Bus, len(a)), make(netlist.Bus, len(a))
	for i := range a {
		g[i] = b.And(a[i], c[i])
		p[i] = b.Xor(a[i], c[i])
	}
	return g, p
}

// lookaheadBlock is the 4-bit (or narrower) lookahead unit: from bit
// generates g and propagates p it gives the carry into bit i+1 from cin,
// two gate levels (AND-OR) each.
func lookaheadBlock(b *netlist.Builder, g, p netlist.Bus, cin netlist.Net) netlist.Bus {
	out := make(netlist.Bus, len(g))
	for i := range g {
		// c[i+1] = g[i] | p[i]g[i-1] | ... | p[i]..p[0]cin
		terms := netlist.Bus{g[i]}
		for j := i - 1; j >= -1; j-- {
			lits := netlist.Bus{}
			for k := i; k > j; k-- {
				lits = append(lits, p[k])
			}
			if j >= 0 {
				lits = append(lits, g[j])
			} else {
				lits = append(lits, cin)
			}
			terms = append(terms, b.And(lits...))
		}
		out[i] = b.Or(terms...)
	}
	return out
}

// groupGP is a block's group generate and propagate.
func groupGP(b *netlist.Builder, g, p netlist.Bus) (netlist.Net, netlist.Net) {
	if len(g) == 1 {
		return g[0], p[0]
	}
	if len(g) > 4 {
		gs, ps := subgroups(b, g, p)
		return groupGP(b, gs, ps)
	}
	// G = carry out of the block with cin = 0; P = AND of propagates.
	G := lookaheadBlock(b, g, p, netlist.Const0)[len(g)-1]
	return G, b.And(p...)
}

// subgroups splits g,p into at most four groups of 4^k bits and returns
// each group's (G, P).
func subgroups(b *netlist.Builder, g, p netlist.Bus) (netlist.Bus, netlist.Bus) {
	size := 4
	for size*4 < len(g) {
		size *= 4
	}
	var gs, ps netlist.Bus
	for lo := 0; lo < len(g); lo += size {
		hi := min(lo+size, len(g))
		G, P := groupGP(b, g[lo:hi], p[lo:hi])
		gs, ps = append(gs, G), append(ps, P)
	}
	return gs, ps
}

// lookaheadCarries returns the carry into every bit (index 0 is cin).
func lookaheadCarries(b *netlist.Builder, g, p netlist.Bus, cin netlist.Net) netlist.Bus {
	if len(g) <= 4 {
		c := lookaheadBlock(b, g, p, cin)
		return append(netlist.Bus{cin}, c[:len(c)-1]...)
	}
	size := 4
	for size*4 < len(g) {
		size *= 4
	}
	gs, ps := subgroups(b, g, p)
	groupCarry := append(netlist.Bus{cin}, lookaheadBlock(b, gs, ps, cin)...)
	var out netlist.Bus
	for k, lo := 0, 0; lo < len(g); k, lo = k+1, lo+size {
		hi := min(lo+size, len(g))
		out = append(out, lookaheadCarries(b, g[lo:hi], p[lo:hi], groupCarry[k])...)
	}
	return out
}

// shiftRight is a logarithmic barrel shifter: in >> amt, zero fill, one
// MUX2 level per bit of amt. The largest shift comes first: when callers
// read only the low outputs, each later stage then needs fewer positions,
// and Build removes the muxes of the positions no one reads.
func shiftRight(b *netlist.Builder, in, amt netlist.Bus) netlist.Bus {
	cur := append(netlist.Bus(nil), in...)
	for s := len(amt) - 1; s >= 0; s-- {
		sel := amt[s]
		dist := 1 << s
		next := make(netlist.Bus, len(cur))
		for i := range cur {
			from := netlist.Const0
			if dist < len(cur) && i+dist < len(cur) {
				from = cur[i+dist]
			}
			next[i] = b.Mux(sel, cur[i], from)
		}
		cur = next
	}
	return cur
}

// prefixAdd returns (a + c + cin) truncated to len(a) bits, with carries
// from a Sklansky parallel-prefix tree: log2(n) levels of (G, P) combines.
func prefixAdd(b *netlist.Builder, a, c netlist.Bus, cin netlist.Net) netlist.Bus {
	n := len(a)
	// Position 0 carries cin in as a generate; position i+1 is bit i.
	g := append(netlist.Bus{cin}, make(netlist.Bus, n)...)
	p := append(netlist.Bus{netlist.Const0}, make(netlist.Bus, n)...)
	prop := make(netlist.Bus, n)
	for i := range a {
		g[i+1] = b.And(a[i], c[i])
		prop[i] = b.Xor(a[i], c[i])
		p[i+1] = prop[i]
	}
	for span := 1; span < n+1; span *= 2 {
		for i := range g {
			if i/span%2 == 1 {
				j := i/span*span - 1 // top of the block below
				g[i] = b.Or(g[i], b.And(p[i], g[j]))
				p[i] = b.And(p[i], p[j])
			}
		}
	}
	sum := make(netlist.Bus, n)
	for i := range sum {
		sum[i] = b.Xor(prop[i], g[i]) // g[i] is now the carry into bit i
	}
	return sum
}

// addWith adds with the named architecture: ripple, cla (lookahead tree),
// cla4 (003_*'s cascaded 4-bit lookahead blocks) or prefix.
func addWith(b *netlist.Builder, arch specs.Adder, a, c netlist.Bus, cin netlist.Net) netlist.Bus {
	switch arch {
	case specs.AdderRipple:
		return rippleAdd(b, a, c, cin)
	case specs.AdderCLA:
		return claAdd(b, a, c, cin)
	case specs.AdderCLA4:
		return cascadeAdd(b, a, c, cin)
	case specs.AdderPrefix:
		return prefixAdd(b, a, c, cin)
	}
	// The generators' entry points refuse an invalid adder (checkChoice in gen.go)
	// before any gate is built, so this is a bug, not bad input.
	panic(fmt.Sprintf("gen: adder %q was not validated", arch))
}

// lessThan returns x < y, unsigned: the sign of the (n+1)-bit difference
// {0,x} - {0,y} = {0,x} + {1,~y} + 1, from a full subtractor of the given
// adder architecture (unused sum bits are removed at Build).
func lessThan(b *netlist.Builder, arch specs.Adder, x, y netlist.Bus) netlist.Net {
	xe := append(append(netlist.Bus(nil), x...), netlist.Const0)
	ye := make(netlist.Bus, len(y)+1)
	for i := range y {
		ye[i] = b.Not(y[i])
	}
	ye[len(y)] = netlist.Const1
	diff := addWith(b, arch, xe, ye, netlist.Const1)
	return diff[len(x)]
}
