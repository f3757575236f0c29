package pipesim

import (
	"context"
	"fmt"
	"math/bits"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/specs"
)

// Run is the outcome of one simulation: one pipeline variant, with or
// without the bank-conflict-aware warp ready mask.
type Run struct {
	Variant string `json:"variant"`
	Mask    bool   `json:"mask"`
	// Cycles from the first scheduling cycle to the last writeback,
	// both included.
	Cycles              int64   `json:"cycles"`
	WarpInstructions    int64   `json:"warp_instructions"`
	SubwarpInstructions int64   `json:"subwarp_instructions"`
	IPC                 float64 `json:"ipc"`         // warp instructions per cycle
	SubwarpIPC          float64 `json:"subwarp_ipc"` // subwarp instructions per cycle
	Stalls              Stalls  `json:"stalls"`
	SchedFails          Fails   `json:"sched_fails"`
	WBBubbles           int64   `json:"wb_bubbles"`
	// MaskCycles: cycles in which the mask was on (memory warps masked).
	MaskCycles int64 `json:"mask_cycles"`
	// HistoryLookups and HistoryHits: shared-memory warps scheduled, and
	// how many of them found their PC in the bank conflict history cache.
	HistoryLookups int64 `json:"history_lookups"`
	HistoryHits    int64 `json:"history_hits"`
	// Speedup is the baseline_unified run without the mask's cycles over
	// this run's (set by Study).
	Speedup float64 `json:"speedup"`
	// System: the DRAM model's and the §5.2 variant's counts; nil when
	// Options used neither.
	System *System `json:"system,omitempty"`
}

// Stalls counts the cycles in which the pipeline refused EXE's subwarp.
type Stalls struct {
	BankConflict      int64 `json:"bank_conflict"`
	WritebackConflict int64 `json:"writeback_conflict"`
	Total             int64 `json:"total"`
}

// Fails counts the cycles in which the scheduler could issue (the front
// end was free and some warp had instructions left) but no warp was ready:
// Masked when some warp was ready before the mask, NoneReady otherwise.
type Fails struct {
	Masked    int64 `json:"masked"`
	NoneReady int64 `json:"none_ready"`
	Total     int64 `json:"total"`
}

// Options tune Simulate.
type Options struct {
	// MaxCycles stops a run that has not finished after this many cycles
	// with an error; 0 chooses CycleLimit.
	MaxCycles int64
	// Progress, if not nil, is called as a run goes with the warp
	// instructions written back since its last call; Study calls it from
	// its runs' goroutines, so it must be safe for concurrent use.
	Progress func(warpInstructions int64)
	// DRAM is the global-memory model (see DRAM); the zero value is none.
	DRAM DRAM
	// MemWhenIdle is §5.2's variant of the bank-conflict aware
	// scheduling: while the mask is on and only memory warps are ready,
	// one of them issues anyway (footnote 10: the original fails to
	// schedule). Without the mask it changes nothing.
	MemWhenIdle bool
}

// pollCycles is how many cycles a run simulates between two looks at its
// context (and two progress reports): about a millisecond.
const pollCycles = 1 << 14

// CycleLimit is the default cycle limit of a workload on a pipeline: a
// bound no terminating run can reach (every subwarp alone in the pipeline,
// at its longest MEM0 occupancy, plus slack).
func CycleLimit(wl *Workload, p *specs.ElasticPipeline) int64 {
	occ := int64((p.SIMDWidth + p.ShmemPorts - 1) / p.ShmemPorts)
	per := occ + 2*int64(p.MemStages) + int64(wl.Subwarps) + 4
	return 1000 + int64(wl.Instructions())*int64(wl.Subwarps)*per
}

// DefaultMask is the paper's ready mask (§4.2: 256 sets x 2 ways, 14-bit
// PCs) for pipeline p and a workload of warps warps.
func DefaultMask(p *specs.ElasticPipeline, warps int) *specs.WarpReadyMask {
	return &specs.WarpReadyMask{
		Name: "default", WarpContexts: max(1, min(warps, MaxWarps)),
		HistorySets: 256, HistoryWays: 2, PCBits: 14,
		WarpSize: p.WarpSize, SIMDWidth: p.SIMDWidth, ShmemPorts: p.ShmemPorts,
	}
}

// Subwarps in flight are kept in slots, reused once written back. A tag
// is seq<<slotBits | slot, seq the subwarp's sequence number: unique for
// the whole run, and it names its slot. The pipeline holds a few dozen
// subwarps at most, so the slots stay few; an instruction may stay long in
// a NONMEM path that loses writeback to the memory path every cycle, so
// slots are not reused in a fixed order.
const slotBits = 20

