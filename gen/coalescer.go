package gen

import (
	"fmt"
	"math/big"

	"github.com/hashicorp/hcl/v2"

	nl "github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
)

// Coalescer comparators and the monotonicity detector of 003_*. Every
// lane compares block addresses with the thesis's comparator module: an
// XOR per bit and an OR over them ("the addresses differ").

// warp holds the lanes of addr_i as nets and as words.
type warp struct {
	b     *nl.Builder
	rtl   *nl.RTL
	lanes []nl.Bus   // full addresses
	laneE []*nl.Expr // lane_k wires of the word-level view
	a     int        // address bits per lane
}

func newWarp(name string, lanes, addrBits int) *warp {
	w := &warp{b: nl.NewBuilder(name), rtl: &nl.RTL{}, a: addrBits}
	addr := w.b.Input("addr_i", lanes*addrBits, fmt.Sprintf("%d lanes of %d-bit addresses, lane 0 in the least significant bits", lanes, addrBits))
	addrE := nl.Ref("addr_i", lanes*addrBits)
	for k := 0; k < lanes; k++ {
		w.lanes = append(w.lanes, addr[k*addrBits:(k+1)*addrBits])
		name := fmt.Sprintf("lane_%d", k)
		w.laneE = append(w.laneE, addWire(w.rtl, name, nl.Slice(addrE, (k+1)*addrBits-1, k*addrBits), laneDoc(k)))
	}
	return w
}

func laneDoc(k int) string {
	if k == 0 {
		return "lane addresses"
	}
	return ""
}

// blocks returns lane k's block address bits (the address above blockBits).
func (w *warp) block(k, blockBits int) (nl.Bus, *nl.Expr) {
	return w.lanes[k][blockBits:], nl.Slice(w.laneE[k], w.a-1, blockBits)
}

// differ is the thesis's comparator module: XOR per bit, ORed. It is
// built as the NAND of per-bit XNORs (the same function by De Morgan), so
// the reduction tree is all inverting gates: for 32 bits XNOR, NAND4,
// NOR4, NAND2, the "4 elements deep" path of the thesis.
func (w *warp) differ(x, y nl.Bus) nl.Net {
	eq := make(nl.Bus, len(x))
	for i := range x {
		eq[i] = w.b.Xnor(x[i], y[i])
	}
	return w.b.Nand(eq...)
}

// allToAll: lane i is unique when its block differs from every later
// lane's (the AND of the comparator outputs); the last lane always is.
// Lane i's comparator outputs are one wire, later_differ_I (bit k: lane
// i + 1 + k), in both views (the gate nets carry its name), so that the
// proof RTL = gates can cut both modules there.
func (w *warp) allToAll(blockBits int) (nl.Bus, *nl.Expr) {
	n := len(w.lanes)
	unique := make(nl.Bus, n)
	parts := make([]*nl.Expr, n)
	for i := 0; i < n; i++ {
		bi, biE := w.block(i, blockBits)
		var ne nl.Bus
		var neE []*nl.Expr
		for j := i + 1; j < n; j++ {
			bj, bjE := w.block(j, blockBits)
			ne = append(ne, w.differ(bi, bj))
			neE = append(neE, nl.NotE(nl.EqE(biE, bjE)))
		}
		unique[i] = w.b.And(ne...)
		parts[i] = andAll(neE)
		if len(ne) > 0 {
			name := fmt.Sprintf("later_differ_%d", i)
			w.b.Name(name, ne)
			parts[i] = allOnes(w.wire(name, nl.Concat(neE...), fmt.Sprintf("bit k: lane %d's block differs from lane %d+k's", i, i+1)))
		}
	}
	w.b.Name("unique_all", unique)
	return unique, nl.Concat(parts...)
}

