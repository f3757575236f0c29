package timing

import (
	"fmt"
	"math"

	"github.com/lsugen/lsugen/internal/interp"

	"github.com/lsugen/lsugen/netlist"
)

// SlewModel is a characterized cell's transition behaviour, sampled from
// its liberty tables (package timing/liberty) on a grid of stage efforts
// and input transitions, for each input edge and output edge apart: what
// propagating transitions needs beside the fitted line d = g·h + p, which
// is the mean of the edges at the technology's reference transition
// (Tech.SlewTau) only. The textbook table has none.
type SlewModel struct {
	// Effort are the grid's stage efforts f = G·C/Cin in τ (the effort
	// term of the pin's delay at load C), ascending; Slew its input
	// transitions in τ, ascending.
	Effort []float64 `json:"effort"`
	Slew   []float64 `json:"slew"`
	// Pins has one entry per input pin.
	Pins []PinSlew `json:"pins"`
}

// PinSlew is one input pin of a SlewModel: Pos for its positive-unate
// arcs (a rising input makes a rising output), Neg for its
// negative-unate ones (a rising input makes a falling output); nil where
// the pin has no such arc. An XOR input or a multiplexer's select has
// both, an inverting gate's pin only Neg.
type PinSlew struct {
	Pos *EdgePair `json:"pos,omitempty"`
	Neg *EdgePair `json:"neg,omitempty"`
}

// EdgePair is the rising and the falling output of one kind of arc.
type EdgePair struct {
	Rise EdgeTables `json:"rise"`
	Fall EdgeTables `json:"fall"`
}

// EdgeTables is one output edge on the grid: Delay[i][j] is the delay
// at input transition Slew[i] and effort Effort[j] less the pin's mean
// delay (over all its arcs and both edges) at the reference transition,
// in τ: what the edge adds to the fitted line. Out[i][j] is the output
// transition in τ. Between grid points both are interpolated
// bilinearly, beyond them extrapolated linearly, as static timing tools
// read NLDM tables.
type EdgeTables struct {
	Delay [][]float64 `json:"delay"`
	Out   [][]float64 `json:"out"`
}

// at is the delay change and the output transition of e at stage effort
// f and input transition s, all in τ. The transition is at least 0.
func (m *SlewModel) at(e *EdgeTables, f, s float64) (dDelay, out float64) {
	i, fi := interp.Bracket(m.Slew, s)
	j, fj := interp.Bracket(m.Effort, f)
	i1, j1 := min(i+1, len(m.Slew)-1), min(j+1, len(m.Effort)-1)
	at := func(t [][]float64) float64 {
		lo := t[i][j] + fj*(t[i][j1]-t[i][j])
		hi := t[i1][j] + fj*(t[i1][j1]-t[i1][j])
		return lo + fi*(hi-lo)
	}
	return at(e.Delay), max(0, at(e.Out))
}

// edge is the tables of pin's output edge rise (false: falling) through
// its positive-unate (pos) or negative-unate arcs, nil when it has none.
func (m *SlewModel) edge(pin int, rise, pos bool) *EdgeTables {
	ps := &m.Pins[pin]
	pair := ps.Neg
	if pos {
		pair = ps.Pos
	}
	if pair == nil {
		return nil
	}
	if rise {
		return &pair.Rise
	}
	return &pair.Fall
}

// slews tells whether the analysis propagates transitions: a
// characterized technology whose cells carry slew models, unless
// FixedSlew is set.
func (o Options) slews() bool {
	return o.Tech != nil && !o.FixedSlew && o.Tech.Cells[netlist.INV].Slew != nil
}

// stageEdge is stage with transitions: the delay in τ of a cell pin
// driving load to a rising (rise) or falling edge of the net through its
// positive-unate (pos) or negative-unate arcs, its input switching with
// transition sIn (τ), and the net's transition sOut; ok is false when
// the pin has no such arc. ideal marks the start points (the primary
// inputs' drivers, clock to Q), whose figures hold at their ideal input
// already: only the output edge's difference from the mean of the edges
// and its transition count, through whichever arcs the pin has. In
// Sized mode the buffer chain is the one stage chooses: the gate drives
// the chain's first inverter at the chain's stage effort, each inverter
// the next, the edge flipping at each, and the last one's transition is
// the net's.
func (o Options) stageEdge(c *Cell, pin int, load, sIn float64, rise, pos, ideal bool) (delay, sOut float64, ok bool) {
	delay, bufs, _ := o.stage(c, pin, load)
	m := c.Slew
	f := c.G[pin] * load / c.Cin[pin]
	if bufs > 0 {
		f = math.Pow(f, 1/float64(bufs+1))
	}
	edge := rise != (bufs%2 == 1) // the gate's own output edge
	if ideal {
		pos = m.Pins[pin].Neg == nil
	}
	e := m.edge(pin, edge, pos)
	if e == nil {
		return 0, 0, false
	}
	dd, s := m.at(e, f, sIn)
	delay += dd
	if ideal {
		// The line holds the mean of the edges at an ideal input.
		dr, _ := m.at(m.edge(pin, true, pos), f, 0)
		df, _ := m.at(m.edge(pin, false, pos), f, 0)
		delay -= (dr + df) / 2
	}
	if bufs > 0 {
		inv := o.cells()[netlist.INV].Slew
		for range bufs {
			edge = !edge
			dd, s = inv.at(inv.edge(0, edge, false), f, s)
			delay += dd
		}
	}
	return delay, s, true
}

