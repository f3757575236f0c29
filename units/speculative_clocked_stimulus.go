package units

import (
	"fmt"
	"math/rand/v2"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/verify"
)

// speculativeClockedStimulus drives the variable-latency speculative
// coalescer (ports as model.ForSpeculativeClocked): the directed warps of
// warpVectors back to back, then random warps in phases: monotonic and
// non-monotonic warps mixed back to back; a non-monotonic warp now and
// then in a run of monotonic ones (the monotonic warps after a slow one
// are held back behind it); bubbles of 1 to 4 cycles and now and then up
// to 11, which let the fast path answer again at different distances from
// a slow warp; and resets with warps in flight.
func speculativeClockedStimulus(c *specs.Coalescer) verify.StimulusFunc {
	return func(ports []model.Port, seed uint64) (verify.Stimulus, error) {
		pm := verify.NewPortMap(ports)
		s := &specStim{c: c, r: verify.StimulusRand(seed),
			rst: pm.In(verify.ResetPort, 1), valid: pm.In("valid_i", 1), addr: pm.In("addr_i", c.Lanes*c.AddrBits), active: -1,
			validO: pm.Out("valid_o", 1), fastO: pm.Out("fast_o", 1), monoO: pm.Out("monotonic_o", 1)}
		ins := []*netlist.Port{{Name: "addr_i", Bits: make(netlist.Bus, c.Lanes*c.AddrBits)}}
		if c.ActiveMask {
			s.active = pm.In("active_i", c.Lanes)
			ins = append(ins, &netlist.Port{Name: "active_i", Bits: make(netlist.Bus, c.Lanes)})
		}
		if err := pm.Err(); err != nil {
			return nil, err
		}
		s.directed = warpVectors(c.Lanes, c.AddrBits, c.BlockBits, ins, seed)
		s.ph = verify.NewPhaser(s.r, []int{3, 3, 2, 1})
		return s, nil
	}
}

type specStim struct {
	c                        *specs.Coalescer
	r                        *rand.Rand
	rst, valid, addr, active int
	validO, fastO, monoO     int
	directed                 []verify.Vector
	next                     int
	ph                       *verify.Phaser
	gap                      int // bubbles left in the bubbles phase
	inFlight                 int // warps accepted and not yet answered
	ops, bubbles, resets     int
	fast, slow, heldBack     int
	gapsSeen                 [5]bool
	lastOpCycle, cycle       int
}

// Phases of the random part.
const (
	specMixed = iota
	specRuns
	specBubbles
	specResets
)

func (s *specStim) Next(in [][]uint64) {
	if s.next < len(s.directed) {
		v := s.directed[s.next]
		s.next++
		copy(in[s.addr], v[0])
		if s.active >= 0 {
			copy(in[s.active], v[1])
		}
		in[s.valid][0] = 1
		return
	}
	s.ph.Next(func(int) int { return verify.Span(s.r, 16, 200) })
	mono := true
	switch s.ph.Phase() {
	case specMixed:
		mono = s.r.IntN(3) != 0
		in[s.valid][0] = 1
	case specRuns:
		mono = s.r.IntN(10) != 0
		in[s.valid][0] = 1
	case specBubbles:
		mono = s.r.IntN(4) != 0
		if s.gap > 0 {
			s.gap--
		} else {
			in[s.valid][0] = 1
			s.gap = s.r.IntN(5)
			if s.r.IntN(4) == 0 { // long enough for every pending warp to leave
				s.gap = s.r.IntN(12)
			}
		}
	case specResets:
		mono = s.r.IntN(2) != 0
		if s.r.IntN(4) != 0 {
			in[s.valid][0] = 1
		}
		if s.r.IntN(12) == 0 {
			in[s.rst][0] = 1
		}
	}
	copy(in[s.addr], packWarp(s.warp(mono), s.c.AddrBits))
	if s.active >= 0 {
		m := s.r.Uint64()
		if s.r.IntN(3) == 0 {
			m = ^uint64(0)
		}
		for k := range in[s.active] {
			in[s.active][k] = m
			m = s.r.Uint64()
		}
		if rest := s.c.Lanes % 64; rest != 0 {
			in[s.active][len(in[s.active])-1] &= verify.Mask(rest)
		}
	}
}

// warp makes lane addresses over a few values (so that blocks repeat),
// sorted up or down when mono, else in random order (rarely monotonic).
func (s *specStim) warp(mono bool) []uint64 {
	mask := verify.Mask(s.c.AddrBits)
	pool := make([]uint64, 1+s.r.IntN(6))
	base := s.r.Uint64() & mask
	for i := range pool {
		if s.r.IntN(2) == 0 {
			pool[i] = (base + uint64(s.r.IntN(4))<<uint(s.c.BlockBits) + uint64(s.r.IntN(3))) & mask
		} else {
			pool[i] = s.r.Uint64() & mask
		}
	}
	w := make([]uint64, s.c.Lanes)
	for i := range w {
		w[i] = pool[s.r.IntN(len(pool))]
	}
	if mono {
		sortWarp(w, mask, s.r.IntN(2) == 0)
	}
	return w
}

func (s *specStim) Observe(in, out [][]uint64) {
	defer func() { s.cycle++ }()
	if out[s.validO][0]&1 == 1 {
		s.inFlight--
		if out[s.fastO][0]&1 == 1 {
			s.fast++
		} else {
			s.slow++
			if out[s.monoO][0]&1 == 1 {
				s.heldBack++
			}
		}
	}
	switch {
	case in[s.rst][0]&1 == 1:
		if s.inFlight > 0 || in[s.valid][0]&1 == 1 {
			s.resets++
		}
		s.inFlight = 0
	case in[s.valid][0]&1 == 1:
		s.ops++
		s.inFlight++
		if g := s.cycle - s.lastOpCycle - 1; g > 0 && g < len(s.gapsSeen) {
			s.gapsSeen[g] = true
		}
		s.lastOpCycle = s.cycle
	default:
		s.bubbles++
	}
}

func (s *specStim) Coverage() string {
	gaps := 0
	for _, g := range s.gapsSeen {
		if g {
			gaps++
		}
	}
	return fmt.Sprintf("%d warps (%d directed): %d answered fast, %d slow of which %d monotonic held behind a slow one; %d bubbles (gaps of 1..%d cycles: %d lengths), %d resets with warps in flight",
		s.ops, min(s.next, len(s.directed)), s.fast, s.slow, s.heldBack, s.bubbles, len(s.gapsSeen)-1, gaps, s.resets)
}
