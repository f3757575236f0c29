package gen

import (
	"fmt"
	"math/bits"

	nl "github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
)

// The mod hash: bank = addr mod banks, index = addr / banks, for any bank
// count. With banks = 2^n * q, q odd,
//
//	addr = 2^n * X + lo  (lo = addr[n-1:0], X = addr >> n)
//	bank  = 2^n * (X mod q) + lo,  index = X / q,
//
// so the low n bits pass through and only X is divided, by the odd q:
//
//   - q = 1: nothing to divide (power-of-two banks are wires).
//   - q = 2^m - 1: folding. Since 2^m = 1 (mod q), X mod q is the sum of
//     X's m-bit chunks mod q: a carry-save tree whose carries out of bit
//     m-1 wrap to bit 0 (end-around carry), then one m-bit end-around-carry
//     adder and the correction of the all-ones value (which is 0 mod q).
//     Every wrapped carry takes q from the sum, so the quotient is
//     X/q = (X >> m) + (X >> 2m) + ... + (wrapped carries) + (final
//     carry) + (all ones): X = q*sum_j (X >> jm) + sum of chunks. Those
//     terms are added by one carry-save tree and a prefix adder.
//   - other q whose multiplicative order m (the least m with q dividing
//     2^m - 1) is at most 16 and below X's width (5, 9, 11, 13, 17, 21,
//     ...): fold by D = 2^m - 1 = q*t as above, giving X mod D and X / D;
//     divide the m-bit X mod D by q (restoring, m - b + 1 stages), and
//     index = t*(X / D) + (X mod D) / q, the t copies added by carry-save.
//   - any other q: long division by the constant, one compare-subtract
//     stage per quotient bit (restoring), each stage a (b+2)-bit prefix
//     adder with a constant operand (b = bits of q) and b muxes; beyond
//     maxRestoringStages stages, the residue sum (see residue).
//
// The word-level view mirrors the gates operation by operation (the same
// chunks, carry-save words and stages), so the formal proof finds the
// same intermediate values on both sides.

// modPlan is the arithmetic of one mod unit.
type modPlan struct {
	n, q    int // banks = 2^n * q, q odd
	m       int // fold by 2^m - 1; 0: long division
	t       int // (2^m - 1) / q: 1 when q = 2^m - 1
	xBits   int // width of X = addr >> n
	remBits int // clog2(q): the high part of bank_o
	quoBits int // index_o: bits of the largest quotient, at least 1
	// foldBits is the width of X / (2^m - 1) when t > 1.
	foldBits int
	// residue: no fold, and long division would take more than
	// maxRestoringStages serial stages: divide by the residue sum.
	residue bool
}

// maxRestoringStages is the most serial compare-subtract stages lsugen
// accepts for a division before it switches to the residue sum.
const maxRestoringStages = 12

// maxFoldOrder bounds the fold width of a q that is not 2^m - 1: the
// m-bit residue is then divided by q in m - b + 1 serial stages and the
// fold quotient taken t ~ 2^m / q times, so a wide m gains nothing.
const maxFoldOrder = 16

func newModPlan(addrBits, banks int) modPlan {
	n := bits.TrailingZeros(uint(banks))
	q := banks >> n
	p := modPlan{n: n, q: q, xBits: addrBits - n, remBits: bits.Len(uint(q - 1))}
	if q > 1 {
		// The multiplicative order of 2 mod q (q <= 1023, so it exists).
		m, r := 1, 2%q
		for r != 1 && m <= maxFoldOrder {
			m, r = m+1, r*2%q
		}
		switch {
		case q&(q+1) == 0:
			p.m, p.t = bits.Len(uint(q)), 1
		case r == 1 && m < p.xBits:
			p.m, p.t = m, (1<<m-1)/q
		}
	}
	p.quoBits = max(1, bits.Len64(topOf(addrBits)/uint64(banks)))
	p.residue = q > 1 && p.m == 0 && p.xBits-bits.Len(uint(q))+1 > maxRestoringStages
	if p.m > 0 {
		p.foldBits = max(1, bits.Len64(topOf(p.xBits)/(1<<p.m-1)))
	}
	return p
}