type inflight struct {
	tag  uint64
	used bool
	warp uint8
	kind Kind
	pc   uint32
	deg  uint8
}

// Simulate runs the workload on the model of pipeline p, variant and all
// (not its tag width: tags are 64-bit, unique for the run), with the
// ready mask mask, or without one when mask is nil. See the package
// documentation for the system model.
//
// Simulate polls ctx as it goes and returns its error soon (about a
// millisecond of work) after ctx is cancelled.
func Simulate(ctx context.Context, wl *Workload, p specs.ElasticPipeline, mask *specs.WarpReadyMask, opt Options) (Run, error) {
	if err := opt.DRAM.Check(); err != nil {
		return Run{}, fmt.Errorf("pipesim: %w", err)
	}
	s, err := newSim(wl, p, mask)
	if err != nil {
		return Run{}, err
	}
	s.memWhenIdle = opt.MemWhenIdle
	if opt.DRAM.On() || opt.MemWhenIdle {
		s.run.System = &System{}
	}
	if opt.DRAM.On() {
		s.dram = newDRAM(opt.DRAM, s.subs)
	}
	limit := opt.MaxCycles
	if limit <= 0 {
		limit = CycleLimit(wl, &s.spec) + dramLimit(wl, opt.DRAM)
	}
	var reported int64 // warp instructions passed to opt.Progress
	for t := int64(0); s.remaining > 0; t++ {
		if t >= limit {
			return s.run, fmt.Errorf("pipesim: %s: %d of %d warp instructions not written back after %d cycles (the cycle limit)",
				s.spec.PipeVariant, s.remaining, wl.Instructions(), limit)
		}
		if t%pollCycles == pollCycles-1 {
			if err := ctx.Err(); err != nil {
				return s.run, fmt.Errorf("pipesim: %s: stopped at cycle %d: %w", s.spec.PipeVariant, t, err)
			}
			if opt.Progress != nil {
				opt.Progress(s.run.WarpInstructions - reported)
				reported = s.run.WarpInstructions
			}
		}
		if err := s.cycle(t); err != nil {
			return s.run, err
		}
		s.run.Cycles = t + 1
	}
	if opt.Progress != nil {
		opt.Progress(s.run.WarpInstructions - reported)
	}
	s.finish()
	return s.run, nil
}

// sim is one run in progress: the two models, the warps, the front end
// and the subwarps in flight. Its methods are the phases of a cycle, in
// the order cycle calls them.
type sim struct {
	wl   *Workload
	spec specs.ElasticPipeline
	subs int // S, subwarps per warp instruction
	run  Run
	pipe *model.Pipeline

	// Warp state: next[w] is the index of w's next instruction to issue,
	// wbDone[w] the subwarps of its instruction in flight written back.
	next, wbDone []int
	ready, isMem uint64 // bit w: warp w ready; its next instruction is a memory one
	remaining    int64  // warp instructions not yet written back
	unissued     int64  // not yet scheduled

	// The front end: the warp instruction being offered, subwarp by
	// subwarp; cur is -1 when none is.
	cur    int
	curIn  Instr
	curDeg []uint8
	curSub int
	rr     int // round robin: the first warp to consider next

	slots []inflight
	free  []uint32 // slots written back, reused last in first out
	seq   uint64   // the next subwarp's sequence number

	mask        *maskMirror // nil without the ready mask
	dram        *dram       // nil without the DRAM model
	memWhenIdle bool        // §5.2's variant
}

// maskMirror is the ready mask model with the scheduler's copy of its
// counter C: the model computes a cycle's outputs and its clock edge in
// one call, so the scheduler needs C to know the mask before it chooses.
type maskMirror struct {
	rm       *model.ReadyMask
	log2P    uint
	contexts uint
	pcMask   uint64
	counter  int // mirror of the mask's last_warp_bkconf_degree counter
}

// cycleIn is what one cycle's phases pass on: whether the mask is on, and
// the ready mask model's inputs, filled in as the cycle goes (the warps
// ready at its start, the scheduler's choice, the MEM0 result).
type cycleIn struct {
	maskOn bool
	rm     model.ReadyIn
}

