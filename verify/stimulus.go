package verify

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/specs"
)

// Stimulus makes the input stream of a sequential run one cycle at a time.
// It sees the model's outputs of every cycle, so that the stream can follow
// the unit's protocol (re-offer an instruction the unit stalled, return
// the results of the warps it scheduled).
type Stimulus interface {
	// Next writes the next cycle's inputs into in, indexed like the
	// model's input ports; the caller has zeroed every word. Bits above a
	// port's width are ignored.
	Next(in [][]uint64)
	// Observe reports what the cycle had: its inputs as applied (the
	// harness may have forced rst = 1) and the model's outputs.
	Observe(in, out [][]uint64)
	// Coverage describes the stream so far in one line.
	Coverage() string
}

// NewStimulus returns the stimulus for unit u over ports, the inputs and
// then the outputs of its sequential model (model.Sequential.Ports):
//
//   - *specs.ElasticPipeline: random instruction streams in phases (mixed,
//     shared-memory bursts, alu floods, alternating, conflict-free, sparse,
//     idle) that re-offer an instruction while stall_o is 1, with every
//     kind (3 included) and conflict degrees 0..2*simd_width-1, and rare
//     resets;
//   - *specs.WarpReadyMask: random ready and is_mem bits, shared-memory
//     and other warps scheduled from small PC pools in phases (several PCs
//     per cache set, so that the cache hits, misses and replaces; hot PCs
//     with large degrees for long masks; many sets), each shared-memory
//     warp's subwarp results returned some cycles later with degrees
//     0..2*simd_width-1, and rare launches and resets;
//   - any other unit (or nil): random inputs in phases of different bit
//     densities, with rst = 1 in about one cycle of 300.
//
// The stream depends only on seed and the model's outputs. The ports must
// be the ones the unit's interface documents, or NewStimulus fails.
func NewStimulus(u specs.Unit, ports []model.Port, seed uint64) (Stimulus, error) {
	r := rand.New(rand.NewPCG(seed, 0x73657175656e6365))
	pm := newPortMap(ports)
	switch u := u.(type) {
	case *specs.ElasticPipeline:
		if u != nil {
			return newPipeStim(u, pm, r)
		}
	case *specs.WarpReadyMask:
		if u != nil {
			return newMaskStim(u, pm, r)
		}
	}
	return newRandomStim(pm, r), nil
}

// portMap finds ports by name and checks their widths.
type portMap struct {
	ins, outs []model.Port
	err       error
}

func newPortMap(ports []model.Port) *portMap {
	pm := &portMap{}
	for _, p := range ports {
		if p.Output {
			pm.outs = append(pm.outs, p)
		} else {
			pm.ins = append(pm.ins, p)
		}
	}
	return pm
}

func (pm *portMap) find(list []model.Port, dir, name string, width int) int {
	for i, p := range list {
		if p.Name == name {
			if p.Width != width && pm.err == nil {
				pm.err = fmt.Errorf("stimulus: %s %s is %d bits wide, want %d", dir, name, p.Width, width)
			}
			return i
		}
	}
	if pm.err == nil {
		pm.err = fmt.Errorf("stimulus: no %s %s", dir, name)
	}
	return 0
}

// in is the index of input name, which must be width bits wide; out the
// same for an output. A missing port or a wrong width is remembered in err.
func (pm *portMap) in(name string, width int) int  { return pm.find(pm.ins, "input", name, width) }
func (pm *portMap) out(name string, width int) int { return pm.find(pm.outs, "output", name, width) }

// mask is a value of w bits, all ones (w <= 64).
func mask(w int) uint64 {
	if w >= 64 {
		return ^uint64(0)
	}
	return 1<<uint(w) - 1
}

// phaser picks weighted phases of random length.
type phaser struct {
	r       *rand.Rand
	weights []int
	left    int
	cur     int
	seen    uint64 // phases entered, one bit each
}