// residueMethod says how the fold residue is divided by q.
func residueMethod(p modPlan) string {
	if p.t <= maxParallelQuotient {
		return fmt.Sprintf("by comparing it with %d*j, j = 1..%d, side by side", p.q, p.t-1)
	}
	return "by restoring long division"
}

// validMod reports whether a mod unit's sizes are ones the generator
// handles (the loader's rules).
func validMod(h *specs.Hash) bool {
	return h.Banks >= 2 && h.Banks <= specs.MaxModBanks && h.AddrBits >= 1 && h.AddrBits <= specs.MaxAddrBits &&
		(h.AddrBits > 10 || h.Banks <= 1<<h.AddrBits) && h.BankBits == bits.Len(uint(h.Banks-1))
}

// topOf is the largest value of w bits.
func topOf(w int) uint64 { return ^uint64(0) >> (64 - w) }

// describe says in the unit's header how it divides.
func (p modPlan) describe(banks, bankBits int) []string {
	if p.q == 1 {
		return []string{"A power of two: bank_o is the low address bits, index_o the rest."}
	}
	var lines []string
	if p.n > 0 {
		lines = append(lines, fmt.Sprintf("%d = 2^%d * %d: bank_o[%d:0] = addr_i[%d:0]; x = addr_i >> %d, bank_o[%d:%d] = x mod %d, index_o = x / %d.",
			banks, p.n, p.q, p.n-1, p.n-1, p.n, bankBits-1, p.n, p.q, p.q))
	} else {
		lines = append(lines, fmt.Sprintf("x = addr_i; bank_o = x mod %d, index_o = x / %d.", p.q, p.q))
	}
	d := 1<<p.m - 1
	switch {
	case p.residue:
		lines = append(lines,
			fmt.Sprintf("Residue sum: s = sum of x[i] * (2^i mod %d) (carry-save tree, prefix adder), x mod %d = s mod %d", p.q, p.q, p.q),
			fmt.Sprintf("(restoring stages); x / %d = (x - x mod %d) times the inverse of %d modulo 2^%d (carry-save tree).", p.q, p.q, p.q, p.quoBits))
	case p.m == 0:
		lines = append(lines, fmt.Sprintf("Restoring long division by the constant %d, one compare-subtract stage per quotient bit.", p.q))
	case p.t == 1:
		lines = append(lines,
			fmt.Sprintf("Folding: %d = 2^%d - 1, so x mod %d is the sum of x's %d-bit chunks mod %d (carry-save tree", p.q, p.m, p.q, p.m, p.q),
			fmt.Sprintf("with end-around carry, an end-around-carry adder, %d read as 0); x / %d = (x >> %d) + (x >> %d) + ...", p.q, p.q, p.m, 2*p.m),
			"+ the carries taken out of that sum.")
	default:
		lines = append(lines,
			fmt.Sprintf("%d divides 2^%d - 1 = %d = %d * %d: x mod %d and x / %d by folding %d-bit chunks (end-around carry),", p.q, p.m, d, p.q, p.t, d, d, p.m),
			fmt.Sprintf("then r = x mod %d divided by %d %s; x mod %d = r mod %d,", d, p.q, residueMethod(p), p.q, p.q),
			fmt.Sprintf("x / %d = %d * (x / %d) + r / %d.", p.q, p.t, d, p.q))
	}
	return lines
}

// word is a bus with its word-level expression.
type word struct {
	n nl.Bus
	e *nl.Expr
}

// modGen builds the two views of a mod unit.
type modGen struct {
	*hashGen
	p modPlan
	x word // addr >> n
}

// mod builds bank_o and returns it; index_o is left in g.index.
func (g *hashGen) mod() (nl.Bus, *nl.Expr) {
	return g.modWith(newModPlan(g.h.AddrBits, g.h.Banks))
}

