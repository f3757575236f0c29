package units

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/verify"
)

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
	ph                                     *verify.Phaser
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

// readyMaskStimulus drives a warp_ready_mask: random ready and is_mem
// bits, shared-memory and other warps scheduled from small PC pools in
// phases (several PCs per cache set, so that the cache hits, misses and
// replaces; hot PCs with large degrees for long masks; many sets), each
// shared-memory warp's subwarp results returned some cycles later with
// degrees 0..2*simd_width-1, and rare launches and resets.
func readyMaskStimulus(u *specs.WarpReadyMask) verify.StimulusFunc {
	return func(ports []model.Port, seed uint64) (verify.Stimulus, error) {
		return newMaskStim(u, verify.NewPortMap(ports), verify.StimulusRand(seed))
	}
}

func newMaskStim(u *specs.WarpReadyMask, pm *verify.PortMap, r *rand.Rand) (*maskStim, error) {
	W, pcb, db := u.WarpContexts, u.PCBits, u.DegreeBits()
	s := &maskStim{
		r:          r,
		rst:        pm.In(verify.ResetPort, 1),
		launch:     pm.In("launch_i", 1),
		ready:      pm.In("warp_ready_i", W),
		isMem:      pm.In("warp_is_mem_i", W),
		schedValid: pm.In("sched_valid_i", 1),
		schedShmem: pm.In("sched_shmem_i", 1),
		schedPC:    pm.In("sched_pc_i", pcb),
		resValid:   pm.In("res_valid_i", 1),
		resPC:      pm.In("res_pc_i", pcb),
		resDegree:  pm.In("res_degree_i", db),
		maskO:      pm.Out("mask_o", 1),
		w:          W,
		ib:         u.IndexBits(),
		tb:         u.TagBits(),
		sets:       u.HistorySets,
		ways:       max(1, u.HistoryWays),
		subwarps:   max(1, u.Subwarps()),
		simd:       uint64(max(1, u.SIMDWidth)),
		ports:      uint64(max(1, u.ShmemPorts)),
		maxDeg:     verify.Mask(db),
		pcMask:     verify.Mask(pcb),
		ph:         verify.NewPhaser(r, []int{3, 2, 2, 2, 1, 1, 1}),
		pcsUsed:    map[uint64]bool{},
	}
	pm.Out("warp_ready_o", W)
	if pm.Err() != nil {
		return nil, pm.Err()
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
		tag := s.r.Uint64() & verify.Mask(s.tb)
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
	switch s.ph.Phase() {
	case maskMixed:
		s.pool = s.crowd(s.ways + 2)
		for i := verify.Span(s.r, 4, 12); i > 0; i-- {
			s.pool = append(s.pool, s.randomPC())
		}
		if s.r.IntN(2) == 0 {
			s.pool = append(s.pool, 0, s.pcMask)
		}
		s.pSched, s.pShmem = 0.6, 0.5
		s.degMode = s.r.IntN(3)
	case maskThrash:
		s.pool = s.crowd(s.ways + verify.Span(s.r, 1, 3))
		s.pSched, s.pShmem = 0.8, 0.9
	case maskHot:
		s.pool = s.crowd(1)
		if s.r.IntN(2) == 0 {
			s.pool = append(s.pool, s.randomPC())
		}
		s.pSched, s.pShmem, s.degMode = 0.7, 0.7, 2
	case maskLong:
		s.pool = s.crowd(verify.Span(s.r, 1, 3))
		s.pSched, s.pShmem, s.degMode, s.pGap = 1, 1, 2, 0
		s.obey = s.r.IntN(2) == 0 // or reloads C every cycle
	case maskSpread:
		s.pool = nil
		for i := verify.Span(s.r, 32, 64); i > 0; i-- {
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
	if s.ph.Next(func(p int) int {
		if p == maskIdle {
			return verify.Span(s.r, 1, 100)
		}
		return verify.Span(s.r, 200, 3000)
	}) {
		s.setUp()
	}
	if s.rstLeft == 0 && s.r.IntN(5000) == 0 {
		s.rstLeft = verify.Span(s.r, 1, 2)
	}
	if s.rstLeft > 0 {
		s.rstLeft--
		in[s.rst][0] = 1
	}
	if s.r.IntN(4000) == 0 {
		in[s.launch][0] = 1
	}

	// Ready and is_mem bits: random, sometimes all ready and all memory.
	wm := verify.Mask(s.w)
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
	case s.ph.Phase() == maskStray && len(s.queue) == 0 && s.r.IntN(8) == 0:
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
			s.queue = append(s.queue, maskGroup{pc: pc, left: s.subwarps, wait: verify.Span(s.r, 1, 6)})
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
		if s.ph.Seen(i) {
			phases = append(phases, n)
		}
	}
	return fmt.Sprintf("%d shmem warps (%d while masked) over %d PCs in %d sets (%d with more PCs than ways), %d other warps, "+
		"%d subwarp results (%d above simd_width), %d stray groups, mask_o on %d cycles (longest %d), %d launches, %d reset cycles; phases: %s",
		s.shmemScheds, s.masked, len(s.pcsUsed), len(perSet), crowded, s.otherScheds, s.pulses, s.bigDegrees, s.strays,
		s.maskCycles, s.maxMaskRun, s.launches, s.resets, strings.Join(phases, ", "))
}
