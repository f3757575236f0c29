package retime

import (
	"container/heap"
	"fmt"
	"sort"

	"github.com/lsugen/lsugen/netlist"
)

// wiring is the nets of e's bits where e is wiring of known signals (a
// reference, a slice, a concatenation, a constant), -1 for a bit of any
// other operation.
func (w *wordGraph) wiring(e *netlist.Expr) []netlist.Net {
	out := make([]netlist.Net, e.W)
	for i := range out {
		out[i] = -1
	}
	switch e.Op {
	case netlist.OpRef:
		bits := w.bits[e.Name]
		if p := w.d.Port(e.Name); bits == nil && p != nil && p.Dir == netlist.In {
			bits = p.Bits
		}
		if len(bits) == e.W {
			copy(out, bits)
		}
	case netlist.OpConst:
		for i := range out {
			out[i] = netlist.Const0
			if e.Val.Bit(i) == 1 {
				out[i] = netlist.Const1
			}
		}
	case netlist.OpSlice:
		in := w.wiring(e.Args[0])
		copy(out, in[e.Lo:e.Hi+1])
	case netlist.OpConcat:
		i := 0
		for _, a := range e.Args { // bit 0 first
			i += copy(out[i:], w.wiring(a))
		}
	}
	return out
}

// refs are the signals entry a reads: those of its expression, or of its
// instance's inputs.
func (w *wordGraph) refs(a netlist.Assign) []string {
	var out []string
	var walk func(e *netlist.Expr)
	walk = func(e *netlist.Expr) {
		if e == nil {
			return
		}
		if e.Op == netlist.OpRef {
			if _, ok := w.bits[e.Name]; ok {
				out = append(out, e.Name)
			} else if _, ok := w.bits[combName(e.Name)]; ok && w.d.Port(e.Name) != nil {
				out = append(out, combName(e.Name))
			}
		}
		for _, a := range e.Args {
			walk(a)
		}
	}
	if a.Inst == nil {
		walk(a.Expr)
	}
	if a.Inst != nil {
		for _, c := range a.Inst.Ports {
			walk(c.In)
		}
	}
	return out
}

// layout is where the view writes its entries at a placement.
type layout struct {
	// nodeStage is each entry's stage: its gates' (a split entry's last);
	// for gateless wiring the last stage of what it reads.
	nodeStage []int32
	// split marks the entries written gate by gate.
	split []bool
	// order is what the view writes, stage by stage.
	order []item
}

// sigStage is the stage that makes signal name.
func (l *layout) sigStage(w *wordGraph, name string) int32 {
	pr, ok := w.producer[name]
	if !ok || pr < 0 {
		return 0
	}
	return l.nodeStage[pr]
}

// perBit is whether signal y is read bit by bit: a split entry's signal,
// or a wire of one of its gates, whose bits are made in different stages.
func (l *layout) perBit(w *wordGraph, y string) bool {
	pr, ok := w.producer[y]
	return !ok || (pr >= 0 && l.split[pr])
}

// item is what the view writes of one entry in one stage: the whole
// entry, or one gate of a split entry.
type item struct {
	ni   int
	st   int32
	gate int32 // a split entry's; -1 for a whole entry
}