// newSim checks the workload against the pipeline and the mask and builds
// the models in their reset state.
func newSim(wl *Workload, p specs.ElasticPipeline, mask *specs.WarpReadyMask) (*sim, error) {
	S := wl.Subwarps
	if p.WarpSize < 1 || p.SIMDWidth < 1 || p.WarpSize/p.SIMDWidth != S || p.SIMDWidth != wl.SIMDWidth {
		return nil, fmt.Errorf("pipesim: the workload has %d subwarps of %d lanes, pipeline %s has warp_size %d, simd_width %d",
			S, wl.SIMDWidth, p.Name, p.WarpSize, p.SIMDWidth)
	}
	nw := len(wl.Programs)
	if nw == 0 || nw > MaxWarps {
		return nil, fmt.Errorf("pipesim: %d warps: want 1..%d", nw, MaxWarps)
	}
	p.TagBits = 64
	// The model constructors panic on configurations ForPipeline (and
	// ForReadyMask, in newMaskMirror) refuse with an error; ask first.
	if _, err := model.ForPipeline(&p); err != nil {
		return nil, fmt.Errorf("pipesim: elastic_pipeline %s: %w", p.Name, err)
	}
	s := &sim{wl: wl, spec: p, subs: S, run: Run{Variant: string(p.PipeVariant), Mask: mask != nil}, cur: -1,
		next: make([]int, nw), wbDone: make([]int, nw)}
	s.pipe = model.NewPipeline(&s.spec)
	s.pipe.Reset()
	if mask != nil {
		var err error
		if s.mask, err = newMaskMirror(mask, &p, nw); err != nil {
			return nil, err
		}
	}
	for w, prog := range wl.Programs {
		if len(prog) > 0 {
			s.ready |= 1 << uint(w)
		}
		s.setNext(w)
	}
	s.remaining = int64(wl.Instructions())
	s.unissued = s.remaining
	return s, nil
}

// newMaskMirror checks mask against pipeline p and a workload of nw warps
// and starts the model, with the kernel launch before cycle 0.
func newMaskMirror(mask *specs.WarpReadyMask, p *specs.ElasticPipeline, nw int) (*maskMirror, error) {
	if mask.WarpSize != p.WarpSize || mask.SIMDWidth != p.SIMDWidth || mask.ShmemPorts != p.ShmemPorts {
		return nil, fmt.Errorf("pipesim: warp_ready_mask %s (warp_size %d, simd_width %d, shmem_ports %d) does not match elastic_pipeline %s (%d, %d, %d)",
			mask.Name, mask.WarpSize, mask.SIMDWidth, mask.ShmemPorts, p.Name, p.WarpSize, p.SIMDWidth, p.ShmemPorts)
	}
	if nw > mask.WarpContexts {
		return nil, fmt.Errorf("pipesim: the workload has %d warps, warp_ready_mask %s has %d warp contexts", nw, mask.Name, mask.WarpContexts)
	}
	if mask.WarpSize < 2 {
		return nil, fmt.Errorf("pipesim: the warp ready mask needs warp_size >= 2")
	}
	if _, err := model.ForReadyMask(mask); err != nil {
		return nil, fmt.Errorf("pipesim: warp_ready_mask %s: %w", mask.Name, err)
	}
	m := &maskMirror{rm: model.NewReadyMask(mask), log2P: uint(bits.TrailingZeros(uint(mask.ShmemPorts))),
		contexts: uint(mask.WarpContexts), pcMask: 1<<uint(mask.PCBits) - 1}
	m.rm.Reset()
	m.rm.Cycle(model.ReadyIn{Launch: true})
	return m, nil
}

// setNext records whether warp w's next instruction is a memory one.
func (s *sim) setNext(w int) {
	bit := uint64(1) << uint(w)
	s.isMem &^= bit
	if s.next[w] < len(s.wl.Programs[w]) && s.wl.Programs[w][s.next[w]].Kind != ALU {
		s.isMem |= bit
	}
}

