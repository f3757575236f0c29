package retime

import (
	"errors"
	"fmt"
	"sort"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/timing"
)

// PipelineWords pipelines d as Pipeline does, at its latency and with no
// more registers, and writes the readable module as d's word-level view
// by stage: each entry of the view (an assign, an instance such as a
// lane's hash) whole where the cuts allow, the entries a cut passes
// through written gate by gate, registers <signal>_q<k> at boundary k
// (the gate-level flip-flops named <signal>_q<k>_<i> after them). The
// registers are placed for whole entries where that costs nothing, else
// where Pipeline placed them; where neither can be written so, the
// readable placement with the fewest registers if they are at most
// ExtraRegisters more than Pipeline's (the header says how many), else
// Pipeline's result, whose readable module is a gate list.
func PipelineWords(d *netlist.Design, opt Options) (*Result, error) {
	fine, err := Pipeline(d, opt)
	if err != nil {
		return nil, err
	}
	if r, err := pipelineWords(d, opt, fine); err == nil {
		return r, nil
	}
	return fine, nil
}

// wordGraph is d's word-level view as nodes over its gates.
type wordGraph struct {
	d     *netlist.Design
	nodes []wordNode
	owner []int32 // gate -> node, -1 for none
	// sig maps a named net to its signal and bit: input ports, wires of
	// the view and instance outputs.
	sig map[netlist.Net]sigBit
	// bits are each signal's nets (Const0/Const1 for constants, -1 for a
	// bit with no net of its name).
	bits map[string][]netlist.Net
	// producer is the node that defines each signal, -1 for an input.
	producer map[string]int
	driver   []int32 // gate driving each net, -1 for none
	// flatten lets the view split instances (set on viewFine's copy: the
	// gate-level placement may cut one).
	flatten bool
}

type sigBit struct {
	name string
	bit  int
}

// wordNode is one entry of the view: its gates, in order.
type wordNode struct {
	assign int // index in d.RTL.Assigns
	gates  []int32
}

