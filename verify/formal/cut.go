package formal

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/rtl"
)

// Equivalence points. The two modules come from one netlist.Design, and
// generators that build both views together (package gen's dual) name the
// gate-level nets of each word-level wire after it: bit i of RTL wire
// leader_0 is gate net leader_0_i (leader_0 for a one-bit wire), as the
// flip-flops are named after the registers. Cutting both modules at those
// wires (Yosys expose -cut: the wire's driver becomes an output, its
// readers read a new input) splits the proof into local ones: each point's
// two drivers, and each output, must agree for every value of the points'
// shared inputs. That is sound whatever points are chosen (by induction
// over either module's order of its points, their real values agree), but
// not complete: a point whose two drivers agree only on the values the
// logic before it can produce fails alone. The proof then falls back to
// the whole-design miter, so a cut proof only ever saves time.

// cutWire is one RTL wire cut in both modules: gates[i] is the gate-level
// net of its bit i.
type cutWire struct {
	rtl   string
	gates []string
}

// cutSuffix is what Yosys's expose -cut appends to a cut wire's name for
// the new input its readers read; the wire's own name is the output of
// its driver.
const cutSuffix = ".i"

// cutWires lists the RTL wires of d whose every bit has a gate-level net
// of its name: named once in d.NetNames and driven by a combinational
// gate other than a buffer (not a port, a constant, a flip-flop or a
// memory).
func cutWires(d *netlist.Design) []cutWire {
	if d.RTL == nil || len(d.NetNames) == 0 {
		return nil
	}
	count := map[string]int{}
	net := map[string]netlist.Net{}
	for n, s := range d.NetNames {
		count[s]++
		net[s] = n
	}
	// A buffer's output is written as an assign, one net with its input
	// to Yosys: cutting it would cut the input's other readers too.
	comb := make([]bool, d.NumNets)
	for _, g := range d.Gates {
		if g.Kind != netlist.DFF && g.Kind != netlist.BUF {
			comb[g.Out] = true
		}
	}
	// A wire that another assign (a wire or an output) copies by plain
	// wiring is one signal with it to Yosys, under one of the two names:
	// cutting either could cut the copy from its driver. Neither is a
	// point.
	// So is a wire an instance port reads by plain wiring (flatten joins
	// the two), and one whose fields a run-time part select reads (the
	// RTL writer copies them into an array, package rtl's fieldArray).
	aliased := map[string]bool{}
	var parts func(e *netlist.Expr)
	parts = func(e *netlist.Expr) {
		if e == nil {
			return
		}
		if e.Op == netlist.OpPart && e.Args[0].Op == netlist.OpRef {
			aliased[e.Args[0].Name] = true
		}
		for _, a := range e.Args {
			parts(a)
		}
	}
	for _, a := range d.RTL.Assigns {
		if a.Inst != nil {
			for _, c := range a.Inst.Ports {
				if c.In != nil {
					wiring(c.In, aliased)
					parts(c.In)
				}
			}
			continue
		}
		if a.Expr != nil && (wiring(a.Expr, aliased) || selects(a.Expr)) {
			aliased[a.Name] = true
		}
		copiedParts(a.Expr, aliased)
		parts(a.Expr)
	}
	for _, r := range d.RTL.Regs {
		parts(r.Next)
		parts(r.Clear)
	}
	for _, m := range d.RTL.Mems {
		parts(m.When)
		parts(m.Addr)
		parts(m.Data)
	}
	// A net that is an output port's bit is one signal with that port in
	// the gate-level module (its writer assigns the port from it).
	outBit := map[netlist.Net]bool{}
	for _, p := range d.Outputs() {
		for _, b := range p.Bits {
			outBit[b] = true
		}
	}
	// A gate-level name that two RTL bits would claim (bit 0 of wire x
	// and the one-bit wire x_0) is no point of either.
	claims := map[string]int{}
	var cands []cutWire
	for _, a := range d.RTL.Assigns {
		if !a.Wire || a.Inst != nil || a.Expr == nil {
			continue
		}
		w := a.Expr.W
		gates := make([]string, w)
		for i := range gates {
			gates[i] = a.Name
			if w > 1 {
				gates[i] = fmt.Sprintf("%s_%d", a.Name, i)
			}
			claims[gates[i]]++
		}
		cands = append(cands, cutWire{rtl: a.Name, gates: gates})
	}
	var cuts []cutWire
	for _, c := range cands {
		ok := !aliased[c.rtl]
		for _, g := range c.gates {
			if count[g] != 1 || claims[g] != 1 || !comb[net[g]] || outBit[net[g]] {
				ok = false
				break
			}
		}
		if ok {
			cuts = append(cuts, c)
		}
	}
	return cuts
}

