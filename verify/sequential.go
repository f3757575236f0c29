package verify

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"strings"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/verify/hdl"
)

// ResetPort is the name of the synchronous active-high reset input every
// sequential unit has.
const ResetPort = "rst"

// SeqPlan says how a sequential unit is run.
type SeqPlan struct {
	// Cycles is the number of clock cycles of the stream, after the reset
	// cycle that every engine applies first.
	Cycles int
	// Seed makes the stimulus; the same seed gives the same stream.
	Seed uint64
	// Segments cuts the stream into this many segments (at most 64),
	// forcing rst = 1 in the last cycle of each but the last segment, so
	// that every segment starts in the reset state. The netlist simulator
	// runs the segments side by side in its 64 lanes, one lane each, 64
	// times as fast as one lane; the model and the HDL simulators run the
	// whole stream as it is. Registers that rst does not reset (memory
	// arrays) start each lane at 0 where the whole stream carries their
	// old contents over; outputs after a reset must not depend on them.
	// 0 picks up to 64 segments of at least MinSegment cycles; 1 gives
	// one uncut stream and a single-lane netlist run.
	Segments int
	// IcarusGateCycles bounds Icarus's run, an event-driven interpreter
	// of the netlist about a hundred times slower per gate than Verilator,
	// to the first max(IcarusMinCycles, IcarusGateCycles/gates) cycles of
	// the stream; 0 means the whole stream.
	IcarusGateCycles int
	// Refilled says that the stimulus writes every memory word again after
	// each reset before any read of it (lsugen replay does), so that a
	// design with memories may be cut into Segments too: a lane that
	// starts a later segment from reset lacks nothing the stream reads.
	// Without it a design with memories runs as one segment.
	Refilled bool
}

// IcarusMinCycles is the shortest stream IcarusGateCycles leaves Icarus.
const IcarusMinCycles = 1000

// MinSegment is the shortest segment SeqPlan's automatic choice makes.
const MinSegment = 1024

// DefaultSeqPlan is what `lsugen verify` uses for sequential units without
// flags.
func DefaultSeqPlan() SeqPlan { return SeqPlan{Cycles: 100_000, Seed: 1, IcarusGateCycles: 1 << 26} }

// icarusCycles is the length of Icarus's prefix of the stream.
func (p SeqPlan) icarusCycles(gates int) int {
	if p.IcarusGateCycles <= 0 || gates <= 0 {
		return p.Cycles
	}
	return min(p.Cycles, max(IcarusMinCycles, p.IcarusGateCycles/gates))
}

// segments returns the [start, end) cycle ranges of the plan's segments.
func (p SeqPlan) segments() []segment {
	n := p.Segments
	if n <= 0 {
		n = min(64, max(1, p.Cycles/MinSegment))
	}
	n = max(1, min(n, 64, p.Cycles))
	length := (p.Cycles + n - 1) / n
	var segs []segment
	for start := 0; start < p.Cycles; start += length {
		segs = append(segs, segment{start, min(start+length, p.Cycles)})
	}
	return segs
}

type segment struct{ start, end int }

// RunSequential checks a clocked job in lockstep, cycle by cycle: the
// stimulus for the unit (see NewStimulus) makes plan.Cycles cycles of
// inputs while stepping job.Seq, which records the expected outputs of
// every cycle; then each engine runs the same stream after one reset cycle
// (rst = 1, every other input 0) and every output of every cycle is
// compared. The netlist simulator evaluates the outputs of a cycle before
// its rising edge (they may depend on the cycle's inputs), then steps its
// DFFs; Icarus and Verilator run the RTL and gate-level modules in one
// clocked testbench (hdl.Bench with Clock and Reset).
//
// job.Design must have a clock (Design.Clock, a one-bit input) and a
// one-bit input rst; its other ports must be job.Seq's, in order. The
// Result counts cycles as vectors; a Mismatch gives the first failing
// cycle (cycle 0 is the first after the reset cycle), its inputs and a VCD
// of at most the last 1000 cycles up to it.
func RunSequential(ctx context.Context, job Job, plan SeqPlan, engines []Engine) (*Result, error) {
	p, err := prepareSeq(job, plan)
	if err != nil {
		return nil, err
	}
	return p.runAll(ctx, engines)
}

