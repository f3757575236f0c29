package replay

import (
	"context"
	"fmt"
	"sync"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/verify"
)

// stim offers the workload's instructions one after another through the
// unit's protocol (req_valid_i until req_ready_o, rsp_ready_i always
// high) and records from the outputs each response's rsp_passes_o,
// rsp_error_o and the cycles its instruction held the banks. A reset (the
// harness's, between segments) drops what is in flight: the stimulus then
// stores every byte again (a refill, counted apart) and offers the
// dropped instructions anew, so each segment starts from a fresh unit.
type stim struct {
	w                                                  *Workload
	n                                                  int // fill + trace instructions
	rst, valid, op, width, active, addr, data, cmp, rr int
	ready, rspValid, rspError, rspPasses               int
	addrBits, maxW                                     int

	cycle, next, rsp, lastRsp int
	refill                    int     // the refill's next store, -1 when not refilling
	inFlight                  []int32 // accepted, not answered: an instruction index, or -1 for a refill store
	refills, resets           int     // refill stores answered, resets seen
	accepted                  []int32 // the cycle each instruction was accepted
	passes, cycles            []int32
	errors                    []bool

	// The instruction on offer stays on offer until accepted, cycles on
	// end: its lanes' addresses, data and compare values are packed once
	// (key: its index, or -2-k for refill store k) and copied after.
	encKey                   int
	encAddr, encData, encCmp []uint64
}

func newStim(w *Workload, ports []model.Port) (*stim, error) {
	u := w.Unit
	pm := verify.NewPortMap(ports)
	L, A, W := u.Lanes, u.AddrBits(), u.MaxWidth()
	s := &stim{w: w, n: len(w.Fill) + len(w.Instrs), addrBits: A, maxW: W, lastRsp: -1, refill: -1, encKey: -1}
	s.encAddr, s.encData, s.encCmp = make([]uint64, (L*A+63)/64), make([]uint64, (L*W+63)/64), make([]uint64, (L*32+63)/64)
	s.rst, s.valid, s.op, s.width = pm.In("rst", 1), pm.In("req_valid_i", 1), pm.In("req_op_i", 4), pm.In("req_width_i", 2)
	s.active, s.addr, s.data = pm.In("req_active_i", L), pm.In("req_addr_i", L*A), pm.In("req_data_i", L*W)
	s.cmp, s.rr = pm.In("req_cmp_i", L*32), pm.In("rsp_ready_i", 1)
	s.ready, s.rspValid = pm.Out("req_ready_o", 1), pm.Out("rsp_valid_o", 1)
	s.rspError, s.rspPasses = pm.Out("rsp_error_o", 1), pm.Out("rsp_passes_o", u.PassBits())
	if err := pm.Err(); err != nil {
		return nil, err
	}
	s.accepted = make([]int32, s.n)
	s.passes = make([]int32, s.n)
	s.cycles = make([]int32, s.n)
	s.errors = make([]bool, s.n)
	return s, nil
}

func (s *stim) instr(i int) *Instr {
	if i < len(s.w.Fill) {
		return &s.w.Fill[i]
	}
	return &s.w.Instrs[i-len(s.w.Fill)]
}

// put writes n bits of x at bit lo of v.
func put(v []uint64, lo, n int, x uint64) {
	for n > 0 {
		k := min(n, 64-lo%64)
		v[lo/64] |= (x & verify.Mask(k)) << uint(lo%64)
		x >>= uint(k) % 64
		if k == 64 {
			x = 0
		}
		lo, n = lo+k, n-k
	}
}