// cycle is cycle t: schedule, offer a subwarp to EXE, account for what
// the pipeline did with it, take MEM0's and writeback's results, then
// clock the ready mask. The tests before each phase's call keep the
// common cycle, where most phases have nothing to do, free of calls.
func (s *sim) cycle(t int64) error {
	if s.dram != nil && s.dram.mustStop(t) {
		// Returned data takes the writeback port; the pipeline, the front
		// end and the mask's counter wait a cycle.
		s.run.System.ReturnStalls++
		s.returned(t)
		s.dram.advance(t, s.run.System)
		return nil
	}
	c := cycleIn{maskOn: s.mask != nil && s.mask.counter != 0, rm: model.ReadyIn{Ready: s.ready, IsMem: s.isMem}}
	if c.maskOn {
		s.run.MaskCycles++
	}
	if s.cur < 0 && s.unissued > 0 {
		s.schedule(&c)
	}
	in, slot := s.offer()
	out := s.pipe.Cycle(in)
	switch {
	case out.Stall:
		if err := s.stall(t, in, out); err != nil {
			return err
		}
	case in.Valid:
		if err := s.take(t, in.Tag, slot); err != nil {
			return err
		}
	}
	if out.Bubble {
		s.run.WBBubbles++
	}
	if out.MEM0Done {
		if err := s.mem0(t, out.MEM0Tag, &c.rm); err != nil {
			return err
		}
	}
	if out.WBValid {
		if err := s.writeback(t, out.WBTag); err != nil {
			return err
		}
	}
	if s.dram != nil {
		if !out.WBValid {
			s.returned(t)
		}
		s.dram.advance(t, s.run.System)
	}
	if s.mask != nil {
		return s.clockMask(t, &c)
	}
	return nil
}

// schedule picks the next warp round robin among those ready (and, with
// the mask on, not memory warps) for the free front end, or counts why
// it could not.
func (s *sim) schedule(c *cycleIn) {
	avail := s.ready
	if c.maskOn {
		avail &^= s.isMem
		if avail == 0 && s.ready != 0 && s.memWhenIdle {
			avail = s.ready
			s.run.System.MemIssuedMasked++
		}
	}
	if avail == 0 {
		if s.ready != 0 {
			s.run.SchedFails.Masked++
		} else {
			s.run.SchedFails.NoneReady++
		}
		return
	}
	// The first available warp at or after rr, wrapping around.
	w := (bits.TrailingZeros64(bits.RotateLeft64(avail, -s.rr)) + s.rr) & 63
	s.start(w)
	c.rm.SchedValid, c.rm.SchedShmem, c.rm.SchedPC = true, s.curIn.Kind == Shmem, uint64(s.curIn.PC)
}

// start makes warp w's next instruction the front end's; w is not ready
// until it is written back.
func (s *sim) start(w int) {
	s.cur, s.curSub = w, 0
	s.curIn = s.wl.Programs[w][s.next[w]]
	s.curDeg = s.wl.Degrees(s.curIn)
	s.next[w]++
	s.unissued--
	s.wbDone[w] = 0
	s.ready &^= 1 << uint(w)
	s.setNext(w)
	s.rr = (w + 1) % len(s.next)
}

// offer is the front end's input to EXE: the current subwarp, tagged with
// the slot it will take if accepted (the last freed, else a new one).
func (s *sim) offer() (model.PipeIn, uint32) {
	if s.cur < 0 {
		return model.PipeIn{}, 0
	}
	slot := uint32(len(s.slots))
	if len(s.free) > 0 {
		slot = s.free[len(s.free)-1]
	}
	in := model.PipeIn{Valid: true, Kind: model.PipeKind(s.curIn.Kind), Tag: s.seq<<slotBits | uint64(slot)}
	if s.curDeg != nil {
		in.Degree = int(s.curDeg[s.curSub])
	}
	return in, slot
}

// stall counts a cycle in which the pipeline refused the offered subwarp
// by cause; a stall with nothing offered, or of no known cause, is the
// model's error.
func (s *sim) stall(t int64, in model.PipeIn, out model.PipeOut) error {
	switch {
	case !in.Valid:
		return fmt.Errorf("pipesim: cycle %d: the pipeline model stalled with nothing offered", t)
	case out.Cause == model.BankConflictStall:
		s.run.Stalls.BankConflict++
	case out.Cause == model.WritebackConflictStall:
		s.run.Stalls.WritebackConflict++
	default:
		return fmt.Errorf("pipesim: cycle %d: the pipeline model stalled with cause %v", t, out.Cause)
	}
	return nil
}

// take fills slot with the subwarp the pipeline just accepted under tag
// and moves the front end on to the next subwarp.
func (s *sim) take(t int64, tag uint64, slot uint32) error {
	if int(slot) == len(s.slots) {
		if slot == 1<<slotBits {
			return fmt.Errorf("pipesim: cycle %d: more than %d subwarps in flight", t, 1<<slotBits)
		}
		s.slots = append(s.slots, inflight{})
	} else {
		s.free = s.free[:len(s.free)-1]
	}
	e := &s.slots[slot]
	*e = inflight{tag: tag, used: true, warp: uint8(s.cur), kind: s.curIn.Kind, pc: s.curIn.PC}
	if s.curDeg != nil {
		e.deg = s.curDeg[s.curSub]
	}
	s.seq++
	s.curSub++
	if s.curSub == s.subs {
		s.cur = -1
	}
	return nil
}