// newWordGraph maps d's word-level view onto its gates; an error where
// the two do not line up (a wire's bits without nets of its name, or a
// gate no entry owns).
func newWordGraph(d *netlist.Design) (*wordGraph, error) {
	if d.RTL == nil || len(d.RTL.Regs) > 0 || len(d.RTL.Mems) > 0 {
		return nil, fmt.Errorf("no combinational word-level view")
	}
	w := &wordGraph{d: d, owner: make([]int32, len(d.Gates)), sig: map[netlist.Net]sigBit{},
		bits: map[string][]netlist.Net{}, producer: map[string]int{}}
	for i := range w.owner {
		w.owner[i] = -1
	}
	byName := map[string]netlist.Net{}
	dup := map[string]bool{}
	for n, s := range d.NetNames {
		if _, ok := byName[s]; ok {
			dup[s] = true
		}
		byName[s] = n
	}
	driver := make([]int32, d.NumNets)
	for i := range driver {
		driver[i] = -1
	}
	for gi, g := range d.Gates {
		driver[g.Out] = int32(gi)
	}
	w.driver = driver
	claim := func(name string, bits []netlist.Net) {
		w.bits[name] = bits
		for i, n := range bits {
			if n < 2 {
				continue
			}
			if _, ok := w.sig[n]; !ok {
				w.sig[n] = sigBit{name, i}
			}
		}
	}
	for _, p := range d.Inputs() {
		claim(p.Name, p.Bits)
		w.producer[p.Name] = -1
	}
	insts := map[string]*netlist.Instance{}
	for i := range d.Instances {
		insts[d.Instances[i].Name] = &d.Instances[i]
	}
	for ai, a := range d.RTL.Assigns {
		node := len(w.nodes)
		w.nodes = append(w.nodes, wordNode{assign: ai})
		switch {
		case a.Inst != nil:
			inst := insts[a.Name]
			if inst == nil {
				return nil, fmt.Errorf("instance %s has no gates", a.Name)
			}
			for gi := inst.First; gi < inst.Last; gi++ {
				w.owner[gi] = int32(node)
			}
			for pi, p := range inst.Design.Ports {
				if p.Dir != netlist.Out {
					continue
				}
				for _, c := range a.Inst.Ports {
					if c.Port == p.Name && c.In == nil {
						claim(c.Wire, inst.Conns[pi])
						w.producer[c.Wire] = node
					}
				}
			}
		case a.Wire:
			bits := make([]netlist.Net, a.Expr.W)
			for i := range bits {
				name := a.Name
				if a.Expr.W > 1 {
					name = fmt.Sprintf("%s_%d", a.Name, i)
				}
				n, ok := byName[name]
				if len(a.Nets) == len(bits) {
					n, ok = a.Nets[i], a.Nets[i] >= 2 // a part the pipeliner named
				}
				if !ok || dup[name] {
					bits[i] = -1
					if len(a.Nets) == len(bits) {
						bits[i] = a.Nets[i] // a constant, or -1
					}
					continue
				}
				bits[i] = n
				if g := driver[n]; g >= 0 && w.owner[g] < 0 {
					w.owner[g] = int32(node)
				}
			}
			// Bits without a net of their name: wiring (slices,
			// concatenations, constants) of signals known so far.
			for i, n := range w.wiring(a.Expr) {
				if bits[i] < 0 {
					bits[i] = n
				}
			}
			claim(a.Name, bits)
			w.producer[a.Name] = node
		default:
			p := d.Port(a.Name)
			if p == nil {
				return nil, fmt.Errorf("assign to %s, not a port", a.Name)
			}
			claim(combName(a.Name), p.Bits)
			w.producer[combName(a.Name)] = node
			for _, n := range p.Bits {
				if g := driver[n]; n >= 2 && g >= 0 && w.owner[g] < 0 {
					w.owner[g] = int32(node)
				}
			}
		}
	}
	// The other gates belong to the entry of their first reader (the
	// gates are in topological order, so readers come later).
	readers := make([][]int32, d.NumNets)
	for gi, g := range d.Gates {
		for _, n := range g.In {
			readers[n] = append(readers[n], int32(gi))
		}
	}
	for gi := len(d.Gates) - 1; gi >= 0; gi-- {
		if w.owner[gi] >= 0 {
			continue
		}
		best := int32(-1)
		for _, r := range readers[d.Gates[gi].Out] {
			if o := w.owner[r]; o >= 0 && (best < 0 || o < best) {
				best = o
			}
		}
		if best < 0 {
			return nil, fmt.Errorf("gate %d belongs to no entry of the word-level view", gi)
		}
		w.owner[gi] = best
	}
	for gi, o := range w.owner {
		w.nodes[o].gates = append(w.nodes[o].gates, int32(gi))
	}
	return w, nil
}

// place puts every node whole into the earliest stage where its gates fit
// the budget after their inputs, as the scheduler times them; it returns
// each gate's stage and the latency.
func (w *wordGraph) place(s *scheduler, budget float64) ([]int32, int, error) {
	d := w.d
	stageOf := make([]int32, len(d.Gates))
	arr := make([]float64, len(d.Gates))
	nodeStage := make([]int32, len(w.nodes))
	placed := make([]bool, len(d.Gates))
	// Nodes in dependency order: an entry's gates may read gates of
	// entries after it in the view (a gate owned by its first reader), so
	// order the nodes by their gates.
	order := w.topo()
	if order == nil {
		return nil, 0, fmt.Errorf("the entries of the word-level view depend on each other in a cycle")
	}
	L := 1
	for _, ni := range order {
		nd := w.nodes[ni]
		st := int32(0)
		for _, gi := range nd.gates {
			for _, n := range d.Gates[gi].In {
				if g := s.driver[n]; g >= 0 && w.owner[g] != int32(ni) {
					st = max(st, stageOf[g])
				}
			}
		}
		try := func(st int32) bool {
			for _, gi := range nd.gates {
				g := d.Gates[gi]
				start := 0.0
				for _, n := range g.In {
					var at float64
					switch ps, a, ok := s.producer(n, stageOf, arr); {
					case !ok:
						continue
					case s.isInput[n] && st == 0, !s.isInput[n] && placed[s.driver[n]] && ps == st:
						at = a
					default:
						at = s.clk2q[n]
					}
					start = max(start, at)
				}
				arr[gi] = start + s.gd[gi]
				stageOf[gi] = st
				placed[gi] = true
				end := arr[gi]
				if s.isOut[g.Out] {
					end += s.andD
				}
				if end > budget {
					return false
				}
			}
			return true
		}
		for !try(st) {
			st++
			if st >= MaxLatency {
				return nil, 0, fmt.Errorf("entry %s does not fit a stage", d.RTL.Assigns[nd.assign].Name)
			}
		}
		nodeStage[ni] = st
		L = max(L, int(st)+1)
	}
	return stageOf, L, nil
}

