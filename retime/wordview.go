package retime

import (
	"fmt"
	"sort"
	"strings"

	"github.com/lsugen/lsugen/netlist"
)

// regBit is one bit of a word-level register: the register and the bit.
type regBit struct {
	name string
	pos  int
}

// wordReg is the register of a signal's bits at one boundary: bits[i]
// is the signal's bit that register bit i holds, qs[i] its flip-flop.
type wordReg struct {
	name   string
	signal string
	stage  int32 // the stage (0-based) that reads it
	bits   []int
	nets   []netlist.Net // the original nets
	qs     []netlist.Net
}

// view replaces the readable module of r (built from stageOf) with d's
// word-level view by stage, and names r's stage flip-flops after its
// registers, <signal>_q<k>_<i>.
func (w *wordGraph) view(r *Result, stageOf []int32, lay *layout) error {
	d, p := w.d, r.Design
	L := r.Latency
	split, nodeStage := lay.split, lay.nodeStage
	driver := w.driver
	// netStage is the stage a net is produced in (the inputs: the first).
	netStage := func(n netlist.Net) int32 {
		if g := driver[n]; g >= 0 {
			return stageOf[g]
		}
		return 0
	}
	perBit := func(y string) bool { return lay.perBit(w, y) }
	sigStage := func(name string) int32 { return lay.sigStage(w, name) }

	// The stage flip-flops, by the original net they carry and the stage
	// that reads them.
	origin := map[netlist.Net]netlist.Net{}
	type at struct {
		n  netlist.Net
		st int32
	}
	flop := map[at]netlist.Net{}
	var stageFlops []int
	for gi, g := range p.Gates {
		if g.Kind != netlist.DFF {
			continue
		}
		src := g.In[0]
		if o, ok := origin[src]; ok {
			src = o
		}
		if int(src) >= d.NumNets {
			continue // the valid chain and the output registers
		}
		origin[g.Out] = src
		flop[at{src, int32(r.rank[gi]) + 1}] = g.Out
		stageFlops = append(stageFlops, gi)
	}

	if err := w.keepInstances(p, stageOf, nodeStage, split, func(n netlist.Net, st int32) (netlist.Net, bool) {
		q, ok := flop[at{n, st}]
		return q, ok
	}); err != nil {
		return err
	}

	taken := takenNames(p.Ports, d.RTL)
	for _, pt := range d.Outputs() {
		if taken[combName(pt.Name)] || taken[pt.Name+"_q"] {
			return fmt.Errorf("%s or %s_q is taken", combName(pt.Name), pt.Name)
		}
		taken[combName(pt.Name)], taken[pt.Name+"_q"] = true, true
	}
	newName := func(base string) (string, error) {
		if taken[base] {
			return "", fmt.Errorf("%s is taken", base)
		}
		taken[base] = true
		return base, nil
	}

	// A split entry is written gate by gate: a wire per gate, named
	// <entry>_b<bit> for a bit of its signal and <entry>_n<k> otherwise;
	// the other wires are named bits too, so registers can carry them.
	gw := map[int32]string{}
	for ni, nd := range w.nodes {
		if !split[ni] {
			continue
		}
		a := d.RTL.Assigns[nd.assign]
		base := a.Name
		if !a.Wire && a.Inst == nil {
			base = combName(a.Name)
		}
		// Its other gates' nets are the bits of one signal, <entry>_part,
		// so that a boundary's registers of them are one word.
		part := base + "_part"
		for taken[part] {
			part += "_"
		}
		taken[part] = true
		partBits := make([]netlist.Net, len(nd.gates))
		for k, gi := range nd.gates {
			out := d.Gates[gi].Out
			partBits[k] = -1
			name := fmt.Sprintf("%s_n%d", base, k)
			if sb, ok := w.sig[out]; ok && sb.name == base {
				name = fmt.Sprintf("%s_b%d", base, sb.bit)
			}
			for taken[name] {
				name += "_"
			}
			taken[name] = true
			gw[gi] = name
			if _, ok := w.sig[out]; !ok {
				w.sig[out] = sigBit{part, k}
				partBits[k] = out
			}
		}
		w.bits[part] = partBits
	}

	// Registers: a signal's bits at each boundary, in bit order.
	regs := map[[2]string]*wordReg{}
	var regList []*wordReg
	for _, gi := range stageFlops {
		q := p.Gates[gi].Out
		n := origin[q]
		sb, ok := w.sig[n]
		if !ok {
			return fmt.Errorf("a register carries net %d, which has no name", n)
		}
		st := int32(r.rank[gi]) + 1
		key := [2]string{sb.name, fmt.Sprint(st)}
		rg := regs[key]
		if rg == nil {
			rg = &wordReg{signal: sb.name, stage: st}
			regs[key] = rg
			regList = append(regList, rg)
		}
		rg.bits, rg.nets, rg.qs = append(rg.bits, sb.bit), append(rg.nets, n), append(rg.qs, q)
	}
	sort.SliceStable(regList, func(i, j int) bool { return regList[i].stage < regList[j].stage })
	bitOf := map[netlist.Net]regBit{} // flip-flop -> its register bit
	for _, rg := range regList {
		idx := make([]int, len(rg.bits))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(i, j int) bool { return rg.bits[idx[i]] < rg.bits[idx[j]] })
		bits, nets, qs := make([]int, len(idx)), make([]netlist.Net, len(idx)), make([]netlist.Net, len(idx))
		for i, k := range idx {
			bits[i], nets[i], qs[i] = rg.bits[k], rg.nets[k], rg.qs[k]
		}
		rg.bits, rg.nets, rg.qs = bits, nets, qs
		name, err := newName(fmt.Sprintf("%s_q%d", rg.signal, rg.stage))
		if err != nil {
			return err
		}
		rg.name = name
		for i, q := range rg.qs {
			bitOf[q] = regBit{name, i}
			if len(rg.qs) == 1 {
				p.NetNames[q] = name
			} else {
				p.NetNames[q] = fmt.Sprintf("%s_%d", name, i)
			}
		}
	}
	width := map[string]int{}
	for _, rg := range regList {
		width[rg.name] = len(rg.qs)
	}
	for name, bits := range w.bits {
		width[name] = len(bits)
	}
	for _, name := range gw {
		width[name] = 1
	}

	// cur is net n in the stage that makes it: a wire of a split entry's
	// gate, or the bit of the signal that names it.
	cur := func(n netlist.Net) (*regBit, error) {
		if g := driver[n]; g >= 0 && split[w.owner[g]] {
			return &regBit{gw[g], 0}, nil
		}
		sb, ok := w.sig[n]
		if !ok {
			return nil, fmt.Errorf("net %d is read by a split entry but has no name", n)
		}
		if pr, ok := w.producer[sb.name]; ok && pr >= 0 && split[pr] {
			return nil, fmt.Errorf("net %d is bit %d of %s, which is not written as a wire", n, sb.bit, sb.name)
		}
		return &regBit{sb.name, sb.bit}, nil
	}
	// held is net n as stage st reads it: cur in its own stage, else from
	// its register.
	held := func(n netlist.Net, st int32) (*regBit, error) {
		switch ns := netStage(n); {
		case ns == st:
			return cur(n)
		case ns > st:
			return nil, fmt.Errorf("net %d of stage %d is read in stage %d", n, ns+1, st+1)
		}
		q, ok := flop[at{n, st}]
		if !ok {
			return nil, fmt.Errorf("net %d is not held for stage %d", n, st+1)
		}
		rb := bitOf[q]
		return &rb, nil
	}

	// version is signal y as stage st reads it: y itself in its own
	// stage, else its bits from the registers (constants as they are).
	version := func(y string, st int32) (*netlist.Expr, error) {
		bits := w.bits[y]
		if sigStage(y) == st && !perBit(y) {
			return netlist.Ref(y, len(bits)), nil
		}
		src := make([]*regBit, len(bits))
		consts := make([]int, len(bits)) // -1: not a constant
		for j, n := range bits {
			consts[j] = -1
			switch {
			case n == netlist.Const0:
				consts[j] = 0
			case n == netlist.Const1:
				consts[j] = 1
			case n < 0:
				return nil, fmt.Errorf("bit %d of %s has no net", j, y)
			case perBit(y):
				rb, err := held(n, st)
				if err != nil {
					return nil, fmt.Errorf("bit %d of %s: %w", j, y, err)
				}
				src[j] = rb
			default:
				q, ok := flop[at{n, st}]
				if !ok {
					return nil, fmt.Errorf("bit %d of %s is not held for stage %d", j, y, st+1)
				}
				rb := bitOf[q]
				src[j] = &rb
			}
		}
		return runs(src, consts, width), nil
	}

	// The entries by stage, reading the signals of earlier stages through
	// their registers.
	view := &netlist.RTL{Params: d.RTL.Params}
	inline := w.inlineParts(lay, regList)
	rename := func(e *netlist.Expr, st int32) (*netlist.Expr, error) {
		var err error
		var walk func(e *netlist.Expr) *netlist.Expr
		walk = func(e *netlist.Expr) *netlist.Expr {
			if e == nil || err != nil {
				return e
			}
			if e.Op == netlist.OpRef && inline[e.Name] != nil {
				return walk(inline[e.Name])
			}
			if e.Op == netlist.OpRef {
				y := e.Name
				if _, ok := w.bits[y]; !ok {
					if _, ok := w.bits[combName(y)]; ok && d.Port(y) != nil {
						y = combName(y)
					} else {
						return e
					}
				}
				var v *netlist.Expr
				v, err = version(y, st)
				return v
			}
			if len(e.Args) == 0 {
				return e
			}
			c := *e
			c.Args = make([]*netlist.Expr, len(e.Args))
			for i, a := range e.Args {
				c.Args[i] = walk(a)
			}
			return &c
		}
		out := walk(e)
		return out, err
	}
	var order []item
	for _, it := range lay.order {
		if a := d.RTL.Assigns[w.nodes[it.ni].assign]; it.gate >= 0 || inline[a.Name] == nil {
			order = append(order, it)
		}
	}
	bitExpr := func(rb *regBit) *netlist.Expr {
		if width[rb.name] == 1 {
			return netlist.Ref(rb.name, 1)
		}
		return netlist.Slice(netlist.Ref(rb.name, width[rb.name]), rb.pos, rb.pos)
	}
	last := int32(-1)
	prev := item{ni: -1}
	var pieces []piece
	for _, it := range order {
		ni, st := it.ni, it.st
		a := d.RTL.Assigns[w.nodes[ni].assign]
		if gi := it.gate; gi >= 0 {
			g := d.Gates[gi]
			args := make([]*netlist.Expr, len(g.In))
			for i, n := range g.In {
				if isConst(n) {
					args[i] = netlist.ConstExpr(uint64(n), 1)
					continue
				}
				rb, err := held(n, st)
				if err != nil {
					return fmt.Errorf("%s: %w", a.Name, err)
				}
				args[i] = bitExpr(rb)
			}
			ga := netlist.Assign{Name: gw[gi], Wire: true, Compact: true, Expr: netlist.GateExpr(g.Kind, args)}
			if prev.ni != ni || prev.st != st || prev.gate < 0 {
				ga.Doc = fmt.Sprintf("%s, gate by gate: its part in stage %d.", a.Name, st+1)
				if st != last {
					ga.Doc = fmt.Sprintf("Stage %d.\n%s", st+1, ga.Doc)
					last = st
				}
				pc := piece{entry: a.Name, st: st, first: len(view.Assigns)}
				if a.Nets != nil {
					pc.parent = strings.TrimSuffix(strings.TrimPrefix(a.Doc, "Parts of "), ".")
				}
				pieces = append(pieces, pc)
			}
			pieces[len(pieces)-1].last = len(view.Assigns)
			prev = it
			view.Assigns = append(view.Assigns, ga)
			continue
		}
		// A run of one entry's parts (partsView) shares one comment.
		if a.Nets != nil {
			if pa := d.RTL.Assigns[w.nodes[max(prev.ni, 0)].assign]; prev.ni >= 0 && prev.gate < 0 && pa.Nets != nil && pa.Doc == a.Doc && prev.st == st {
				a.Doc = ""
			}
		}
		prev = it
		var err error
		if a.Inst != nil {
			inst := *a.Inst
			inst.Ports = make([]netlist.PortConn, len(a.Inst.Ports))
			for i, c := range a.Inst.Ports {
				if c.In, err = rename(c.In, st); err != nil {
					return err
				}
				inst.Ports[i] = c
			}
			a.Inst = &inst
		} else {
			if a.Expr, err = rename(a.Expr, st); err != nil {
				return err
			}
			if !a.Wire {
				a.Name, a.Wire = combName(a.Name), true
			}
		}
		if st != last {
			doc := fmt.Sprintf("Stage %d.", st+1)
			if a.Doc != "" {
				doc += "\n" + a.Doc
			}
			a.Doc = doc
			last = st
		}
		view.Assigns = append(view.Assigns, a)
	}

	// Registers: the valid chain, each signal's bits at each boundary,
	// the output registers.
	rst := netlist.Ref("rst", 1)
	validIn := netlist.Ref("valid_i", 1)
	next := validIn
	if L > 1 {
		next = netlist.Concat(validIn, netlist.Slice(netlist.Ref("valid_q", L), L-2, 0))
	}
	bit := func(name string, w, i int) *netlist.Expr {
		if w == 1 {
			return netlist.Ref(name, 1)
		}
		return netlist.Slice(netlist.Ref(name, w), i, i)
	}
	view.Regs = append(view.Regs, netlist.Reg{Name: "valid_q", Width: L, Clear: rst, Next: next,
		Doc: "valid_q[k] holds whether stage k+2 (the outputs for k = L-1) has an operation."})
	lastStage := int32(-1)
	for _, rg := range regList {
		src := make([]*regBit, len(rg.bits))
		consts := make([]int, len(rg.bits))
		for i, j := range rg.bits {
			consts[i] = -1
			if perBit(rg.signal) {
				rb, err := held(rg.nets[i], rg.stage-1)
				if err != nil {
					return fmt.Errorf("register %s: %w", rg.name, err)
				}
				src[i] = rb
				continue
			}
			if sigStage(rg.signal) == rg.stage-1 {
				src[i] = &regBit{rg.signal, j}
				continue
			}
			q, ok := flop[at{rg.nets[i], rg.stage - 1}]
			if !ok {
				return fmt.Errorf("bit %d of %s is not held for stage %d", j, rg.signal, rg.stage)
			}
			rb := bitOf[q]
			src[i] = &rb
		}
		doc := ""
		if rg.stage != lastStage {
			doc = fmt.Sprintf("What stage %d hands to stage %d.", rg.stage, rg.stage+1)
			lastStage = rg.stage
		}
		view.Regs = append(view.Regs, netlist.Reg{Name: rg.name, Width: len(rg.bits), Next: runs(src, consts, width), Doc: doc})
	}
	entering := netlist.AndE(validIn, netlist.NotE(rst))
	if L > 1 {
		entering = netlist.AndE(bit("valid_q", L, L-2), netlist.NotE(rst))
	}
	for _, pt := range d.Outputs() {
		v, err := version(combName(pt.Name), int32(L-1))
		if err != nil {
			return err
		}
		view.Regs = append(view.Regs, netlist.Reg{Name: pt.Name + "_q", Width: pt.Width(), Clear: netlist.NotE(entering), Next: v,
			Doc: fmt.Sprintf("The output register of %s.", pt.Name)})
		view.Assigns = append(view.Assigns, netlist.Assign{Name: pt.Name, Expr: netlist.Ref(pt.Name+"_q", pt.Width())})
	}
	view.Assigns = append(view.Assigns, netlist.Assign{Name: "valid_o", Expr: bit("valid_q", L, L-1)})
	if err := shareGates(view, pieces, newName); err != nil {
		return err
	}
	dropUnread(view)
	p.RTL = view
	return p.Check()
}

