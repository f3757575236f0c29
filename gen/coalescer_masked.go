package gen

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/hashicorp/hcl/v2"

	nl "github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
)

// Active lanes (active_mask) and request generation (requests) for the
// coalescers and the monotonicity detector. A unit with either option is
// built here; a unit with neither keeps the generators of coalescer.go, so
// its netlist and Verilog do not change.
//
// Without active_mask every lane is active: the active bits are the
// constant 1, which the builder folds away, and the word-level view leaves
// them out.

// actWarp is a warp with its active bits.
type actWarp struct {
	*warp
	L, bb  int
	masked bool
	act    nl.Bus     // active_i, or Const1 per lane without active_mask
	actE   []*nl.Expr // active_i[k] of the word-level view; nil without active_mask

	// The next active lane of every lane (nxtValid[L-1] is 0); nil until
	// nextActive runs. nxtE[i] is the word-level {valid, address} wire.
	nxtValid nl.Bus
	nxtAddr  []nl.Bus
	nxtE     []*nl.Expr
	nxtLo    int // lowest address bit the word-level nxt_i wires carry

	rowW []*nl.Expr // lane i's later_differ wire (allToAll), nil before
}

func newActWarp(name string, lanes, addrBits, blockBits int, masked bool) *actWarp {
	a := &actWarp{warp: newWarp(name, lanes, addrBits), L: lanes, bb: blockBits, masked: masked}
	a.act = make(nl.Bus, lanes)
	a.actE = make([]*nl.Expr, lanes)
	if masked {
		act := a.b.Input("active_i", lanes, "lane i takes part when bit i is set")
		copy(a.act, act)
		for k := range a.actE {
			a.actE[k] = nl.Slice(nl.Ref("active_i", lanes), k, k)
		}
	} else {
		for k := range a.act {
			a.act[k] = nl.Const1
		}
	}
	return a
}

// clog2 is the number of bits that hold 0..n-1 (0 for n <= 1).
func clog2(n int) int { return bits.Len(uint(max(n, 1) - 1)) }

// blk is lane k's block address, as nets and as a word.
func (a *actWarp) blk(k int) (nl.Bus, *nl.Expr) { return a.block(k, a.bb) }

// xnors compares two buses bit by bit: 1 where they agree.
func (a *actWarp) xnors(x, y nl.Bus) nl.Bus {
	eq := make(nl.Bus, len(x))
	for i := range x {
		eq[i] = a.b.Xnor(x[i], y[i])
	}
	return eq
}

// andE is the AND of the non-nil one-bit expressions (1 for none).
func andE(es ...*nl.Expr) *nl.Expr {
	var keep []*nl.Expr
	for _, e := range es {
		if e != nil {
			keep = append(keep, e)
		}
	}
	return andAll(keep)
}

// notE is ~e, or nil for nil (an absent active bit reads 1, so its
// complement reads 0 and drops out of an OR).
func notE(e *nl.Expr) *nl.Expr {
	if e == nil {
		return nil
	}
	return nl.NotE(e)
}

// orE is the OR of the non-nil one-bit expressions (0 for none).
func orE(es ...*nl.Expr) *nl.Expr {
	var keep []*nl.Expr
	for _, e := range es {
		if e != nil {
			keep = append(keep, e)
		}
	}
	switch len(keep) {
	case 0:
		return nl.ConstExpr(0, 1)
	case 1:
		return keep[0]
	}
	return nl.OrE(keep...)
}

// scanLevels is the depth of nearestScan over n elements: ceil(log2 n).
func scanLevels(n int) int {
	l := 0
	for 1<<l < n {
		l++
	}
	return l
}

// nearestScan is an inclusive Sklansky parallel-prefix scan that keeps
// the nearest valid element: out[k] is the (valid, data) of the highest
// k' <= k with valid[k'] (valid 0 when there is none). Each combine of a
// near element with a far one is an OR2 for the valid bit and one MUX2 per
// data bit, selected by the near element's valid bit, so the scan is
// ceil(log2 n) multiplexer levels deep. The nets of level l but the last
// are named NAME_l<l>_valid_<k> and NAME_l<l>_<k>_<bit>.
func (a *actWarp) nearestScan(name string, valid nl.Bus, data []nl.Bus) (nl.Bus, []nl.Bus) {
	n := len(valid)
	v, d := slices.Clone(valid), slices.Clone(data)
	for span, level := 1, 0; span < n; span, level = span*2, level+1 {
		nv, nd := slices.Clone(v), slices.Clone(d)
		for k := span; k < n; k++ {
			if k&span == 0 {
				continue
			}
			m := k&^(span-1) - 1 // the top of the lower half of k's block
			nv[k] = a.b.Or(v[k], v[m])
			nd[k] = a.b.MuxBus(v[k], d[m], d[k])
			if span*2 < n { // the caller names the outputs
				a.b.Name(fmt.Sprintf("%s_l%d_valid_%d", name, level, k), nl.Bus{nv[k]})
				a.b.Name(fmt.Sprintf("%s_l%d_%d", name, level, k), nd[k])
			}
		}
		v, d = nv, nd
	}
	return v, d
}