// prepareSeq records a clocked job's stream: the stimulus and the model's
// outputs of every cycle.
func prepareSeq(job Job, plan SeqPlan) (*prepared, error) {
	d := job.Design
	if job.Seq == nil {
		return nil, fmt.Errorf("%s: no sequential model", d.Name)
	}
	if plan.Cycles < 1 {
		return nil, fmt.Errorf("%s: %d cycles: want at least 1", d.Name, plan.Cycles)
	}
	ins, outs, err := matchSeqInterface(d, job.Seq)
	if err != nil {
		return nil, err
	}
	stim, err := job.stimulus(job.Seq.Ports(), plan.Seed)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Name, err)
	}
	segs := plan.segments()
	if len(d.Memories) > 0 && !plan.Refilled {
		// Memory words outlive a reset: a lane that started a later
		// segment from reset would lack what the stream wrote before it.
		segs = []segment{{0, plan.Cycles}}
	}
	s := record(job.Seq, stim, ins, outs, plan.Cycles, segs)
	coverage := fmt.Sprintf("%d cycles", plan.Cycles)
	if len(segs) > 1 {
		coverage += fmt.Sprintf(" (reset every %d)", segs[0].end-segs[0].start)
	}
	if c := stim.Coverage(); c != "" {
		coverage += "; " + c
	}
	check := func(ctx context.Context, e Engine) (Check, error) {
		c := Check{Vectors: plan.Cycles}
		var err error
		switch e {
		case Netlist:
			c.Mismatch, err = checkNetlistSeq(d, s, segs, job.Dir, job.Version)
		case Verilator:
			c.Mismatch, c.Cached, err = checkHDLSeq(ctx, job, hdl.Verilator, s)
		case Icarus:
			// The first cycles of the same stream.
			prefix := *s
			prefix.cycles = plan.icarusCycles(len(d.Gates))
			c.Vectors = prefix.cycles
			c.Mismatch, c.Cached, err = checkHDLSeq(ctx, job, hdl.Icarus, &prefix)
		default:
			err = fmt.Errorf("unknown engine %q", e)
		}
		return c, err
	}
	return &prepared{job: job, vectors: plan.Cycles, coverage: coverage, check: check}, nil
}

// matchSeqInterface checks a clocked design against its model: the clock
// is a one-bit input, rst is a one-bit input, and the other ports are the
// model's, in order. ins and outs are the design's ports without the
// clock, indexed like the model's inputs and outputs.
func matchSeqInterface(d *netlist.Design, m model.Sequential) (ins, outs []*netlist.Port, err error) {
	if d.Clock == "" {
		return nil, nil, fmt.Errorf("%s: not a sequential design (no clock)", d.Name)
	}
	clk := d.Port(d.Clock)
	if clk == nil || clk.Dir != netlist.In || clk.Width() != 1 {
		return nil, nil, fmt.Errorf("%s: the clock %q is not a one-bit input port", d.Name, d.Clock)
	}
	var ports []*netlist.Port
	for i := range d.Ports {
		if d.Ports[i].Name != d.Clock {
			ports = append(ports, &d.Ports[i])
		}
	}
	mp := m.Ports()
	if len(mp) != len(ports) {
		return nil, nil, fmt.Errorf("%s: interface mismatch: model has %d ports, design has %d besides the clock %s", d.Name, len(mp), len(ports), d.Clock)
	}
	for i, p := range mp {
		dp := ports[i]
		if p.Name != dp.Name || p.Width != dp.Width() || p.Output != (dp.Dir == netlist.Out) {
			return nil, nil, fmt.Errorf("%s: interface mismatch at port %d (clock not counted): model %s[%d] output=%v, design %s[%d] output=%v",
				d.Name, i, p.Name, p.Width, p.Output, dp.Name, dp.Width(), dp.Dir == netlist.Out)
		}
		if p.Output {
			outs = append(outs, dp)
		} else {
			ins = append(ins, dp)
		}
	}
	if rst := d.Port(ResetPort); rst == nil || rst.Dir != netlist.In || rst.Width() != 1 {
		return nil, nil, fmt.Errorf("%s: no one-bit reset input %s", d.Name, ResetPort)
	}
	return ins, outs, nil
}