// next advances one cycle and reports whether a new phase began, which
// the caller then sets up (it may change left).
func (p *phaser) next(length func(phase int) int) bool {
	if p.left > 0 {
		p.left--
		return false
	}
	total := 0
	for _, w := range p.weights {
		total += w
	}
	x := p.r.IntN(total)
	for i, w := range p.weights {
		if x < w {
			p.cur = i
			break
		}
		x -= w
	}
	p.seen |= 1 << uint(p.cur)
	p.left = length(p.cur) - 1
	return true
}

func (p *phaser) count() int {
	n := 0
	for s := p.seen; s != 0; s &= s - 1 {
		n++
	}
	return n
}

// span is a random length in lo..hi.
func span(r *rand.Rand, lo, hi int) int { return lo + r.IntN(hi-lo+1) }

// ---------------------------------------------------------------------------
// Any unit: random inputs.

type randomStim struct {
	r      *rand.Rand
	widths []int
	rst    int // index of rst, -1 when there is none
	ph     phaser
	resets int
}

// randomDensities are the phases' probabilities of a 1 bit.
var randomDensities = []float64{0.5, 0.1, 0.9, 0.02, 0.98}

func newRandomStim(pm *portMap, r *rand.Rand) *randomStim {
	s := &randomStim{r: r, rst: -1, ph: phaser{r: r, weights: []int{4, 1, 1, 1, 1}}}
	for i, p := range pm.ins {
		s.widths = append(s.widths, p.Width)
		if p.Name == ResetPort {
			s.rst = i
		}
	}
	return s
}

func (s *randomStim) Next(in [][]uint64) {
	s.ph.next(func(int) int { return span(s.r, 16, 2048) })
	density := randomDensities[s.ph.cur]
	for j, w := range s.widths {
		if j == s.rst {
			if s.r.IntN(300) == 0 {
				in[j][0] = 1
			}
			continue
		}
		for k := range in[j] {
			if density == 0.5 {
				in[j][k] = s.r.Uint64()
				continue
			}
			for b := 0; b < min(64, w-64*k); b++ {
				if s.r.Float64() < density {
					in[j][k] |= 1 << uint(b)
				}
			}
		}
	}
}

func (s *randomStim) Observe(in, out [][]uint64) {
	if s.rst >= 0 && in[s.rst][0]&1 == 1 {
		s.resets++
	}
}

func (s *randomStim) Coverage() string {
	return fmt.Sprintf("random inputs in %d densities, %d reset cycles", s.ph.count(), s.resets)
}

// ---------------------------------------------------------------------------
// Elastic pipeline: instruction streams that follow the stall protocol.

// Instruction kinds on in_kind_i.
const (
	kindALU   = 0
	kindShmem = 1
	kindMem   = 2
	kindMem3  = 3 // reserved; behaves as kindMem
)

const (
	pipeMixed = iota
	pipeShmemBurst
	pipeALUFlood
	pipeAlternate
	pipeNoConflict
	pipeSparse
	pipeIdle
)

type pipeInstr struct{ kind, degree, tag uint64 }

type pipeStim struct {
	r                                *rand.Rand
	rst, valid, kind, degree, tag    int // inputs
	stall, wbValid                   int // outputs
	simd, ports, maxDeg, tagMask     uint64
	nextTag                          uint64
	pending                          bool // the last offer stalled: offer it again
	offered                          pipeInstr
	offering                         bool
	alt                              bool
	rstLeft                          int // cycles of reset still to apply
	ph                               phaser
	accepted                         [4]int // by kind
	deg0, degHigh                    int    // accepted shmem: degree 0, above simd_width
	stalls, stallRun, maxStall, wbs  int
	resets                           int
	shmemRun                         int // back-to-back shmem offers
	maxShmemRun, idleRun, maxIdleRun int
}