// nextActive builds the network that gives every lane i its next active
// lane: nxtValid[i] (some lane j > i is active) and nxtAddr[i] (the lowest
// such lane's address, bits lo.. of it in the word-level view). Without
// active_mask the next lane is lane i+1 and there is no network.
func (a *actWarp) nextActive(lo int) {
	L := a.L
	a.nxtValid, a.nxtAddr, a.nxtLo = make(nl.Bus, L), make([]nl.Bus, L), lo
	a.nxtValid[L-1], a.nxtAddr[L-1] = nl.Const0, nl.Const(0, a.a)
	if !a.masked {
		for i := 0; i < L-1; i++ {
			a.nxtValid[i], a.nxtAddr[i] = nl.Const1, a.lanes[i+1]
		}
		return
	}
	// Lanes L-1 .. 1 in that order: a prefix scan over them keeps the
	// nearest valid element, which is the lowest active lane.
	n := L - 1
	sv, sd := make(nl.Bus, n), make([]nl.Bus, n)
	for k := 0; k < n; k++ {
		sv[k], sd[k] = a.act[L-1-k], a.lanes[L-1-k]
	}
	ov, od := a.nearestScan("nxt_scan", sv, sd)
	var ends nl.Bus
	for i := 0; i < L-1; i++ {
		a.nxtValid[i], a.nxtAddr[i] = ov[L-2-i], od[L-2-i]
		a.b.Name(fmt.Sprintf("nxt_valid_%d", i), nl.Bus{a.nxtValid[i]})
		a.b.Name(fmt.Sprintf("nxt_addr_%d", i), a.nxtAddr[i])
		ends = append(append(ends, a.nxtValid[i]), a.nxtAddr[i]...)
	}
	a.b.Path("next_active", fmt.Sprintf("active_i through the next-active-lane network (Sklansky, %d MUX2 levels) to its outputs", scanLevels(n)),
		a.act, ends)

	// Word-level view: the definition as a chain from the top lane down,
	// nxt_i = active_i[i+1] ? {1, lane i+1} : nxt_(i+1).
	a.nxtE = make([]*nl.Expr, L)
	for i := L - 2; i >= 0; i-- {
		here := nl.Concat(nl.Slice(a.laneE[i+1], a.a-1, lo), nl.ConstExpr(1, 1))
		var e *nl.Expr
		if i == L-2 {
			e = nl.Concat(nl.Slice(a.laneE[i+1], a.a-1, lo), a.actE[i+1])
		} else {
			e = nl.MuxE(a.actE[i+1], here, a.nxtE[i+1])
		}
		doc := ""
		if i == L-2 {
			doc = fmt.Sprintf("nxt_i = {valid, address[%d:%d]} of the next active lane above lane i (the gates: a %d-level Sklansky network)", a.a-1, lo, scanLevels(n))
		}
		a.nxtE[i] = a.wire(fmt.Sprintf("nxt_%d", i), e, doc)
	}
}

// nxtValidE and nxtAddrE are the word-level valid bit and address bits
// hi..lo' of lane i's next active lane (lane i+1 without active_mask).
func (a *actWarp) nxtValidE(i int) *nl.Expr {
	if !a.masked {
		return nil
	}
	return nl.Slice(a.nxtE[i], a.a-a.nxtLo, a.a-a.nxtLo)
}

func (a *actWarp) nxtAddrE(i, lo int) *nl.Expr {
	if !a.masked {
		return nl.Slice(a.laneE[i+1], a.a-1, lo)
	}
	return nl.Slice(a.nxtE[i], a.a-1-a.nxtLo, lo-a.nxtLo)
}