// dropUnread removes the wires of view that nothing reads (wiring that
// only split entries read, through their gates, or an output's value
// whose register reads it bit by bit), keeping each stage's heading.
func dropUnread(view *netlist.RTL) {
	for {
		read := map[string]bool{}
		eachExpr(view, func(e *netlist.Expr, _ int) {
			netlist.VisitRefs(e, func(ref *netlist.Expr) { read[ref.Name] = true })
		})
		kept := view.Assigns[:0:0]
		heading := ""
		for _, a := range view.Assigns {
			if a.Wire && a.Inst == nil && !read[a.Name] {
				if strings.HasPrefix(a.Doc, "Stage ") {
					heading, _, _ = strings.Cut(a.Doc, "\n")
				}
				continue
			}
			if heading != "" && !strings.HasPrefix(a.Doc, "Stage ") {
				a.Doc = strings.TrimSuffix(heading+"\n"+a.Doc, "\n")
			}
			heading = ""
			kept = append(kept, a)
		}
		if len(kept) == len(view.Assigns) {
			return
		}
		view.Assigns = kept
	}
}

// runs is the concatenation of bits (bit 0 first): each from a register
// bit or a constant, runs of consecutive bits of one signal as one slice,
// a whole signal as its name.
func runs(src []*regBit, consts []int, width map[string]int) *netlist.Expr {
	var parts []*netlist.Expr
	for j := 0; j < len(src); {
		if src[j] == nil {
			parts = append(parts, netlist.ConstExpr(uint64(consts[j]), 1))
			j++
			continue
		}
		k := j + 1
		for k < len(src) && src[k] != nil && src[k].name == src[j].name && src[k].pos == src[k-1].pos+1 {
			k++
		}
		name, lo, hi := src[j].name, src[j].pos, src[k-1].pos
		w := width[name]
		switch {
		case lo == 0 && hi == w-1:
			parts = append(parts, netlist.Ref(name, w))
		case w == 1:
			parts = append(parts, netlist.Ref(name, 1))
		default:
			parts = append(parts, netlist.Slice(netlist.Ref(name, w), hi, lo))
		}
		j = k
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return netlist.Concat(parts...)
}

// keepInstances gives the built design p d's instances again (but those
// split, written flat), so that its gate-level module instantiates them
// too: an instance's port reads what
// its gates read, its input's version of its stage st (flop) or a
// buffer's leaf of it.
func (w *wordGraph) keepInstances(p *netlist.Design, stageOf, nodeStage []int32, split []bool, flop func(netlist.Net, int32) (netlist.Net, bool)) error {
	d := w.d
	located, err := locate(p, d)
	if err != nil {
		return err
	}
	driver := w.driver
	p.Instances = nil
	for k, inst := range d.Instances {
		if split[w.owner[inst.First]] {
			continue // written flat
		}
		st := nodeStage[w.owner[inst.First]]
		ni := netlist.Instance{Name: inst.Name, Design: inst.Design, First: located[k].First, Last: located[k].Last}
		// What the copy's gates read for each net of d they read: its
		// register, or a buffer's leaf (bufferFanoutIn gives an instance
		// one leaf of a net).
		reads := map[netlist.Net]netlist.Net{}
		for gi := inst.First; gi < inst.Last; gi++ {
			pg := p.Gates[located[k].First+gi-inst.First]
			for i, n := range d.Gates[gi].In {
				reads[n] = pg.In[i]
			}
		}
		for pi, pt := range inst.Design.Ports {
			bus := append(netlist.Bus(nil), inst.Conns[pi]...)
			if pt.Dir == netlist.In {
				for i, n := range bus {
					if r, ok := reads[n]; ok {
						bus[i] = r
						continue
					}
					own := int32(0)
					if g := driver[n]; g >= 0 {
						own = stageOf[g]
					}
					if isConst(n) || own == st {
						continue
					}
					q, ok := flop(n, st)
					if !ok {
						return fmt.Errorf("instance %s reads net %d, not held for stage %d", inst.Name, n, st+1)
					}
					bus[i] = q
				}
			}
			ni.Conns = append(ni.Conns, bus)
		}
		p.Instances = append(p.Instances, ni)
	}
	return nil
}

// locate finds d's instances among the gates of p, a design built from
// d's gates (build copies them in order, keeping their nets; buffers may
// follow an instance, not fall inside one): d's instances with p's gate
// ranges.
func locate(p, d *netlist.Design) ([]netlist.Instance, error) {
	at := make(map[netlist.Net]int, len(p.Gates))
	for gi, g := range p.Gates {
		at[g.Out] = gi
	}
	out := make([]netlist.Instance, len(d.Instances))
	for k, inst := range d.Instances {
		first, ok := at[d.Gates[inst.First].Out]
		if !ok {
			return nil, fmt.Errorf("instance %s is not in the built design", inst.Name)
		}
		for i := inst.First; i < inst.Last; i++ {
			pi := first + i - inst.First
			if pi >= len(p.Gates) || p.Gates[pi].Kind != d.Gates[i].Kind || p.Gates[pi].Out != d.Gates[i].Out {
				return nil, fmt.Errorf("instance %s's gates are not together in the built design", inst.Name)
			}
		}
		inst.First, inst.Last = first, first+inst.Last-inst.First
		out[k] = inst
	}
	return out, nil
}

// inlineParts are the parts of entries (partsView) that the view writes
// back into the one entry that reads them, by name: those whole in the
// stage of that entry, whole too, with no register.
func (w *wordGraph) inlineParts(lay *layout, regs []*wordReg) map[string]*netlist.Expr {
	d := w.d
	registered := map[string]bool{}
	for _, rg := range regs {
		registered[rg.signal] = true
	}
	readers := map[string][]int{}
	for ni, nd := range w.nodes {
		for _, y := range w.refs(d.RTL.Assigns[nd.assign]) {
			readers[y] = append(readers[y], ni)
		}
	}
	out := map[string]*netlist.Expr{}
	for ni, nd := range w.nodes {
		a := d.RTL.Assigns[nd.assign]
		if a.Nets == nil || lay.split[ni] || registered[a.Name] {
			continue
		}
		if rs := readers[a.Name]; len(rs) == 1 && !lay.split[rs[0]] && lay.nodeStage[rs[0]] == lay.nodeStage[ni] {
			out[a.Name] = a.Expr
		}
	}
	return out
}