// modWith builds the unit by plan p; a plan with m = 0 divides by long
// division even where folding applies (the tests compare the two).
func (g *hashGen) modWith(p modPlan) (nl.Bus, *nl.Expr) {
	mg := &modGen{hashGen: g, p: p}
	if p.xBits > 0 {
		mg.x = word{g.addr[p.n:], nl.Slice(g.addE, g.h.AddrBits-1, p.n)}
		if p.n > 0 {
			mg.x.e = g.wire("x", mg.x.e, fmt.Sprintf("addr_i >> %d: the part divided by %d", p.n, p.q))
		}
	}
	var rem, quo word
	switch {
	case p.q == 1:
		quo = mg.x
	case p.m > 0 && p.t == 1:
		rem, quo = mg.fold("remainder", "quo", p.quoBits)
	case p.m > 0:
		d := 1<<p.m - 1
		r, qd := mg.fold("fold_rem", "fold_quo", p.foldBits)
		var s word
		if p.t <= maxParallelQuotient {
			rem, s = mg.thresholds(r)
		} else {
			rem, s = mg.divide("small", r, p.m)
		}
		rem = mg.named("remainder", rem, fmt.Sprintf("x mod %d = (x mod %d) mod %d", p.q, d, p.q))
		quo = mg.scaleAdd(qd, s)
	case p.residue:
		rem, quo = mg.residue()
	default:
		rem, quo = mg.divide("div", mg.x, p.xBits)
	}
	quo = mg.resize(quo, p.quoBits)
	g.index, g.indexE = quo.n, quo.e

	var bank nl.Bus
	var parts []*nl.Expr
	if p.n > 0 {
		bank = append(bank, g.addr[:p.n]...)
		parts = append(parts, nl.Slice(g.addE, p.n-1, 0))
	}
	if p.q > 1 {
		rem = mg.resize(rem, p.remBits)
		bank = append(bank, rem.n...)
		parts = append(parts, rem.e)
	}
	if len(parts) == 1 {
		return bank, parts[0]
	}
	return bank, nl.Concat(parts...)
}

// resize zero-extends or truncates a word to w bits.
func (mg *modGen) resize(a word, w int) word {
	switch {
	case a.e == nil || len(a.n) == 0:
		return word{nl.Const(0, w), nl.ConstExpr(0, w)}
	case len(a.n) == w:
		return a
	case len(a.n) > w:
		return word{a.n[:w], nl.Slice(a.e, w-1, 0)}
	}
	return word{append(append(nl.Bus(nil), a.n...), nl.Const(0, w-len(a.n))...),
		nl.Concat(a.e, nl.ConstExpr(0, w-len(a.n)))}
}

// bitsOf returns bits [lo, lo+w) of X as a w-bit word, zeros above X.
func (mg *modGen) bitsOf(lo, w int) word { return mg.fieldOf(mg.x, mg.p.xBits, lo, w) }

// fieldOf returns bits [lo, lo+w) of an xBits-wide word x, zeros above.
func (mg *modGen) fieldOf(x word, xBits, lo, w int) word {
	hi := min(lo+w, xBits)
	if lo >= hi {
		return word{nl.Const(0, w), nl.ConstExpr(0, w)}
	}
	return mg.resize(word{x.n[lo:hi], nl.Slice(x.e, hi-1, lo)}, w)
}

// named gives a word a wire in the RTL and a name in the gate netlist.
func (mg *modGen) named(name string, a word, doc string) word {
	mg.b.Name(name, a.n)
	return word{a.n, mg.wire(name, a.e, doc)}
}