// stream is the recorded run of the model: every cycle's inputs and
// expected outputs, each cycle's port values packed one after another in
// flat word slices (in, out), or, as record makes it, each cycle's
// nonzero words alone (pin, pout): most words of a cycle are 0 (the data
// ports of loads, the read data between responses), and a long stream
// then takes a fraction of the memory and of the time to write and read
// (a fifth for the shared memory's replay).
type stream struct {
	ins, outs     []*netlist.Port
	cycles        int
	inW, outW     int   // words per cycle
	inOff, outOff []int // word offset of each port within a cycle
	in, out       []uint64
	pin, pout     *packed // nil: in and out hold the stream
	rst           int     // index of rst among ins
}

// newStream makes a stream held word for word.
func newStream(ins, outs []*netlist.Port, cycles int) *stream {
	s := newPackedStream(ins, outs, cycles)
	s.pin, s.pout = nil, nil
	s.in = make([]uint64, cycles*s.inW)
	s.out = make([]uint64, cycles*s.outW)
	return s
}

// newPackedStream makes a stream of nonzero words, empty until record
// adds its cycles.
func newPackedStream(ins, outs []*netlist.Port, cycles int) *stream {
	s := &stream{ins: ins, outs: outs, cycles: cycles}
	for j, p := range ins {
		s.inOff = append(s.inOff, s.inW)
		s.inW += words(p.Width())
		if p.Name == ResetPort {
			s.rst = j
		}
	}
	for _, p := range outs {
		s.outOff = append(s.outOff, s.outW)
		s.outW += words(p.Width())
	}
	s.pin, s.pout = newPacked(s.inW, cycles), newPacked(s.outW, cycles)
	return s
}

// view points v[j] at port j's words of cycle c in flat.
func view(v [][]uint64, flat []uint64, c, perCycle int, off []int, ports []*netlist.Port) {
	base := c * perCycle
	for j, p := range ports {
		o := base + off[j]
		n := words(p.Width())
		v[j] = flat[o : o+n : o+n]
	}
}

// inView points v at cycle c's inputs: the stream's words, or a copy of
// them unpacked.
func (s *stream) inView(v [][]uint64, c int) { cycleView(v, s.in, s.pin, c, s.inW, s.inOff, s.ins) }

// outView points v at cycle c's expected outputs, as inView.
func (s *stream) outView(v [][]uint64, c int) {
	cycleView(v, s.out, s.pout, c, s.outW, s.outOff, s.outs)
}

// cycleView points v at cycle c's words: in flat, or, when the cycles are
// packed (p set), in a copy of cycle c unpacked.
func cycleView(v [][]uint64, flat []uint64, p *packed, c, perCycle int, off []int, ports []*netlist.Port) {
	if p == nil {
		view(v, flat, c, perCycle, off, ports)
		return
	}
	buf := make([]uint64, perCycle)
	p.unpack(buf, c)
	view(v, buf, 0, perCycle, off, ports)
}

// packed holds cycles of perCycle words each by their nonzero words: cycle
// c's are data[start[c]:start[c+1]], word w of the cycle where bit w of
// the cycle's mask words is set, in order.
type packed struct {
	perCycle, maskW int
	data, mask      []uint64
	start           []int
}

func newPacked(perCycle, cycles int) *packed {
	p := &packed{perCycle: perCycle, maskW: (perCycle + 63) / 64}
	p.mask = make([]uint64, 0, cycles*p.maskW)
	p.start = make([]int, 1, cycles+1)
	p.data = make([]uint64, 0, cycles*perCycle/4)
	return p
}

// add appends the next cycle, its perCycle words in src.
func (p *packed) add(src []uint64) {
	for i := 0; i < len(src); i += 64 {
		var m uint64
		for w, x := range src[i:min(i+64, len(src))] {
			if x != 0 {
				m |= 1 << uint(w)
				p.data = append(p.data, x)
			}
		}
		p.mask = append(p.mask, m)
	}
	p.start = append(p.start, len(p.data))
}

// unpack writes cycle c's words into dst.
func (p *packed) unpack(dst []uint64, c int) {
	clear(dst[:p.perCycle])
	d := p.data[p.start[c]:p.start[c+1]]
	k := 0
	for i, m := range p.mask[c*p.maskW : (c+1)*p.maskW] {
		for ; m != 0; m &= m - 1 {
			dst[i*64+bits.TrailingZeros64(m)] = d[k]
			k++
		}
	}
}

