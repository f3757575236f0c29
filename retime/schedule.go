package retime

import (
	"fmt"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/timing"
)

// scheduler assigns the gates of a combinational design to stages. Times
// are in τ of the timing model.
type scheduler struct {
	d         *netlist.Design
	gd        []float64 // each gate's delay
	inArr     []float64 // arrival of each net that is a primary input bit
	isInput   []bool
	isOut     []bool
	driver    []int32   // gate index driving each net, -1 for none
	readers   [][]int32 // gates reading each net
	clk2q     []float64 // a register's clock-to-Q delay driving the net's load
	andD      float64   // the output registers' valid mask
	tauPerFO4 float64
}

func newScheduler(d *netlist.Design, nt *timing.NetTimes, opt timing.Options) *scheduler {
	n := d.NumNets
	s := &scheduler{d: d, gd: nt.GateDelay, inArr: nt.Arrival, isInput: make([]bool, n), isOut: make([]bool, n),
		driver: make([]int32, n), readers: make([][]int32, n), clk2q: make([]float64, n), tauPerFO4: nt.TauPerFO4}
	for i := range s.driver {
		s.driver[i] = -1
	}
	for _, p := range d.Inputs() {
		for _, b := range p.Bits {
			s.isInput[b] = true
		}
	}
	for _, p := range d.Outputs() {
		for _, b := range p.Bits {
			s.isOut[b] = true
		}
	}
	for gi, g := range d.Gates {
		s.driver[g.Out] = int32(gi)
		for _, in := range g.In {
			s.readers[in] = append(s.readers[in], int32(gi))
		}
	}
	for net := range s.clk2q {
		s.clk2q[net] = opt.CellDelay(netlist.DFF, 0, nt.Load[net])
	}
	s.andD = opt.CellDelay(netlist.AND2, 0, opt.PinLoad(netlist.DFF, 0, nt.AreaGE))
	return s
}

// isConst reports whether net is one of the constants, which every stage
// has without a register.
func isConst(n netlist.Net) bool { return n == netlist.Const0 || n == netlist.Const1 }

// producer is where a net is available: its stage and its arrival in that
// stage; ok is false for constants.
func (s *scheduler) producer(n netlist.Net, stageOf []int32, arr []float64) (st int32, at float64, ok bool) {
	switch {
	case isConst(n):
		return 0, 0, false
	case s.isInput[n]:
		return 0, s.inArr[n], true
	}
	g := s.driver[n]
	return stageOf[g], arr[g], true
}

// forward places every gate not yet placed (stageOf -1) as early as it
// fits, at stage floor or later, given the gates placed before floor.
// It returns the stage and arrival of every gate.
func (s *scheduler) forward(placed []int32, floor int32, budget float64) (stageOf []int32, arr []float64, err error) {
	stageOf = append([]int32(nil), placed...)
	arr = make([]float64, len(s.d.Gates))
	for gi, g := range s.d.Gates {
		if placed[gi] >= 0 {
			continue
		}
		st := floor
		for _, in := range g.In {
			if ps, _, ok := s.producer(in, stageOf, arr); ok {
				st = max(st, ps)
			}
		}
		start := func(st int32) float64 {
			t := 0.0
			for _, in := range g.In {
				ps, pa, ok := s.producer(in, stageOf, arr)
				switch {
				case !ok:
				case ps == st:
					t = max(t, pa)
				default:
					t = max(t, s.clk2q[in])
				}
			}
			return t
		}
		t := start(st) + s.gd[gi]
		if t > budget {
			st++
			if t = start(st) + s.gd[gi]; t > budget {
				return nil, nil, fmt.Errorf("gate g%d (%s, driving %s) needs %.2f FO4 after its inputs' registers, more than the %.2f FO4 a stage leaves before the setup time: %w",
					gi, g.Kind, s.d.NetName(g.Out), t/s.tauPerFO4, budget/s.tauPerFO4, ErrPeriod)
			}
		}
		stageOf[gi], arr[gi] = st, t
	}
	return stageOf, arr, nil
}

// latency is the number of stages the forward placement needs: the last
// stage holds every output's valid mask.
func (s *scheduler) latency(stageOf []int32, arr []float64, budget float64) int32 {
	L := int32(1)
	for _, p := range s.d.Outputs() {
		for _, b := range p.Bits {
			ps, pa, ok := s.producer(b, stageOf, arr)
			if !ok {
				continue
			}
			if pa+s.andD <= budget {
				L = max(L, ps+1)
			} else {
				L = max(L, ps+2)
			}
		}
	}
	return L
}

// backward finds, for latency L, the latest stage of every gate from
// which the gates after it still fit, assuming its inputs come from
// registers.
func (s *scheduler) backward(L int32, budget float64) []int32 {
	gates := s.d.Gates
	late := make([]int32, len(gates))
	after := make([]float64, len(gates)) // time needed after the gate's output in its stage
	for gi := len(gates) - 1; gi >= 0; gi-- {
		g := gates[gi]
		st, q := L-1, 0.0
		if s.isOut[g.Out] {
			q = s.andD
		}
		for _, r := range s.readers[g.Out] {
			switch rs := late[r]; {
			case rs < st:
				st, q = rs, after[r]+s.gd[r]
			case rs == st:
				q = max(q, after[r]+s.gd[r])
			}
		}
		in := 0.0
		for _, n := range g.In {
			switch {
			case isConst(n):
			case s.isInput[n] && st == 0:
				in = max(in, s.inArr[n])
			default:
				in = max(in, s.clk2q[n])
			}
		}
		if in+s.gd[gi]+q > budget && st > 0 {
			st, q = st-1, 0
		}
		late[gi], after[gi] = st, q
	}
	return late
}