// csa is a carry-save adder on three words: sum a^b^c and the majority,
// the carries, which the caller shifts or rotates.
func (mg *modGen) csa(a, b, c word) (sum, maj word) {
	w := len(a.n)
	sum, maj = word{n: make(nl.Bus, w)}, word{n: make(nl.Bus, w)}
	for i := range w {
		p := mg.b.Xor(a.n[i], b.n[i])
		sum.n[i] = mg.b.Xor(p, c.n[i])
		maj.n[i] = mg.b.Or(mg.b.And(a.n[i], b.n[i]), mg.b.And(p, c.n[i]))
	}
	sum.e = nl.XorE(a.e, b.e, c.e)
	maj.e = nl.OrE(nl.AndE(a.e, b.e), nl.AndE(a.e, c.e), nl.AndE(b.e, c.e))
	return sum, maj
}

// fold divides X by d = 2^m - 1 (see the file comment): it returns X mod
// d, named remName, and X / d in qw bits, named quoName.
func (mg *modGen) fold(remName, quoName string, qw int) (rem, quo word) {
	p, m, b := mg.p, mg.p.m, mg.b
	d := 1<<m - 1
	k := max(1, (p.xBits+m-1)/m) // chunks
	queue := make([]word, k)
	for j := range queue {
		queue[j] = mg.named(fmt.Sprintf("chunk_%d", j), mg.bitsOf(j*m, m),
			fmt.Sprintf("x[%d:%d] (2^%d = 1 mod %d, so every chunk has weight 1)", min((j+1)*m, p.xBits)-1, j*m, j*m, d))
	}
	var wrapped []word // carries taken out of the sum, each worth q
	for level := 0; len(queue) > 2; level++ {
		sum, maj := mg.csa(queue[0], queue[1], queue[2])
		s := mg.named(fmt.Sprintf("fold_s%d", level), sum, "carry-save sum")
		mj := mg.named(fmt.Sprintf("fold_maj%d", level), maj, "carry-save carries")
		// Rotate: the carry out of bit m-1 (weight 2^m = q + 1) re-enters
		// at bit 0 (weight 1), taking q from the sum.
		rot := word{append(nl.Bus{mj.n[m-1]}, mj.n[:m-1]...),
			nl.Concat(nl.Slice(mj.e, m-1, m-1), nl.Slice(mj.e, m-2, 0))}
		c := mg.named(fmt.Sprintf("fold_c%d", level), rot, "carries rotated by one: end-around carry")
		wrapped = append(wrapped, word{nl.Bus{mj.n[m-1]}, nl.Slice(mj.e, m-1, m-1)})
		queue = append(queue[3:], s, c)
	}
	x, y := queue[0], word{nl.Const(0, m), nl.ConstExpr(0, m)}
	if len(queue) == 2 {
		y = queue[1]
	}

	// End-around-carry adder: x + y + cout, cout the carry out of x + y.
	// In gates the carry-out is the prefix tree's group generate, fed back
	// into every position in one more level (lateCarryAdd). The result is
	// q, standing for 0, exactly when x + y is q (every bit propagates) or
	// 2q (x = y = q, every bit generates): known as early as cout.
	eac, gg, pp, gen := lateCarryAdd(b, x.n, y.n, nil)
	cout := gg[m-1]
	onesN := b.Or(pp[m-1], b.And(gen...))
	foldE := mg.wire("fold_sum", nl.AddE(nl.Concat(x.e, nl.ConstExpr(0, 1)), nl.Concat(y.e, nl.ConstExpr(0, 1))),
		"the last two words added, with the carry out")
	coutW := mg.named("fold_cout", word{nl.Bus{cout}, nl.Slice(foldE, m, m)}, fmt.Sprintf("carry out: worth 2^%d = %d + 1, so it re-enters as 1", m, d))
	e := mg.named("fold_eac", word{eac, nl.AddE(nl.Slice(foldE, m-1, 0), nl.Concat(coutW.e, nl.ConstExpr(0, m-1)))},
		fmt.Sprintf("the chunk sum mod %d, with %d itself standing for 0", d, d))
	ones := mg.named("fold_ones", word{nl.Bus{onesN}, nl.EqE(e.e, nl.ConstExpr(uint64(d), m))},
		fmt.Sprintf("the sum is %d = 0 mod %d", d, d))
	rem = word{make(nl.Bus, m), nl.MuxE(ones.e, nl.ConstExpr(0, m), e.e)}
	for i := range rem.n {
		rem.n[i] = b.And(eac[i], b.Not(onesN))
	}
	rem = mg.named(remName, rem, fmt.Sprintf("x mod %d", d))

	// The quotient: a carry-save tree over the shifted copies of X, the
	// wrapped carries and cout filling the free bit 0 of its carry words
	// in the order they arrive, and ones, the last to arrive, as the
	// adder's late carry-in.
	var terms []word
	for j := 1; j*m < p.xBits; j++ {
		terms = append(terms, mg.bitsOf(j*m, qw))
	}
	terms = mg.carrySave(quoName, terms, append(wrapped, coutW))
	for len(terms) < 2 {
		terms = append(terms, mg.resize(word{}, qw))
	}
	sum, _, _, _ := lateCarryAdd(b, terms[0].n, terms[1].n, ones.n)
	sumE := nl.AddE(nl.AddE(terms[0].e, terms[1].e), mg.resize(ones, qw).e)
	return rem, mg.named(quoName, word{sum, sumE}, fmt.Sprintf("x / %d", d))
}