// record makes the stream: the stimulus proposes each cycle's inputs, the
// harness forces rst = 1 in the last cycle of every segment but the last,
// the model computes the outputs and advances, and the stimulus sees both.
func record(m model.Sequential, stim Stimulus, ins, outs []*netlist.Port, cycles int, segs []segment) *stream {
	s := newPackedStream(ins, outs, cycles)
	forced := make([]bool, cycles)
	for _, sg := range segs[:len(segs)-1] {
		forced[sg.end-1] = true
	}
	// Each cycle is made in scratch words, then its nonzero words added.
	inBuf, outBuf := make([]uint64, s.inW), make([]uint64, s.outW)
	in := make([][]uint64, len(ins))
	out := make([][]uint64, len(outs))
	view(in, inBuf, 0, s.inW, s.inOff, ins)
	view(out, outBuf, 0, s.outW, s.outOff, outs)
	m.Reset()
	for c := 0; c < cycles; c++ {
		clear(inBuf)
		clear(outBuf)
		stim.Next(in)
		for j, p := range ins {
			maskPort(in[j], p.Width())
		}
		if forced[c] {
			in[s.rst][0] |= 1
		}
		m.Cycle(in, out)
		for j, p := range outs {
			maskPort(out[j], p.Width())
		}
		stim.Observe(in, out)
		s.pin.add(inBuf)
		s.pout.add(outBuf)
	}
	return s
}

// maskPort clears the bits of v at or above width.
func maskPort(v []uint64, width int) {
	if r := width % 64; r != 0 {
		v[len(v)-1] &= 1<<uint(r) - 1
	}
}

// inputString lists cycle c's inputs as port=value.
func (s *stream) inputString(c int) string {
	v := make([][]uint64, len(s.ins))
	s.inView(v, c)
	parts := make([]string, len(s.ins))
	for j, p := range s.ins {
		parts[j] = fmt.Sprintf("%s=%s", p.Name, hexWords(v[j], p.Width()))
	}
	return strings.Join(parts, " ")
}

// mismatch describes output o of cycle c, which was got (nil: not known).
func (s *stream) mismatch(module string, c, o int, got []uint64) *Mismatch {
	want := make([][]uint64, len(s.outs))
	s.outView(want, c)
	p := s.outs[o]
	mm := &Mismatch{Module: module, Vector: c, Clocked: true, Inputs: s.inputString(c), Port: p.Name,
		Expected: hexWords(want[o], p.Width())}
	if got != nil {
		mm.Actual = hexWords(got, p.Width())
	}
	return mm
}

// checkNetlistSeq runs the stream through the netlist simulator, segment l
// in lane l: first a reset cycle in every lane, then step i applies cycle
// start_l + i to lane l. A segment starts in the reset state because the
// stream's cycle before it has rst = 1, so each lane sees what the uncut
// stream would give (but for registers that no reset defines, which start
// at 0). The first mismatching cycle over all lanes is reported, with a VCD
// of its lane's last cycles up to it.
func checkNetlistSeq(d *netlist.Design, s *stream, segs []segment, dir, version string) (*Mismatch, error) {
	sim := netlist.NewSim(d)
	inIdx, outIdx := portIndices(d, s.ins), portIndices(d, s.outs)
	lanes := make([][]uint64, len(s.ins))
	for j, p := range s.ins {
		lanes[j] = make([]uint64, p.Width())
	}
	got := make([][]uint64, len(s.outs))
	want := make([][]uint64, len(s.outs))
	for o, p := range s.outs {
		got[o] = make([]uint64, p.Width())
		want[o] = make([]uint64, p.Width())
	}

	// The reset cycle, in every lane.
	for j := range s.ins {
		clear(lanes[j])
		if j == s.rst {
			lanes[j][0] = ^uint64(0)
		}
		sim.SetInput(inIdx[j], lanes[j])
	}
	sim.Eval()
	sim.Step()

	steps := segs[0].end - segs[0].start
	type failure struct {
		step, port int
		got        []uint64
	}
	fails := make([]*failure, len(segs))
	live := uint64(1)<<uint(len(segs)) - 1 // lanes with cycles left and no mismatch yet
	if len(segs) == 64 {
		live = ^uint64(0)
	}
	inSp, outSp := newSpreader(s.inW, s.inOff, s.ins), newSpreader(s.outW, s.outOff, s.outs)
	for i := 0; i < steps && live != 0; i++ {
		for l, sg := range segs {
			if sg.start+i >= sg.end {
				live &^= 1 << uint(l)
			}
		}
		inSp.spread(lanes, s.pin, segs, i)
		outSp.spread(want, s.pout, segs, i)
		for j := range s.ins {
			sim.SetInput(inIdx[j], lanes[j])
		}
		sim.Eval()
		for o := range s.outs {
			sim.Output(outIdx[o], got[o])
			var diff uint64
			for b := range got[o] {
				diff |= got[o][b] ^ want[o][b]
			}
			for diff &= live; diff != 0; diff &= diff - 1 {
				l := bits.TrailingZeros64(diff)
				fails[l] = &failure{step: i, port: o, got: gather(got[o], l)}
				live &^= 1 << uint(l)
			}
		}
		sim.Step()
	}
	for l, f := range fails {
		if f == nil {
			continue
		}
		c := segs[l].start + f.step
		mm := s.mismatch(d.Name+" (netlist)", c, f.port, f.got)
		if dir != "" {
			path, err := writeNetlistSeqVCDVersion(d, s, segs[l].start, c, version, filepath.Join(dir, d.Name+"_netlist_fail.vcd"))
			if err != nil {
				return nil, err
			}
			mm.VCD = path
		}
		return mm, nil
	}
	return nil, nil
}