// schedule assigns every gate a stage under the budget (the time from a
// stage's start to a register's D input): the least latency the forward
// placement allows, or more when the cuts cannot meet it.
func (s *scheduler) schedule(budget float64) ([]int32, int, error) {
	unplaced := make([]int32, len(s.d.Gates))
	for i := range unplaced {
		unplaced[i] = -1
	}
	first, arr, err := s.forward(unplaced, 0, budget)
	if err != nil {
		return nil, 0, err
	}
	minL := s.latency(first, arr, budget)
	if minL > MaxLatency {
		return nil, 0, fmt.Errorf("%d stages needed, more than %d: %w", minL, MaxLatency, ErrPeriod)
	}
	if stageOf, ok := s.cutAll(minL, budget); ok {
		return stageOf, int(minL), nil
	}
	// The cuts chosen for fewest registers left too much for the last
	// stages: the placement as early as possible meets the latency.
	return first, int(minL), nil
}

// placeIn places the gates in L stages: the boundaries cut for fewest
// registers where they can be (cutAll), else every gate as early as it
// fits, if that takes at most L stages.
func (s *scheduler) placeIn(L int32, budget float64) ([]int32, error) {
	if stageOf, ok := s.cutAll(L, budget); ok {
		return stageOf, nil
	}
	unplaced := make([]int32, len(s.d.Gates))
	for i := range unplaced {
		unplaced[i] = -1
	}
	first, arr, err := s.forward(unplaced, 0, budget)
	if err != nil {
		return nil, err
	}
	if minL := s.latency(first, arr, budget); minL > L {
		return nil, fmt.Errorf("the gate-level placement takes %d stages, not %d", minL, L)
	}
	return first, nil
}

// cutAll places the boundaries of an L-stage pipeline one by one.
func (s *scheduler) cutAll(L int32, budget float64) ([]int32, bool) {
	late := s.backward(L, budget)
	stageOf := make([]int32, len(s.d.Gates))
	for i := range stageOf {
		stageOf[i] = -1
	}
	for k := int32(0); k < L; k++ {
		early, arr, err := s.forward(stageOf, k, budget)
		if err != nil {
			return nil, false
		}
		if k == L-1 {
			if s.lastStage(stageOf, early, arr, L, budget) != nil {
				return nil, false
			}
			return early, true
		}
		fits := make([]bool, len(stageOf))
		for gi := range stageOf {
			if stageOf[gi] >= 0 {
				continue
			}
			fits[gi] = early[gi] == k
			if late[gi] <= k && !fits[gi] {
				return nil, false
			}
		}
		for gi, in := range s.minCut(stageOf, fits, late, k, nil) {
			if in {
				stageOf[gi] = k
			}
		}
	}
	return stageOf, true
}

// lastStage checks that the last of L stages takes every gate not yet
// placed (stageOf -1) as the forward placement early puts them, and every
// output's valid mask.
func (s *scheduler) lastStage(stageOf, early []int32, arr []float64, L int32, budget float64) error {
	for gi := range stageOf {
		if stageOf[gi] < 0 && early[gi] != L-1 {
			return fmt.Errorf("gate g%d does not fit the last of %d stages", gi, L)
		}
	}
	if s.latency(early, arr, budget) > L {
		return fmt.Errorf("an output's mask does not fit the last of %d stages", L)
	}
	return nil
}

// minCut chooses the gates of stage k among those that fit (fits), taking
// every gate that must be in it (late ≤ k), closed under fan-in, so that
// the fewest nets cross into stage k+1; the gates of each of groups are
// taken all or none. It returns the chosen set.
func (s *scheduler) minCut(stageOf []int32, fits []bool, late []int32, k int32, groups [][]int32) []bool {
	const src, snk = 0, 1
	g := newFlowGraph(2)
	node := make([]int32, len(s.d.Gates))
	for gi := range node {
		node[gi] = -1
		if fits[gi] {
			node[gi] = g.addNode()
			if late[gi] <= k {
				g.edge(src, node[gi], inf)
			}
		}
	}
	// A net costs one register when it is available by stage k (from an
	// earlier stage, a primary input or a chosen gate) and some reader is
	// not chosen or it is an output.
	addNet := func(n netlist.Net, from int32) {
		x := g.addNode()
		g.edge(from, x, 1)
		if s.isOut[n] {
			g.edge(x, snk, inf)
		}
		for _, r := range s.readers[n] {
			if stageOf[r] >= 0 {
				continue
			}
			if node[r] >= 0 {
				g.edge(x, node[r], inf)
			} else {
				g.edge(x, snk, inf)
			}
		}
	}
	for n := netlist.Net(0); int(n) < s.d.NumNets; n++ {
		if isConst(n) {
			continue
		}
		drv := s.driver[n]
		switch {
		case s.isInput[n] || (drv >= 0 && stageOf[drv] >= 0):
			addNet(n, src)
		case drv >= 0 && fits[drv]:
			addNet(n, node[drv])
			for _, r := range s.readers[n] {
				if node[r] >= 0 {
					g.edge(node[r], node[drv], inf) // a chosen reader needs its driver
				}
			}
		}
	}
	for _, grp := range groups {
		for i := 1; i < len(grp); i++ {
			a, b := node[grp[i-1]], node[grp[i]]
			g.edge(a, b, inf)
			g.edge(b, a, inf)
		}
	}
	g.maxFlow(src, snk)
	side := g.sourceSide(snk)
	chosen := make([]bool, len(s.d.Gates))
	for gi, nd := range node {
		chosen[gi] = nd >= 0 && side[nd]
	}
	return chosen
}