// mix makes the data of instruction i, lane l, word j: a value of the
// replay's own making that differs from word to word.
func mix(i, l, j int) uint64 {
	z := uint64(i)<<20 ^ uint64(l)<<8 ^ uint64(j) + 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// offered is the instruction on offer (-1 for a refill store) and
// whether there is one.
func (s *stim) offered() (int, *Instr, bool) {
	if s.refill >= 0 {
		return -1, &s.w.Fill[s.refill], true
	}
	if s.next >= s.n {
		return 0, nil, false
	}
	return s.next, s.instr(s.next), true
}

func (s *stim) Next(in [][]uint64) {
	in[s.rr][0] = 1
	idx, x, ok := s.offered()
	if !ok {
		return
	}
	in[s.valid][0] = 1
	in[s.op][0] = uint64(x.Op)
	in[s.width][0] = uint64(x.Width)
	in[s.active][0] = x.Active
	key := idx
	if idx < 0 {
		key = -2 - s.refill
	}
	if key != s.encKey {
		s.encode(idx, x)
		s.encKey = key
	}
	copy(in[s.addr], s.encAddr)
	copy(in[s.data], s.encData)
	copy(in[s.cmp], s.encCmp)
}

// encode packs instruction idx's (x's) lanes into encAddr, encData and
// encCmp.
func (s *stim) encode(idx int, x *Instr) {
	clear(s.encAddr)
	clear(s.encData)
	clear(s.encCmp)
	words := x.Width.Bits() / 32
	k := 0
	for l := 0; l < s.w.Unit.Lanes; l++ {
		if x.Active>>uint(l)&1 == 0 {
			continue
		}
		put(s.encAddr, l*s.addrBits, s.addrBits, uint64(x.Addrs[k]))
		k++
		if x.Op == specs.ShmemLoad {
			continue
		}
		for j := 0; j < words; j++ {
			put(s.encData, l*s.maxW+32*j, 32, mix(idx, l, j))
		}
		if x.Op == specs.ShmemCAS {
			// Compare values of the replay's own making: most lanes fail
			// to swap, which does not change the passes.
			put(s.encCmp, l*32, 32, mix(idx, l, 7))
		}
	}
}

func (s *stim) Observe(in, out [][]uint64) {
	defer func() { s.cycle++ }()
	if in[s.rst][0]&1 == 1 {
		s.reset()
		return
	}
	if in[s.valid][0]&1 == 1 && out[s.ready][0]&1 == 1 {
		if idx, _, ok := s.offered(); ok {
			s.inFlight = append(s.inFlight, int32(idx))
			if idx >= 0 {
				s.accepted[idx] = int32(s.cycle)
				s.next++
			} else if s.refill++; s.refill == len(s.w.Fill) {
				s.refill = -1
			}
		}
	}
	if out[s.rspValid][0]&1 == 1 && in[s.rr][0]&1 == 1 && len(s.inFlight) > 0 {
		k := int(s.inFlight[0])
		s.inFlight = s.inFlight[1:]
		if k < 0 {
			s.refills++
			s.lastRsp = s.cycle
			return
		}
		s.passes[k] = int32(out[s.rspPasses][0])
		s.errors[k] = out[s.rspError][0]&1 == 1
		// The banks' cycles: from the later of the previous response and
		// the first cycle this one could respond in (accepted + L - 1).
		start := max(s.lastRsp, int(s.accepted[k])+specs.ShmemLatency-1)
		s.cycles[k] = int32(s.cycle - start)
		s.lastRsp = s.cycle
		s.rsp = k + 1
	}
}

// reset drops what is in flight: the dropped instructions are offered
// again after a refill of the storage.
func (s *stim) reset() {
	s.resets++
	for _, k := range s.inFlight {
		if k >= 0 {
			s.next = min(s.next, int(k))
		}
	}
	s.inFlight = s.inFlight[:0]
	s.lastRsp = -1
	if len(s.w.Fill) > 0 {
		s.refill = 0
	}
}

func (s *stim) done() bool { return s.rsp >= s.n }

func (s *stim) Coverage() string {
	return fmt.Sprintf("replay of %d warp instructions (%d fill), %d answered; %d resets, %d refill stores", s.n, len(s.w.Fill), s.rsp, s.resets, s.refills)
}

// Cycles runs the workload on the unit's behavioural model alone and
// returns the cycles it takes until the last response, the length of the
// lockstep stream, with a reset forced in the last cycle of every segment
// of seg cycles (0: none) as the harness forces it. It is also the
// model-only replay speed (the 1 M warp instructions in 5 s).
func (w *Workload) Cycles(seg int) (int, error) {
	s, err := w.dry(seg)
	if err != nil {
		return 0, err
	}
	return s.cycle, nil
}

// dry is the finished stimulus of a model-only run (see Cycles).
func (w *Workload) dry(seg int) (*stim, error) {
	m, err := model.ForSharedMemory(w.Unit)
	if err != nil {
		return nil, err
	}
	s, err := newStim(w, m.Ports())
	if err != nil {
		return nil, err
	}
	ins, outs := buffers(m.Ports())
	rst := 0
	for i, p := range m.Ports() {
		if p.Name == verify.ResetPort {
			rst = i
		}
	}
	m.Reset()
	// Every instruction takes at most lanes*4 passes, plus the latency,
	// and a segment makes progress once it is longer than its refill.
	limit := (s.n + 1) * (w.Unit.Lanes*4 + specs.ShmemLatency + 1)
	if seg > 0 {
		limit *= 4
	}
	for c := 0; !s.done(); c++ {
		if c >= limit {
			return nil, fmt.Errorf("%s: %d of %d responses after %d cycles: the replay makes no progress", w.Unit.Name, s.rsp, s.n, c)
		}
		for _, v := range ins {
			clear(v)
		}
		s.Next(ins)
		if seg > 0 && (c+1)%seg == 0 {
			ins[rst][0] |= 1
		}
		m.Cycle(ins, outs)
		s.Observe(ins, outs)
	}
	return s, nil
}

func buffers(ports []model.Port) (ins, outs [][]uint64) {
	for _, p := range ports {
		v := make([]uint64, (p.Width+63)/64)
		if p.Output {
			outs = append(outs, v)
		} else {
			ins = append(ins, v)
		}
	}
	return ins, outs
}

// Lanes is the most segments a replay is cut into: the netlist
// simulator's bit lanes, each running one segment.
const Lanes = 64

// Parts is the most simulator instances a long netlist replay runs side by
// side, on goroutines of their own (see Run).
const Parts = 2

// size estimates the workload's stream without running it: fill is the
// cycle the first trace instruction is accepted in (a model run of the
// fill alone), est the fill and the predicted passes of every instruction,
// one bank cycle each. A refill takes as long as the fill.
func (w *Workload) size() (fill, est int, err error) {
	if len(w.Instrs) == 0 {
		d, err := w.dry(0)
		if err != nil {
			return 0, 0, err
		}
		return d.cycle, d.cycle, nil
	}
	d, err := w.part(0, 1).dry(0)
	if err != nil {
		return 0, 0, err
	}
	fill = int(d.accepted[len(w.Fill)])
	est = fill
	for i := range w.Instrs {
		est += max(int(w.Instrs[i].Predicted), 1)
	}
	return fill, est, nil
}

// part is the workload with instructions [lo, hi) of the trace only, after
// the same fill: one part of a replay split between simulator instances.
func (w *Workload) part(lo, hi int) *Workload {
	p := *w
	p.Instrs = w.Instrs[lo:hi]
	return &p
}

// parts is how many simulator instances replay w side by side: Parts when
// each would still fill all its lanes with segments of three fills or
// more (a refill at most a third of each), else one. It depends on the
// workload alone, so that a replay gives the same report on any machine.
func (w *Workload) parts(engine verify.Engine) (int, error) {
	if engine != verify.Netlist || len(w.Instrs) < Parts {
		return 1, nil
	}
	fill, est, err := w.size()
	if err != nil {
		return 0, err
	}
	if est/Parts < Lanes*3*max(fill, 1) {
		return 1, nil
	}
	return Parts, nil
}

// plan cuts the stream into up to Lanes segments of equal length, each
// (but the first) starting with a refill of the storage, when that makes
// the netlist run shorter: it returns the lockstep plan. The length of a
// segment comes from the estimate of size, checked by a model run of the
// cut stream; a short replay runs uncut.
func (w *Workload) plan(engine verify.Engine) (verify.SeqPlan, error) {
	uncut := func() (verify.SeqPlan, error) {
		d, err := w.dry(0)
		if err != nil {
			return verify.SeqPlan{}, err
		}
		return verify.SeqPlan{Cycles: d.cycle + 1, Seed: 1, Segments: 1}, nil
	}
	// The HDL engines run one stream whatever the segments.
	if engine != verify.Netlist {
		return uncut()
	}
	fill, est, err := w.size()
	if err != nil {
		return verify.SeqPlan{}, err
	}
	if len(w.Instrs) == 0 || est < 4*fill {
		return uncut()
	}
	// The netlist run takes seg cycles however many lanes are used, so
	// the shortest segment that fits the stream into Lanes is the
	// fastest: the estimate's share of each lane after its refill, then
	// longer by steps of a sixteenth while the cut stream does not fit.
	seg := est/Lanes + fill + 1
	for {
		total, err := w.Cycles(seg)
		if err != nil { // a segment too short for one instruction after its refill
			return uncut()
		}
		n := total/seg + 1 // the segment of the last response, and one cycle past it
		if n <= Lanes {
			if n < 2 || seg > est {
				return uncut()
			}
			return verify.SeqPlan{Cycles: n * seg, Seed: 1, Segments: n, Refilled: true}, nil
		}
		seg += max(seg/16, 1)
	}
}

// Run replays the workload on engine (verify.Netlist or verify.Verilator)
// in lockstep with the unit's model: job is the unit's verification job
// (units.Job, with Sources, Modules and Dir for an HDL engine); its
// stimulus is replaced by the replay. On the netlist simulator a long
// replay is cut into segments run side by side in its 64 bit lanes, and
// a replay long enough to fill the lanes of Parts simulators is split into
// as many parts of consecutive instructions, each after its own fill, run
// on goroutines of their own with a model each: every output of every
// cycle of each is compared with its model as in one run. A mismatch
// between the unit and the model is an error; otherwise the report gives
// every instruction's measured passes and cycles beside the prediction.
func Run(ctx context.Context, job verify.Job, w *Workload, engine verify.Engine) (*Report, error) {
	n, err := w.parts(engine)
	if err != nil {
		return nil, err
	}
	return w.run(ctx, job, engine, n)
}

// run is Run in n parts.
func (w *Workload) run(ctx context.Context, job verify.Job, engine verify.Engine, n int) (*Report, error) {
	var err error
	type result struct {
		s    *stim
		plan verify.SeqPlan
		secs float64
		err  error
	}
	res := make([]result, n)
	jobs := make([]verify.Job, n)
	for p := range jobs {
		jobs[p] = job
		if n > 1 {
			// A model of its own: a part steps it apart from the others.
			if jobs[p].Seq, err = model.ForSharedMemory(w.Unit); err != nil {
				return nil, err
			}
		}
	}
	var wg sync.WaitGroup
	for p, pj := range jobs {
		lo, hi := p*len(w.Instrs)/n, (p+1)*len(w.Instrs)/n
		wg.Go(func() {
			r := &res[p]
			r.s, r.plan, r.secs, r.err = runPart(ctx, pj, w.part(lo, hi), engine)
		})
	}
	wg.Wait()
	for _, r := range res {
		if r.err != nil {
			return nil, r.err
		}
	}
	live := res[0].s
	if n > 1 {
		parts := make([]*stim, n)
		for p, r := range res {
			parts[p] = r.s
		}
		live = w.merge(parts)
	}
	rep := w.report(live)
	rep.Engine, rep.Refills = string(engine), live.refills
	for _, r := range res {
		rep.StreamCycles += r.plan.Cycles
		rep.Segments += max(r.plan.Segments, 1)
		rep.Seconds = max(rep.Seconds, r.secs)
	}
	return rep, nil
}

// runPart replays w (the whole workload or one part) as one lockstep run
// and returns its finished stimulus, plan and engine seconds.
func runPart(ctx context.Context, job verify.Job, w *Workload, engine verify.Engine) (*stim, verify.SeqPlan, float64, error) {
	plan, err := w.plan(engine)
	if err != nil {
		return nil, plan, 0, err
	}
	var live *stim
	job.Stimulus = func(ports []model.Port, _ uint64) (verify.Stimulus, error) {
		s, err := newStim(w, ports)
		live = s
		return s, err
	}
	res, err := verify.RunSequential(ctx, job, plan, []verify.Engine{engine})
	if err != nil {
		return nil, plan, 0, err
	}
	for _, c := range res.Checks {
		if c.Mismatch != nil {
			return nil, plan, 0, fmt.Errorf("%s: %s differs from the model: %s", job.Design.Name, c.Engine, c.Mismatch)
		}
	}
	if live == nil || !live.done() {
		return nil, plan, 0, fmt.Errorf("%s: the replay did not finish in %d cycles", job.Design.Name, plan.Cycles)
	}
	secs := 0.0
	if len(res.Checks) > 0 {
		secs = res.Checks[0].Elapsed.Seconds()
	}
	return live, plan, secs, nil
}

// merge joins the finished stimuli of w's parts (in order) into one, as
// report reads it: the fill as the first part measured it, and every
// later part's fill counted with the refills.
func (w *Workload) merge(parts []*stim) *stim {
	m := &stim{w: w, n: len(w.Fill) + len(w.Instrs)}
	for p, s := range parts {
		from := len(w.Fill)
		if p == 0 {
			from = 0
		} else {
			m.refills += len(w.Fill)
		}
		m.passes = append(m.passes, s.passes[from:]...)
		m.cycles = append(m.cycles, s.cycles[from:]...)
		m.errors = append(m.errors, s.errors[from:]...)
		m.refills += s.refills
		m.resets += s.resets
		m.rsp += s.rsp - from
	}
	return m
}
