// Package compose builds the units whose structure depends on their
// timing: it assembles designs from other generators' designs pipelined
// by package retime and measured by package timing. Its one composer
// today is the speculative coalescer at a clock, a variable-latency unit.
// It returns each design with what it measured of it (Timing) beside the
// design, not inside the IR; package units calls it through its family
// table and hands both on.
package compose

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/retime"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
)

// The speculative coalescer of 003_* at a clock period: a variable-latency
// unit. Every warp enters two pipelines at once, each cut by package
// retime at the period:
//
//   - the fast path, the monotonicity detector and the neighbor coalescer,
//     Lf cycles deep (the neighbor outputs are ANDed with monotonic_o in
//     its logic, so they are 0 for a warp the fast path cannot answer);
//   - the slow path, the all-to-all coalescer, Ls cycles deep.
//
// When Ls > Lf (the unit speculates): at age Lf a warp is answered from
// the fast path when it is monotonic and no older warp is pending;
// otherwise it is pending and is answered at age Ls from the all-to-all
// path. A pending bit per age Lf..Ls-1 travels beside the slow pipeline;
// their OR says an older warp is pending. Answers thus leave in order, at
// most one a cycle, and the unit never stalls: ready_o is 1. A warp that
// follows a pending one within Ls-Lf cycles is pending too: in order, one
// answer a cycle, it cannot overtake.
//
// When the all-to-all pipeline is no deeper than the detector's (Ls <= Ld,
// as under the sized model, where the all-to-all is the faster circuit),
// or the fast path with its selection would be as deep as the all-to-all,
// speculation gains nothing: the unit is the detector and the all-to-all
// side by side, the shallower padded to the deeper, and every warp is
// answered at that depth from the all-to-all result (exact for any warp),
// with fast_o = monotonic_o.
//
// The pipelines' own output registers are replaced by the unit's, behind
// the selection (an AND-OR per bit whose selects come from registers).
// A path inside the unit is slower than alone: the wire model's load
// grows with the design's area, and the inputs drive both paths. So each
// path is cut under the model it has inside the unit (the wire of the
// unit's area, an input driver as slow as the shared inputs), and where a
// stage still exceeds the period, cut again at a shorter period. Under
// the unsized model, whose gates drive their whole load alone, every net
// of the unit read by more than 6 gates (the shared inputs, the selects,
// rst's complement at the pads) drives a buffer tree, as retime does
// inside each path.

// Timing is what the composer measured of a variable-latency unit, kept
// beside its design: the design's Pipeline gives its period, model and
// slow latency; its fast answers' latency and its slowest stage are here.
type Timing struct {
	// PeriodFO4 is the clock period; every register-to-register path of
	// the unit, with clock-to-Q and setup, fits it: the worst is
	// WorstStageFO4.
	PeriodFO4     float64
	WorstStageFO4 float64
	// Speculates is set when fast answers leave before slow ones
	// (FastLatency < SlowLatency).
	Speculates bool
	// FastLatency (Lf) and SlowLatency (Ls >= Lf) are the cycles from
	// valid_i to valid_o of fast (fast_o = 1) and slow answers.
	FastLatency, SlowLatency int
	// DetectorLatency and AllToAllLatency are the depths of the detector
	// and of the all-to-all coalescer pipelined alone at the period.
	DetectorLatency, AllToAllLatency int
	// FastPeriodFO4 and SlowPeriodFO4 are the periods the two paths were
	// cut at: PeriodFO4, or less where the output selection needed room.
	FastPeriodFO4, SlowPeriodFO4 float64
	// Registers counts the unit's flip-flops.
	Registers int
}

// Speculative builds the speculative coalescer c (structure speculative)
// as a variable-latency unit clocked at opt.PeriodFO4 under opt.Timing.
// The ports, in order: clk, rst, valid_i, addr_i, active_i (with
// active_mask), ready_o, unique_o, monotonic_o, the request outputs
// req_count_o, req_addr_o, req_mask_o, lane_req_o (with requests), fast_o,
// valid_o. The design has a readable RTL view and a Pipeline whose
// Latency is the slow answers' (its RegStage is nil: the stages are not
// one chain); model.ForSpeculativeClocked(c, t.FastLatency,
// t.SlowLatency) checks it.
func Speculative(c *specs.Coalescer, opt retime.Options) (*netlist.Design, *Timing, error) {
	b, err := SpeculativeBuild(c, opt)
	if err != nil {
		return nil, nil, err
	}
	return b.Design, &b.Timing, nil
}

// Build is a built unit with the detector and the all-to-all coalescer
// pipelined alone at its period (for the thesis's tables).
type Build struct {
	Design             *netlist.Design
	Timing             Timing
	Detector, AllToAll *retime.Result
}

// SpeculativeBuild is Speculative with the paths as pipelined alone.
func SpeculativeBuild(c *specs.Coalescer, opt retime.Options) (*Build, error) {
	b, err := buildSpeculative(c, opt)
	if err != nil {
		return nil, err
	}
	mode, lib := opt.Recorded()
	b.Design.Pipeline = &netlist.Pipeline{PeriodFO4: opt.PeriodFO4, Mode: mode, Library: lib, Latency: b.Timing.SlowLatency}
	return b, nil
}