// layout places the entries at stageOf. An entry is written gate by gate
// (split) when its gates are in more than one stage; when it reads a
// signal made in a later stage than its own (its gates read it through
// gates another entry owns); when a gate of it has a net without a name
// that crosses a boundary or that a split entry's gate reads; and when
// it is caught in a cycle of entries of one stage that read each other's
// wires. Instances are never split.
func (w *wordGraph) layout(stageOf []int32) (*layout, error) {
	d := w.d
	l := &layout{nodeStage: make([]int32, len(w.nodes)), split: make([]bool, len(w.nodes))}
	for ni, nd := range w.nodes {
		l.nodeStage[ni] = -1
		for _, gi := range nd.gates {
			l.nodeStage[ni] = max(l.nodeStage[ni], stageOf[gi])
			l.split[ni] = l.split[ni] || stageOf[gi] != stageOf[nd.gates[0]]
		}
	}
	for ni, nd := range w.nodes {
		if l.nodeStage[ni] >= 0 {
			continue
		}
		st := int32(0)
		for _, y := range w.refs(d.RTL.Assigns[nd.assign]) {
			st = max(st, l.sigStage(w, y))
		}
		l.nodeStage[ni] = st
	}
	// lastUse is the last stage that reads each net: a net is held in a
	// register for each later stage up to it.
	lastUse := make([]int32, d.NumNets)
	for i := range lastUse {
		lastUse[i] = -1
	}
	for gi, g := range d.Gates {
		for _, n := range g.In {
			lastUse[n] = max(lastUse[n], stageOf[gi])
		}
	}
	L := int32(0)
	for _, st := range stageOf {
		L = max(L, st+1)
	}
	for _, p := range d.Outputs() {
		for _, n := range p.Bits {
			lastUse[n] = max(lastUse[n], L-1)
		}
	}
	netStage := func(n netlist.Net) int32 {
		if g := w.driver[n]; g >= 0 {
			return stageOf[g]
		}
		return 0
	}
	// readable is whether an entry of stage st can read signal y: as it
	// is, made in st, or bit by bit from the nets of st and the registers.
	readable := func(y string, st int32) bool {
		if pr, ok := w.producer[y]; ok && (pr < 0 || !l.split[pr]) && l.sigStage(w, y) == st {
			return true
		}
		for _, n := range w.bits[y] {
			if n < 0 {
				return false
			}
			switch ns := netStage(n); {
			case isConst(n):
			case ns > st, ns < st && lastUse[n] < st:
				return false
			}
		}
		return true
	}
	// An entry whose gates read, from an earlier stage, a net its
	// expression does not name (a gate another entry owns, shared) is
	// written gate by gate: written whole, it would read the signals
	// instead, and the register of that net would be read by the gates
	// alone.
	for ni, nd := range w.nodes {
		if l.split[ni] || !w.splittable(ni) {
			continue
		}
		named := map[netlist.Net]bool{}
		for _, y := range w.refs(d.RTL.Assigns[nd.assign]) {
			for _, n := range w.bits[y] {
				named[n] = true
			}
		}
		for _, gi := range nd.gates {
			for _, n := range d.Gates[gi].In {
				if h := w.driver[n]; !isConst(n) && (h < 0 || int(w.owner[h]) != ni) && !named[n] && netStage(n) < stageOf[gi] {
					l.split[ni] = true
				}
			}
		}
	}
	for {
		for changed := true; changed; {
			changed = w.closeSplit(l.split, stageOf)
			// An entry that cannot read what it reads at its stage (its
			// gates read other nets: gates that other entries own) is
			// written gate by gate; wiring is then not written, read bit
			// by bit.
			for ni, nd := range w.nodes {
				if l.split[ni] || !w.splittable(ni) {
					continue
				}
				for _, y := range w.refs(d.RTL.Assigns[nd.assign]) {
					if !readable(y, l.nodeStage[ni]) {
						l.split[ni], changed = true, true
						break
					}
				}
			}
		}
		items := w.items(l, stageOf)
		order, stuck := w.ordered(items, l, stageOf)
		if len(stuck) == 0 {
			l.order = order
			break
		}
		more := false
		for _, ni := range stuck {
			if !l.split[ni] && len(w.nodes[ni].gates) > 0 && w.splittable(ni) {
				l.split[ni], more = true, true
			}
		}
		if !more {
			return nil, fmt.Errorf("the entries of a stage read each other's wires in a cycle")
		}
	}
	for ni, sp := range l.split {
		if a := d.RTL.Assigns[w.nodes[ni].assign]; sp && !w.splittable(ni) {
			return nil, fmt.Errorf("instance %s would be split", a.Name)
		}
	}
	return l, nil
}

// closeSplit adds to split every entry with a gate whose unnamed net
// crosses a boundary or is read by a gate of a split entry; it reports
// whether it added one.
func (w *wordGraph) closeSplit(split []bool, stageOf []int32) (added bool) {
	for changed := true; changed; {
		changed = false
		for gi, g := range w.d.Gates {
			r := w.owner[gi]
			for _, n := range g.In {
				h := w.driver[n]
				if h < 0 {
					continue
				}
				o := w.owner[h]
				if _, named := w.sig[n]; named || split[o] || o == r {
					continue
				}
				if stageOf[h] < stageOf[gi] || split[r] {
					split[o], changed, added = true, true, true
				}
			}
		}
	}
	return added
}

// items lists what the view writes, by stage, in the view's order: each
// whole entry once, a split entry gate by gate.
func (w *wordGraph) items(l *layout, stageOf []int32) []item {
	var out []item
	for ni, nd := range w.nodes {
		if !l.split[ni] {
			out = append(out, item{ni: ni, st: l.nodeStage[ni], gate: -1})
			continue
		}
		byStage := map[int32][]int32{}
		var stages []int32
		for _, gi := range nd.gates {
			st := stageOf[gi]
			if byStage[st] == nil {
				stages = append(stages, st)
			}
			byStage[st] = append(byStage[st], gi)
		}
		sort.Slice(stages, func(i, j int) bool { return stages[i] < stages[j] })
		for _, st := range stages {
			for _, gi := range byStage[st] {
				out = append(out, item{ni: ni, st: st, gate: gi})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].st < out[j].st })
	return out
}

