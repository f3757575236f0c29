package units

import (
	"fmt"
	"math/rand/v2"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/verify"
)

// pipelinedStimulus drives a unit pipelined at clock_fo4 (ports rst,
// valid_i, then the function's inputs): the family's directed vectors
// back to back, then random operations in phases of back-to-back issue,
// bubbles (valid_i = 0 with random inputs, which must not reach the
// outputs) and resets with operations in flight.
func pipelinedStimulus(directed verify.DirectedFunc, ins []*netlist.Port, latency int) verify.StimulusFunc {
	return func(ports []model.Port, seed uint64) (verify.Stimulus, error) {
		pm := verify.NewPortMap(ports)
		s := &clockedStim{latency: latency, lastOp: -1 << 30, r: verify.StimulusRand(seed), rst: pm.In(verify.ResetPort, 1), valid: pm.In("valid_i", 1)}
		for _, p := range ins {
			s.fn = append(s.fn, pm.In(p.Name, p.Width()))
			s.widths = append(s.widths, p.Width())
		}
		if err := pm.Err(); err != nil {
			return nil, err
		}
		if directed != nil {
			s.directed = directed(ins, seed)
		}
		s.ph = verify.NewPhaser(s.r, []int{3, 2, 1})
		return s, nil
	}
}

type clockedStim struct {
	r          *rand.Rand
	rst, valid int
	fn         []int // the function's inputs among the model's
	widths     []int
	directed   []verify.Vector
	next       int // the next directed vector
	ph         *verify.Phaser

	latency, cycle, lastOp     int // an operation issued less than latency cycles ago is in flight
	ops, bubbles, flightResets int
}

// Phases of the random part.
const (
	phaseBackToBack = iota
	phaseBubbles
	phaseResets
)

func (s *clockedStim) Next(in [][]uint64) {
	if s.next < len(s.directed) {
		v := s.directed[s.next]
		s.next++
		for j, idx := range s.fn {
			copy(in[idx], v[j])
		}
		in[s.valid][0] = 1
		return
	}
	s.ph.Next(func(int) int { return verify.Span(s.r, 8, 256) })
	for j, idx := range s.fn {
		for k := range in[idx] {
			in[idx][k] = s.r.Uint64()
			if rest := s.widths[j] - 64*k; rest < 64 {
				in[idx][k] &= verify.Mask(rest)
			}
		}
	}
	switch s.ph.Phase() {
	case phaseBackToBack:
		in[s.valid][0] = 1
	case phaseBubbles:
		if s.r.IntN(3) != 0 {
			in[s.valid][0] = 1
		}
	case phaseResets:
		in[s.valid][0] = uint64(s.r.IntN(2))
		if s.r.IntN(16) == 0 {
			in[s.rst][0] = 1
		}
	}
}

func (s *clockedStim) Observe(in, out [][]uint64) {
	defer func() { s.cycle++ }()
	switch {
	case in[s.rst][0]&1 == 1:
		if s.cycle-s.lastOp < s.latency || in[s.valid][0]&1 == 1 {
			s.flightResets++
		}
		s.lastOp = -1 << 30
	case in[s.valid][0]&1 == 1:
		s.ops++
		s.lastOp = s.cycle
	default:
		s.bubbles++
	}
}

func (s *clockedStim) Coverage() string {
	return fmt.Sprintf("%d directed and %d random operations, %d bubbles, %d resets with operations in flight",
		min(s.next, len(s.directed)), s.ops-min(s.next, len(s.directed)), s.bubbles, s.flightResets)
}