// copiedParts marks in refs the names whose bits a concatenation e
// copies by plain wiring as some of its parts (the rest computed): Yosys
// joins each such bit with the bit it becomes, so the name is no point.
func copiedParts(e *netlist.Expr, refs map[string]bool) {
	if e == nil || e.Op != netlist.OpConcat {
		return
	}
	for _, a := range e.Args {
		switch a.Op {
		case netlist.OpRef:
			refs[a.Name] = true
		case netlist.OpSlice:
			if a.Args[0].Op == netlist.OpRef {
				refs[a.Args[0].Name] = true
			}
		}
	}
}

// wiring reports whether e only selects and concatenates names and
// constants, marking the names it copies in refs.
func wiring(e *netlist.Expr, refs map[string]bool) bool {
	switch e.Op {
	case netlist.OpConst:
		return true
	case netlist.OpRef:
		refs[e.Name] = true
		return true
	case netlist.OpSlice, netlist.OpConcat:
		found := map[string]bool{}
		for _, a := range e.Args {
			if !wiring(a, found) {
				return false
			}
		}
		for n := range found {
			refs[n] = true
		}
		return true
	}
	return false
}

// selects reports whether the RTL writer prints e as, or with a part
// that is, a select of another name: a slice (of a temporary wire it
// hoists when the operand is no name), a shift by a constant, or a
// concatenation with such a part. The wire is then, bit for bit, one
// signal with that name.
func selects(e *netlist.Expr) bool {
	switch e.Op {
	case netlist.OpRef, netlist.OpSlice:
		return true
	case netlist.OpShr:
		return e.Args[1].Op == netlist.OpConst
	case netlist.OpConcat:
		for _, a := range e.Args {
			if selects(a) {
				return true
			}
		}
	}
	return false
}

// exposeCuts adds the commands that cut the wires a selection file
// (written by cutSelections) names: one expose -cut of the selection.
// Selecting them by patterns instead (w:NAME) matches each pattern
// against every wire: 18 s of 5,337 patterns on an 8-lane shared memory,
// and 39 s with an expose call per line.
func exposeCuts(add func(string, ...any), selection string) {
	if selection == "" {
		return
	}
	add("# Equivalence points: each wire's driver an output, its readers a new input NAME%s.", cutSuffix)
	add("# opt_clean first: a cell's output joins the wire it drives, which expose -cut")
	add("# would otherwise cut from its own driver.")
	add("opt_clean")
	add("select -read %s", selection) // an option value: Yosys does not unquote it
	add("expose -cut")
	add("select -clear")
}

// cutSelections are the texts of the two selection files (RTL, gates)
// of the wires cut: MODULE/WIRE a line, as Yosys's select -write writes
// them.
func cutSelections(d *netlist.Design, cuts []cutWire) [2]string {
	var r, g strings.Builder
	gm := rtl.GatesModuleName(d)
	for _, c := range cuts {
		fmt.Fprintf(&r, "%s/%s\n", d.Name, c.rtl)
		for _, n := range c.gates {
			fmt.Fprintf(&g, "%s/%s\n", gm, n)
		}
	}
	return [2]string{r.String(), g.String()}
}