// ordered sorts each stage's items (given in stage order, then the
// view's) so that every item comes after the items of its stage whose
// wires it reads: a split entry's gate may read a gate that another entry
// of the view, later in it, owns. An order that already respects every
// dependency comes out unchanged. It returns the entries of the items
// left out by a cycle (stuck).
func (w *wordGraph) ordered(items []item, l *layout, stageOf []int32) (order []item, stuck []int) {
	d := w.d
	whole := map[int]int{}    // entry -> its item
	gateAt := map[int32]int{} // a split entry's gate -> its item
	for i, it := range items {
		if it.gate >= 0 {
			gateAt[it.gate] = i
		} else {
			whole[it.ni] = i
		}
	}
	// of is the item that makes net n in stage st, -1 for none.
	of := func(n netlist.Net, st int32) int {
		g := w.driver[n]
		if g < 0 || stageOf[g] != st {
			return -1
		}
		if i, ok := gateAt[g]; ok {
			return i
		}
		if i, ok := whole[int(w.owner[g])]; ok && items[i].st == st {
			return i
		}
		return -1
	}
	perBit := func(y string) bool { return l.perBit(w, y) }
	deps := make([][]int, len(items))
	for i, it := range items {
		add := func(j int) {
			if j >= 0 && j != i {
				deps[i] = append(deps[i], j)
			}
		}
		if it.gate >= 0 {
			for _, n := range d.Gates[it.gate].In {
				add(of(n, it.st))
			}
			continue
		}
		for _, y := range w.refs(d.RTL.Assigns[w.nodes[it.ni].assign]) {
			if perBit(y) {
				for _, n := range w.bits[y] {
					if n >= 2 {
						add(of(n, it.st))
					}
				}
				continue
			}
			if pr := w.producer[y]; pr >= 0 && l.nodeStage[pr] == it.st {
				if j, ok := whole[pr]; ok {
					add(j)
				}
			}
		}
	}
	// Kahn's order, the earliest item first.
	succ := make([][]int, len(items))
	indeg := make([]int, len(items))
	for i, ds := range deps {
		for _, j := range ds {
			succ[j] = append(succ[j], i)
			indeg[i]++
		}
	}
	ready := &intHeap{}
	for i := range items {
		if indeg[i] == 0 {
			heap.Push(ready, i)
		}
	}
	done := make([]bool, len(items))
	for ready.Len() > 0 {
		i := heap.Pop(ready).(int)
		order = append(order, items[i])
		done[i] = true
		for _, j := range succ[i] {
			if indeg[j]--; indeg[j] == 0 {
				heap.Push(ready, j)
			}
		}
	}
	for i, ok := range done {
		if !ok {
			stuck = append(stuck, items[i].ni)
		}
	}
	return order, stuck
}

// intHeap is a min-heap of ints (container/heap).
type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// splittable is whether entry ni may be written gate by gate: any but an
// instance, which only with flatten set (its copy then written flat in
// both modules).
func (w *wordGraph) splittable(ni int) bool {
	return w.flatten || w.d.RTL.Assigns[w.nodes[ni].assign].Inst == nil
}

// partsView is d with each part of an expression whose nets its generator
// names (Expr.Nets: a popcount's partial sums) written as a wire of its
// own, <entry>_p<k>, before its entry, so that the parts of a long entry
// may go to different stages, each a word; d itself when it names none.
// The combinational RTL is written from d, unchanged.
func partsView(d *netlist.Design) *netlist.Design {
	if d.RTL == nil {
		return d
	}
	taken := takenNames(d.Ports, d.RTL)
	hoisted := map[*netlist.Expr]string{}
	var out []netlist.Assign
	for _, a := range d.RTL.Assigns {
		if a.Inst != nil || a.Expr == nil {
			out = append(out, a)
			continue
		}
		k := 0
		var parts []netlist.Assign
		var walk func(e *netlist.Expr, root bool) *netlist.Expr
		walk = func(e *netlist.Expr, root bool) *netlist.Expr {
			if name, ok := hoisted[e]; ok {
				return netlist.Ref(name, e.W)
			}
			c := e
			for i, x := range e.Args {
				if y := walk(x, false); y != x {
					if c == e {
						cp := *e
						cp.Args = append([]*netlist.Expr(nil), e.Args...)
						c = &cp
					}
					c.Args[i] = y
				}
			}
			if root || len(e.Nets) != e.W {
				return c
			}
			name := fmt.Sprintf("%s_p%d", a.Name, k)
			for k++; taken[name]; k++ {
				name = fmt.Sprintf("%s_p%d", a.Name, k)
			}
			taken[name] = true
			hoisted[e] = name
			parts = append(parts, netlist.Assign{Name: name, Wire: true, Compact: true, Expr: c, Nets: e.Nets,
				Doc: fmt.Sprintf("Parts of %s.", a.Name)})
			return netlist.Ref(name, e.W)
		}
		a.Expr = walk(a.Expr, true)
		out = append(out, parts...)
		out = append(out, a)
	}
	if len(hoisted) == 0 {
		return d
	}
	v := *d
	rtlCopy := *d.RTL
	rtlCopy.Assigns = out
	v.RTL = &rtlCopy
	return &v
}