func newPipeStim(u *specs.ElasticPipeline, pm *portMap, r *rand.Rand) (*pipeStim, error) {
	db, t := u.DegreeBits(), u.TagBits
	s := &pipeStim{
		r:       r,
		rst:     pm.in(ResetPort, 1),
		valid:   pm.in("in_valid_i", 1),
		kind:    pm.in("in_kind_i", 2),
		degree:  pm.in("in_degree_i", db),
		tag:     pm.in("in_tag_i", t),
		stall:   pm.out("stall_o", 1),
		wbValid: pm.out("wb_valid_o", 1),
		simd:    uint64(u.SIMDWidth),
		ports:   uint64(max(1, u.ShmemPorts)),
		maxDeg:  mask(db),
		tagMask: mask(t),
		ph:      phaser{r: r, weights: []int{3, 2, 2, 1, 1, 1, 2}},
	}
	pm.out("wb_tag_o", t)
	if pm.err != nil {
		return nil, pm.err
	}
	if s.simd < 1 {
		return nil, fmt.Errorf("stimulus: %s: simd_width %d", u.Name, u.SIMDWidth)
	}
	return s, nil
}

// pValid is the chance of a new instruction in a cycle of each phase.
var pipePValid = [...]float64{pipeMixed: 0.7, pipeShmemBurst: 0.95, pipeALUFlood: 0.95, pipeAlternate: 1,
	pipeNoConflict: 0.9, pipeSparse: 0.15, pipeIdle: 0}

var pipePhaseNames = [...]string{"mixed", "shmem bursts", "alu floods", "alternating", "conflict-free", "sparse", "idle"}

// shmemDegree draws a conflict degree: 0, 1..simd_width, simd_width, or
// above simd_width (up to 2*simd_width-1, what the port holds).
func (s *pipeStim) shmemDegree(high bool) uint64 {
	x := s.r.IntN(100)
	if high {
		x = 60 + s.r.IntN(40)
	}
	switch {
	case x < 8:
		return 0
	case x < 60:
		return 1 + s.r.Uint64N(s.simd)
	case x < 80:
		return s.simd - s.r.Uint64N((s.simd+1)/2) // the upper half
	case x < 88:
		return s.simd
	case s.maxDeg > s.simd && x < 96:
		return s.simd + 1 + s.r.Uint64N(s.maxDeg-s.simd)
	default:
		return s.maxDeg
	}
}

func (s *pipeStim) newInstr() pipeInstr {
	pick := func(alu, shmem, mem, mem3 int) uint64 {
		x := s.r.IntN(alu + shmem + mem + mem3)
		switch {
		case x < alu:
			return kindALU
		case x < alu+shmem:
			return kindShmem
		case x < alu+shmem+mem:
			return kindMem
		}
		return kindMem3
	}
	in := pipeInstr{tag: s.nextTag & s.tagMask, degree: s.r.Uint64() & s.maxDeg}
	if s.r.IntN(16) == 0 {
		in.tag = s.r.Uint64() & s.tagMask
	}
	s.nextTag++
	high := false
	switch s.ph.cur {
	case pipeMixed, pipeSparse:
		in.kind = pick(40, 35, 20, 5)
	case pipeShmemBurst:
		in.kind, high = pick(5, 90, 4, 1), true
	case pipeALUFlood:
		in.kind = pick(65, 10, 20, 5)
	case pipeAlternate:
		s.alt = !s.alt
		in.kind, high = kindALU, true
		if s.alt {
			in.kind = kindShmem
		}
	case pipeNoConflict:
		in.kind = pick(30, 40, 25, 5)
		if in.kind == kindShmem {
			in.degree = s.r.Uint64N(s.ports + 1) // one MEM0 cycle
			return in
		}
	}
	if in.kind == kindShmem {
		in.degree = s.shmemDegree(high)
	}
	return in
}