// neighbor: lane i is unique when its block differs from lane i+1's.
func (w *warp) neighbor(blockBits int) (nl.Bus, *nl.Expr) {
	n := len(w.lanes)
	unique := make(nl.Bus, n)
	parts := make([]*nl.Expr, n)
	for i := 0; i < n-1; i++ {
		bi, biE := w.block(i, blockBits)
		bj, bjE := w.block(i+1, blockBits)
		unique[i] = w.differ(bi, bj)
		parts[i] = nl.NotE(nl.EqE(biE, bjE))
	}
	unique[n-1], parts[n-1] = nl.Const1, nl.ConstExpr(1, 1)
	w.b.Name("unique_nbr", unique)
	return unique, nl.Concat(parts...)
}

// monotonic is the detector of 003_* Figure 4.5: per neighbour pair a
// subtractor (is lane i below lane i+1?) and an equality unit; the
// non-decreasing and non-increasing flags are ANDed over all pairs.
func (w *warp) monotonic(adder specs.Adder) (nondec, noninc nl.Net, nondecE, nonincE *nl.Expr) {
	n := len(w.lanes)
	le, ge := make(nl.Bus, n-1), make(nl.Bus, n-1)
	leE, geE := make([]*nl.Expr, n-1), make([]*nl.Expr, n-1)
	for i := 0; i < n-1; i++ {
		x, y := w.lanes[i], w.lanes[i+1]
		below := lessThan(w.b, adder, x, y) // sign of lane i - lane i+1
		equal := w.b.Not(w.differ(x, y))
		le[i] = w.b.Or(below, equal)
		ge[i] = w.b.Not(below)
		leE[i] = nl.NotE(nl.LtE(w.laneE[i+1], w.laneE[i]))
		geE[i] = nl.NotE(nl.LtE(w.laneE[i], w.laneE[i+1]))
	}
	w.b.Name("pair_le", le)
	w.b.Name("pair_ge", ge)
	leW := w.wire("pair_le", nl.Concat(leE...), "pair i: lane i <= lane i+1 (unsigned)")
	geW := w.wire("pair_ge", nl.Concat(geE...), "pair i: lane i >= lane i+1 (unsigned)")
	return w.b.And(le...), w.b.And(ge...), allOnes(leW), allOnes(geW)
}

func (w *warp) wire(name string, e *nl.Expr, doc string) *nl.Expr {
	return addWire(w.rtl, name, e, doc)
}

func (w *warp) output(name string, bits nl.Bus, e *nl.Expr, doc string) {
	w.b.Output(name, bits, doc)
	w.rtl.Assigns = append(w.rtl.Assigns, nl.Assign{Name: name, Expr: e})
}

func (w *warp) build(header []string, spec specs.Unit) (*nl.Design, hcl.Diagnostics) {
	w.b.Header(header...)
	w.b.SetRTL(w.rtl)
	d, err := w.b.Build()
	if err != nil {
		return nil, internalError(spec, err)
	}
	return d, nil
}

func internalError(u specs.Unit, err error) hcl.Diagnostics {
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Internal generator error",
		Detail:   fmt.Sprintf("Building %s %q failed: %v. This is a bug in lsugen.", u.UnitKind(), u.UnitName(), err),
		Subject:  u.DeclRange().Ptr(),
	}}
}

// andAll is the AND of one or more one-bit expressions.
func andAll(es []*nl.Expr) *nl.Expr {
	switch len(es) {
	case 0:
		return nl.ConstExpr(1, 1)
	case 1:
		return es[0]
	}
	return nl.AndE(es...)
}

// allOnes is e == {W{1'b1}}: every bit of e is set.
func allOnes(e *nl.Expr) *nl.Expr {
	ones := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(e.W)), big.NewInt(1))
	return nl.EqE(e, &nl.Expr{Op: nl.OpConst, W: e.W, Val: ones})
}