// SpeculativeAt composes the speculating unit from its fast path cut at
// fastP and its all-to-all path at slowP under tim, without the search
// Speculative makes for cuts that fit one period: Ls - Lf is as large as
// the two periods make it, which reaches the pending logic on units too
// small to speculate at one period. Its Timing has no WorstStageFO4.
func SpeculativeAt(c *specs.Coalescer, fastP, slowP float64, tim timing.Options) (*netlist.Design, *Timing, error) {
	buffer := tim.Mode != timing.Sized
	paths, err := SpeculativePaths(c, buffer)
	if err != nil {
		return nil, nil, err
	}
	rf, err := retime.Pipeline(paths.Fast, retime.Options{PeriodFO4: fastP, Timing: tim})
	if err != nil {
		return nil, nil, err
	}
	rs, err := retime.Pipeline(paths.Slow, retime.Options{PeriodFO4: slowP, Timing: tim})
	if err != nil {
		return nil, nil, err
	}
	k, err := composePending(c, rf, rs, buffer)
	if err != nil {
		return nil, nil, fmt.Errorf("Lf %d, Ls %d: %w", rf.Latency, rs.Latency, err)
	}
	k.prune()
	t := &Timing{PeriodFO4: fastP, Speculates: true, FastLatency: rf.Latency, SlowLatency: rs.Latency,
		FastPeriodFO4: fastP, SlowPeriodFO4: slowP}
	for _, g := range k.d.Gates {
		if g.Kind == netlist.DFF {
			t.Registers++
		}
	}
	if err := k.finish(c, *t, string(tim.Mode)); err != nil {
		return nil, nil, err
	}
	k.d.Pipeline = &netlist.Pipeline{PeriodFO4: fastP, Mode: string(tim.Mode), Latency: rs.Latency}
	return k.d, t, nil
}