func (s *pipeStim) Next(in [][]uint64) {
	if s.ph.next(func(p int) int {
		switch p {
		case pipeIdle:
			return span(s.r, 1, 40)
		case pipeSparse:
			return span(s.r, 50, 500)
		}
		return span(s.r, 100, 2000)
	}) && s.ph.cur == pipeAlternate {
		s.alt = false
	}
	if s.rstLeft == 0 && s.r.IntN(3000) == 0 {
		s.rstLeft = span(s.r, 1, 3)
	}
	if s.rstLeft > 0 {
		s.rstLeft--
		in[s.rst][0] = 1
	}
	s.offering = false
	switch {
	case s.pending:
		s.offering = true
	case s.r.Float64() < pipePValid[s.ph.cur]:
		s.offered, s.offering = s.newInstr(), true
	}
	if s.offering {
		in[s.valid][0] = 1
		in[s.kind][0] = s.offered.kind
		in[s.degree][0] = s.offered.degree
		in[s.tag][0] = s.offered.tag
		return
	}
	if s.r.IntN(2) == 0 { // junk beside in_valid_i = 0
		in[s.kind][0] = s.r.Uint64()
		in[s.degree][0] = s.r.Uint64()
		in[s.tag][0] = s.r.Uint64()
	}
}

func (s *pipeStim) Observe(in, out [][]uint64) {
	if out[s.wbValid][0]&1 == 1 {
		s.wbs++
	}
	valid := in[s.valid][0]&1 == 1
	if valid {
		s.idleRun = 0
		if in[s.kind][0]&3 == kindShmem {
			s.shmemRun++
			s.maxShmemRun = max(s.maxShmemRun, s.shmemRun)
		} else {
			s.shmemRun = 0
		}
	} else {
		s.shmemRun = 0
		s.idleRun++
		s.maxIdleRun = max(s.maxIdleRun, s.idleRun)
	}
	if in[s.rst][0]&1 == 1 {
		// The reset flushes the unit; EXE drops what it offered.
		s.resets++
		s.pending, s.stallRun = false, 0
		return
	}
	switch {
	case !valid:
		s.stallRun = 0
	case out[s.stall][0]&1 == 1:
		s.pending = true
		s.stalls++
		s.stallRun++
		s.maxStall = max(s.maxStall, s.stallRun)
	default:
		s.pending, s.stallRun = false, 0
		k := s.offered.kind
		s.accepted[k]++
		if k == kindShmem {
			switch d := s.offered.degree; {
			case d == 0:
				s.deg0++
			case d > s.simd:
				s.degHigh++
			}
		}
	}
}

func (s *pipeStim) Coverage() string {
	var phases []string
	for i, n := range pipePhaseNames {
		if s.ph.seen>>uint(i)&1 == 1 {
			phases = append(phases, n)
		}
	}
	return fmt.Sprintf("%d instructions accepted (alu %d, shmem %d with %d of degree 0 and %d above simd_width, mem %d, kind 3 %d), "+
		"%d stall cycles (longest %d), %d writebacks, longest shmem run %d, longest idle gap %d, %d reset cycles; phases: %s",
		s.accepted[0]+s.accepted[1]+s.accepted[2]+s.accepted[3], s.accepted[kindALU], s.accepted[kindShmem], s.deg0, s.degHigh,
		s.accepted[kindMem], s.accepted[kindMem3], s.stalls, s.maxStall, s.wbs, s.maxShmemRun, s.maxIdleRun, s.resets,
		strings.Join(phases, ", "))
}

// ---------------------------------------------------------------------------
// Warp ready mask: schedules and subwarp results over small PC pools.

const (
	maskMixed = iota
	maskThrash
	maskHot
	maskLong
	maskSpread
	maskStray
	maskIdle
)

var maskPhaseNames = [...]string{"mixed", "one crowded set", "hot PCs", "long masks", "many sets", "stray results", "idle"}

// maskGroup is a scheduled shared-memory warp whose subwarp results are
// still to come: left pulses after wait more cycles.
type maskGroup struct {
	pc         uint64
	left, wait int
}