// topo orders the nodes so that each comes after the nodes whose gates
// its gates read; nil on a cycle.
func (w *wordGraph) topo() []int {
	d := w.d
	driver := map[netlist.Net]int32{}
	for gi, g := range d.Gates {
		driver[g.Out] = int32(gi)
	}
	deps := make([]map[int]bool, len(w.nodes))
	indeg := make([]int, len(w.nodes))
	succ := make([][]int, len(w.nodes))
	for ni, nd := range w.nodes {
		deps[ni] = map[int]bool{}
		for _, gi := range nd.gates {
			for _, n := range d.Gates[gi].In {
				if g, ok := driver[n]; ok {
					if o := int(w.owner[g]); o != ni && !deps[ni][o] {
						deps[ni][o] = true
						indeg[ni]++
						succ[o] = append(succ[o], ni)
					}
				}
			}
		}
	}
	var order, ready []int
	for ni := range w.nodes {
		if indeg[ni] == 0 {
			ready = append(ready, ni)
		}
	}
	for len(ready) > 0 {
		sort.Ints(ready)
		ni := ready[0]
		ready = ready[1:]
		order = append(order, ni)
		for _, s := range succ[ni] {
			if indeg[s]--; indeg[s] == 0 {
				ready = append(ready, s)
			}
		}
	}
	if len(order) != len(w.nodes) {
		return nil
	}
	return order
}

// ExtraRegisters is the share of registers beyond the gate-level
// placement's that a readable module by stage may cost, where none costs
// nothing: a module a reviewer can read against a gate list.
const ExtraRegisters = 0.15

// spare is the readable placement with the fewest registers that met the
// period with more registers than the gate-level one, within
// ExtraRegisters: written where nothing better is found.
type spare struct {
	r       *Result
	stageOf []int32
	lay     *layout
	fine    int // the gate-level placement's registers
}

// wants is whether a placement of regs registers would be kept: within
// the allowance and fewer than the best so far.
func (sp *spare) wants(regs int) bool {
	return float64(regs) <= float64(sp.fine)*(1+ExtraRegisters) && (sp.r == nil || regs < sp.r.Registers)
}

// offer keeps r if it is within the allowance and the best so far.
func (sp *spare) offer(r *Result, stageOf []int32, lay *layout) {
	if sp.wants(r.Registers) {
		*sp = spare{r: r, stageOf: stageOf, lay: lay, fine: sp.fine}
	}
}

// pipelineWords is PipelineWords' attempt: an error where the word-level
// cut does not apply or costs latency or a stage over the period.
func pipelineWords(d *netlist.Design, opt Options, fine *Result) (*Result, error) {
	w, err := newWordGraph(partsView(d))
	if err != nil {
		return nil, err
	}
	sp := &spare{fine: fine.Registers}
	r, err := w.placeWords(d, opt, fine, sp)
	if err == nil || sp.r == nil {
		return r, err
	}
	r = sp.r
	r.Design.Header = append(r.Design.Header, fmt.Sprintf("Registers: %d, %.0f %% more than the fewest found (%d), for a readable module by stage.",
		r.Registers, 100*float64(r.Registers-fine.Registers)/float64(fine.Registers), fine.Registers))
	if err := w.finish(r, sp.stageOf, sp.lay, opt); err != nil {
		return nil, err
	}
	return r, nil
}