// cutPoint is one bit cut in both modules: the AIGER input its readers
// read and the output of its driver, on each side.
type cutPoint struct {
	goldIn, goldOut int
	gateIn, gateOut int
}

// cutSet is the points both graphs have, which of them the miter cuts
// (active), and for each side the cut inputs whose partner the other
// side lacks (Yosys may have merged or dropped a wire), always tied back
// to their own driver: tie[input] = output. An inactive point is tied on
// both sides, which undoes its cut: with every point inactive the miter
// is the whole design's.
type cutSet struct {
	points           []cutPoint
	active           []bool
	goldTie, gateTie map[int]int
}

// cutBits are the input and output bits that cutting at cuts may add to
// the RTL (gold) and gate-level (gate) graphs.
func cutBits(cuts []cutWire) (gold, gate map[mapBit]bool) {
	gold, gate = map[mapBit]bool{}, map[mapBit]bool{}
	for _, c := range cuts {
		for i, g := range c.gates {
			gold[mapBit{c.rtl + cutSuffix, i}], gold[mapBit{c.rtl, i}] = true, true
			gate[mapBit{g + cutSuffix, 0}], gate[mapBit{g, 0}] = true, true
		}
	}
	return gold, gate
}

// matchCuts pairs the cut bits of the two graphs, every pair active.
func matchCuts(gold, gate *side, cuts []cutWire) *cutSet {
	cs := &cutSet{goldTie: map[int]int{}, gateTie: map[int]int{}}
	for _, c := range cuts {
		for i, g := range c.gates {
			gIn, gOut := mapBit{c.rtl + cutSuffix, i}, mapBit{c.rtl, i}
			tIn, tOut := mapBit{g + cutSuffix, 0}, mapBit{g, 0}
			gi, okGI := gold.in[gIn]
			gOutIdx, okGO := gold.out[gOut]
			ti, okTI := gate.in[tIn]
			to, okTO := gate.out[tOut]
			if okGI && okGO && okTI && okTO {
				cs.points = append(cs.points, cutPoint{gi, gOutIdx, ti, to})
				cs.active = append(cs.active, true)
				continue
			}
			if okGI && okGO {
				cs.goldTie[gi] = gOutIdx
			}
			if okTI && okTO {
				cs.gateTie[ti] = to
			}
		}
	}
	return cs
}

// ties are each side's tied inputs: the unmatched ones and the inactive
// points'.
func (cs *cutSet) ties() (gold, gate map[int]int) {
	gold, gate = maps.Clone(cs.goldTie), maps.Clone(cs.gateTie)
	for i, c := range cs.points {
		if !cs.active[i] {
			gold[c.goldIn], gate[c.gateIn] = c.goldOut, c.gateOut
		}
	}
	return gold, gate
}

func (cs *cutSet) activeCount() int {
	n := 0
	for _, a := range cs.active {
		if a {
			n++
		}
	}
	return n
}

// obligation is one thing the miter compares: its difference in the
// miter, and the two drivers as literals of each side's own graph.
type obligation struct {
	diff       uint32
	gold, gate uint32
}

// miter is a step miter and what its output ORs together.
type miter struct {
	aig  *aig
	obls []obligation
}

