package units

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/verify"
)

// Hash with config = "register": configuration writes among addresses.

const (
	hregSteady = iota // rare writes, long gaps
	hregBurst         // back-to-back writes
	hregMixed         // writes now and then
	hregQuiet         // no writes at all
)

var hregPWrite = [...]float64{hregSteady: 0.004, hregBurst: 0.8, hregMixed: 0.1, hregQuiet: 0}

var hregPhaseNames = [...]string{"steady", "write bursts", "mixed", "quiet"}

type hashRegStim struct {
	r                        *rand.Rand
	rst, we, addr            int   // inputs
	cfg                      []int // the cfg_* inputs but cfg_we_i
	cfgW                     []int // their widths
	ph                       *verify.Phaser
	rstLeft                  int
	writes, b2b, resets      int
	run, maxRun              int // back-to-back writes
	gap, maxGap              int // cycles since the last write
	wroteLast                bool
	zeroCfg, onesCfg, junk   int
	afterReset, writeOnReset int
	resetLast                bool
}

// hashRegisterStimulus drives a configurable hash with config =
// "register": a random address every cycle, and configuration writes
// (random, all-zero or all-one values) at random times, in phases of rare
// writes with long gaps, back-to-back bursts, occasional writes and none;
// junk on the cfg_* inputs while cfg_we_i is 0, and occasional resets
// (sometimes with cfg_we_i = 1, sometimes right before a write).
func hashRegisterStimulus(h *specs.Hash) verify.StimulusFunc {
	return func(ports []model.Port, seed uint64) (verify.Stimulus, error) {
		pm := verify.NewPortMap(ports)
		s := &hashRegStim{
			r:    verify.StimulusRand(seed),
			rst:  pm.In(verify.ResetPort, 1),
			we:   pm.In("cfg_we_i", 1),
			addr: pm.In("addr_i", h.AddrBits),
		}
		if err := pm.Err(); err != nil {
			return nil, err
		}
		i := 0
		for _, p := range ports {
			if p.Output {
				continue
			}
			if strings.HasPrefix(p.Name, "cfg_") && p.Name != "cfg_we_i" {
				s.cfg = append(s.cfg, i)
				s.cfgW = append(s.cfgW, p.Width)
			}
			i++
		}
		if len(s.cfg) == 0 {
			return nil, fmt.Errorf("stimulus: %s: no cfg_* inputs", h.Name)
		}
		s.ph = verify.NewPhaser(s.r, []int{3, 2, 3, 1})
		return s, nil
	}
}

// fill writes random words into a port value; bits above the width are
// ignored by the harness.
func (s *hashRegStim) fill(v []uint64) {
	for k := range v {
		v[k] = s.r.Uint64()
	}
}

func (s *hashRegStim) Next(in [][]uint64) {
	s.ph.Next(func(p int) int {
		switch p {
		case hregBurst:
			return verify.Span(s.r, 2, 40)
		case hregQuiet:
			return verify.Span(s.r, 20, 300)
		}
		return verify.Span(s.r, 100, 1500)
	})
	if s.rstLeft == 0 && s.r.IntN(700) == 0 {
		s.rstLeft = verify.Span(s.r, 1, 3)
	}
	if s.rstLeft > 0 {
		s.rstLeft--
		in[s.rst][0] = 1
	}
	s.fill(in[s.addr])
	if s.r.IntN(8) == 0 { // low or high addresses
		for k := range in[s.addr] {
			in[s.addr][k] &= s.r.Uint64() & s.r.Uint64()
		}
	}
	write := s.r.Float64() < hregPWrite[s.ph.Phase()]
	if s.resetLast && s.r.IntN(4) == 0 {
		write = true // a write right after a reset
	}
	if !write {
		if s.r.IntN(2) == 0 { // junk beside cfg_we_i = 0
			for _, j := range s.cfg {
				s.fill(in[j])
			}
		}
		return
	}
	in[s.we][0] = 1
	switch x := s.r.IntN(20); {
	case x == 0: // all zeros: the reset value
	case x == 1:
		for _, j := range s.cfg {
			for k := range in[j] {
				in[j][k] = ^uint64(0)
			}
		}
	default:
		for _, j := range s.cfg {
			s.fill(in[j])
		}
	}
}

func (s *hashRegStim) Observe(in, out [][]uint64) {
	rst := in[s.rst][0]&1 == 1
	we := in[s.we][0]&1 == 1
	switch {
	case rst:
		s.resets++
		if we {
			s.writeOnReset++
		}
	case we:
		s.writes++
		if s.wroteLast {
			s.b2b++
		}
		if s.resetLast {
			s.afterReset++
		}
		zero, ones := true, true
		for c, j := range s.cfg {
			for k, w := range in[j] {
				m := verify.Mask(min(64, s.cfgW[c]-64*k))
				zero = zero && w&m == 0
				ones = ones && w&m == m
			}
		}
		if zero {
			s.zeroCfg++
		}
		if ones {
			s.onesCfg++
		}
	default:
		junk := false
		for _, j := range s.cfg {
			for _, w := range in[j] {
				junk = junk || w != 0
			}
		}
		if junk {
			s.junk++
		}
	}
	if we && !rst {
		s.run++
		s.maxRun = max(s.maxRun, s.run)
		s.maxGap = max(s.maxGap, s.gap)
		s.gap = 0
	} else {
		s.run = 0
		s.gap++
	}
	s.wroteLast = we && !rst
	s.resetLast = rst
}

func (s *hashRegStim) Coverage() string {
	var phases []string
	for i, n := range hregPhaseNames {
		if s.ph.Seen(i) {
			phases = append(phases, n)
		}
	}
	return fmt.Sprintf("%d configuration writes (%d back to back, longest run %d, longest gap %d cycles, %d all-zero, %d all-one, %d right after a reset), "+
		"%d cycles of cfg_* junk beside cfg_we_i = 0, %d reset cycles (%d with cfg_we_i = 1); phases: %s",
		s.writes, s.b2b, s.maxRun, s.maxGap, s.zeroCfg, s.onesCfg, s.afterReset, s.junk, s.resets, s.writeOnReset,
		strings.Join(phases, ", "))
}