// placeWords tries the placements of pipelineWords that cost no register
// (offering sp the others).
func (w *wordGraph) placeWords(d *netlist.Design, opt Options, fine *Result, sp *spare) (*Result, error) {
	if opt.Timing.Mode == timing.Sized {
		nt, err := timing.Times(d, opt.Timing)
		if err != nil {
			return nil, err
		}
		r, err := w.cut(placing{s: newScheduler(d, nt, opt.Timing), w: w}, opt, fine, sp)
		if err != nil {
			return w.viewFine(opt, fine, err)
		}
		return r, nil
	}
	// The unsized model (and a library's) buffers wide fanouts. The
	// pipeline is built from d's gates and buffered again stage by stage
	// after its registers, so that each register holds a net of d, a bit
	// of a named signal. The registers are placed on d charging each wide
	// fanout its whole tree (pessimistic: a stage's readers share a
	// smaller one), else, where that costs a cycle, on d with its trees
	// as Pipeline places them (optimistic: a register may then carry a
	// net the tree has not yet fanned out), each timed as built.
	nt, tree, err := treeTimes(d, opt.Timing)
	if err != nil {
		return nil, err
	}
	s := newScheduler(d, nt, opt.Timing)
	for n, t := range tree {
		s.clk2q[n] += t
	}
	r, err := w.cut(placing{s: s, w: w}, opt, fine, sp)
	if err == nil {
		return r, nil
	}
	bd, index := bufferFanoutIn(d, d.Instances, false)
	bw, berr := newWordGraph(bd)
	if berr != nil {
		return nil, err
	}
	bt, berr := timing.Times(bd, opt.Timing)
	if berr != nil {
		return nil, berr
	}
	r, berr = w.cut(placing{s: newScheduler(bd, bt, opt.Timing), w: bw, index: index}, opt, fine, sp)
	if berr == nil {
		return r, nil
	}
	return w.viewFine(opt, fine, err)
}

// viewFine writes the readable module by stage for fine's own placement,
// where no placement of whole entries met the period with as few
// registers (why): the entries it cuts are written gate by gate, an
// instance it cuts flat in both modules.
func (w *wordGraph) viewFine(opt Options, fine *Result, why error) (*Result, error) {
	d := w.d
	at := make(map[netlist.Net]int, len(fine.placed.Gates))
	for gi, g := range fine.placed.Gates {
		at[g.Out] = gi
	}
	stageOf := make([]int32, len(d.Gates))
	for gi, g := range d.Gates {
		stageOf[gi] = fine.stageOf[at[g.Out]]
	}
	fw := *w
	fw.flatten = true
	r, lay, err := fw.build(opt, stageOf, fine.Latency)
	if err != nil {
		return nil, fmt.Errorf("%w; the gate-level placement by stage: %w", why, err)
	}
	if worst := r.worst(); worst > opt.PeriodFO4*(1-opt.Margin)+1e-9 || r.Registers > fine.Registers {
		return nil, fmt.Errorf("%w; the gate-level placement by stage: a stage of %.2f FO4, %d registers", why, worst, r.Registers)
	}
	if err := fw.finish(r, stageOf, lay, opt); err != nil {
		return nil, fmt.Errorf("%w; the gate-level placement by stage: %w", why, err)
	}
	return r, nil
}

// finish writes r's readable module by stage, as lay places its entries,
// and its header's protocol.
func (w *wordGraph) finish(r *Result, stageOf []int32, lay *layout, opt Options) error {
	if err := w.view(r, stageOf, lay); err != nil {
		return err
	}
	r.Design.Header = append(r.Design.Header, describe(opt.PeriodFO4, opt.modeWords(), r.Latency, r.StageFO4)...)
	return nil
}