// cutMiter is the combinational miter of the two modules, and for a
// sequential unit the induction step of the proof, cut at cs's active
// points (cs nil: none): its inputs are the unit's input bits, then one
// bit per matched pair of flip-flops (the state both modules hold), then
// one per active point, and its one output is 1 when an output, a
// pair's next value or an active point's driver differs.
func cutMiter(d *netlist.Design, gold, gate *side, ps []pair, cs *cutSet) (*miter, error) {
	ins := portInputs(d)
	var goldTie, gateTie map[int]int
	goldCut, gateCut := map[int]uint32{}, map[int]uint32{}
	var active []cutPoint
	if cs != nil {
		goldTie, gateTie = cs.ties()
		for i, c := range cs.points {
			if cs.active[i] {
				active = append(active, c)
			}
		}
	}
	b := &aigBuilder{inputs: len(ins) + len(ps) + len(active)}
	pos := map[mapBit]int{}
	for i, k := range ins {
		pos[k] = i
	}
	for i, c := range active {
		l := uint32(2 * (len(ins) + len(ps) + 1 + i))
		goldCut[c.goldIn], gateCut[c.gateIn] = l, l
	}
	state := func(s *side, isGold bool) []uint32 {
		l := make([]uint32, len(s.a.latches))
		for i, p := range ps {
			idx := p.gate
			if isGold {
				idx = p.gold
			}
			l[idx] = uint32(2 * (len(ins) + 1 + i))
		}
		return l
	}
	input := func(s *side, cut map[int]uint32) func(i int) uint32 {
		return func(i int) uint32 {
			if l, ok := cut[i]; ok {
				return l
			}
			return uint32(2 * (1 + pos[s.m.inputs[i]]))
		}
	}
	stGold, stGate := state(gold, true), state(gate, false)
	trGold, err := b.copyInTied(gold, input(gold, goldCut), func(i int) uint32 { return stGold[i] }, goldTie)
	if err != nil {
		return nil, err
	}
	trGate, err := b.copyInTied(gate, input(gate, gateCut), func(i int) uint32 { return stGate[i] }, gateTie)
	if err != nil {
		return nil, err
	}
	m := &miter{}
	diff := uint32(0)
	compare := func(g, t uint32) {
		x := b.xor(trGold(g), trGate(t))
		m.obls = append(m.obls, obligation{diff: x, gold: g, gate: t})
		diff = b.or(diff, x)
	}
	for _, p := range outPorts(d) {
		for i := 0; i < p.width; i++ {
			k := mapBit{p.name, i}
			compare(gold.a.outputs[gold.out[k]], gate.a.outputs[gate.out[k]])
		}
	}
	for _, p := range ps {
		compare(gold.a.latches[p.gold].next, gate.a.latches[p.gate].next)
	}
	for _, c := range active {
		compare(gold.a.outputs[c.goldOut], gate.a.outputs[c.gateOut])
	}
	b.outputs = []uint32{diff}
	m.aig = b.aig()
	return m, nil
}

// culprits are the active points that the failing obligations of m
// (indices into m.obls) read, on either
// side, without another active point between: cutting there may have
// lost what the logic before them guarantees (a gate-level driver that
// reads around a point, the complement of a net the point is made from),
// so they are undone.
func (cs *cutSet) culprits(m *miter, failing []int, gold, gate *side) []int {
	goldTie, gateTie := cs.ties()
	pointOf := func(isGold bool) map[int]int {
		at := map[int]int{}
		for i, c := range cs.points {
			if cs.active[i] {
				if isGold {
					at[c.goldIn] = i
				} else {
					at[c.gateIn] = i
				}
			}
		}
		return at
	}
	found := map[int]bool{}
	walk := func(s *side, tie map[int]int, at map[int]int, roots []uint32) {
		a := s.a
		base := a.inputs + len(a.latches) + 1
		seen := make([]bool, a.maxVar+1)
		stack := make([]int, 0, len(roots))
		for _, l := range roots {
			stack = append(stack, int(l>>1))
		}
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[v] {
				continue
			}
			seen[v] = true
			switch {
			case v >= base:
				g := a.ands[v-base]
				stack = append(stack, int(g[0]>>1), int(g[1]>>1))
			case v >= 1 && v <= a.inputs:
				if o, ok := tie[v-1]; ok {
					stack = append(stack, int(a.outputs[o]>>1))
				} else if p, ok := at[v-1]; ok {
					found[p] = true
				}
			}
		}
	}
	var goldRoots, gateRoots []uint32
	for _, i := range failing {
		goldRoots, gateRoots = append(goldRoots, m.obls[i].gold), append(gateRoots, m.obls[i].gate)
	}
	walk(gold, goldTie, pointOf(true), goldRoots)
	walk(gate, gateTie, pointOf(false), gateRoots)
	out := make([]int, 0, len(found))
	for p := range found {
		out = append(out, p)
	}
	sort.Ints(out)
	return out
}

