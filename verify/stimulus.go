package verify

import (
	"fmt"
	"math/rand/v2"

	"github.com/lsugen/lsugen/model"
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

// StimulusFunc makes the stimulus of a sequential unit over its model's
// ports (model.Sequential.Ports): the unit's family supplies it, because
// only the family knows its protocol. The stream may depend only on seed
// and the model's outputs.
type StimulusFunc func(ports []model.Port, seed uint64) (Stimulus, error)

// StimulusRand is the random source of a stimulus with the given seed; one
// stream constant for every family keeps recorded streams reproducible.
func StimulusRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x73657175656e6365)) }

// RandomStimulus drives any unit: random inputs in phases of different bit
// densities, with rst = 1 in about one cycle of 300. It is the stimulus of
// units whose family has no protocol to follow, and of hand-built designs
// in tests.
func RandomStimulus(ports []model.Port, seed uint64) (Stimulus, error) {
	r := StimulusRand(seed)
	return newRandomStim(NewPortMap(ports), r), nil
}

// PortMap finds a model's ports by name and checks their widths, for a
// family's stimulus. The first missing port or wrong width is kept in Err.
type PortMap struct {
	ins, outs []model.Port
	err       error
}

// NewPortMap indexes ports, a model's inputs then outputs.
func NewPortMap(ports []model.Port) *PortMap {
	pm := &PortMap{}
	for _, p := range ports {
		if p.Output {
			pm.outs = append(pm.outs, p)
		} else {
			pm.ins = append(pm.ins, p)
		}
	}
	return pm
}

func (pm *PortMap) find(list []model.Port, dir, name string, width int) int {
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

// In is the index of input name, which must be width bits wide; Out the
// same for an output. A missing port or a wrong width is remembered in Err.
func (pm *PortMap) In(name string, width int) int  { return pm.find(pm.ins, "input", name, width) }
func (pm *PortMap) Out(name string, width int) int { return pm.find(pm.outs, "output", name, width) }

// Err is the first missing port or wrong width, or nil.
func (pm *PortMap) Err() error { return pm.err }

// Mask is a value of w bits, all ones (w <= 64).
func Mask(w int) uint64 {
	if w >= 64 {
		return ^uint64(0)
	}
	return 1<<uint(w) - 1
}

// Phaser picks weighted phases of random length, so that a stream spends
// long stretches in each of a family's traffic patterns.
type Phaser struct {
	r       *rand.Rand
	weights []int
	left    int
	cur     int
	seen    uint64 // phases entered, one bit each
}

// NewPhaser returns a phaser over phases 0..len(weights)-1.
func NewPhaser(r *rand.Rand, weights []int) *Phaser { return &Phaser{r: r, weights: weights} }

// Phase is the current phase.
func (p *Phaser) Phase() int { return p.cur }

// Seen reports whether phase i has been entered.
func (p *Phaser) Seen(i int) bool { return p.seen>>uint(i)&1 == 1 }

// Next advances one cycle and reports whether a new phase began, which
// the caller then sets up (it may change the length).
func (p *Phaser) Next(length func(phase int) int) bool {
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

// Count is the number of distinct phases entered.
func (p *Phaser) Count() int {
	n := 0
	for s := p.seen; s != 0; s &= s - 1 {
		n++
	}
	return n
}

// Span is a random length in lo..hi.
func Span(r *rand.Rand, lo, hi int) int { return lo + r.IntN(hi-lo+1) }

// ---------------------------------------------------------------------------
// Any unit: random inputs.

type randomStim struct {
	r      *rand.Rand
	widths []int
	rst    int // index of rst, -1 when there is none
	ph     *Phaser
	resets int
}

// randomDensities are the phases' probabilities of a 1 bit.
var randomDensities = []float64{0.5, 0.1, 0.9, 0.02, 0.98}

func newRandomStim(pm *PortMap, r *rand.Rand) *randomStim {
	s := &randomStim{r: r, rst: -1, ph: NewPhaser(r, []int{4, 1, 1, 1, 1})}
	for i, p := range pm.ins {
		s.widths = append(s.widths, p.Width)
		if p.Name == ResetPort {
			s.rst = i
		}
	}
	return s
}

func (s *randomStim) Next(in [][]uint64) {
	s.ph.Next(func(int) int { return Span(s.r, 16, 2048) })
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
	return fmt.Sprintf("random inputs in %d densities, %d reset cycles", s.ph.Count(), s.resets)
}