// lateCarryAdd returns x + y + cin truncated to len(x) bits, for a carry-in
// that arrives late: the prefix tree works on x and y alone and cin joins
// every carry in one AND-OR level. cin nil means the end-around carry, the
// tree's own carry out. It also returns the group generate and propagate
// of bits [i:0] and the bit generates.
func lateCarryAdd(b *nl.Builder, x, y, cin nl.Bus) (sum, gg, pp, gen nl.Bus) {
	gen, prop := genProp(b, x, y)
	gg, pp = prefixGP(b, gen, prop)
	c := gg[len(gg)-1]
	if cin != nil {
		c = cin[0]
	}
	sum = make(nl.Bus, len(x))
	for i := range sum {
		carry := c
		if i > 0 {
			carry = b.Or(gg[i-1], b.And(pp[i-1], c))
		}
		sum[i] = b.Xor(prop[i], carry)
	}
	return sum, gg, pp, gen
}

// prefixGP returns the group generate and propagate of bits [i:0] for
// every i, from a Sklansky parallel-prefix tree.
func prefixGP(b *nl.Builder, g, p nl.Bus) (nl.Bus, nl.Bus) {
	gg, pp := append(nl.Bus(nil), g...), append(nl.Bus(nil), p...)
	for span := 1; span < len(g); span *= 2 {
		for i := range gg {
			if i/span%2 == 1 {
				j := i/span*span - 1
				gg[i] = b.Or(gg[i], b.And(pp[i], gg[j]))
				pp[i] = b.And(pp[i], pp[j])
			}
		}
	}
	return gg, pp
}

// carrySave reduces words of equal width, plus one-bit terms of weight 1,
// to at most two words with the same sum (truncated to the width).
// Carry-save adders take the words in order and queue their results
// behind the rest; each carry word, shifted left, has a free bit 0, which
// takes the next one-bit term (in the order given: arrival order). A bit
// that finds no free place is added as a word of its own.
func (mg *modGen) carrySave(name string, terms, ones []word) []word {
	if len(terms) == 0 {
		return nil
	}
	w := len(terms[0].n)
	level := 0
	reduce := func() {
		sum, maj := mg.csa(terms[0], terms[1], terms[2])
		s := mg.named(fmt.Sprintf("%s_s%d", name, level), sum, "carry-save sum")
		mj := mg.named(fmt.Sprintf("%s_maj%d", name, level), maj, "carry-save carries")
		c := word{append(nl.Bus{nl.Const0}, mj.n[:w-1]...), nl.ShlE(mj.e, nl.ConstExpr(1, 1))}
		if len(ones) > 0 {
			c = word{append(nl.Bus{ones[0].n[0]}, mj.n[:w-1]...), ones[0].e}
			if w > 1 {
				c.e = nl.Concat(ones[0].e, nl.Slice(mj.e, w-2, 0))
			}
			ones = ones[1:]
		}
		terms = append(terms[3:], s, c)
		level++
	}
	for len(terms) > 2 {
		reduce()
	}
	for len(ones) > 0 {
		terms = append(terms, mg.resize(ones[0], w))
		ones = ones[1:]
		if len(terms) > 2 {
			reduce()
		}
	}
	return terms
}