// mem0 passes on to the ready mask the PC and measured conflict degree of
// the subwarp (tag) leaving MEM0, if a shared-memory one.
func (s *sim) mem0(t int64, tag uint64, res *model.ReadyIn) error {
	e, err := lookup(s.slots, tag, t, "MEM0")
	if err != nil {
		return err
	}
	if e.kind == Shmem {
		res.ResValid, res.ResPC, res.ResDegree = true, uint64(e.pc), int(e.deg)
	}
	return nil
}

// writeback frees the written-back subwarp's slot; the last subwarp of a
// warp instruction completes it, and the warp is ready next cycle if it
// has instructions left.
func (s *sim) writeback(t int64, tag uint64) error {
	e, err := lookup(s.slots, tag, t, "writeback")
	if err != nil {
		return err
	}
	w := int(e.warp)
	e.used = false
	s.free = append(s.free, uint32(tag&(1<<slotBits-1)))
	s.wbDone[w]++
	if s.wbDone[w] == s.subs {
		if s.dram != nil && e.kind == Mem {
			// The address is out; the warp waits for its data.
			s.run.System.Requests++
			s.dram.send(w, t)
			return nil
		}
		s.done(w)
	}
	return nil
}

// done completes warp w's instruction in flight: the warp is ready next
// cycle if it has instructions left.
func (s *sim) done(w int) {
	s.remaining--
	s.run.WarpInstructions++
	if s.next[w] < len(s.wl.Programs[w]) {
		s.ready |= 1 << uint(w)
	}
}

// returned writes back a subwarp of returned data in cycle t, when one is
// due; the last of a load completes its warp's instruction.
func (s *sim) returned(t int64) {
	if w := s.dram.writeOne(t); w >= 0 {
		s.done(w)
	}
}

// dramLimit is what the DRAM model can add to a run's cycles at most:
// every load alone, its data waiting and stopping the pipeline a cycle
// for each subwarp.
func dramLimit(wl *Workload, d DRAM) int64 {
	if !d.On() {
		return 0
	}
	return int64(wl.Stats().Mem) * (int64(d.Latency) + 2*int64(wl.Subwarps) + 2)
}

// clockMask runs the ready mask model's cycle on the scheduler's inputs
// of this cycle, checks that its outputs agree with the mask the
// scheduler used, and updates the mirrored counter and the history
// statistics.
func (s *sim) clockMask(t int64, c *cycleIn) error {
	m := s.mask
	c.rm.SchedPC &= m.pcMask
	ro := m.rm.Cycle(c.rm)
	want := c.rm.Ready
	if c.maskOn {
		want &^= c.rm.IsMem
	}
	if m.contexts < 64 {
		want &= 1<<m.contexts - 1
	}
	if ro.Mask != c.maskOn || ro.Ready != want {
		return fmt.Errorf("pipesim: cycle %d: the ready mask model gave mask %v, ready %#x; the scheduler expected mask %v, ready %#x",
			t, ro.Mask, ro.Ready, c.maskOn, want)
	}
	// Mirror the counter C: the mask of the next cycle is C != 0.
	switch {
	case c.rm.SchedValid && c.rm.SchedShmem:
		s.run.HistoryLookups++
		if ro.Hit {
			s.run.HistoryHits++
		}
		pred := max(ro.Pred, 0)
		m.counter = (pred + s.subs - 1) >> m.log2P
	case m.counter > 0:
		m.counter--
	}
	return nil
}

// finish derives the totals and rates.
func (s *sim) finish() {
	r := &s.run
	r.SubwarpInstructions = r.WarpInstructions * int64(s.subs)
	if r.Cycles > 0 {
		r.IPC = float64(r.WarpInstructions) / float64(r.Cycles)
		r.SubwarpIPC = float64(r.SubwarpInstructions) / float64(r.Cycles)
	}
	r.Stalls.Total = r.Stalls.BankConflict + r.Stalls.WritebackConflict
	r.SchedFails.Total = r.SchedFails.Masked + r.SchedFails.NoneReady
}

func lookup(slots []inflight, tag uint64, t int64, where string) (*inflight, error) {
	i := tag & (1<<slotBits - 1)
	if i >= uint64(len(slots)) || !slots[i].used || slots[i].tag != tag {
		return nil, fmt.Errorf("pipesim: cycle %d: the pipeline model reports tag %#x at %s, which is not in flight", t, tag, where)
	}
	return &slots[i], nil
}
