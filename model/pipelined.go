package model

import "fmt"

// pipelined is the model of a unit pipelined at a clock period (spec
// attribute clock_fo4): the combinational function, answered latency
// cycles after the operation enters, by the protocol alone.
type pipelined struct {
	m       Model
	latency int
	ports   []Port
	nIn     int // the function's inputs
	// slots[k] is the operation k+1 cycles old: whether it is valid and
	// the function's outputs on its inputs.
	slots []slot
	buf   [][]uint64
}

type slot struct {
	valid bool
	out   [][]uint64
}

// Pipelined returns the sequential model of m's unit pipelined to the
// given latency. Its ports are rst, valid_i, m's inputs, m's outputs and
// valid_o (the generated design's order after its clock). An operation
// presented with valid_i = 1 in cycle t is on the outputs with valid_o = 1
// in cycle t+latency; outputs are 0 while valid_o is 0; rst = 1 in a
// cycle drops every operation in flight, that cycle's too.
func Pipelined(m Model, latency int) (Sequential, error) {
	if m == nil {
		return nil, fmt.Errorf("model: pipelined: no function model")
	}
	if latency < 1 {
		return nil, fmt.Errorf("model: pipelined: latency %d, want at least 1", latency)
	}
	p := &pipelined{m: m, latency: latency}
	p.ports = []Port{{Name: "rst", Width: 1}, {Name: "valid_i", Width: 1}}
	var outs []Port
	for _, pt := range m.Ports() {
		if pt.Output {
			outs = append(outs, pt)
		} else {
			p.ports = append(p.ports, pt)
			p.nIn++
		}
	}
	p.ports = append(p.ports, outs...)
	p.ports = append(p.ports, Port{Name: "valid_o", Width: 1, Output: true})
	newOut := func() [][]uint64 {
		o := make([][]uint64, len(outs))
		for i, pt := range outs {
			o[i] = make([]uint64, (pt.Width+63)/64)
		}
		return o
	}
	p.slots = make([]slot, latency)
	for k := range p.slots {
		p.slots[k].out = newOut()
	}
	p.buf = newOut()
	return p, nil
}

func (p *pipelined) Ports() []Port { return p.ports }

func (p *pipelined) Reset() {
	for k := range p.slots {
		p.slots[k].valid = false
	}
}

func (p *pipelined) Cycle(in, out [][]uint64) {
	rst, valid := in[0][0]&1 == 1, in[1][0]&1 == 1
	// This cycle's outputs: the oldest operation, or zeros.
	last := &p.slots[p.latency-1]
	nOut := len(out) - 1
	for j := 0; j < nOut; j++ {
		for w := range out[j] {
			out[j][w] = 0
			if last.valid {
				out[j][w] = last.out[j][w]
			}
		}
	}
	out[nOut][0] = 0
	if last.valid {
		out[nOut][0] = 1
	}
	// The edge: every operation ages by one; rst drops them all.
	if valid && !rst {
		p.m.Eval(in[2:2+p.nIn], p.buf)
	}
	recycled := last.out
	copy(p.slots[1:], p.slots[:p.latency-1])
	p.slots[0] = slot{valid: valid && !rst, out: p.buf}
	p.buf = recycled
	if rst {
		for k := range p.slots {
			p.slots[k].valid = false
		}
	}
}