// divide divides an xBits-wide word x by the odd constant q: restoring
// division, most significant bit first. The partial remainder r < q has b
// bits; each stage forms t = 2r + x[i] < 2q, subtracts q when t >= q, and
// that comparison is the quotient bit. Wires are named after name.
func (mg *modGen) divide(name string, x word, xBits int) (rem, quo word) {
	p, b := mg.p, mg.b
	bw := bits.Len(uint(p.q)) // b
	if xBits < bw {
		// x < 2^(b-1) < q: the quotient is 0 and x the remainder.
		return mg.fieldOf(x, xBits, 0, bw), word{}
	}
	// The top b-1 bits are below q: the first remainder, no stage needed.
	r := mg.fieldOf(x, xBits, xBits-bw+1, bw)
	neg := uint64(1)<<(bw+1) - uint64(p.q) // -q in b+1 bits
	stages := xBits - bw + 1
	qbits := make(nl.Bus, stages)
	qparts := make([]*nl.Expr, stages)
	for i := stages - 1; i >= 0; i-- {
		t := word{append(nl.Bus{x.n[i]}, r.n...), nl.Concat(nl.Slice(x.e, i, i), r.e)} // b+1 bits
		t = mg.named(fmt.Sprintf("%s_t%d", name, i), t, fmt.Sprintf("2r + x[%d]", i))
		// t - q in b+2 bits: the top bit is the carry, 1 when t >= q.
		ext := append(append(nl.Bus(nil), t.n...), nl.Const0)
		diff := prefixAdd(b, ext, nl.Const(neg, bw+2), nl.Const0)
		ge := mg.named(fmt.Sprintf("%s_ge%d", name, i), word{nl.Bus{diff[bw+1]}, nl.NotE(nl.LtE(t.e, nl.ConstExpr(uint64(p.q), bw+1)))},
			fmt.Sprintf("t >= %d: quotient bit %d", p.q, i))
		dE := nl.AddE(t.e, nl.ConstExpr(neg, bw+1))
		next := word{b.MuxBus(ge.n[0], t.n[:bw], diff[:bw]), nl.MuxE(ge.e, nl.Slice(dE, bw-1, 0), nl.Slice(t.e, bw-1, 0))}
		r = mg.named(fmt.Sprintf("%s_r%d", name, i), next, fmt.Sprintf("remainder after quotient bit %d", i))
		qbits[i], qparts[i] = ge.n[0], ge.e
	}
	if name == "res" {
		return r, word{} // the residue's quotient is not needed
	}
	quoName := "quo"
	if name != "div" {
		quoName = name + "_quo"
	}
	return r, mg.named(quoName, word{qbits, nl.Concat(qparts...)}, fmt.Sprintf("the quotient by %d", p.q))
}