type maskStim struct {
	r                                      *rand.Rand
	rst, launch, ready, isMem              int // inputs
	schedValid, schedShmem, schedPC        int
	resValid, resPC, resDegree             int
	maskO                                  int // output
	w, ib, tb                              int
	sets, ways, subwarps                   int
	simd, ports, maxDeg, pcMask            uint64
	pool                                   []uint64
	queue                                  []maskGroup
	ph                                     phaser
	obey                                   bool // schedule shared-memory warps only while the last mask_o was 0
	lastMask, lastShmem                    bool // the last cycle's mask_o, and whether it scheduled a shmem warp
	degMode                                int  // 0 mixed, 1 low (one port cycle), 2 high
	pSched, pShmem, pGap                   float64
	rstLeft                                int
	shmemScheds, otherScheds, pulses       int
	launches, resets, maskCycles, maskRun  int
	maxMaskRun, strays, masked, bigDegrees int
	pcsUsed                                map[uint64]bool
}

func newMaskStim(u *specs.WarpReadyMask, pm *portMap, r *rand.Rand) (*maskStim, error) {
	W, pcb, db := u.WarpContexts, u.PCBits, u.DegreeBits()
	s := &maskStim{
		r:          r,
		rst:        pm.in(ResetPort, 1),
		launch:     pm.in("launch_i", 1),
		ready:      pm.in("warp_ready_i", W),
		isMem:      pm.in("warp_is_mem_i", W),
		schedValid: pm.in("sched_valid_i", 1),
		schedShmem: pm.in("sched_shmem_i", 1),
		schedPC:    pm.in("sched_pc_i", pcb),
		resValid:   pm.in("res_valid_i", 1),
		resPC:      pm.in("res_pc_i", pcb),
		resDegree:  pm.in("res_degree_i", db),
		maskO:      pm.out("mask_o", 1),
		w:          W,
		ib:         u.IndexBits(),
		tb:         u.TagBits(),
		sets:       u.HistorySets,
		ways:       max(1, u.HistoryWays),
		subwarps:   max(1, u.Subwarps()),
		simd:       uint64(max(1, u.SIMDWidth)),
		ports:      uint64(max(1, u.ShmemPorts)),
		maxDeg:     mask(db),
		pcMask:     mask(pcb),
		ph:         phaser{r: r, weights: []int{3, 2, 2, 2, 1, 1, 1}},
		pcsUsed:    map[uint64]bool{},
	}
	pm.out("warp_ready_o", W)
	if pm.err != nil {
		return nil, pm.err
	}
	if s.sets < 1 || s.ib+s.tb != pcb {
		return nil, fmt.Errorf("stimulus: %s: %d history sets and %d-bit PCs", u.Name, u.HistorySets, pcb)
	}
	return s, nil
}

// pc is the PC of tag in set.
func (s *maskStim) pc(tag, set uint64) uint64 { return (tag<<uint(s.ib) | set) & s.pcMask }

func (s *maskStim) randomPC() uint64 { return s.r.Uint64() & s.pcMask }

// crowd returns n PCs of one random set with distinct tags (fewer when the
// tag bits do not allow n).
func (s *maskStim) crowd(n int) []uint64 {
	set := s.r.Uint64N(uint64(s.sets))
	if s.tb < 20 {
		n = min(n, 1<<uint(s.tb))
	}
	seen := map[uint64]bool{}
	var pcs []uint64
	for len(pcs) < n {
		tag := s.r.Uint64() & mask(s.tb)
		if s.tb == 0 {
			tag = 0
		}
		if !seen[tag] {
			seen[tag] = true
			pcs = append(pcs, s.pc(tag, set))
		}
	}
	return pcs
}