// allToAll is the masked all-to-all comparator matrix. pne[i][j] (i < j)
// is NAND(block i == block j, active i, active j): "lanes i and j are not
// both active on one block", one NAND tree over the per-bit XNORs and the
// two active bits. unique[i] ANDs it over the later lanes, first[j] over
// the earlier lanes (each with the lane's own active bit).
func (a *actWarp) allToAll() (unique, first nl.Bus, pne [][]nl.Net) {
	L := a.L
	pne = make([][]nl.Net, L)
	for i := range pne {
		pne[i] = make([]nl.Net, L)
	}
	a.rowW = make([]*nl.Expr, L)
	for i := 0; i < L; i++ {
		bi, _ := a.blk(i)
		var row nl.Bus
		var es []*nl.Expr
		for j := i + 1; j < L; j++ {
			bj, _ := a.blk(j)
			pne[i][j] = a.b.Nand(append(a.xnors(bi, bj), a.act[i], a.act[j])...)
			row = append(row, pne[i][j])
			es = append(es, nl.NotE(a.sameE(i, j)))
		}
		// Lane i's pairs are one wire, later_differ_I (bit k: lane
		// i + 1 + k), in both views (the gate nets carry its name), so
		// that the proof RTL = gates can cut both modules there; the
		// word-level view reads it (differE).
		if len(row) > 0 {
			name := fmt.Sprintf("later_differ_%d", i)
			a.b.Name(name, row)
			a.rowW[i] = a.wire(name, nl.Concat(es...), fmt.Sprintf("bit k: lanes %d and %d+k are not both active on one block", i, i+1))
		}
	}
	unique, first = make(nl.Bus, L), make(nl.Bus, L)
	for i := 0; i < L; i++ {
		later, earlier := nl.Bus{a.act[i]}, nl.Bus{a.act[i]}
		for j := i + 1; j < L; j++ {
			later = append(later, pne[i][j])
		}
		for j := 0; j < i; j++ {
			earlier = append(earlier, pne[j][i])
		}
		unique[i], first[i] = a.b.And(later...), a.b.And(earlier...)
	}
	a.b.Name("unique_all", unique)
	return unique, first, pne
}

// differE is the word-level "lanes i and j (i < j) are not both active on
// one block": a bit of lane i's later_differ wire once allToAll made it.
func (a *actWarp) differE(i, j int) *nl.Expr {
	if a.rowW == nil {
		return nl.NotE(a.sameE(i, j))
	}
	return nl.Slice(a.rowW[i], j-i-1, j-i-1)
}

// sameE is the word-level "lanes i and j are both active on one block".
func (a *actWarp) sameE(i, j int) *nl.Expr {
	_, bi := a.blk(i)
	_, bj := a.blk(j)
	return andE(a.actE[i], a.actE[j], nl.EqE(bi, bj))
}

// allToAllE is the word-level all-to-all result: lane i active and no
// later active lane on its block.
func (a *actWarp) allToAllE() *nl.Expr {
	parts := make([]*nl.Expr, a.L)
	for i := range parts {
		terms := []*nl.Expr{a.actE[i]}
		for j := i + 1; j < a.L; j++ {
			terms = append(terms, a.differE(i, j))
		}
		parts[i] = andE(terms...)
	}
	return nl.Concat(parts...)
}

// neighbor is the masked neighbor comparator: lane i is unique when it is
// active and its next active lane is absent or on another block, one NAND
// tree over the per-bit XNORs with the next lane and its valid bit.
func (a *actWarp) neighbor() nl.Bus {
	L := a.L
	unique := make(nl.Bus, L)
	for i := 0; i < L; i++ {
		bi, _ := a.blk(i)
		ne := a.b.Nand(append(a.xnors(bi, a.nxtAddr[i][a.bb:]), a.nxtValid[i])...)
		unique[i] = a.b.And(a.act[i], ne)
	}
	a.b.Name("unique_nbr", unique)
	return unique
}

// neighborE is the word-level neighbor result.
func (a *actWarp) neighborE() *nl.Expr {
	parts := make([]*nl.Expr, a.L)
	for i := range parts {
		if i == a.L-1 {
			parts[i] = andE(a.actE[i])
			continue
		}
		_, bi := a.blk(i)
		differs := nl.NotE(nl.EqE(bi, a.nxtAddrE(i, a.bb)))
		parts[i] = andE(a.actE[i], orE(notE(a.nxtValidE(i)), differs))
	}
	return nl.Concat(parts...)
}

