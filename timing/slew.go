package timing

import (
	"math"
	"sort"

	"github.com/lsugen/lsugen/netlist"
)

// SlewModel is a characterized cell's transition behaviour, sampled from
// its liberty tables (package timing/liberty) on a grid of stage efforts
// and input transitions: what slew propagation needs beside the fitted
// line d = g·h + p, which holds at the technology's reference transition
// (Tech.SlewTau) only. The textbook table has none.
type SlewModel struct {
	// Effort are the grid's stage efforts f = G·C/Cin in τ (the effort
	// term of the pin's delay at load C), ascending; Slew its input
	// transitions in τ, ascending.
	Effort []float64 `json:"effort"`
	Slew   []float64 `json:"slew"`
	// Delay[pin][i][j] is the change in τ of the pin's delay at input
	// transition Slew[i] and effort Effort[j] from its delay at the
	// reference transition; Out[pin][i][j] is the output transition in
	// τ there. Between grid points both are interpolated bilinearly,
	// beyond them extrapolated linearly, as static timing tools read
	// NLDM tables.
	Delay [][][]float64 `json:"delay"`
	Out   [][][]float64 `json:"out"`
}

// At is the delay change and the output transition of pin at stage
// effort f and input transition s, both in τ. The transition is at
// least 0.
func (m *SlewModel) At(pin int, f, s float64) (dDelay, out float64) {
	i, fi := bracket(m.Slew, s)
	j, fj := bracket(m.Effort, f)
	i1, j1 := min(i+1, len(m.Slew)-1), min(j+1, len(m.Effort)-1)
	at := func(t [][]float64) float64 {
		lo := t[i][j] + fj*(t[i][j1]-t[i][j])
		hi := t[i1][j] + fj*(t[i1][j1]-t[i1][j])
		return lo + fi*(hi-lo)
	}
	return at(m.Delay[pin]), max(0, at(m.Out[pin]))
}

// outOnly is m with no delay change: the output transitions of a cell
// whose delay figures already hold at its own input's transition (the
// input drivers, read at an ideal input).
func (m *SlewModel) outOnly() *SlewModel {
	z := &SlewModel{Effort: m.Effort, Slew: m.Slew, Out: m.Out, Delay: make([][][]float64, len(m.Delay))}
	for p := range m.Delay {
		z.Delay[p] = make([][]float64, len(m.Slew))
		for i := range m.Slew {
			z.Delay[p][i] = make([]float64, len(m.Effort))
		}
	}
	return z
}

// bracket returns the index i of the segment [xs[i], xs[i+1]] to
// interpolate x in (the first or last segment outside the range) and the
// fraction of x along it.
func bracket(xs []float64, x float64) (int, float64) {
	if len(xs) < 2 {
		return 0, 0
	}
	i := sort.SearchFloat64s(xs, x) - 1
	i = max(0, min(i, len(xs)-2))
	d := xs[i+1] - xs[i]
	if d == 0 {
		return i, 0
	}
	return i, (x - xs[i]) / d
}

// slews tells whether the analysis propagates transitions: a
// characterized technology whose cells carry slew models, unless
// FixedSlew is set.
func (o Options) slews() bool {
	return o.Tech != nil && !o.FixedSlew && o.Tech.Cells[netlist.INV].Slew != nil
}

// stageSlew is stage with transitions: the delay in τ of a cell pin
// driving load when its input switches with transition sIn (τ), and the
// transition sOut of the net it drives. In Sized mode the buffer chain
// is the one stage chooses; the gate then drives the chain's first
// inverter at the chain's stage effort, each inverter the next, and the
// last one's transition is the net's. Without slew models, or with
// FixedSlew, it is stage with sOut 0.
func (o Options) stageSlew(c *Cell, pin int, load, sIn float64) (delay, sOut float64, bufs int, bufSize float64) {
	delay, bufs, bufSize = o.stage(c, pin, load)
	if c.Slew == nil || !o.slews() {
		return delay, 0, bufs, bufSize
	}
	f := c.G[pin] * load / c.Cin[pin]
	if bufs > 0 {
		f = math.Pow(f, 1/float64(bufs+1))
	}
	dd, s := c.Slew.At(pin, f, sIn)
	delay += dd
	if bufs > 0 {
		inv := &o.cells()[netlist.INV]
		for range bufs {
			dd, s = inv.Slew.At(0, f, s)
			delay += dd
		}
	}
	return delay, s, bufs, bufSize
}
