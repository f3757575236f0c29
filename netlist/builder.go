package netlist

import (
	"fmt"
	"slices"
)

// Builder constructs a Design. It folds constants and shares structurally
// identical gates, so generators can write the plain function and still get
// a small netlist; Build removes logic that reaches no output.
//
// Wide AND/OR/NAND/NOR/XOR requests are split into balanced trees of library
// gates, so callers never see the arity limit of the library.
type Builder struct {
	d       Design
	next    Net
	shared  map[gateKey]Net
	inverse map[Net]Net // n -> !n where an INV (or folded pair) relates them
	errs    []error
	// regs maps a register bit's Q net to its DFF's index in d.Gates, until
	// Next gives the D input.
	regs map[Net]int
}

type gateKey struct {
	kind Kind
	in   [4]Net
}

// NewBuilder starts an empty design with the given module name.
func NewBuilder(name string) *Builder {
	return &Builder{
		d:       Design{Name: name, NetNames: map[Net]string{}},
		next:    firstFree,
		shared:  map[gateKey]Net{},
		inverse: map[Net]Net{Const0: Const1, Const1: Const0},
		regs:    map[Net]int{},
	}
}

// Clock declares the one-bit clock input of a design with registers.
func (b *Builder) Clock(name, doc string) {
	b.Input(name, 1, doc)
	b.d.Clock = name
}

// Reg declares a register of width DFFs named name and returns its Q nets,
// which may be read at once; Next gives its D inputs later, so registers
// can feed the logic that computes their own next state.
func (b *Builder) Reg(name string, width int) Bus {
	q := make(Bus, width)
	for i := range q {
		q[i] = b.newNet()
		b.regs[q[i]] = len(b.d.Gates)
		b.d.Gates = append(b.d.Gates, Gate{Kind: DFF, In: []Net{Const0}, Out: q[i]})
	}
	b.Name(name, q)
	return q
}

// Next sets the D inputs of register q (from Reg) to d: q takes d at the
// next rising clock edge.
func (b *Builder) Next(q, d Bus) {
	if len(q) != len(d) {
		b.errs = append(b.errs, fmt.Errorf("netlist: Next: %d-bit register, %d-bit value", len(q), len(d)))
		return
	}
	for i, n := range q {
		gi, ok := b.regs[n]
		if !ok {
			b.errs = append(b.errs, fmt.Errorf("netlist: Next: net %d is not a register bit without a next value", n))
			return
		}
		b.d.Gates[gi].In[0] = d[i]
		delete(b.regs, n)
	}
}

// NextClear is Next with a synchronous clear: q takes 0 when clear is 1,
// else d.
func (b *Builder) NextClear(q, d Bus, clear Net) {
	keep := b.Not(clear)
	nd := make(Bus, len(d))
	for i, n := range d {
		nd[i] = b.And(n, keep)
	}
	b.Next(q, nd)
}

func (b *Builder) newNet() Net {
	n := b.next
	b.next++
	return n
}

// Input declares an input port of the given width and returns its nets.
func (b *Builder) Input(name string, width int, doc string) Bus {
	bits := make(Bus, width)
	for i := range bits {
		bits[i] = b.newNet()
	}
	b.d.Ports = append(b.d.Ports, Port{Name: name, Dir: In, Bits: bits, Doc: doc})
	return bits
}

// Output declares an output port driven by bits.
func (b *Builder) Output(name string, bits Bus, doc string) {
	b.d.Ports = append(b.d.Ports, Port{Name: name, Dir: Out, Bits: slices.Clone(bits), Doc: doc})
}

// Header appends lines to the module header documentation.
func (b *Builder) Header(lines ...string) { b.d.Header = append(b.d.Header, lines...) }

// SetStorage records the design's groups of state bits for area reports.
func (b *Builder) SetStorage(s ...Storage) { b.d.Storage = s }

// Path records a named timing path from any net of from to any net of to.
func (b *Builder) Path(name, doc string, from, to Bus) {
	b.d.Paths = append(b.d.Paths, Path{Name: name, Doc: doc, From: slices.Clone(from), To: slices.Clone(to)})
}

// SetRTL attaches the word-level view.
func (b *Builder) SetRTL(r *RTL) { b.d.RTL = r }