// buildSpeculative is SpeculativeBuild without the design's Pipeline.
func buildSpeculative(c *specs.Coalescer, opt retime.Options) (*Build, error) {
	if c == nil {
		return nil, errors.New("speculative coalescer: nil unit")
	}
	if c.Structure != specs.Speculative {
		return nil, fmt.Errorf("coalescer %q: structure %q: the variable-latency unit is the speculative coalescer", c.Name, c.Structure)
	}
	buffer := opt.Timing.Mode != timing.Sized
	paths, err := SpeculativePaths(c, buffer)
	if err != nil {
		return nil, err
	}
	// Each path is cut under a model of its own (the unit's as the path
	// sees it inside the unit, see inUnit); the results are kept by path,
	// period and model.
	type cutKey struct {
		d      *netlist.Design
		period float64
		ref    float64
		driver float64
	}
	cuts := map[cutKey]*retime.Result{}
	pipe := func(what string, d *netlist.Design, period float64, tim timing.Options) (*retime.Result, error) {
		key := cutKey{d, period, tim.Wire.RefAreaGE, tim.DriverSize}
		if r, ok := cuts[key]; ok {
			return r, nil
		}
		r, err := retime.Pipeline(d, retime.Options{PeriodFO4: period, Timing: tim})
		if err != nil {
			return nil, fmt.Errorf("coalescer %q: %s: %w", c.Name, what, err)
		}
		cuts[key] = r
		return r, nil
	}
	P := opt.PeriodFO4
	rd, err := pipe("detector", paths.Det, P, opt.Timing)
	if err != nil {
		return nil, err
	}
	rs, err := pipe("all-to-all path", paths.Slow, P, opt.Timing)
	if err != nil {
		return nil, err
	}
	b := &Build{Detector: rd, AllToAll: rs}
	const tries = 8
	done := func(k *composer, worst, pf, ps float64, speculates bool) (*Build, error) {
		k.prune()
		b.Design = k.d
		b.Timing = Timing{PeriodFO4: P, WorstStageFO4: worst, Speculates: speculates,
			FastLatency: k.lf, SlowLatency: k.ls, DetectorLatency: rd.Latency, AllToAllLatency: rs.Latency,
			FastPeriodFO4: pf, SlowPeriodFO4: ps}
		for _, g := range k.d.Gates {
			if g.Kind == netlist.DFF {
				b.Timing.Registers++
			}
		}
		if err := k.finish(c, b.Timing, string(opt.Timing.Mode)); err != nil {
			return nil, err
		}
		return b, nil
	}
	// shrink is the period a path cut at p into stages r.StageFO4 is cut
	// at next when its registers inside the unit are late by over: below
	// its worst stage by over (or 2% of P), since a cut at p that leaves
	// the stages as they are gains nothing.
	shrink := func(p, over float64, r *retime.Result) float64 {
		if over > 0 {
			p = min(p, slices.Max(r.StageFO4)) - max(over+0.05, 0.02*P)
		}
		return p
	}
	// A path re-cut below half the period has met a net no register can
	// shorten.
	tooShort := func(periods ...float64) bool {
		for _, p := range periods {
			if p < P/2 {
				return true
			}
		}
		return false
	}
	// placeBy cuts the unit's two paths (the fast one, or the detector,
	// and the all-to-all) and composes them until every stage fits P:
	// first at P under the unit's model; then at P under the model the
	// paths have inside the unit (inUnit: the wire of the unit's area and,
	// for model inUnitDriver, inputs as slow as both paths' loads make
	// them); then, the paths whose registers are still late, at shorter
	// periods. It returns nil where no placement fits or keep refuses the
	// paths' depths.
	var worst float64
	placeBy := func(model int, first *netlist.Design, firstWhat string, compose func(r1, r2 *retime.Result) (*composer, error),
		keep func(r1, r2 *retime.Result) bool) (*Build, error) {
		p1, p2 := P, P
		t1, t2 := opt.Timing, opt.Timing
		for try := 0; try < tries; try++ {
			r1, err := pipe(firstWhat, first, p1, t1)
			if errors.Is(err, retime.ErrPeriod) {
				return nil, nil
			}
			if err != nil {
				return nil, err
			}
			r2, err := pipe("all-to-all path", paths.Slow, p2, t2)
			if errors.Is(err, retime.ErrPeriod) {
				return nil, nil
			}
			if err != nil {
				return nil, err
			}
			if !keep(r1, r2) {
				return nil, nil
			}
			k, err := compose(r1, r2)
			if err != nil {
				return nil, fmt.Errorf("coalescer %q: %w", c.Name, err)
			}
			m, err := k.measure(opt.Timing, P)
			if err != nil {
				return nil, fmt.Errorf("coalescer %q: %w", c.Name, err)
			}
			worst = m.worst
			if m.worst <= P+1e-9 {
				return done(k, m.worst, p1, p2, k.lf < k.ls)
			}
			if try > 0 {
				if p1, p2 = shrink(p1, m.overFast, r1), shrink(p2, m.overSlow, r2); tooShort(p1, p2) {
					return nil, nil
				}
			}
			if model == inUnitNone {
				continue
			}
			if t1, err = inUnit(opt.Timing, r1.Design, m.area, m.entryFast, model == inUnitDriver); err != nil {
				return nil, err
			}
			if t2, err = inUnit(opt.Timing, r2.Design, m.area, m.entrySlow, model == inUnitDriver); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	// place tries the models from the closest to the unit's: retime can
	// fail to place a path under the weaker input driver (or the longer
	// wire) where it succeeds under the unit's own model, the shorter
	// periods then doing the work.
	place := func(first *netlist.Design, firstWhat string, compose func(r1, r2 *retime.Result) (*composer, error),
		keep func(r1, r2 *retime.Result) bool) (*Build, error) {
		for _, model := range []int{inUnitDriver, inUnitWire, inUnitNone} {
			if u, err := placeBy(model, first, firstWhat, compose, keep); u != nil || err != nil {
				return u, err
			}
		}
		return nil, nil
	}

	// Speculation: the fast path must answer before the all-to-all.
	if rs.Latency > rd.Latency {
		u, err := place(paths.Fast, "fast path", func(rf, rs *retime.Result) (*composer, error) {
			return composePending(c, rf, rs, buffer)
		}, func(rf, rs *retime.Result) bool { return rf.Latency < rs.Latency })
		if u != nil || err != nil {
			return u, err
		}
	}
	// No speculation: the detector and the all-to-all side by side.
	u, err := place(paths.Det, "detector", func(rd, rs *retime.Result) (*composer, error) {
		return composeTogether(c, rd, rs, buffer)
	}, func(_, _ *retime.Result) bool { return true })
	if u != nil || err != nil {
		return u, err
	}
	return nil, fmt.Errorf("coalescer %q: no placement met %v FO4 (the last took %.2f FO4 in a stage): %w", c.Name, P, worst, retime.ErrPeriod)
}

// The models a path is cut under inside the unit (inUnit): the unit's
// with the wire of the unit's area and the input driver of its inputs,
// with the wire only, or the unit's own (the periods alone adjusting).
const (
	inUnitDriver = iota
	inUnitWire
	inUnitNone
)

// inUnit is the model a path is cut under to fit inside the unit: tim
// with the wire of the unit's area (unitArea GE; the wire model's load
// grows with the design's area, and a path alone is a fraction of the
// unit) and an input driver as slow as the unit's inputs are at the
// path's gates (entry, in τ: the inputs drive both paths there, through
// a tree where their fanout needs one), so that the path's first stage
// leaves room for it; the driver only with driver set. d is the path as
// last pipelined.
func inUnit(tim timing.Options, d *netlist.Design, unitArea, entry float64, driver bool) (timing.Options, error) {
	if w := tim.Wire; w.AreaCapPerFanout != 0 && w.RefAreaGE > 0 && unitArea > 0 {
		nt, err := timing.Times(d, tim)
		if err != nil {
			return tim, err
		}
		if nt.AreaGE > 0 {
			tim.Wire.RefAreaGE = w.RefAreaGE * nt.AreaGE / unitArea
		}
	}
	// The latest input arrival of d at driver size s; it falls as s grows
	// (as a/s + b under the unsized model): a few secant steps on 1/s.
	arrival := func(s float64) (float64, error) {
		o := tim
		o.DriverSize = s
		nt, err := timing.Times(d, o)
		if err != nil {
			return 0, err
		}
		t := 0.0
		for _, p := range d.Inputs() {
			for _, n := range p.Bits {
				if nt.Load[n] > 0 {
					t = max(t, nt.Arrival[n])
				}
			}
		}
		return t, nil
	}
	s0 := tim.DriverSize
	if !driver {
		return tim, nil
	}
	a0, err := arrival(s0)
	if err != nil || entry <= a0 {
		return tim, err
	}
	x0, x1 := 1/s0, 2/s0
	a1, err := arrival(1 / x1)
	if err != nil {
		return tim, err
	}
	for i := 0; i < 6 && a1 != a0; i++ {
		x := x1 + (entry-a1)*(x1-x0)/(a1-a0)
		if !(x > 0) || math.IsInf(x, 0) {
			break
		}
		a, err := arrival(1 / x)
		if err != nil {
			return tim, err
		}
		x0, a0, x1, a1 = x1, a1, x, a
		if math.Abs(a-entry) < 0.01*tim.TauPerFO4() {
			break
		}
	}
	// The driver no stronger than the unit's inputs need.
	if a1 >= entry {
		tim.DriverSize = min(s0, 1/x1)
	} else if a0 >= entry {
		tim.DriverSize = min(s0, 1/x0)
	} else {
		tim.DriverSize = min(s0, 1/max(x0, x1))
	}
	return tim, nil
}

// Paths are the combinational parts of the unit; each reads addr_i
// (and active_i).
type Paths struct {
	Det  *netlist.Design // the monotonicity detector
	Fast *netlist.Design // detector and neighbor coalescer, outputs ANDed with monotonic_o
	Slow *netlist.Design // the all-to-all coalescer
}

// SpeculativePaths builds the parts of c. With buffer (the unsized
// model, whose gates drive their whole fanout alone) monotonic_o reaches
// the fast path's output ANDs through buffers of fanout at most 6.
func SpeculativePaths(c *specs.Coalescer, buffer bool) (*Paths, error) {
	nbrSpec, a2aSpec := *c, *c
	nbrSpec.Name, nbrSpec.Structure = c.Name+"_nbr", specs.Neighbor
	a2aSpec.Name, a2aSpec.Structure = c.Name+"_a2a", specs.AllToAll
	nbrSpec.Clocking, a2aSpec.Clocking = specs.Clocking{}, specs.Clocking{}
	p := &Paths{}
	nbr, diags := gen.Coalescer(&nbrSpec)
	if diags.HasErrors() {
		return nil, diags
	}
	if p.Slow, diags = gen.Coalescer(&a2aSpec); diags.HasErrors() {
		return nil, diags
	}
	if p.Det, diags = gen.MonotonicityDetector(&specs.MonotonicityDetector{
		Name: c.Name + "_mono", Lanes: c.Lanes, AddrBits: c.AddrBits, Adder: c.Adder, ActiveMask: c.ActiveMask}); diags.HasErrors() {
		return nil, diags
	}
	b := netlist.NewBuilder(c.Name + "_fast")
	in := map[string]netlist.Bus{}
	for _, pt := range nbr.Inputs() {
		in[pt.Name] = b.Input(pt.Name, pt.Width(), pt.Doc)
	}
	no := b.Instance("nbr", nbr, in)
	mo := b.Instance("mono", p.Det, in)
	mono := mo["monotonic_o"][0]
	width := 0
	for _, pt := range nbr.Outputs() {
		width += pt.Width()
	}
	monos := builderFanout(b, mono, width, buffer)
	for _, pt := range nbr.Outputs() {
		bits := make(netlist.Bus, pt.Width())
		for i, n := range no[pt.Name] {
			bits[i] = b.And(n, monos[0])
			monos = monos[1:]
		}
		b.Output(pt.Name, bits, pt.Doc)
	}
	b.Output("monotonic_o", netlist.Bus{mono}, "the warp is monotonic")
	var err error
	if p.Fast, err = b.Build(); err != nil {
		return nil, err
	}
	return p, nil
}

// maxFanout is the fanout of each buffer of the select trees built for
// the unsized model.
const maxFanout = retime.MaxBufferFanout

// builderFanout gives n loads of net, through a tree of buffers when
// buffer is set.
func builderFanout(b *netlist.Builder, net netlist.Net, n int, buffer bool) []netlist.Net {
	return fanoutTree(net, n, buffer, b.Buf)
}

func fanoutTree(net netlist.Net, n int, buffer bool, buf func(netlist.Net) netlist.Net) []netlist.Net {
	if buffer {
		return retime.BufferTree(net, n, buf)
	}
	out := make([]netlist.Net, n)
	for i := range out {
		out[i] = net
	}
	return out
}

// composer assembles the unit from the pipelines' gates.
type composer struct {
	d      *netlist.Design
	lf, ls int
	rstN   netlist.Net
	ins    map[string]netlist.Bus
	// The output registers, with the nets of the fast and slow side their
	// D input is made from, and the gates copied from each path
	// (Gates[fastGates[0]:fastGates[1]], ...), for the timing check.
	outRegs              []outReg
	fastGates, slowGates [2]int
	// fromInput marks the buffers of the inputs' trees (bufferFanout).
	fromInput map[netlist.Net]bool
}

type outReg struct {
	gate       int
	fast, slow netlist.Bus
}

func newComposer(c *specs.Coalescer, inputs []*netlist.Port) *composer {
	k := &composer{d: &netlist.Design{Name: c.Name, NumNets: 2, NetNames: map[netlist.Net]string{}, Clock: "clk"},
		ins: map[string]netlist.Bus{}}
	in := func(name string, w int, doc string) {
		bits := make(netlist.Bus, w)
		for i := range bits {
			bits[i] = k.net()
		}
		k.port(name, netlist.In, bits, doc)
		k.ins[name] = bits
	}
	in("clk", 1, "clock; every register loads at its rising edge")
	in("rst", 1, "synchronous reset, active high: drops every warp in flight, this cycle's too")
	in("valid_i", 1, "addr_i (and active_i) hold a warp; one is accepted every cycle")
	for _, p := range inputs {
		switch p.Name {
		case "clk", "rst", "valid_i":
		default:
			in(p.Name, p.Width(), p.Doc)
		}
	}
	k.rstN = k.not(k.ins["rst"][0])
	return k
}

func (k *composer) port(name string, dir netlist.Dir, bits netlist.Bus, doc string) {
	k.d.Ports = append(k.d.Ports, netlist.Port{Name: name, Dir: dir, Bits: bits, Doc: doc})
}

func (k *composer) net() netlist.Net { return k.d.NewNet() }

func (k *composer) gate(kind netlist.Kind, in ...netlist.Net) netlist.Net {
	return k.d.AddGate(kind, in...)
}

// and2, or2 and not fold constants.
func (k *composer) and2(a, b netlist.Net) netlist.Net {
	switch {
	case a == netlist.Const0 || b == netlist.Const0:
		return netlist.Const0
	case a == netlist.Const1:
		return b
	case b == netlist.Const1:
		return a
	}
	return k.gate(netlist.AND2, a, b)
}

func (k *composer) or2(a, b netlist.Net) netlist.Net {
	switch {
	case a == netlist.Const1 || b == netlist.Const1:
		return netlist.Const1
	case a == netlist.Const0:
		return b
	case b == netlist.Const0:
		return a
	}
	return k.gate(netlist.OR2, a, b)
}

func (k *composer) not(a netlist.Net) netlist.Net {
	switch a {
	case netlist.Const0:
		return netlist.Const1
	case netlist.Const1:
		return netlist.Const0
	}
	return k.gate(netlist.INV, a)
}

// reg appends a DFF named name whose D is set later with setD; it returns
// the gate index and Q.
func (k *composer) reg(name string) (int, netlist.Net) {
	q := k.net()
	k.d.Gates = append(k.d.Gates, netlist.Gate{Kind: netlist.DFF, In: []netlist.Net{netlist.Const0}, Out: q})
	k.d.NetNames[q] = name
	return len(k.d.Gates) - 1, q
}

func (k *composer) setD(gi int, d netlist.Net) { k.d.Gates[gi].In[0] = d }

// outReg makes an output register loading d; fast and slow are the nets
// of each side that d is computed from.
func (k *composer) outReg(name string, d netlist.Net, fast, slow netlist.Bus) netlist.Net {
	if d == netlist.Const0 {
		return netlist.Const0
	}
	gi, q := k.reg(name)
	k.setD(gi, d)
	k.outRegs = append(k.outRegs, outReg{gate: gi, fast: fast, slow: slow})
	return q
}

// regName is the name of bit i of a w-bit output register bus.
func regName(port string, w, i int) string {
	if w == 1 {
		return port + "_q"
	}
	return fmt.Sprintf("%s_q_%d", port, i)
}

// copyPipe copies the gates of the pipelined design p into the unit, its
// clk, rst, valid_i and inputs on the unit's nets, without its output
// registers: it returns, per output port, the nets their D inputs read
// (the value the port takes at the next edge; 0 where the operation
// reaching the outputs then is not valid).
func (k *composer) copyPipe(p *netlist.Design, prefix string, span *[2]int) (map[string]netlist.Bus, error) {
	span[0] = len(k.d.Gates)
	defer func() { span[1] = len(k.d.Gates) }()
	m := make([]netlist.Net, p.NumNets)
	for i := range m {
		m[i] = -1
	}
	m[netlist.Const0], m[netlist.Const1] = netlist.Const0, netlist.Const1
	for _, pt := range p.Inputs() {
		bits, ok := k.ins[pt.Name]
		if !ok || len(bits) != pt.Width() {
			return nil, fmt.Errorf("%s: input %s is not the unit's", p.Name, pt.Name)
		}
		for i, n := range pt.Bits {
			m[n] = bits[i]
		}
	}
	driver := make([]int, p.NumNets)
	for i := range driver {
		driver[i] = -1
	}
	for gi, g := range p.Gates {
		driver[g.Out] = gi
	}
	skip := map[int]bool{}
	for _, pt := range p.Outputs() {
		for _, n := range pt.Bits {
			if gi := driver[n]; gi >= 0 && p.Gates[gi].Kind == netlist.DFF {
				skip[gi] = true
			}
		}
	}
	for gi, g := range p.Gates {
		if !skip[gi] {
			m[g.Out] = k.net()
		}
	}
	for gi, g := range p.Gates {
		if skip[gi] {
			continue
		}
		in := make([]netlist.Net, len(g.In))
		for i, n := range g.In {
			if m[n] < 0 {
				return nil, fmt.Errorf("%s: gate %d reads an output register", p.Name, gi)
			}
			in[i] = m[n]
		}
		k.d.Gates = append(k.d.Gates, netlist.Gate{Kind: g.Kind, In: in, Out: m[g.Out]})
		if name, ok := p.NetNames[g.Out]; ok {
			k.d.NetNames[m[g.Out]] = prefix + name
		}
	}
	next := map[string]netlist.Bus{}
	for _, pt := range p.Outputs() {
		bits := make(netlist.Bus, pt.Width())
		for i, n := range pt.Bits {
			switch gi := driver[n]; {
			case n == netlist.Const0:
				bits[i] = netlist.Const0
			case gi >= 0 && skip[gi]:
				bits[i] = m[p.Gates[gi].In[0]]
			default:
				return nil, fmt.Errorf("%s: output %s[%d] does not come from a register", p.Name, pt.Name, i)
			}
		}
		next[pt.Name] = bits
	}
	return next, nil
}

// pad delays the next-values of ports (those of p's outputs, in p's
// order) by n cycles through registers named <prefix>pad<k>_<port>_<i>,
// appended to span (the path's gates, for the timing check). rst drops
// the values in the pad as the valid chains drop theirs: the first
// register loads the path's output value, which is 0 under rst already
// (retime masks it with the valid chain), so that the path's last stage
// gains no gate; the later ones load 0 under rst, and the last one's
// value is ANDed with rst's complement, since it answers in the cycle rst
// drops it.
func (k *composer) pad(next map[string]netlist.Bus, p *netlist.Design, prefix string, n int, span *[2]int) {
	if n <= 0 {
		return
	}
	for _, pt := range p.Outputs() {
		bits := next[pt.Name]
		for i, b := range bits {
			for s := 1; s <= n && b != netlist.Const0; s++ {
				gi, q := k.reg(fmt.Sprintf("%spad%d_%s_%d", prefix, s, pt.Name, i))
				if s == 1 {
					k.setD(gi, b)
				} else {
					k.setD(gi, k.and2(b, k.rstN))
				}
				b = q
			}
			bits[i] = k.and2(b, k.rstN)
		}
	}
	span[1] = len(k.d.Gates)
}

// composeTogether is the unit without speculation: the detector rd and
// the all-to-all rs side by side, the shallower padded to the deeper; the
// answer is the all-to-all's, fast_o is monotonic_o.
func composeTogether(c *specs.Coalescer, rd, rs *retime.Result, buffer bool) (*composer, error) {
	k := newComposer(c, rs.Design.Inputs())
	L := max(rd.Latency, rs.Latency)
	k.lf, k.ls = L, L
	nd, err := k.copyPipe(rd.Design, "det_", &k.fastGates)
	if err != nil {
		return nil, err
	}
	k.pad(nd, rd.Design, "det_", L-rd.Latency, &k.fastGates)
	ns, err := k.copyPipe(rs.Design, "a2a_", &k.slowGates)
	if err != nil {
		return nil, err
	}
	k.pad(ns, rs.Design, "a2a_", L-rs.Latency, &k.slowGates)
	dm := nd["monotonic_o"][0]
	k.port("ready_o", netlist.Out, netlist.Bus{netlist.Const1}, "1: a warp is accepted every cycle")
	var data []*netlist.Port
	for _, p := range rs.Design.Outputs() {
		if p.Name != "valid_o" {
			data = append(data, p)
		}
	}
	addData := func(p *netlist.Port) {
		bits := make(netlist.Bus, p.Width())
		for i, s := range ns[p.Name] {
			bits[i] = k.outReg(regName(p.Name, p.Width(), i), s, nil, netlist.Bus{s})
		}
		k.port(p.Name, netlist.Out, bits, p.Doc)
	}
	mq := k.outReg("monotonic_q", dm, netlist.Bus{dm}, nil)
	k.coalescerOutputs(data, addData, mq)
	k.port("fast_o", netlist.Out, netlist.Bus{mq}, fmt.Sprintf("monotonic_o (no path answers sooner: every warp is answered %d cycles after valid_i)", L))
	sv := ns["valid_o"][0]
	vq := k.outReg("valid_q", sv, nil, netlist.Bus{sv})
	k.port("valid_o", netlist.Out, netlist.Bus{vq}, fmt.Sprintf("the outputs answer the warp presented %d cycles before", L))
	if buffer {
		k.bufferFanout()
	}
	return k, k.d.Check()
}

// coalescerOutputs adds the coalescer's output ports in the
// combinational speculative unit's order: unique_o, monotonic_o (the
// register mono), the request outputs.
func (k *composer) coalescerOutputs(data []*netlist.Port, add func(*netlist.Port), mono netlist.Net) {
	for _, p := range data {
		if p.Name == "unique_o" {
			add(p)
		}
	}
	k.port("monotonic_o", netlist.Out, netlist.Bus{mono}, "the warp's addresses (its active lanes') are non-decreasing or non-increasing")
	for _, p := range data {
		if p.Name != "unique_o" {
			add(p)
		}
	}
}

// composePending is the speculating unit: the fast path rf (Lf cycles)
// and the all-to-all rs (Ls > Lf cycles) with the pending bits between.
func composePending(c *specs.Coalescer, rf, rs *retime.Result, buffer bool) (*composer, error) {
	if rf.Latency >= rs.Latency {
		return nil, fmt.Errorf("fast path of %d cycles is not faster than the all-to-all's %d", rf.Latency, rs.Latency)
	}
	k := newComposer(c, rs.Design.Inputs())
	k.lf, k.ls = rf.Latency, rs.Latency
	nf, err := k.copyPipe(rf.Design, "fast_", &k.fastGates)
	if err != nil {
		return nil, err
	}
	ns, err := k.copyPipe(rs.Design, "slow_", &k.slowGates)
	if err != nil {
		return nil, err
	}
	fv, fm := nf["valid_o"][0], nf["monotonic_o"][0]
	// pend[j] / pmono[j]: the warp of age Lf+j is pending / monotonic.
	K := k.ls - k.lf
	pendG, pend := make([]int, K), make(netlist.Bus, K)
	pmonoG, pmono := make([]int, K), make(netlist.Bus, K)
	for j := 0; j < K; j++ {
		pendG[j], pend[j] = k.reg(fmt.Sprintf("pending_q_%d", j))
		pmonoG[j], pmono[j] = k.reg(fmt.Sprintf("pending_mono_q_%d", j))
	}
	older := netlist.Const0
	for _, p := range pend {
		older = k.or2(older, p)
	}
	nOlder := k.not(older)
	fastGo := k.and2(fm, nOlder)                // fm is 0 unless a valid warp arrives
	k.setD(pendG[0], k.and2(fv, k.not(fastGo))) // fv is 0 under rst
	k.setD(pmonoG[0], k.and2(fm, older))
	for j := 1; j < K; j++ {
		k.setD(pendG[j], k.and2(pend[j-1], k.rstN))
		k.setD(pmonoG[j], k.and2(pmono[j-1], k.rstN))
	}
	slowGo := k.and2(pend[K-1], k.rstN)
	monoSlow := k.and2(slowGo, pmono[K-1])

	k.port("ready_o", netlist.Out, netlist.Bus{netlist.Const1}, "1: a warp is accepted every cycle (answers never collide, see the header)")
	var data []*netlist.Port
	width := 0
	for _, p := range rs.Design.Outputs() {
		if p.Name != "valid_o" {
			data = append(data, p)
			width += p.Width()
		}
	}
	fSel := fanoutTree(nOlder, width, buffer, func(n netlist.Net) netlist.Net { return k.gate(netlist.BUF, n) })
	sSel := fanoutTree(slowGo, width, buffer, func(n netlist.Net) netlist.Net { return k.gate(netlist.BUF, n) })
	sel := 0
	addData := func(p *netlist.Port) {
		bits := make(netlist.Bus, p.Width())
		for i := range bits {
			f, s := nf[p.Name][i], ns[p.Name][i]
			var dn netlist.Net
			switch {
			case f == netlist.Const0:
				dn = k.and2(s, sSel[sel])
			case s == netlist.Const0:
				dn = k.and2(f, fSel[sel])
			default: // (f & !older) | (s & slowGo)
				dn = k.gate(netlist.NAND2, k.gate(netlist.NAND2, f, fSel[sel]), k.gate(netlist.NAND2, s, sSel[sel]))
			}
			sel++
			bits[i] = k.outReg(regName(p.Name, p.Width(), i), dn, netlist.Bus{f}, netlist.Bus{s})
		}
		k.port(p.Name, netlist.Out, bits, p.Doc)
	}
	k.coalescerOutputs(data, addData, k.outReg("monotonic_q", k.or2(fastGo, monoSlow), netlist.Bus{fm}, nil))
	fq := k.outReg("fast_q", fastGo, netlist.Bus{fm}, nil)
	k.port("fast_o", netlist.Out, netlist.Bus{fq}, fmt.Sprintf("the answer is the fast path's (detector and neighbor coalescer), %d cycles after valid_i; else the all-to-all's, %d cycles after", k.lf, k.ls))
	vq := k.outReg("valid_q", k.or2(fastGo, slowGo), netlist.Bus{fm}, nil)
	k.port("valid_o", netlist.Out, netlist.Bus{vq}, fmt.Sprintf("the outputs answer a warp presented %d (fast_o) or %d cycles before", k.lf, k.ls))
	if buffer {
		k.bufferFanout()
	}
	return k, k.d.Check()
}

// bufferFanout gives every net of the unit read by more than maxFanout
// gate pins a tree of buffers of that fanout, as retime does to each path
// under the unsized model (whose gates drive their whole load alone): the
// inputs both paths read (each path's own input trees hang from them),
// rst's complement at the pads, the selects. A tree is placed after its
// driver (at the front for inputs and register outputs, which the timing
// and the simulator resolve first); readers take its leaves in gate order.
// The gate indexes the composer keeps are renumbered.
func (k *composer) bufferFanout() {
	d := k.d
	readers := make([]int32, d.NumNets)
	for _, g := range d.Gates {
		for _, n := range g.In {
			readers[n]++
		}
	}
	need := func(n netlist.Net) bool { return n >= 2 && int(readers[n]) > maxFanout }
	if !slices.ContainsFunc(d.Gates, func(g netlist.Gate) bool { return need(g.Out) }) &&
		!slices.ContainsFunc(d.Inputs(), func(p *netlist.Port) bool { return slices.ContainsFunc(p.Bits, need) }) {
		return
	}
	gates := make([]netlist.Gate, 0, len(d.Gates)+len(d.Gates)/8)
	leaves := map[netlist.Net][]netlist.Net{}
	k.fromInput = map[netlist.Net]bool{}
	mark := false
	tree := func(n netlist.Net) {
		if need(n) {
			leaves[n] = fanoutTree(n, int(readers[n]), true, func(in netlist.Net) netlist.Net {
				o := k.net()
				gates = append(gates, netlist.Gate{Kind: netlist.BUF, In: []netlist.Net{in}, Out: o})
				if mark {
					k.fromInput[o] = true
				}
				return o
			})
		}
	}
	mark = true
	for _, p := range d.Inputs() {
		for _, n := range p.Bits {
			tree(n)
		}
	}
	mark = false
	for _, g := range d.Gates {
		if g.Kind == netlist.DFF {
			tree(g.Out)
		}
	}
	index := make([]int, len(d.Gates))
	for gi, g := range d.Gates {
		in := make([]netlist.Net, len(g.In))
		for i, n := range g.In {
			in[i] = n
			if l := leaves[n]; len(l) > 0 {
				in[i], leaves[n] = l[0], l[1:]
			}
		}
		index[gi] = len(gates)
		gates = append(gates, netlist.Gate{Kind: g.Kind, In: in, Out: g.Out})
		if g.Kind != netlist.DFF {
			tree(g.Out)
		}
	}
	span := func(s *[2]int) {
		if s[1] > s[0] {
			s[0], s[1] = index[s[0]], index[s[1]-1]+1
		}
	}
	span(&k.fastGates)
	span(&k.slowGates)
	for i := range k.outRegs {
		k.outRegs[i].gate = index[k.outRegs[i].gate]
	}
	d.Gates = gates
}

// measurement is the unit's timing: the worst register input (arrival
// plus setup) and, over the registers beyond the period, the excess of
// those whose latest input came from the fast (or detector) side and of
// those from the slow side; and the unit's area in GE.
type measurement struct {
	worst, overFast, overSlow float64
	area                      float64
	// entryFast and entrySlow are the latest arrivals, in τ, of the
	// inputs (through their trees) at each path's gates.
	entryFast, entrySlow float64
}

// measure times the unit.
func (k *composer) measure(opt timing.Options, period float64) (measurement, error) {
	nt, err := timing.Times(k.d, opt)
	if err != nil {
		return measurement{}, err
	}
	m := measurement{area: nt.AreaGE}
	isInput := map[netlist.Net]bool{}
	for _, p := range k.d.Inputs() {
		for _, n := range p.Bits {
			isInput[n] = true
		}
	}
	entry := func(span [2]int) float64 {
		t := 0.0
		for _, g := range k.d.Gates[span[0]:span[1]] {
			for _, n := range g.In {
				if isInput[n] || k.fromInput[n] {
					t = max(t, nt.Arrival[n])
				}
			}
		}
		return t
	}
	m.entryFast, m.entrySlow = entry(k.fastGates), entry(k.slowGates)
	fo4 := func(n netlist.Net) float64 { return nt.Arrival[n]/nt.TauPerFO4 + opt.SetupFO4() }
	for _, g := range k.d.Gates {
		if g.Kind == netlist.DFF {
			m.worst = max(m.worst, math.Round(fo4(g.In[0])*1e4)/1e4)
		}
	}
	latest := func(b netlist.Bus) float64 {
		t := math.Inf(-1)
		for _, n := range b {
			t = max(t, fo4(n))
		}
		return t
	}
	for _, r := range k.outRegs {
		over := fo4(k.d.Gates[r.gate].In[0]) - period
		if over <= 1e-9 {
			continue
		}
		if latest(r.fast) >= latest(r.slow) {
			m.overFast = max(m.overFast, over)
		} else {
			m.overSlow = max(m.overSlow, over)
		}
	}
	// Registers inside the copied pipelines: the inputs they share load
	// them more than either alone.
	for gi, g := range k.d.Gates {
		if g.Kind != netlist.DFF {
			continue
		}
		over := fo4(g.In[0]) - period
		switch {
		case over <= 1e-9:
		case gi >= k.fastGates[0] && gi < k.fastGates[1]:
			m.overFast = max(m.overFast, over)
		case gi >= k.slowGates[0] && gi < k.slowGates[1]:
			m.overSlow = max(m.overSlow, over)
		}
	}
	return m, nil
}

// prune removes the gates no output or register needs (the copied
// pipelines' outputs the unit does not use) and renumbers the nets.
func (k *composer) prune() {
	d := k.d
	driver := make([]int, d.NumNets)
	for i := range driver {
		driver[i] = -1
	}
	for gi, g := range d.Gates {
		driver[g.Out] = gi
	}
	live := make([]bool, len(d.Gates))
	var stack []netlist.Net
	for _, p := range d.Outputs() {
		stack = append(stack, p.Bits...)
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		gi := driver[n]
		if gi < 0 || live[gi] {
			continue
		}
		live[gi] = true
		stack = append(stack, d.Gates[gi].In...)
	}
	m := make([]netlist.Net, d.NumNets)
	for i := range m {
		m[i] = -1
	}
	next := netlist.Net(2)
	m[0], m[1] = 0, 1
	for _, p := range d.Inputs() {
		for _, n := range p.Bits {
			m[n] = next
			next++
		}
	}
	var gates []netlist.Gate
	for gi, g := range d.Gates {
		if live[gi] {
			m[g.Out] = next
			next++
		}
	}
	for gi, g := range d.Gates {
		if !live[gi] {
			continue
		}
		in := make([]netlist.Net, len(g.In))
		for i, n := range g.In {
			in[i] = m[n]
		}
		gates = append(gates, netlist.Gate{Kind: g.Kind, In: in, Out: m[g.Out]})
	}
	names := map[netlist.Net]string{}
	for n, name := range d.NetNames {
		if m[n] >= 0 {
			names[m[n]] = name
		}
	}
	for i := range d.Ports {
		for j, n := range d.Ports[i].Bits {
			d.Ports[i].Bits[j] = m[n]
		}
	}
	d.Gates, d.NetNames, d.NumNets = gates, names, int(next)
	k.outRegs = nil
}

// finish writes the header, the storage groups and the RTL view.
func (k *composer) finish(c *specs.Coalescer, info Timing, mode string) error {
	if mode == "" {
		mode = string(timing.Unsized)
	}
	opts := ""
	if c.ActiveMask {
		opts += ", active_mask"
	}
	if c.Requests {
		opts += ", requests"
	}
	var ports []string
	for _, p := range k.d.Ports {
		ports = append(ports, p.Name)
	}
	h := []string{
		fmt.Sprintf("Speculative coalescer (003_*) as a variable-latency unit, %d lanes of %d-bit addresses%s;", c.Lanes, c.AddrBits, opts),
		fmt.Sprintf("block address = address >> %d; monotonicity detector on %s subtractors.", c.BlockBits, c.Adder),
		"unique_o (and the request outputs) are the speculative coalescer's: the neighbor result for a",
		"monotonic warp, else the all-to-all result.",
		fmt.Sprintf("Clock period %g FO4 (%s timing model); the worst register-to-register stage takes %.2f FO4", info.PeriodFO4, mode, info.WorstStageFO4),
		"with clock-to-Q and setup.",
	}
	if info.Speculates {
		h = append(h,
			fmt.Sprintf("Fast path: detector + neighbor coalescer, Lf = %d cycles; slow path: all-to-all coalescer, Ls = %d cycles.", info.FastLatency, info.SlowLatency),
			"Every warp enters both. At age Lf a warp is answered from the fast path (fast_o = 1) when it is",
			"monotonic and no older warp is pending; otherwise it is pending and answered at age Ls from the",
			"all-to-all path (fast_o = 0). Answers leave in order, at most one a cycle, so ready_o is always 1;",
			"a warp that follows a pending one within Ls-Lf cycles is pending too (in order, it cannot overtake).",
			fmt.Sprintf("Protocol: a warp presented with valid_i = 1 in cycle t is answered with valid_o = 1 in cycle t+%d", info.FastLatency),
			fmt.Sprintf("(fast_o = 1) or t+%d (fast_o = 0).", info.SlowLatency))
	} else {
		h = append(h,
			fmt.Sprintf("No speculation at this period: the all-to-all coalescer takes %s, the detector %s, so the", cycles(info.AllToAllLatency), cycles(info.DetectorLatency)),
			fmt.Sprintf("neighbor path cannot answer sooner; every warp is answered at L = %s from the all-to-all", cycles(info.FastLatency)),
			"result (exact for any warp), fast_o = monotonic_o, ready_o = 1.",
			fmt.Sprintf("Protocol: a warp presented with valid_i = 1 in cycle t is answered with valid_o = 1 in cycle t+%d.", info.FastLatency))
	}
	h = append(h,
		"Outputs come from registers and are 0 while valid_o is 0. rst (synchronous, active high) clears",
		"valid_o and drops every warp in flight, that cycle's too.",
		"Ports: "+strings.Join(ports, ", ")+".",
		"The readable view is the gate netlist written one assignment per gate and one reg per flip-flop.")
	k.d.Header = h
	isOut := map[netlist.Net]bool{}
	for _, p := range k.d.Outputs() {
		for _, n := range p.Bits {
			isOut[n] = true
		}
	}
	outs, pend := 0, 0
	for _, g := range k.d.Gates {
		if g.Kind != netlist.DFF {
			continue
		}
		switch {
		case strings.HasPrefix(k.d.NetNames[g.Out], "pending_"):
			pend++
		case isOut[g.Out]:
			outs++
		}
	}
	k.d.Storage = []netlist.Storage{
		{Name: "pipelines", Bits: info.Registers - outs - pend, Doc: "the paths' stage registers, pads and valid chains"},
		{Name: "pending", Bits: pend, Doc: "per age Lf..Ls-1: the warp is pending, and monotonic"},
		{Name: "outputs", Bits: outs, Doc: "the output registers"},
	}
	var err error
	k.d.RTL, err = gateRTL(k.d)
	return err
}

// cycles is "1 cycle" or "n cycles".
func cycles(n int) string {
	if n == 1 {
		return "1 cycle"
	}
	return fmt.Sprintf("%d cycles", n)
}

// Report is what the timing report shows of t; nil for a nil t (a unit
// that is not variable-latency).
func (t *Timing) Report() *timing.Variable {
	if t == nil {
		return nil
	}
	return &timing.Variable{FastLatency: t.FastLatency}
}