// spreader moves the values of one cycle per lane (perCycle words a
// cycle, port j at word off[j]) into the simulator's bit lanes
// (dst[j][bit] bit l for lane l): for every word of a cycle, one 64×64
// transpose of that word in the 64 lanes' cycles, skipped where all 64 are
// zero, as most of a cycle's words are (data ports of loads, idle cycles).
type spreader struct {
	perCycle int
	port     []int        // the port of each word of a cycle
	bit, n   []int        // the port bit of the word's bit 0, and the bits it holds
	block    [][64]uint64 // block[w][l]: lane l's word w, then word w transposed; 0 between steps
	nz       []uint64     // the OR of block[w] before the transpose
}

func newSpreader(perCycle int, off []int, ports []*netlist.Port) *spreader {
	sp := &spreader{perCycle: perCycle, block: make([][64]uint64, perCycle), nz: make([]uint64, perCycle)}
	for j, p := range ports {
		for w := 0; w < words(p.Width()); w++ {
			sp.port = append(sp.port, j)
			sp.bit = append(sp.bit, w*64)
			sp.n = append(sp.n, min(64, p.Width()-w*64))
		}
		if len(sp.port) != off[j]+words(p.Width()) {
			panic("verify: spreader: ports not packed in order")
		}
	}
	return sp
}

// spread writes into dst step i of segs: cycle segs[l].start+i of p in
// lane l, 0 past a segment's end and in lanes without a segment.
func (sp *spreader) spread(dst [][]uint64, p *packed, segs []segment, i int) {
	for l, sg := range segs {
		c := sg.start + i
		if c >= sg.end {
			continue
		}
		d := p.data[p.start[c]:p.start[c+1]]
		k := 0
		for mi, m := range p.mask[c*p.maskW : (c+1)*p.maskW] {
			for ; m != 0; m &= m - 1 {
				w := mi*64 + bits.TrailingZeros64(m)
				sp.block[w][l] = d[k]
				sp.nz[w] |= d[k]
				k++
			}
		}
	}
	for w := range sp.block {
		d := dst[sp.port[w]][sp.bit[w] : sp.bit[w]+sp.n[w]]
		if sp.nz[w] == 0 {
			clear(d)
			continue
		}
		b := &sp.block[w]
		netlist.Transpose64(b)
		copy(d, b[:len(d)])
		clear(b[:])
		sp.nz[w] = 0
	}
}

// gather returns lane l of the bit-sliced port value v as packed words.
func gather(v []uint64, l int) []uint64 {
	out := make([]uint64, words(len(v)))
	for b, x := range v {
		out[b/64] |= (x >> uint(l) & 1) << uint(b%64)
	}
	return out
}