// setUp draws the new phase's PC pool and rates.
func (s *maskStim) setUp() {
	s.obey = s.r.IntN(4) != 0 // a scheduler that honours the mask, mostly
	s.degMode = 0
	s.pGap = 0.1
	switch s.ph.cur {
	case maskMixed:
		s.pool = s.crowd(s.ways + 2)
		for i := span(s.r, 4, 12); i > 0; i-- {
			s.pool = append(s.pool, s.randomPC())
		}
		if s.r.IntN(2) == 0 {
			s.pool = append(s.pool, 0, s.pcMask)
		}
		s.pSched, s.pShmem = 0.6, 0.5
		s.degMode = s.r.IntN(3)
	case maskThrash:
		s.pool = s.crowd(s.ways + span(s.r, 1, 3))
		s.pSched, s.pShmem = 0.8, 0.9
	case maskHot:
		s.pool = s.crowd(1)
		if s.r.IntN(2) == 0 {
			s.pool = append(s.pool, s.randomPC())
		}
		s.pSched, s.pShmem, s.degMode = 0.7, 0.7, 2
	case maskLong:
		s.pool = s.crowd(span(s.r, 1, 3))
		s.pSched, s.pShmem, s.degMode, s.pGap = 1, 1, 2, 0
		s.obey = s.r.IntN(2) == 0 // or reloads C every cycle
	case maskSpread:
		s.pool = nil
		for i := span(s.r, 32, 64); i > 0; i-- {
			s.pool = append(s.pool, s.randomPC())
		}
		s.pSched, s.pShmem = 0.5, 0.5
	case maskStray:
		s.pool = s.crowd(s.ways + 1)
		s.pSched, s.pShmem, s.pGap = 0.3, 0.3, 0.3
	case maskIdle:
		s.pSched = 0
	}
}

// degree draws one subwarp's conflict degree: in mode 1 at most the port
// count (one cycle), in mode 2 mostly the upper half up to simd_width, else
// anything up to simd_width; one in five (mode 2) or eight is drawn from
// 0..2*simd_width-1, out of range above simd_width.
func (s *maskStim) degree() uint64 {
	switch s.degMode {
	case 1:
		return s.r.Uint64N(s.ports + 1)
	case 2:
		switch s.r.IntN(10) {
		case 0:
			return s.maxDeg
		case 1:
			return s.r.Uint64N(s.maxDeg + 1)
		}
		return s.simd/2 + s.r.Uint64N(s.simd-s.simd/2+1)
	}
	if s.r.IntN(8) == 0 {
		return s.r.Uint64N(s.maxDeg + 1)
	}
	return s.r.Uint64N(s.simd + 1)
}

func (s *maskStim) Next(in [][]uint64) {
	if s.ph.next(func(p int) int {
		if p == maskIdle {
			return span(s.r, 1, 100)
		}
		return span(s.r, 200, 3000)
	}) {
		s.setUp()
	}
	if s.rstLeft == 0 && s.r.IntN(5000) == 0 {
		s.rstLeft = span(s.r, 1, 2)
	}
	if s.rstLeft > 0 {
		s.rstLeft--
		in[s.rst][0] = 1
	}
	if s.r.IntN(4000) == 0 {
		in[s.launch][0] = 1
	}

	// Ready and is_mem bits: random, sometimes all ready and all memory.
	wm := mask(s.w)
	switch x := s.r.IntN(16); {
	case x == 0:
		in[s.ready][0], in[s.isMem][0] = wm, wm
	case x == 1:
		in[s.ready][0], in[s.isMem][0] = wm, s.r.Uint64()
	case x == 2:
		in[s.ready][0], in[s.isMem][0] = s.r.Uint64()&s.r.Uint64(), 0
	default:
		in[s.ready][0], in[s.isMem][0] = s.r.Uint64(), s.r.Uint64()
	}

	// A warp scheduled, or junk beside sched_valid_i = 0.
	if len(s.pool) > 0 && s.r.Float64() < s.pSched {
		in[s.schedValid][0] = 1
		// mask_o of this cycle is known only afterwards: an obedient
		// scheduler goes by the last cycle's, and by whether it has just
		// scheduled a shared-memory warp (which loads the counter).
		shmem := s.r.Float64() < s.pShmem && len(s.queue) < 32 && !(s.obey && (s.lastMask || s.lastShmem))
		if shmem {
			in[s.schedShmem][0] = 1
		}
		in[s.schedPC][0] = s.pool[s.r.IntN(len(s.pool))]
		if !shmem && s.r.IntN(4) == 0 {
			in[s.schedPC][0] = s.randomPC()
		}
	} else if s.r.IntN(2) == 0 {
		in[s.schedShmem][0] = s.r.Uint64()
		in[s.schedPC][0] = s.r.Uint64()
	}

	// A subwarp result of the oldest scheduled warp whose results are due,
	// a stray result, or junk beside res_valid_i = 0.
	for i := range s.queue {
		s.queue[i].wait--
	}
	switch {
	case len(s.queue) > 0 && s.queue[0].wait <= 0 && s.r.Float64() >= s.pGap:
		in[s.resValid][0] = 1
		in[s.resPC][0] = s.queue[0].pc
		in[s.resDegree][0] = s.degree()
	case s.ph.cur == maskStray && len(s.queue) == 0 && s.r.IntN(8) == 0:
		// Results of a warp that was never scheduled here: a whole group
		// with a random PC, or rarely a single pulse, which shifts the
		// subwarp count of the groups after it.
		n := s.subwarps
		if s.r.IntN(16) == 0 {
			n = 1
		}
		s.queue = append(s.queue, maskGroup{pc: s.randomPC(), left: n})
		s.strays++
	case s.r.IntN(2) == 0:
		in[s.resPC][0] = s.r.Uint64()
		in[s.resDegree][0] = s.r.Uint64()
	}
}