// copyInTied is copyIn for a graph some of whose inputs are tied to its
// own outputs (tie[input] = output): the gates are copied in an order
// where each tied input follows the driver of its output. A tie that
// closes a loop is an error.
func (b *aigBuilder) copyInTied(s *side, input, latch func(i int) uint32, tie map[int]int) (func(uint32) uint32, error) {
	if len(tie) == 0 {
		return b.copyIn(s, input, latch), nil
	}
	a := s.a
	lit := make([]uint32, a.maxVar+1)
	const (
		todo uint8 = iota
		open       // on the stack, its dependencies being made
		made
	)
	state := make([]uint8, a.maxVar+1)
	state[0] = made
	base := a.inputs + len(a.latches) + 1
	for i := range a.latches {
		lit[a.inputs+1+i], state[a.inputs+1+i] = latch(i), made
	}
	for i := 0; i < a.inputs; i++ {
		if _, ok := tie[i]; !ok {
			lit[1+i], state[1+i] = input(i), made
		}
	}
	tr := func(l uint32) uint32 { return lit[l>>1] ^ (l & 1) }
	// deps are the variables v's literal is made from.
	deps := func(v int) [2]int {
		if v >= base {
			g := a.ands[v-base]
			return [2]int{int(g[0] >> 1), int(g[1] >> 1)}
		}
		o := int(a.outputs[tie[v-1]] >> 1)
		return [2]int{o, o}
	}
	// Depth first, without recursion: a variable is made once its
	// dependencies are.
	var stack []int
	for root := 1; root <= a.maxVar; root++ {
		if state[root] == made {
			continue
		}
		stack = append(stack[:0], root)
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			if state[v] == made {
				stack = stack[:len(stack)-1]
				continue
			}
			if state[v] == todo {
				state[v] = open
				for _, u := range deps(v) {
					switch state[u] {
					case todo:
						stack = append(stack, u)
					case open:
						return nil, fmt.Errorf("the %s module's cut points close a loop at AIGER variable %d", s.what, u)
					}
				}
				continue
			}
			// open, its dependencies made
			stack = stack[:len(stack)-1]
			if v >= base {
				g := a.ands[v-base]
				lit[v] = b.and(tr(g[0]), tr(g[1]))
			} else {
				lit[v] = tr(a.outputs[tie[v-1]])
			}
			state[v] = made
		}
	}
	return tr, nil
}

// failingAt are the obligations of m that differ in the evaluated state
// st (a counterexample of its miter).
func (m *miter) failingAt(st *aigState) []int {
	var out []int
	for i, o := range m.obls {
		if st.lit(o.diff) {
			out = append(out, i)
		}
	}
	return out
}

// failingRandom are the obligations of m that differ on any of 64 x words
// random input vectors of the seeded rng: a point cut where its two
// drivers part on most values is found here, many at once, without a
// SAT call.
func (m *miter) failingRandom(rng *rand.Rand, words int) []int {
	a := m.aig
	vals := make([]uint64, a.maxVar+1)
	lit := func(l uint32) uint64 {
		v := vals[l>>1]
		if l&1 == 1 {
			return ^v
		}
		return v
	}
	bad := make([]bool, len(m.obls))
	base := a.inputs + len(a.latches) + 1
	for range words {
		for i := 1; i <= a.inputs; i++ {
			vals[i] = rng.Uint64()
		}
		for i, g := range a.ands {
			vals[base+i] = lit(g[0]) & lit(g[1])
		}
		for i, o := range m.obls {
			if lit(o.diff) != 0 {
				bad[i] = true
			}
		}
	}
	var out []int
	for i, b := range bad {
		if b {
			out = append(out, i)
		}
	}
	return out
}