// monotonic is the masked detector: every active lane is compared with its
// next active lane, by a subtractor (is lane i below it?) and an equality
// unit; a pair without both lanes counts as in order.
func (a *actWarp) monotonic(adder specs.Adder) (nondec, noninc nl.Net, nondecE, nonincE *nl.Expr) {
	L := a.L
	le, ge := make(nl.Bus, L-1), make(nl.Bus, L-1)
	leE, geE := make([]*nl.Expr, L-1), make([]*nl.Expr, L-1)
	for i := 0; i < L-1; i++ {
		x, y := a.lanes[i], a.nxtAddr[i]
		below := lessThan(a.b, adder, x, y)
		equal := a.b.Not(a.differ(x, y))
		skip := a.b.Nand(a.act[i], a.nxtValid[i])
		le[i] = a.b.Or(skip, below, equal)
		ge[i] = a.b.Or(skip, a.b.Not(below))
		y0 := a.nxtAddrE(i, 0)
		leE[i] = orE(notE(a.actE[i]), notE(a.nxtValidE(i)), nl.NotE(nl.LtE(y0, a.laneE[i])))
		geE[i] = orE(notE(a.actE[i]), notE(a.nxtValidE(i)), nl.NotE(nl.LtE(a.laneE[i], y0)))
	}
	a.b.Name("pair_le", le)
	a.b.Name("pair_ge", ge)
	leW := a.wire("pair_le", nl.Concat(leE...), "pair i: lane i <= its next active lane, or no such pair (unsigned)")
	geW := a.wire("pair_ge", nl.Concat(geE...), "pair i: lane i >= its next active lane, or no such pair (unsigned)")
	return a.b.And(le...), a.b.And(ge...), allOnes(leW), allOnes(geW)
}

// maskedCoalescer builds a coalescer with active_mask or requests.
func maskedCoalescer(c *specs.Coalescer) (*nl.Design, hcl.Diagnostics) {
	a := newActWarp(c.Name, c.Lanes, c.AddrBits, c.BlockBits, c.ActiveMask)
	L := c.Lanes
	header := []string{
		fmt.Sprintf("Coalescer, %s structure, %d lanes of %d-bit addresses; block address = address >> %d.", c.Structure, c.Lanes, c.AddrBits, c.BlockBits),
	}
	if c.ActiveMask {
		header = append(header,
			"active_i[i] = 1: lane i takes part; an inactive lane is never unique, belongs to no request,",
			"and is skipped when lanes are compared with their neighbours.")
	}
	header = append(header, "unique_o[i] is set when lane i is active and its block is the last occurrence among active lanes:")
	doc := "lane i is active and no later active lane repeats its block"
	var unique nl.Bus
	var uniqueE *nl.Expr
	var mono nl.Net
	var monoE *nl.Expr
	var pne [][]nl.Net
	var firstA2A, firstNbr, uniqueNbr nl.Bus
	var firstA2AE, firstNbrE *nl.Expr
	nbrHeader := func() {
		header = append(header, "neighbor: unique_o[i] = active(i) & (no later active lane, or block(i) != block(next active lane));",
			"exact only when the active lanes' addresses are monotonic.")
	}
	switch c.Structure {
	case specs.AllToAll:
		unique, firstA2A, pne = a.allToAll()
		uniqueE = a.allToAllE()
		header = append(header, "all-to-all: lane i is compared with every later active lane j > i; exact for any warp.")
	case specs.Neighbor:
		a.nextActive(c.BlockBits)
		unique, uniqueE = a.neighbor(), a.neighborE()
		uniqueNbr = unique
		nbrHeader()
		doc += " (exact for monotonic active lanes)"
	case specs.Speculative:
		a.nextActive(0)
		all, first, m := a.allToAll()
		firstA2A, pne = first, m
		nbr := a.neighbor()
		uniqueNbr = nbr
		allW := a.wire("unique_all", a.allToAllE(), "all-to-all result: exact for any warp")
		nbrW := a.wire("unique_nbr", a.neighborE(), "neighbor result: exact for monotonic active lanes")
		nondec, noninc, nondecE, nonincE := a.monotonic(c.Adder)
		mono, monoE = a.b.Or(nondec, noninc), nl.OrE(nondecE, nonincE)
		unique, uniqueE = a.b.MuxBus(mono, all, nbr), nl.MuxE(nl.Ref("monotonic_o", 1), nbrW, allW)
		header = append(header, "speculative: the neighbor result when the active lanes' full addresses are monotonic",
			fmt.Sprintf("(unsigned, %s subtractors, each active lane against its next active lane), else the all-to-all", c.Adder),
			"result; monotonic_o says which.")
	}
	a.output("unique_o", unique, uniqueE, doc)
	if c.Structure == specs.Speculative {
		a.output("monotonic_o", nl.Bus{mono}, monoE, "the active lanes' full addresses are non-decreasing or non-increasing in lane order")
	}
	if c.ActiveMask && c.Structure != specs.AllToAll {
		header = append(header, fmt.Sprintf("Next active lane: a Sklansky parallel-prefix network over lanes %d..1 keeps the nearest active lane", L-1),
			fmt.Sprintf("(valid, address); depth ceil(log2(lanes-1)) = %d MUX2 levels (nets nxt_scan_*, nxt_valid_*, nxt_addr_*; timing path next_active).", scanLevels(L-1)))
	}
	if c.Requests {
		r := &reqGen{a: a, structure: c.Structure, pne: pne, mono: mono}
		switch c.Structure {
		case specs.AllToAll:
			r.first, firstA2AE = firstA2A, a.firstA2AE()
			r.firstE = a.wire("req_first", firstA2AE, "lane i is active and no earlier active lane has its block: the first lane of a request")
		case specs.Neighbor:
			firstNbr, firstNbrE = a.firstNeighbor(uniqueNbr, nl.Ref("unique_o", L))
			r.first = firstNbr
			r.firstE = a.wire("req_first", firstNbrE, "lane i is active and the first active lane or on another block than the previous active lane")
		case specs.Speculative:
			firstNbr, firstNbrE = a.firstNeighbor(uniqueNbr, nl.Ref("unique_nbr", L))
			fa := a.wire("req_first_all", a.firstA2AE(), "all-to-all: lane i is active and no earlier active lane has its block")
			fn := a.wire("req_first_nbr", firstNbrE, "neighbor: lane i is active and on another block than the previous active lane, or the first")
			r.first = a.b.MuxBus(mono, firstA2A, firstNbr)
			r.firstE = a.wire("req_first", nl.MuxE(nl.Ref("monotonic_o", 1), fn, fa), "the first lane of each request")
		}
		header = append(header, r.build()...)
	}
	header = append(header, "Protocol: combinational; outputs follow the inputs, no clock, no reset.")
	return a.build(header, c)
}