// Coalescer builds a coalescer of the given structure.
func Coalescer(c *specs.Coalescer) (*nl.Design, hcl.Diagnostics) {
	if d := append(checkChoice(c, "structure", c.Structure, c.Structure.Valid()),
		checkChoice(c, "adder", c.Adder, c.Structure != specs.Speculative || c.Adder.Valid())...); d.HasErrors() {
		return nil, d
	}
	if c.ActiveMask || c.Requests {
		return maskedCoalescer(c)
	}
	w := newWarp(c.Name, c.Lanes, c.AddrBits)
	header := []string{
		fmt.Sprintf("Coalescer, %s structure, %d lanes of %d-bit addresses; block address = address >> %d.", c.Structure, c.Lanes, c.AddrBits, c.BlockBits),
		"unique_o[i] is set when lane i's block address is the last occurrence of its block:",
	}
	doc := "lane i's block is not repeated by a later lane"
	switch c.Structure {
	case specs.AllToAll:
		u, uE := w.allToAll(c.BlockBits)
		w.output("unique_o", u, uE, doc)
		header = append(header, "all-to-all: lane i is compared with every later lane j > i; exact for any warp.")
	case specs.Neighbor:
		u, uE := w.neighbor(c.BlockBits)
		w.output("unique_o", u, uE, doc+" (exact for monotonic warps)")
		header = append(header, "neighbor: unique_o[i] = block(i) != block(i+1), unique_o[lanes-1] = 1;",
			"exact only when the warp's addresses are monotonic.")
	case specs.Speculative:
		all, allE := w.allToAll(c.BlockBits)
		nbr, nbrE := w.neighbor(c.BlockBits)
		allW := w.wire("unique_all", allE, "all-to-all result: exact for any warp")
		nbrW := w.wire("unique_nbr", nbrE, "neighbor result: exact for monotonic warps")
		nondec, noninc, nondecE, nonincE := w.monotonic(c.Adder)
		mono := w.b.Or(nondec, noninc)
		w.output("unique_o", w.b.MuxBus(mono, all, nbr), nl.MuxE(nl.Ref("monotonic_o", 1), nbrW, allW), doc)
		w.output("monotonic_o", nl.Bus{mono}, nl.OrE(nondecE, nonincE), "the full addresses are non-decreasing or non-increasing in lane order")
		header = append(header, "speculative: the neighbor result when the warp's full addresses are monotonic",
			fmt.Sprintf("(unsigned, %s subtractors), else the all-to-all result; monotonic_o says which.", c.Adder))
	}
	header = append(header, "Protocol: combinational; outputs follow the inputs, no clock, no reset.")
	return w.build(header, c)
}

// MonotonicityDetector builds the detector on its own.
func MonotonicityDetector(m *specs.MonotonicityDetector) (*nl.Design, hcl.Diagnostics) {
	if d := checkChoice(m, "adder", m.Adder, m.Adder.Valid()); d.HasErrors() {
		return nil, d
	}
	if m.ActiveMask {
		return maskedDetector(m)
	}
	w := newWarp(m.Name, m.Lanes, m.AddrBits)
	nondec, noninc, nondecE, nonincE := w.monotonic(m.Adder)
	w.output("nondecreasing_o", nl.Bus{nondec}, nondecE, "lane i <= lane i+1 for every pair")
	w.output("nonincreasing_o", nl.Bus{noninc}, nonincE, "lane i >= lane i+1 for every pair")
	w.output("monotonic_o", nl.Bus{w.b.Or(nondec, noninc)}, nl.OrE(nl.Ref("nondecreasing_o", 1), nl.Ref("nonincreasing_o", 1)), "either")
	header := []string{
		fmt.Sprintf("Monotonicity detector, %d lanes of %d-bit addresses, compared unsigned.", m.Lanes, m.AddrBits),
		fmt.Sprintf("Per neighbour pair a %d-bit %s subtractor (lane i - lane i+1, its sign says lane i < lane i+1)", m.AddrBits+1, m.Adder),
		"and an equality unit; the pair flags are ANDed over the warp.",
		"Protocol: combinational; outputs follow the inputs, no clock, no reset.",
	}
	return w.build(header, m)
}