func (s *maskStim) Observe(in, out [][]uint64) {
	m := out[s.maskO][0]&1 == 1
	s.lastMask = m
	s.lastShmem = in[s.schedValid][0]&in[s.schedShmem][0]&1 == 1 && in[s.rst][0]&1 == 0 && in[s.launch][0]&1 == 0
	if m {
		s.maskCycles++
		s.maskRun++
		s.maxMaskRun = max(s.maxMaskRun, s.maskRun)
	} else {
		s.maskRun = 0
	}
	if in[s.rst][0]&1 == 1 || in[s.launch][0]&1 == 1 {
		if in[s.rst][0]&1 == 1 {
			s.resets++
		} else {
			s.launches++
		}
		// A reset or a kernel launch: no warp is in flight.
		s.queue = s.queue[:0]
		return
	}
	if in[s.resValid][0]&1 == 1 && len(s.queue) > 0 && in[s.resPC][0]&s.pcMask == s.queue[0].pc {
		s.pulses++
		if in[s.resDegree][0]&s.maxDeg > s.simd {
			s.bigDegrees++
		}
		if s.queue[0].left--; s.queue[0].left == 0 {
			s.queue = s.queue[1:]
		}
	}
	if in[s.schedValid][0]&1 == 1 {
		if in[s.schedShmem][0]&1 == 1 {
			pc := in[s.schedPC][0] & s.pcMask
			s.shmemScheds++
			s.pcsUsed[pc] = true
			s.queue = append(s.queue, maskGroup{pc: pc, left: s.subwarps, wait: span(s.r, 1, 6)})
			if m {
				s.masked++
			}
		} else {
			s.otherScheds++
		}
	}
}

func (s *maskStim) Coverage() string {
	perSet := map[uint64]int{}
	for pc := range s.pcsUsed {
		perSet[pc&uint64(s.sets-1)]++
	}
	crowded := 0
	for _, n := range perSet {
		if n > s.ways {
			crowded++
		}
	}
	var phases []string
	for i, n := range maskPhaseNames {
		if s.ph.seen>>uint(i)&1 == 1 {
			phases = append(phases, n)
		}
	}
	return fmt.Sprintf("%d shmem warps (%d while masked) over %d PCs in %d sets (%d with more PCs than ways), %d other warps, "+
		"%d subwarp results (%d above simd_width), %d stray groups, mask_o on %d cycles (longest %d), %d launches, %d reset cycles; phases: %s",
		s.shmemScheds, s.masked, len(s.pcsUsed), len(perSet), crowded, s.otherScheds, s.pulses, s.bigDegrees, s.strays,
		s.maskCycles, s.maxMaskRun, s.launches, s.resets, strings.Join(phases, ", "))
}