// propagateEdges is propagate's forward pass with transitions: every net
// has a rising and a falling edge, each with its arrival time and
// transition; a gate's output edge comes from the same input edge
// through the pin's positive-unate arcs and from the opposite one
// through its negative-unate arcs, each read at that input edge's
// transition; the output edge's transition is the worst over them. arr is the
// later edge's arrival, slew the worse edge's transition, pin the pin
// the later edge came through (ties to the lowest input net, as in
// propagate). nt holds the loads, the driver and the cleared arrivals
// and sources.
func propagateEdges(d *netlist.Design, opt Options, nt *netTiming) (*netTiming, error) {
	n := d.NumNets
	var arrE, slewE [2][]float64 // [0] rising, [1] falling
	for e := range arrE {
		arrE[e], slewE[e] = make([]float64, n), make([]float64, n)
	}
	nt.slew = make([]float64, n)
	cells, load, src, pin := nt.cells, nt.load, nt.src, nt.pin
	// start sets a start point's edges: the primary inputs' drivers and
	// clock to Q, both from an ideal input.
	start := func(net netlist.Net, c *Cell) {
		for e, rise := range []bool{true, false} {
			arrE[e][net], slewE[e][net], _ = opt.stageEdge(c, 0, load[net], 0, rise, false, true)
		}
		_, nb, sz := opt.stage(c, 0, load[net])
		nt.bufCount, nt.bufSize = nt.bufCount+nb, nt.bufSize+sz
	}
	for _, p := range d.Inputs() {
		for _, b := range p.Bits {
			src[b] = srcInput
			start(b, &nt.driver)
		}
	}
	dff := &cells[netlist.DFF]
	for gi, g := range d.Gates {
		if g.Kind == netlist.DFF {
			src[g.Out] = int32(gi)
			start(g.Out, dff)
		}
	}
	// Memory read data: both edges at the access time, with the
	// transition of a flip-flop's output at the net's load.
	startMems(d, src, nt.arr, nt.tauPerFO4)
	for mi := range d.Memories {
		for _, n := range d.Memories[mi].RData {
			for e, rise := range []bool{true, false} {
				arrE[e][n] = nt.arr[n]
				_, slewE[e][n], _ = opt.stageEdge(dff, 0, load[n], 0, rise, false, true)
			}
		}
	}
	for gi, g := range d.Gates {
		if g.Kind == netlist.DFF {
			continue
		}
		c := &cells[g.Kind]
		best, bestPin := math.Inf(-1), -1
		for e, rise := range []bool{true, false} {
			arrE[e][g.Out], slewE[e][g.Out] = math.Inf(-1), 0
			for p, in := range g.In {
				if src[in] == srcNone {
					return nil, fmt.Errorf("timing: design %s: gate g%d (%s) reads %s before its driver: gates are not in topological order",
						d.Name, gi, g.Kind, d.NetName(in))
				}
				for _, pos := range []bool{true, false} {
					ie := 1 - e // the input's edge: the opposite one...
					if pos {
						ie = e // ...or the same
					}
					dl, s, ok := opt.stageEdge(c, p, load[g.Out], slewE[ie][in], rise, pos, false)
					if !ok {
						continue
					}
					t := arrE[ie][in] + dl
					arrE[e][g.Out] = max(arrE[e][g.Out], t)
					slewE[e][g.Out] = max(slewE[e][g.Out], s)
					if t > best || (t == best && in < g.In[bestPin]) {
						best, bestPin = t, p
					}
				}
			}
		}
		src[g.Out], pin[g.Out] = int32(gi), int8(bestPin)
		if opt.Mode == Sized {
			// The buffer tree depends on the load only, not the pin.
			_, nb, sz := opt.stage(c, bestPin, load[g.Out])
			nt.bufCount, nt.bufSize = nt.bufCount+nb, nt.bufSize+sz
		}
	}
	for net := range n {
		nt.arr[net] = max(arrE[0][net], arrE[1][net])
		nt.slew[net] = max(slewE[0][net], slewE[1][net])
	}
	return nt, nil
}