// build builds and times the pipeline of w's design with its gates in
// stageOf's stages, buffered after its registers under the unsized
// model.
func (w *wordGraph) build(opt Options, stageOf []int32, L int) (*Result, *layout, error) {
	d := w.d
	lay, err := w.crossingNamed(stageOf)
	if err != nil {
		return nil, nil, err
	}
	buffered := opt.Timing.Mode != timing.Sized
	r, err := build(d, stageOf, L, buffered)
	if err != nil {
		return nil, nil, err
	}
	if buffered {
		if err := r.rebuffer(d); err != nil {
			return nil, nil, err
		}
	}
	mode, lib := opt.Recorded()
	r.Design.Pipeline = &netlist.Pipeline{PeriodFO4: opt.PeriodFO4, Mode: mode, Library: lib, Latency: L, RegStage: r.regStage()}
	if _, err := r.measure(opt.Timing); err != nil {
		return nil, nil, err
	}
	return r, lay, nil
}

// worst is r's slowest stage.
func (r *Result) worst() float64 {
	worst := 0.0
	for _, t := range r.StageFO4 {
		worst = max(worst, t)
	}
	return worst
}

// placing is a model the registers are placed under: a scheduler and the
// word-level view of the design it times (with index, a buffered copy of
// the view's design: each gate's index in it).
type placing struct {
	s     *scheduler
	w     *wordGraph
	index []int
}

// cut places w's registers under pl at fine's latency, whole entries
// where that allows, builds the pipeline and writes its readable module
// by stage; an error where no placement met the period with at most
// fine's registers or the view cannot be written. At each budget it tries
// every entry whole as early as it fits, then the boundaries cut for
// fewest registers with entries split only where the latency needs it
// (cutWords), then the gate-by-gate placement, every entry it cuts split,
// and keeps the first that meets the period with no more registers,
// offering sp those that take more.
func (w *wordGraph) cut(pl placing, opt Options, fine *Result, sp *spare) (*Result, error) {
	s := pl.s
	target := opt.PeriodFO4 * (1 - opt.Margin)
	budget := (target - opt.Timing.SetupFO4()) * s.tauPerFO4
	L := int32(fine.Latency)
	placements := []func(budget float64) ([]int32, error){
		func(budget float64) ([]int32, error) {
			stageOf, l, err := pl.w.place(s, budget)
			if err == nil && l != fine.Latency {
				err = fmt.Errorf("whole entries take %d cycles, not %d", l, fine.Latency)
			}
			return stageOf, err
		},
		func(budget float64) ([]int32, error) { return s.cutWords(pl.w, L, budget) },
		func(budget float64) ([]int32, error) { return s.placeIn(L, budget) },
	}
	var why []error
	for try := 0; try < 6; try++ {
		over := 0.0 // the least overshoot of a placement over the period
		for _, place := range placements {
			stageOf, err := place(budget)
			if err != nil {
				why = append(why, err)
				continue
			}
			// A placement neither kept nor a better spare is not built.
			regs := registersAt(w.d, w.unbuffered(pl, stageOf), fine.Latency)
			if regs > fine.Registers && !sp.wants(regs) {
				why = append(why, fmt.Errorf("a placement takes %d registers, the gate-level %d", regs, fine.Registers))
				continue
			}
			r, lay, err := w.build(opt, w.unbuffered(pl, stageOf), fine.Latency)
			if err != nil {
				return nil, err
			}
			if r.Registers != regs {
				return nil, fmt.Errorf("retime: %s: %d registers built, %d counted", w.d.Name, r.Registers, regs)
			}
			if worst := r.worst(); worst > target+1e-9 {
				if over == 0 || worst-target < over {
					over = worst - target
				}
				continue
			}
			// Readability costs no cycle (above) and no register.
			if r.Registers > fine.Registers {
				sp.offer(r, w.unbuffered(pl, stageOf), lay)
				why = append(why, fmt.Errorf("a placement takes %d registers, the gate-level %d", r.Registers, fine.Registers))
				continue
			}
			if err := w.finish(r, w.unbuffered(pl, stageOf), lay, opt); err != nil {
				return nil, err
			}
			return r, nil
		}
		if over == 0 {
			break
		}
		budget -= max(over+0.05, 0.02*target) * s.tauPerFO4
	}
	if len(why) == 0 {
		return nil, fmt.Errorf("no word-level placement met the period")
	}
	return nil, fmt.Errorf("no word-level placement met the period with as few registers: %w", errors.Join(why...))
}