// checkHDLSeq runs the stream through the RTL and gate-level modules in a
// clocked bench under one HDL simulator and reports the earliest
// mismatching cycle over the modules, with a VCD of a rerun up to it;
// the bool tells that the outputs came from the run cache.
func checkHDLSeq(ctx context.Context, job Job, e hdl.Engine, s *stream) (*Mismatch, bool, error) {
	run := job.hdlModules(e)
	if len(run.Sources) == 0 || len(run.Modules) == 0 {
		return nil, false, errors.New("no Verilog sources or modules to run")
	}
	dir := filepath.Join(job.Dir, string(e))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, false, err
	}
	d := job.Design
	bench := &hdl.Bench{Dir: dir, Sources: run.Sources, Modules: run.Modules, Ports: d.Ports, Clock: d.Clock, Reset: ResetPort, Version: job.Version, Rerun: job.Rerun}
	vecs := make([][][]uint64, s.cycles)
	flat := make([][]uint64, s.cycles*len(s.ins))
	for c := range vecs {
		vecs[c] = flat[c*len(s.ins) : (c+1)*len(s.ins) : (c+1)*len(s.ins)]
		s.inView(vecs[c], c)
	}
	got, cached, err := bench.RunCached(ctx, e, vecs)
	var xe *hdl.XZError
	if errors.As(err, &xe) {
		// An x or z output (state no reset defines, under Icarus) is a
		// mismatch like any other, with a VCD to trace it back.
		o := 0
		for j, p := range s.outs {
			if p.Name == xe.Port {
				o = j
			}
		}
		mm := s.mismatch(xe.Module+" ("+string(e)+")", xe.Vector, o, nil)
		mm.Actual = "x or z bits"
		return mm, cached, dumpHDL(ctx, bench, e, vecs, s, xe.Module, mm)
	}
	if err != nil {
		return nil, false, err
	}
	want := make([][]uint64, len(s.outs))
	first, fm, fo := s.cycles, -1, -1
	for m, mod := range run.Modules {
		if len(got[m]) != s.cycles {
			return nil, false, fmt.Errorf("module %s returned %d results for %d cycles", mod, len(got[m]), s.cycles)
		}
		for c := 0; c < first; c++ {
			s.outView(want, c)
			for o := range s.outs {
				if !equalWords(got[m][c][o], want[o]) {
					first, fm, fo = c, m, o
					break
				}
			}
		}
	}
	if fm < 0 {
		return nil, cached, nil
	}
	mod := run.Modules[fm]
	mm := s.mismatch(mod+" ("+string(e)+")", first, fo, got[fm][first][fo])
	return mm, cached, dumpHDL(ctx, bench, e, vecs, s, mod, mm)
}

// dumpHDL reruns the cycles up to the mismatch's with a VCD of the last
// ones and records its path in mm.
func dumpHDL(ctx context.Context, bench *hdl.Bench, e hdl.Engine, vecs [][][]uint64, s *stream, mod string, mm *Mismatch) error {
	exp := make([][][]uint64, mm.Vector+1)
	for c := range exp {
		exp[c] = make([][]uint64, len(s.outs))
		s.outView(exp[c], c)
	}
	path, err := bench.DumpVCDExpected(ctx, e, vecs[:mm.Vector+1], exp, fmt.Sprintf("%s_fail_%d", mod, mm.Vector))
	if err != nil {
		return fmt.Errorf("mismatch (%s) and the VCD rerun failed: %w", mm, err)
	}
	mm.VCD = path
	return nil
}

// Record runs stim through m for the given cycles as one uncut stream and
// returns each cycle's inputs and outputs (indexed [cycle][port]), as the
// lockstep runs apply them: for tests of a family's stimulus, and for
// tools that want a stream without a design.
func Record(m model.Sequential, stim Stimulus, cycles int) (in, out [][][]uint64) {
	var ins, outs []*netlist.Port
	for _, p := range m.Ports() {
		np := &netlist.Port{Name: p.Name, Bits: make(netlist.Bus, p.Width)}
		if p.Output {
			np.Dir = netlist.Out
			outs = append(outs, np)
		} else {
			ins = append(ins, np)
		}
	}
	s := record(m, stim, ins, outs, cycles, []segment{{0, cycles}})
	in, out = make([][][]uint64, cycles), make([][][]uint64, cycles)
	for c := range cycles {
		in[c], out[c] = make([][]uint64, len(ins)), make([][]uint64, len(outs))
		s.inView(in[c], c)
		s.outView(out[c], c)
	}
	return in, out
}
