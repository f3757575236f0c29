package model

import (
	"errors"
	"fmt"

	"github.com/lsugen/lsugen/specs"
)

// ForHashRegister returns the model of a configurable hash unit with
// config = "register": a clocked unit whose configuration is held in
// registers.
//
// Inputs, in order: rst[1], cfg_we_i[1], addr_i, then the cfg_* ports of
// the combinational model (ForHash) in its order; outputs as the
// combinational model's. The outputs of a cycle are the combinational hash
// of addr_i under the registered configuration, the one loaded at an
// earlier rising edge (all zeros after a reset). At the rising edge, rst =
// 1 clears the configuration to zeros; otherwise cfg_we_i = 1 loads the
// cfg_* inputs and cfg_we_i = 0 keeps it.
func ForHashRegister(h *specs.Hash) (Sequential, error) {
	if h == nil {
		return nil, errors.New("model: nil hash unit")
	}
	if !h.Configurable {
		return nil, fmt.Errorf("model: hash %q is not configurable, so it has no configuration registers", h.Name)
	}
	comb, err := ForHash(h)
	if err != nil {
		return nil, err
	}
	m := &hashRegister{comb: comb}
	cports := comb.Ports()
	m.ports = []Port{{Name: "rst", Width: 1}, {Name: "cfg_we_i", Width: 1}}
	for i, p := range cports {
		switch {
		case p.Output:
			m.nOut++
		case p.Name == "addr_i":
			m.addr = i
		default:
			m.cfgIdx = append(m.cfgIdx, i)
		}
	}
	m.ports = append(m.ports, cports[m.addr])
	for _, i := range m.cfgIdx {
		m.ports = append(m.ports, cports[i])
		m.cfg = append(m.cfg, make([]uint64, words(cports[i].Width)))
		m.cfgW = append(m.cfgW, cports[i].Width)
	}
	for _, p := range cports {
		if p.Output {
			m.ports = append(m.ports, p)
		}
	}
	m.nIn = len(cports) - m.nOut
	m.combIn = make([][]uint64, m.nIn)
	return m, nil
}

// hashRegister wraps a combinational configurable hash model with the
// configuration registers.
type hashRegister struct {
	comb   Model
	ports  []Port
	addr   int   // index of addr_i among comb's inputs
	cfgIdx []int // indices of the cfg ports among comb's inputs, in order
	cfg    [][]uint64
	cfgW   []int
	nIn    int // comb's inputs
	nOut   int
	combIn [][]uint64
}

func words(w int) int { return (w + 63) / 64 }

func (m *hashRegister) Ports() []Port { return m.ports }

func (m *hashRegister) Reset() {
	for _, c := range m.cfg {
		clear(c)
	}
}

func (m *hashRegister) Cycle(in, out [][]uint64) {
	rst, we := in[0][0]&1 == 1, in[1][0]&1 == 1
	m.combIn[m.addr] = in[2]
	for j, i := range m.cfgIdx {
		m.combIn[i] = m.cfg[j]
	}
	m.comb.Eval(m.combIn, out)
	switch {
	case rst:
		m.Reset()
	case we:
		for j := range m.cfg {
			src := in[3+j]
			for k := range m.cfg[j] {
				v := uint64(0)
				if k < len(src) {
					v = src[k]
				}
				if rem := m.cfgW[j] - 64*k; rem < 64 {
					v &= 1<<uint(rem) - 1
				}
				m.cfg[j][k] = v
			}
		}
	}
}