// maskedDetector builds a monotonicity detector with active_mask.
func maskedDetector(m *specs.MonotonicityDetector) (*nl.Design, hcl.Diagnostics) {
	a := newActWarp(m.Name, m.Lanes, m.AddrBits, 0, true)
	a.nextActive(0)
	nondec, noninc, nondecE, nonincE := a.monotonic(m.Adder)
	a.output("nondecreasing_o", nl.Bus{nondec}, nondecE, "every active lane <= the next active lane")
	a.output("nonincreasing_o", nl.Bus{noninc}, nonincE, "every active lane >= the next active lane")
	a.output("monotonic_o", nl.Bus{a.b.Or(nondec, noninc)}, nl.OrE(nl.Ref("nondecreasing_o", 1), nl.Ref("nonincreasing_o", 1)), "either")
	header := []string{
		fmt.Sprintf("Monotonicity detector over the active lanes, %d lanes of %d-bit addresses, compared unsigned.", m.Lanes, m.AddrBits),
		"active_i[i] = 1: lane i takes part; the outputs say whether the active lanes' addresses, in lane order,",
		"are non-decreasing / non-increasing (both 1 for zero or one active lane).",
		fmt.Sprintf("Next active lane: a Sklansky parallel-prefix network over lanes %d..1 keeps the nearest active lane", m.Lanes-1),
		fmt.Sprintf("(valid, address); depth ceil(log2(lanes-1)) = %d MUX2 levels (nets nxt_scan_*, nxt_valid_*, nxt_addr_*; timing path next_active).", scanLevels(m.Lanes-1)),
		fmt.Sprintf("Per lane a %d-bit %s subtractor (lane i - its next active lane, the sign says lane i is below)", m.AddrBits+1, m.Adder),
		"and an equality unit; a lane that is inactive or has no next active lane counts as in order;",
		"the pair flags are ANDed over the warp.",
		"Protocol: combinational; outputs follow the inputs, no clock, no reset.",
	}
	return a.build(header, m)
}