// Name gives the nets of bus readable names name[i] (name alone for one
// bit). Nets that already have a name, ports and constants keep theirs.
func (b *Builder) Name(name string, bus Bus) {
	for i, n := range bus {
		if n < firstFree {
			continue
		}
		if _, ok := b.d.NetNames[n]; ok {
			continue
		}
		if len(bus) == 1 {
			b.d.NetNames[n] = name
		} else {
			b.d.NetNames[n] = fmt.Sprintf("%s_%d", name, i)
		}
	}
}

// Const returns the nets of an unsigned constant of the given width.
func Const(value uint64, width int) Bus {
	bus := make(Bus, width)
	for i := range bus {
		if i < 64 && value>>uint(i)&1 == 1 {
			bus[i] = Const1
		} else {
			bus[i] = Const0
		}
	}
	return bus
}

// gate adds (or reuses) a gate of kind k over in and returns its output.
func (b *Builder) gate(k Kind, in ...Net) Net {
	if len(in) != k.Arity() {
		b.errs = append(b.errs, fmt.Errorf("internal: %s with %d inputs", k, len(in)))
		return Const0
	}
	key := gateKey{kind: k}
	copy(key.in[:], in)
	if commutative(k) {
		slices.Sort(key.in[:len(in)])
	}
	if n, ok := b.shared[key]; ok && k != DFF {
		return n
	}
	out := b.newNet()
	b.d.Gates = append(b.d.Gates, Gate{Kind: k, In: slices.Clone(in), Out: out})
	b.shared[key] = out
	return out
}

func commutative(k Kind) bool {
	switch k {
	case NAND2, NAND3, NAND4, NOR2, NOR3, NOR4, AND2, AND3, AND4, OR2, OR3, OR4, XOR2, XNOR2:
		return true
	}
	return false
}

// Not returns !a.
func (b *Builder) Not(a Net) Net {
	if n, ok := b.inverse[a]; ok {
		return n
	}
	n := b.gate(INV, a)
	b.inverse[a], b.inverse[n] = n, a
	return n
}

// Buf returns a buffered copy of a (for fanout trees; logic never needs it).
func (b *Builder) Buf(a Net) Net {
	if a < firstFree {
		return a
	}
	return b.gate(BUF, a)
}

