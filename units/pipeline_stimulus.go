package units

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/verify"
)

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

type pipeInstr struct {
	kind, degree, tag uint64
	// With an arbiter: the offer's addresses and lanes, whose degree is
	// degree (see warpOfDegree).
	addrs  []uint64
	active uint64
}

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
	ph                               *verify.Phaser
	accepted                         [4]int // by kind
	deg0, degHigh                    int    // accepted shmem: degree 0, above simd_width
	stalls, stallRun, maxStall, wbs  int
	resets                           int
	shmemRun                         int // back-to-back shmem offers
	maxShmemRun, idleRun, maxIdleRun int

	// With an arbiter (elastic_pipeline arbiter = ...): the offer's
	// addresses and lanes replace in_degree_i.
	arb          *arbGen
	arbBroadcast bool
	addr, active int
}

// pipelineStimulus drives an elastic_pipeline: random instruction streams
// in phases (mixed, shared-memory bursts, alu floods, alternating,
// conflict-free, sparse, idle) that re-offer an instruction while stall_o
// is 1, with every kind (3 included) and conflict degrees
// 0..2*simd_width-1, and rare resets.
func pipelineStimulus(u *specs.ElasticPipeline) verify.StimulusFunc {
	return func(ports []model.Port, seed uint64) (verify.Stimulus, error) {
		return newPipeStim(u, verify.NewPortMap(ports), verify.StimulusRand(seed))
	}
}

func newPipeStim(u *specs.ElasticPipeline, pm *verify.PortMap, r *rand.Rand) (*pipeStim, error) {
	db, t := u.DegreeBits(), u.TagBits
	s := &pipeStim{
		r:       r,
		rst:     pm.In(verify.ResetPort, 1),
		valid:   pm.In("in_valid_i", 1),
		kind:    pm.In("in_kind_i", 2),
		degree:  -1,
		tag:     pm.In("in_tag_i", t),
		stall:   pm.Out("stall_o", 1),
		wbValid: pm.Out("wb_valid_o", 1),
		simd:    uint64(u.SIMDWidth),
		ports:   uint64(max(1, u.ShmemPorts)),
		maxDeg:  verify.Mask(db),
		tagMask: verify.Mask(t),
		ph:      verify.NewPhaser(r, []int{3, 2, 2, 1, 1, 1, 2}),
	}
	if a := u.BankArbiter(); a != nil {
		gen, err := newArbGen(a, r)
		if err != nil {
			return nil, err
		}
		s.arb, s.arbBroadcast = gen, a.Broadcast
		s.addr = pm.In("in_addr_i", a.Lanes*a.AddrBits)
		s.active = pm.In("in_active_i", a.Lanes)
		s.maxDeg = uint64(a.Lanes) // what an arbiter can give
	} else {
		s.degree = pm.In("in_degree_i", db)
	}
	pm.Out("wb_tag_o", t)
	if pm.Err() != nil {
		return nil, pm.Err()
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
	switch s.ph.Phase() {
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
	if s.ph.Next(func(p int) int {
		switch p {
		case pipeIdle:
			return verify.Span(s.r, 1, 40)
		case pipeSparse:
			return verify.Span(s.r, 50, 500)
		}
		return verify.Span(s.r, 100, 2000)
	}) && s.ph.Phase() == pipeAlternate {
		s.alt = false
	}
	if s.rstLeft == 0 && s.r.IntN(3000) == 0 {
		s.rstLeft = verify.Span(s.r, 1, 3)
	}
	if s.rstLeft > 0 {
		s.rstLeft--
		in[s.rst][0] = 1
	}
	s.offering = false
	switch {
	case s.pending:
		s.offering = true
	case s.r.Float64() < pipePValid[s.ph.Phase()]:
		s.offered, s.offering = s.newInstr(), true
		s.warpOfDegree(&s.offered)
	}
	if s.offering {
		in[s.valid][0] = 1
		in[s.kind][0] = s.offered.kind
		s.putDegree(in, s.offered)
		in[s.tag][0] = s.offered.tag
		return
	}
	if s.r.IntN(2) == 0 { // junk beside in_valid_i = 0
		in[s.kind][0] = s.r.Uint64()
		junk := pipeInstr{degree: s.r.Uint64() & s.maxDeg}
		s.warpOfDegree(&junk)
		s.putDegree(in, junk)
		in[s.tag][0] = s.r.Uint64()
	}
}

// putDegree drives the offer's degree: in_degree_i, or with an arbiter
// the addresses and lanes that have it.
func (s *pipeStim) putDegree(in [][]uint64, x pipeInstr) {
	if s.arb == nil {
		in[s.degree][0] = x.degree
		return
	}
	arbPutLanes(in[s.addr], x.addrs, s.arb.addrBits)
	in[s.active][0] = x.active
}

// warpOfDegree gives an offer for an arbiter addresses and lanes of its
// degree: degree distinct addresses in one bank on lanes drawn at random,
// and with broadcast other active lanes repeating them (which adds
// nothing); 0 is no active lane. Nothing without an arbiter.
func (s *pipeStim) warpOfDegree(x *pipeInstr) {
	g := s.arb
	if g == nil {
		return
	}
	d := int(min(x.degree, uint64(g.lanes)))
	x.degree = uint64(d)
	x.addrs = g.randomAddrs()
	x.active = 0
	if d == 0 {
		return
	}
	same := g.sameKey(g.r.Uint64(), nil, d, false)
	lanes := g.r.Perm(g.lanes)
	for i, a := range same {
		x.addrs[lanes[i]] = a
		x.active |= 1 << uint(lanes[i])
	}
	for _, k := range lanes[len(same):] {
		if s.arbBroadcast && g.r.IntN(3) == 0 {
			x.addrs[k] = same[g.r.IntN(len(same))]
			x.active |= 1 << uint(k)
		}
	}
	x.degree = uint64(len(same))
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
		if s.ph.Seen(i) {
			phases = append(phases, n)
		}
	}
	return fmt.Sprintf("%d instructions accepted (alu %d, shmem %d with %d of degree 0 and %d above simd_width, mem %d, kind 3 %d), "+
		"%d stall cycles (longest %d), %d writebacks, longest shmem run %d, longest idle gap %d, %d reset cycles; phases: %s",
		s.accepted[0]+s.accepted[1]+s.accepted[2]+s.accepted[3], s.accepted[kindALU], s.accepted[kindShmem], s.deg0, s.degHigh,
		s.accepted[kindMem], s.accepted[kindMem3], s.stalls, s.maxStall, s.wbs, s.maxShmemRun, s.maxIdleRun, s.resets,
		strings.Join(phases, ", "))
}