// residue divides X by an odd q without a fold in logarithmic depth but
// for a short serial tail: the remainder from the residue sum
// S = sum of x[i] * (2^i mod q), a carry-save tree of constants gated by
// the address bits, then S (a few bits wider than q) reduced by restoring
// stages; the quotient as the exact quotient (X - R) / q, which is
// (X - R) times the inverse of q modulo 2^w: X's shifted copies (early,
// in parallel with the remainder) and R's bits gating the constants
// -inv * 2^j (late), one carry-save tree and a prefix adder.
func (mg *modGen) residue() (rem, quo word) {
	p := mg.p
	l := bits.Len(uint(p.q))
	// The low l-1 bits are their own residues; each higher bit adds 2^i mod q.
	residues := make([]uint64, p.xBits)
	maxS := uint64(1)<<(l-1) - 1
	c := uint64(1) << (l - 1) % uint64(p.q)
	for i := l - 1; i < p.xBits; i++ {
		residues[i] = c
		maxS += c
		c = c * 2 % uint64(p.q)
	}
	sw := bits.Len64(maxS)
	terms := []word{mg.resize(mg.fieldOf(mg.x, p.xBits, 0, l-1), sw)}
	for i := l - 1; i < p.xBits; i++ {
		t := word{n: make(nl.Bus, sw)}
		for k := range t.n {
			t.n[k] = nl.Const0
			if residues[i]>>k&1 != 0 {
				t.n[k] = mg.x.n[i]
			}
		}
		t.e = nl.MuxE(nl.Slice(mg.x.e, i, i), nl.ConstExpr(residues[i], sw), nl.ConstExpr(0, sw))
		terms = append(terms, t)
	}
	terms = mg.carrySave("res", terms, nil)
	for len(terms) < 2 {
		terms = append(terms, mg.resize(word{}, sw))
	}
	sum := mg.named("res_sum", word{prefixAdd(mg.b, terms[0].n, terms[1].n, nl.Const0), nl.AddE(terms[0].e, terms[1].e)},
		fmt.Sprintf("sum of x[i] * (2^i mod %d): x mod %d, give or take multiples of %d", p.q, p.q, p.q))
	rem, _ = mg.divide("res", sum, sw)
	rem = mg.named("remainder", rem, fmt.Sprintf("x mod %d", p.q))

	w := p.quoBits
	mask := topOf(w)
	inv := uint64(p.q) // q * q = 1 mod 8; each Newton step doubles the correct bits
	for range 5 {
		inv *= 2 - uint64(p.q)*inv
	}
	inv &= mask
	var qterms []word
	for k := range w {
		if inv>>k&1 == 0 {
			continue
		}
		x := mg.fieldOf(mg.x, p.xBits, 0, w-k)
		if k > 0 {
			x = word{append(nl.Const(0, k), x.n...), nl.Concat(nl.ConstExpr(0, k), x.e)}
		}
		qterms = append(qterms, x)
	}
	for j := range rem.n {
		cj := -(inv << j) & mask
		t := word{n: make(nl.Bus, w), e: nl.MuxE(nl.Slice(rem.e, j, j), nl.ConstExpr(cj, w), nl.ConstExpr(0, w))}
		for k := range t.n {
			t.n[k] = nl.Const0
			if cj>>k&1 != 0 {
				t.n[k] = rem.n[j]
			}
		}
		qterms = append(qterms, t)
	}
	qterms = mg.carrySave("quo", qterms, nil)
	for len(qterms) < 2 {
		qterms = append(qterms, mg.resize(word{}, w))
	}
	return rem, mg.named("quo", word{prefixAdd(mg.b, qterms[0].n, qterms[1].n, nl.Const0), nl.AddE(qterms[0].e, qterms[1].e)},
		fmt.Sprintf("x / %d = (x - x mod %d) * %d mod 2^%d (%d * %d = 1 mod 2^%d)", p.q, p.q, inv, w, p.q, inv, w))
}

// scaleAdd returns t * qd + s in quoBits bits: the t copies of the fold
// quotient qd (one per set bit of t, shifted) and the small quotient s,
// the last to arrive, by carry-save and a prefix adder.
func (mg *modGen) scaleAdd(qd, s word) word {
	p, w := mg.p, mg.p.quoBits
	qd = mg.resize(qd, w)
	var terms []word
	for k := range bits.Len(uint(p.t)) {
		if p.t>>k&1 == 0 {
			continue
		}
		c := qd
		if k > 0 {
			c = word{append(nl.Const(0, k), qd.n[:w-k]...), nl.Concat(nl.ConstExpr(0, k), nl.Slice(qd.e, w-k-1, 0))}
		}
		terms = append(terms, c)
	}
	terms = mg.carrySave("quo", append(terms, mg.resize(s, w)), nil)
	for len(terms) < 2 {
		terms = append(terms, mg.resize(word{}, w))
	}
	return mg.named("quo", word{prefixAdd(mg.b, terms[0].n, terms[1].n, nl.Const0), nl.AddE(terms[0].e, terms[1].e)},
		fmt.Sprintf("x / %d = %d * (x / %d) + (x mod %d) / %d", p.q, p.t, 1<<p.m-1, 1<<p.m-1, p.q))
}

