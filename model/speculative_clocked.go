package model

import (
	"errors"
	"fmt"
	"math"

	"github.com/lsugen/lsugen/specs"
)

// ForSpeculativeClocked returns the model of the speculative coalescer c
// clocked as a variable-latency unit whose fast path answers fastL cycles
// after valid_i and whose slow path answers slowL cycles after it.
//
// Inputs, in order: rst[1], valid_i[1], addr_i, active_i (with
// active_mask). Outputs: ready_o[1], then the combinational speculative
// coalescer's outputs in its order (unique_o, monotonic_o, the request
// outputs with requests), then fast_o[1] and valid_o[1].
//
// Protocol: ready_o is always 1. A warp presented with valid_i = 1 in
// cycle t is answered in cycle t+fastL with fast_o = 1 when it is
// monotonic and every warp before it is answered before cycle t+fastL;
// otherwise in cycle t+slowL with fast_o = 0. An answer carries the
// combinational coalescer's outputs for the warp and valid_o = 1; in a
// cycle without an answer every output but ready_o is 0. rst = 1 in a
// cycle drops every warp in flight, that cycle's too.
func ForSpeculativeClocked(c *specs.Coalescer, fastL, slowL int) (Sequential, error) {
	if c == nil {
		return nil, errors.New("model: nil coalescer unit")
	}
	if c.Structure != specs.Speculative {
		return nil, fmt.Errorf("model: coalescer %q: structure %q: the variable-latency unit is the speculative coalescer", c.Name, c.Structure)
	}
	if fastL < 1 || slowL < fastL {
		return nil, fmt.Errorf("model: coalescer %q: latencies fast %d, slow %d: want 1 <= fast <= slow", c.Name, fastL, slowL)
	}
	comb, err := ForCoalescer(c)
	if err != nil {
		return nil, err
	}
	m := &specClocked{comb: comb, fastL: int64(fastL), slowL: int64(slowL)}
	for _, p := range comb.Ports() {
		if p.Output {
			m.combOut = append(m.combOut, p)
		} else {
			m.nIn++
		}
	}
	m.ports = append([]Port{{Name: "rst", Width: 1}, {Name: "valid_i", Width: 1}}, comb.Ports()[:m.nIn]...)
	m.ports = append(m.ports, Port{Name: "ready_o", Width: 1, Output: true})
	m.ports = append(m.ports, m.combOut...)
	m.ports = append(m.ports, Port{Name: "fast_o", Width: 1, Output: true}, Port{Name: "valid_o", Width: 1, Output: true})
	for i, p := range m.combOut {
		if p.Name == portMonotonic {
			m.monoOut = i
		}
	}
	m.Reset()
	return m, nil
}

type specClocked struct {
	comb         Model
	fastL, slowL int64
	ports        []Port
	combOut      []Port
	nIn, monoOut int

	now    int64      // the current cycle
	last   int64      // the answer cycle of the latest warp in flight
	flight []specWarp // warps in flight, oldest first (answer cycles increase)
}

type specWarp struct {
	at   int64 // the cycle it is answered in
	fast bool
	out  [][]uint64 // the combinational outputs
}

func (m *specClocked) Ports() []Port { return m.ports }

func (m *specClocked) Reset() {
	m.now, m.last, m.flight = 0, math.MinInt64, nil
}

func (m *specClocked) Cycle(in, out [][]uint64) {
	rst, valid := in[0][0]&1 == 1, in[1][0]&1 == 1
	for _, o := range out {
		clear(o)
	}
	out[0][0] = 1 // ready_o
	n := len(m.combOut)
	if len(m.flight) > 0 && m.flight[0].at == m.now {
		w := m.flight[0]
		m.flight = m.flight[1:]
		for i := range w.out {
			copy(out[1+i], w.out[i])
		}
		out[1+n][0] = b2u(w.fast)
		out[2+n][0] = 1
	}
	switch {
	case rst:
		m.flight, m.last = nil, math.MinInt64
	case valid:
		w := specWarp{out: make([][]uint64, n)}
		for i, p := range m.combOut {
			w.out[i] = make([]uint64, words(p.Width))
		}
		m.comb.Eval(in[2:2+m.nIn], w.out)
		mono := w.out[m.monoOut][0]&1 == 1
		if mono && m.last < m.now+m.fastL {
			w.at, w.fast = m.now+m.fastL, true
		} else {
			w.at = m.now + m.slowL
		}
		m.last = w.at
		m.flight = append(m.flight, w)
	}
	m.now++
}