// unbuffered is stageOf, a stage per gate of pl's design, for w's design
// (the same where pl times w's own).
func (w *wordGraph) unbuffered(pl placing, stageOf []int32) []int32 {
	if pl.index == nil {
		return stageOf
	}
	out := make([]int32, len(w.d.Gates))
	for gi := range out {
		out[gi] = stageOf[pl.index[gi]]
	}
	return out
}

// crossingNamed lays out the view at stageOf and checks that every net
// read in a later stage than its own is a bit of a named signal or a gate
// of a split entry; it returns the layout.
func (w *wordGraph) crossingNamed(stageOf []int32) (*layout, error) {
	d := w.d
	driver := w.driver
	last := int32(0)
	for _, st := range stageOf {
		last = max(last, st)
	}
	lay, err := w.layout(stageOf)
	if err != nil {
		return nil, err
	}
	split := lay.split
	named := func(n netlist.Net, reader int32) error {
		if h := driver[n]; h >= 0 && stageOf[h] < reader {
			if _, ok := w.sig[n]; !ok && !split[w.owner[h]] {
				return fmt.Errorf("net %d crosses a stage boundary without a name", n)
			}
		}
		return nil
	}
	for gi, g := range d.Gates {
		for _, n := range g.In {
			if err := named(n, stageOf[gi]); err != nil {
				return nil, err
			}
		}
	}
	for _, p := range d.Outputs() {
		for _, n := range p.Bits {
			if err := named(n, last); err != nil {
				return nil, err
			}
		}
	}
	return lay, nil
}

// combName is the wire that holds an output's value before its output
// register.
func combName(port string) string { return port + "_comb" }

// rebuffer buffers the wide fanouts of r's design, built from d, as
// bufferFanout does, keeping d's instances whole and every register on a
// net of d.
func (r *Result) rebuffer(d *netlist.Design) error {
	insts, err := locate(r.Design, d)
	if err != nil {
		return err
	}
	p, index := bufferFanoutIn(r.Design, insts, true)
	if p == r.Design {
		return nil
	}
	p.Instances = nil // the view gives them back (keepInstances)
	rank := make(map[int]int, len(r.rank))
	for gi, k := range r.rank {
		rank[index[gi]] = k
	}
	r.Design, r.rank, r.view = p, rank, nil
	return p.Check()
}

// treeTimes is d's timing under opt with each net read by more gates
// than a buffer tree's fanout charged its tree, as bufferFanout builds
// it: its driver's delay (an input's arrival) runs to the tree's last
// leaf, and its load is the tree's first level. It returns each net's tree delay too, which a
// register driving the net adds to its clock to Q.
func treeTimes(d *netlist.Design, opt timing.Options) (*timing.NetTimes, []float64, error) {
	bd := bufferFanout(d)
	bt, err := timing.Times(bd, opt)
	if err != nil {
		return nil, nil, err
	}
	// tree is each net's delay from its driver's output to its last leaf.
	tree := make([]float64, d.NumNets)
	root := make([]netlist.Net, bd.NumNets)
	for i := range root {
		root[i] = netlist.Net(i)
	}
	for _, g := range bd.Gates {
		if g.Kind != netlist.BUF || int(g.Out) < d.NumNets {
			continue
		}
		r := root[g.In[0]]
		root[g.Out] = r
		tree[r] = max(tree[r], bt.Arrival[g.Out]-bt.Arrival[r])
	}
	nt := &timing.NetTimes{TauPerFO4: bt.TauPerFO4, AreaGE: bt.AreaGE,
		Arrival: bt.Arrival[:d.NumNets], Load: bt.Load[:d.NumNets], GateDelay: make([]float64, len(d.Gates))}
	at := make(map[netlist.Net]int, len(bd.Gates))
	for gi, g := range bd.Gates {
		at[g.Out] = gi
	}
	for gi, g := range d.Gates {
		nt.GateDelay[gi] = bt.GateDelay[at[g.Out]] + tree[g.Out]
	}
	for _, p := range d.Inputs() {
		for _, n := range p.Bits {
			nt.Arrival[n] += tree[n]
		}
	}
	return nt, tree, nil
}