// maxParallelQuotient is the largest t for which the residue's quotient
// by q is found by t - 1 comparisons side by side (thresholds) rather than
// by m - b + 1 serial restoring stages.
const maxParallelQuotient = 32

// thresholds divides the fold residue r (m bits, below t*q) by q in
// parallel: r >= j*q for every j in 1..t-1 (constant comparators), the
// first failing comparison picks s = r / q and the constant s*q, and the
// remainder is r - s*q in b bits, where it fits.
func (mg *modGen) thresholds(r word) (rem, s word) {
	p, b := mg.p, mg.b
	m, bw, sw := p.m, p.remBits, bits.Len(uint(p.t-1))
	ge := word{n: make(nl.Bus, p.t-1)}
	geE := make([]*nl.Expr, p.t-1)
	for j := 1; j < p.t; j++ {
		c := uint64(j * p.q)
		ge.n[j-1] = b.Not(lessThan(b, specs.AdderPrefix, r.n, nl.Const(c, m)))
		geE[j-1] = nl.NotE(nl.LtE(r.e, nl.ConstExpr(c, m)))
	}
	ge.e = nl.Concat(geE...)
	ge = mg.named("small_ge", ge, fmt.Sprintf("bit j-1: x mod %d >= %d*j", 1<<m-1, p.q))
	// One-hot: s = j where r >= j*q but not (j+1)*q; in the RTL a
	// priority chain over the thresholds, highest first.
	sBits, sqBits := make([][]nl.Net, sw), make([][]nl.Net, bw) // per output bit, the one-hot terms that set it
	sE, sqE := nl.ConstExpr(0, sw), nl.ConstExpr(0, bw)
	for j := 1; j < p.t; j++ {
		oh := ge.n[j-1]
		if j+1 < p.t {
			oh = b.And(oh, b.Not(ge.n[j]))
		}
		sq := uint64(j*p.q) & (1<<bw - 1) // s*q in b bits: enough for r - s*q
		for k := range sw {
			if j>>k&1 != 0 {
				sBits[k] = append(sBits[k], oh)
			}
		}
		for k := range bw {
			if sq>>k&1 != 0 {
				sqBits[k] = append(sqBits[k], oh)
			}
		}
	}
	for j := 1; j < p.t; j++ {
		pass := nl.Slice(ge.e, j-1, j-1)
		sE = nl.MuxE(pass, nl.ConstExpr(uint64(j), sw), sE)
		sqE = nl.MuxE(pass, nl.ConstExpr(uint64(j*p.q)&(1<<bw-1), bw), sqE)
	}
	s = word{n: make(nl.Bus, sw), e: sE}
	for k := range s.n {
		s.n[k] = b.Or(sBits[k]...)
	}
	s = mg.named("small_quo", s, fmt.Sprintf("(x mod %d) / %d: the highest threshold passed", 1<<m-1, p.q))
	sq := word{n: make(nl.Bus, bw), e: sqE}
	for k := range sq.n {
		sq.n[k] = b.Or(sqBits[k]...)
	}
	sq = mg.named("small_sq", sq, fmt.Sprintf("the low %d bits of small_quo * %d", bw, p.q))
	lo := mg.fieldOf(r, m, 0, bw)
	notSq := make(nl.Bus, bw)
	for k := range notSq {
		notSq[k] = b.Not(sq.n[k])
	}
	rem = word{prefixAdd(b, lo.n, notSq, nl.Const1), nl.AddE(nl.AddE(lo.e, nl.NotE(sq.e)), nl.ConstExpr(1, bw))}
	return rem, s
}