// literals drops identity constants and duplicates. It reports whether the
// absorbing constant occurs, or whether a and !a both occur.
func (b *Builder) literals(in []Net, identity, absorbing Net) (Bus, bool) {
	// Sort and compact instead of a set: this runs for every gate built.
	out := make(Bus, 0, len(in))
	for _, n := range in {
		switch n {
		case absorbing:
			return nil, true
		case identity:
			continue
		}
		out = append(out, n)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	for _, n := range out {
		if inv, ok := b.inverse[n]; ok {
			if _, found := slices.BinarySearch(out, inv); found {
				return nil, true
			}
		}
	}
	return out, false
}

// And returns the AND of any number of nets (1 for none).
func (b *Builder) And(in ...Net) Net {
	lits, zero := b.literals(in, Const1, Const0)
	if zero {
		return Const0
	}
	return b.tree(lits, Const1, []Kind{AND2, AND3, AND4}, []Kind{NAND2, NAND3, NAND4}, false)
}

// Or returns the OR of any number of nets (0 for none).
func (b *Builder) Or(in ...Net) Net {
	lits, one := b.literals(in, Const0, Const1)
	if one {
		return Const1
	}
	return b.tree(lits, Const0, []Kind{OR2, OR3, OR4}, []Kind{NOR2, NOR3, NOR4}, false)
}

// Nand returns !(AND of in).
func (b *Builder) Nand(in ...Net) Net {
	lits, zero := b.literals(in, Const1, Const0)
	if zero {
		return Const1
	}
	return b.tree(lits, Const1, []Kind{AND2, AND3, AND4}, []Kind{NAND2, NAND3, NAND4}, true)
}

// Nor returns !(OR of in).
func (b *Builder) Nor(in ...Net) Net {
	lits, one := b.literals(in, Const0, Const1)
	if one {
		return Const0
	}
	return b.tree(lits, Const0, []Kind{OR2, OR3, OR4}, []Kind{NOR2, NOR3, NOR4}, true)
}

// tree reduces lits with gates of up to four inputs; pos[i]/neg[i] are the
// non-inverting and inverting kinds of arity i+2 (AND/NAND or OR/NOR). The
// inner levels alternate inverting gates the way a technology mapper does
// by De Morgan: NAND4 of true inputs gives complements, NOR4 of those the
// true AND of sixteen (and dually for OR), so no level pays for an output
// inverter. The last level is inverting when that gives the polarity asked
// for (!invert: the AND/OR itself; invert: its complement), otherwise the
// non-inverting kind.
func (b *Builder) tree(lits Bus, empty Net, pos, neg []Kind, invert bool) Net {
	switch len(lits) {
	case 0:
		if invert {
			return b.Not(empty)
		}
		return empty
	case 1:
		if invert {
			return b.Not(lits[0])
		}
		return lits[0]
	}
	// inverted: lits hold complements of partial results. The dual kinds
	// reduce complements: NOR of !x is AND of x, OR of !x is !AND of x.
	dualPos, dualNeg := dual(pos), dual(neg)
	inverted := false
	for len(lits) > 4 {
		kinds := neg
		if inverted {
			kinds = dualNeg
		}
		var next Bus
		for _, group := range groups(lits) {
			next = append(next, b.gate(kinds[len(group)-2], group...))
		}
		lits, inverted = next, !inverted
	}
	// The last gate: inverting kinds flip polarity, non-inverting keep it.
	wantInverted := invert
	kinds := pos
	if inverted {
		kinds = dualNeg // inverting on complements: the true result
		if wantInverted {
			kinds = dualPos
		}
	} else if wantInverted {
		kinds = neg
	}
	return b.gate(kinds[len(lits)-2], lits...)
}

// groups splits more than four nets into groups of two to four, in order:
// runs of four, the last two groups evened out so none is a single net
// (a single net would need an inverter to keep its level's polarity).
func groups(lits Bus) []Bus {
	var gs []Bus
	i := 0
	for len(lits)-i > 4 {
		n := 4
		if len(lits)-i == 5 {
			n = 3
		}
		gs = append(gs, lits[i:i+n])
		i += n
	}
	return append(gs, lits[i:])
}

// dual maps AND-family kinds to the OR family of the same arities and
// back: the gates that reduce complemented inputs.
func dual(kinds []Kind) []Kind {
	out := make([]Kind, len(kinds))
	for i, k := range kinds {
		out[i] = dualKind[k]
	}
	return out
}

var dualKind = map[Kind]Kind{
	AND2: OR2, AND3: OR3, AND4: OR4, OR2: AND2, OR3: AND3, OR4: AND4,
	NAND2: NOR2, NAND3: NOR3, NAND4: NOR4, NOR2: NAND2, NOR3: NAND3, NOR4: NAND4,
}

// Xor returns a ^ c.
func (b *Builder) Xor(a, c Net) Net {
	switch {
	case a == Const0:
		return c
	case c == Const0:
		return a
	case a == Const1:
		return b.Not(c)
	case c == Const1:
		return b.Not(a)
	case a == c:
		return Const0
	}
	if inv, ok := b.inverse[a]; ok && inv == c {
		return Const1
	}
	return b.gate(XOR2, a, c)
}

// Xnor returns !(a ^ c).
func (b *Builder) Xnor(a, c Net) Net {
	if a < firstFree || c < firstFree || a == c {
		return b.Not(b.Xor(a, c))
	}
	if inv, ok := b.inverse[a]; ok && inv == c {
		return Const0
	}
	return b.gate(XNOR2, a, c)
}

// XorAll returns the XOR of any number of nets as a balanced tree.
func (b *Builder) XorAll(in ...Net) Net {
	lits := slices.Clone(in)
	if len(lits) == 0 {
		return Const0
	}
	for len(lits) > 1 {
		var next Bus
		for i := 0; i+1 < len(lits); i += 2 {
			next = append(next, b.Xor(lits[i], lits[i+1]))
		}
		if len(lits)%2 == 1 {
			next = append(next, lits[len(lits)-1])
		}
		lits = next
	}
	return lits[0]
}

// Mux returns s ? a1 : a0.
func (b *Builder) Mux(s, a0, a1 Net) Net {
	switch {
	case a0 == a1:
		return a0
	case s == Const0:
		return a0
	case s == Const1:
		return a1
	case a0 == Const0 && a1 == Const1:
		return s
	case a0 == Const1 && a1 == Const0:
		return b.Not(s)
	case a0 == Const0:
		return b.And(s, a1)
	case a1 == Const0:
		return b.And(b.Not(s), a0)
	case a0 == Const1:
		return b.Or(b.Not(s), a1)
	case a1 == Const1:
		return b.Or(s, a0)
	}
	return b.gate(MUX2, s, a0, a1)
}

// MuxBus returns s ? a1 : a0 bit by bit.
func (b *Builder) MuxBus(s Net, a0, a1 Bus) Bus {
	out := make(Bus, len(a0))
	for i := range out {
		out[i] = b.Mux(s, a0[i], a1[i])
	}
	return out
}

// Select returns in[sel] for a binary select bus (sel[0] least
// significant), as a tree of MUX2; entries beyond len(in) read 0.
func (b *Builder) Select(sel Bus, in Bus) Net {
	level := slices.Clone(in)
	for _, s := range sel {
		var next Bus
		for i := 0; i < len(level); i += 2 {
			a1 := Const0
			if i+1 < len(level) {
				a1 = level[i+1]
			}
			next = append(next, b.Mux(s, level[i], a1))
		}
		if len(next) == 0 {
			next = Bus{Const0}
		}
		level = next
	}
	if len(level) == 0 {
		return Const0
	}
	return level[0]
}

// Aoi21 returns !((a1 & a2) | c).
func (b *Builder) Aoi21(a1, a2, c Net) Net {
	if a1 < firstFree || a2 < firstFree || c < firstFree {
		return b.Not(b.Or(b.And(a1, a2), c))
	}
	return b.gate(AOI21, a1, a2, c)
}

// Oai21 returns !((a1 | a2) & c).
func (b *Builder) Oai21(a1, a2, c Net) Net {
	if a1 < firstFree || a2 < firstFree || c < firstFree {
		return b.Not(b.And(b.Or(a1, a2), c))
	}
	return b.gate(OAI21, a1, a2, c)
}

// Equal returns 1 when buses a and c (same width) are equal.
func (b *Builder) Equal(a, c Bus) Net {
	eq := make(Bus, len(a))
	for i := range a {
		eq[i] = b.Xnor(a[i], c[i])
	}
	return b.And(eq...)
}

// Build finishes the design: it removes gates whose outputs reach no
// output port, instance or memory input, numbers the remaining nets
// densely in a stable order (constants, input bits, memory read data,
// gate outputs), and checks the structure.
func (b *Builder) Build() (*Design, error) {
	if len(b.errs) > 0 {
		return nil, b.errs[0]
	}
	if len(b.regs) > 0 {
		var names []string
		for n := range b.regs {
			names = append(names, b.d.NetName(n))
		}
		slices.Sort(names)
		return nil, fmt.Errorf("netlist: %s: registers without a next value: %v", b.d.Name, names)
	}
	if len(b.d.Gates) > 0 && b.d.Clock == "" {
		for _, g := range b.d.Gates {
			if g.Kind == DFF {
				return nil, fmt.Errorf("netlist: %s: registers but no clock (call Clock)", b.d.Name)
			}
		}
	}
	for _, m := range b.d.Memories {
		if m.RE < 0 {
			return nil, fmt.Errorf("netlist: %s: memory %s has no ports (call MemoryPorts)", b.d.Name, m.Name)
		}
	}
	d := b.d
	d.NumNets = int(b.next)
	// Check the memories before dead-gate removal reads their nets.
	if err := d.checkMemories(); err != nil {
		return nil, fmt.Errorf("netlist: %s: %w", d.Name, err)
	}

	// Mark live gates backwards from the outputs.
	driver := make([]int, d.NumNets)
	for i := range driver {
		driver[i] = -1
	}
	for i, g := range d.Gates {
		driver[g.Out] = i
	}
	live := make([]bool, len(d.Gates))
	var work []Net
	for _, p := range d.Ports {
		if p.Dir == Out {
			work = append(work, p.Bits...)
		}
	}
	for _, inst := range d.Instances { // instances stay whole, inputs driven
		for i := inst.First; i < inst.Last; i++ {
			work = append(work, d.Gates[i].Out)
		}
		for i, p := range inst.Design.Ports {
			if p.Dir == In {
				work = append(work, inst.Conns[i]...)
			}
		}
	}
	for _, m := range d.Memories { // a memory's inputs are live, as outputs are
		work = append(work, m.memoryInputs()...)
	}
	for len(work) > 0 {
		n := work[len(work)-1]
		work = work[:len(work)-1]
		gi := driver[n]
		if gi < 0 || live[gi] {
			continue
		}
		live[gi] = true
		work = append(work, d.Gates[gi].In...)
	}

	// Renumber: constants, then input port bits, then gate outputs in order.
	renum := make([]Net, d.NumNets)
	for i := range renum {
		renum[i] = -1
	}
	renum[Const0], renum[Const1] = Const0, Const1
	next := firstFree
	for _, p := range d.Ports {
		if p.Dir == In {
			for _, n := range p.Bits {
				renum[n] = next
				next++
			}
		}
	}
	for _, m := range d.Memories { // read data are sources, numbered before the gates
		for _, n := range m.RData {
			renum[n] = next
			next++
		}
	}
	var gates []Gate
	newIndex := make([]int, len(d.Gates)+1)
	for i, g := range d.Gates {
		newIndex[i] = len(gates)
		if !live[i] {
			continue
		}
		renum[g.Out] = next
		next++
		gates = append(gates, g)
	}
	newIndex[len(d.Gates)] = len(gates)
	for i := range gates {
		in := make([]Net, len(gates[i].In))
		for j, n := range gates[i].In {
			in[j] = renum[n]
		}
		gates[i].In = in
		gates[i].Out = renum[gates[i].Out]
	}
	ports := make([]Port, len(d.Ports))
	for i, p := range d.Ports {
		p.Bits = slices.Clone(p.Bits)
		for j, n := range p.Bits {
			p.Bits[j] = renum[n]
		}
		ports[i] = p
	}
	var paths []Path
	for _, p := range d.Paths {
		np := Path{Name: p.Name, Doc: p.Doc}
		for _, n := range p.From {
			if renum[n] >= firstFree {
				np.From = append(np.From, renum[n])
			}
		}
		for _, n := range p.To {
			if renum[n] >= firstFree {
				np.To = append(np.To, renum[n])
			}
		}
		paths = append(paths, np)
	}
	d.Paths = paths
	insts := make([]Instance, len(d.Instances))
	for k, inst := range d.Instances {
		inst.First, inst.Last = newIndex[inst.First], newIndex[inst.Last]
		inst.Conns = slices.Clone(inst.Conns)
		for i, bus := range inst.Conns {
			nb := make(Bus, len(bus))
			for j, n := range bus {
				nb[j] = renum[n]
			}
			inst.Conns[i] = nb
		}
		insts[k] = inst
	}
	d.Instances = insts
	mems := make([]Memory, len(d.Memories))
	for k, m := range d.Memories {
		renumBus := func(bus Bus) Bus {
			nb := make(Bus, len(bus))
			for j, n := range bus {
				nb[j] = renum[n]
			}
			return nb
		}
		m.RE, m.WE = renum[m.RE], renum[m.WE]
		m.RAddr, m.RData, m.WAddr = renumBus(m.RAddr), renumBus(m.RData), renumBus(m.WAddr)
		m.WData, m.WMask = renumBus(m.WData), renumBus(m.WMask)
		mems[k] = m
	}
	d.Memories = mems
	names := map[Net]string{}
	for n, s := range d.NetNames {
		if renum[n] >= firstFree {
			names[renum[n]] = s
		}
	}
	if d.RTL != nil {
		renumberExprNets(d.RTL, renum)
	}
	d.Ports, d.Gates, d.NetNames, d.NumNets = ports, gates, names, int(next)
	if err := d.Check(); err != nil {
		return nil, err
	}
	return &d, nil
}

// renumberExprNets renumbers the nets the view's expressions name
// (Expr.Nets, Assign.Nets) as Build renumbers the design's; a bus with a
// net no live gate drives is dropped.
func renumberExprNets(r *RTL, renum []Net) {
	bus := func(b Bus) Bus {
		nb := make(Bus, len(b))
		for i, n := range b {
			if n < 0 || int(n) >= len(renum) || renum[n] < 0 {
				return nil
			}
			nb[i] = renum[n]
		}
		return nb
	}
	seen := map[*Expr]bool{}
	var walk func(e *Expr)
	walk = func(e *Expr) {
		if e == nil || seen[e] {
			return
		}
		seen[e] = true
		if e.Nets != nil {
			e.Nets = bus(e.Nets)
		}
		for _, a := range e.Args {
			walk(a)
		}
	}
	for i := range r.Assigns {
		a := &r.Assigns[i]
		walk(a.Expr)
		if a.Inst != nil {
			for _, c := range a.Inst.Ports {
				walk(c.In)
			}
		}
		if a.Nets != nil {
			a.Nets = bus(a.Nets)
		}
	}
}
