package retime

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lsugen/lsugen/netlist"
)

// builder makes the pipelined design: d's nets keep their numbers, the
// new nets (registers, valid chain, output masks) follow.
type builder struct {
	d       *netlist.Design
	out     *netlist.Design
	rank    map[int]int // DFF gate index -> the boundary it sits on
	version map[[2]int32]netlist.Net
}

// fanoutTree returns how a net reaches loads readers: one net for all, or
// with buffer a tree of buffers (the unsized model's, BufferTree).
func (b *builder) fanoutTree(buffer bool) func(n netlist.Net, loads int) []netlist.Net {
	return func(n netlist.Net, loads int) []netlist.Net {
		if !buffer {
			return repeatNet(n, loads)
		}
		return BufferTree(n, loads, func(in netlist.Net) netlist.Net { return b.gate(netlist.BUF, in) })
	}
}

// validChain builds the valid chain of L stages, valid_q[k] holding the
// operation of boundary k+1, cleared by rst (through tree), and returns
// the last register's D: the output registers load their data masked
// with it, so outputs are 0 when valid_o is.
func (b *builder) validChain(rst, validI netlist.Net, L int, tree func(netlist.Net, int) []netlist.Net) (next netlist.Net, validQ netlist.Bus) {
	rstN := tree(b.gate(netlist.INV, rst), L)
	v := validI
	validQ = make(netlist.Bus, L)
	for k := 0; k < L; k++ {
		next = b.gate(netlist.AND2, v, rstN[k])
		v = b.dff(next, k)
		validQ[k] = v
	}
	nameBus(b.out, "valid_q", validQ)
	return next, validQ
}

// headerBefore is the original's header without its protocol, which the
// pipeline's replaces, and a blank line after it.
func headerBefore(d *netlist.Design) []string {
	var h []string
	for _, l := range d.Header {
		if !strings.HasPrefix(l, "Protocol:") {
			h = append(h, l)
		}
	}
	return append(h, "")
}

// result is the pipeline built into b.out, with L stages and stageRegs
// registers at each boundary, its flip-flops counted.
func (b *builder) result(L int, stageRegs []int) *Result {
	r := &Result{Design: b.out, Latency: L, StageRegisters: stageRegs, rank: b.rank}
	for _, g := range b.out.Gates {
		if g.Kind == netlist.DFF {
			r.Registers++
		}
	}
	return r
}

// takenNames are the names a pipelined view's new signals must avoid:
// the protocol's, the ports' and those of view's parameters, wires and
// instance connections.
func takenNames(ports []netlist.Port, view *netlist.RTL) map[string]bool {
	taken := map[string]bool{"clk": true, "rst": true, "valid_i": true, "valid_o": true, "valid_q": true}
	for _, p := range ports {
		taken[p.Name] = true
	}
	for _, p := range view.Params {
		taken[p.Name] = true
	}
	for _, a := range view.Assigns {
		taken[a.Name] = true
		if a.Inst != nil {
			for _, c := range a.Inst.Ports {
				taken[c.Wire] = true
			}
		}
	}
	return taken
}

func (b *builder) newNet() netlist.Net { return b.out.NewNet() }

func (b *builder) gate(k netlist.Kind, in ...netlist.Net) netlist.Net { return b.out.AddGate(k, in...) }

func (b *builder) dff(d netlist.Net, rank int) netlist.Net {
	q := b.gate(netlist.DFF, d)
	b.rank[len(b.out.Gates)-1] = rank
	return q
}

// build makes the L-stage design with the gates of d in the stages of
// stageOf (0-based).
//
// With buffer set (the unsized model, whose gates drive their whole
// fanout alone) the reset reaches the valid chain, and the valid mask the
// output registers, through trees of buffers of fanout at most
// MaxBufferFanout, as a designer builds them; the sized model's cost of a
// fanout is already that of a tree (and an explicit one would cost more
// in it). The trees are the gate view's only: the readable view reads rst
// and the valid bits directly, the same logic.
// useStages is where each net of d is produced (its driver's stage) and
// the last stage that reads it, -1 for none (an output is read by the
// last stage, whose registers it feeds), and which nets are inputs.
func useStages(d *netlist.Design, stageOf []int32, L int) (isInput []bool, prodStage, lastUse []int32) {
	isInput = make([]bool, d.NumNets)
	for _, p := range d.Inputs() {
		for _, n := range p.Bits {
			isInput[n] = true
		}
	}
	prodStage = make([]int32, d.NumNets)
	lastUse = make([]int32, d.NumNets)
	for i := range lastUse {
		lastUse[i] = -1
	}
	for gi, g := range d.Gates {
		prodStage[g.Out] = stageOf[gi]
		for _, n := range g.In {
			lastUse[n] = max(lastUse[n], stageOf[gi])
		}
	}
	for _, p := range d.Outputs() {
		for _, n := range p.Bits {
			lastUse[n] = int32(L - 1)
		}
	}
	return isInput, prodStage, lastUse
}

// registersAt is how many flip-flops build makes for d with its gates in
// stageOf's L stages: a register per net and boundary it crosses, the
// valid chain and the output registers.
func registersAt(d *netlist.Design, stageOf []int32, L int) int {
	isInput, prodStage, lastUse := useStages(d, stageOf, L)
	n := L
	for _, p := range d.Outputs() {
		n += p.Width()
	}
	for net := 2; net < d.NumNets; net++ {
		if lastUse[net] < 0 {
			continue
		}
		from := int32(0)
		if !isInput[net] {
			from = prodStage[net]
		}
		n += int(lastUse[net] - from)
	}
	return n
}

func build(d *netlist.Design, stageOf []int32, L int, buffer bool) (*Result, error) {
	out := &netlist.Design{
		Name:     d.Name,
		NumNets:  d.NumNets,
		NetNames: map[netlist.Net]string{},
		Clock:    "clk",
	}
	b := &builder{d: d, out: out, rank: map[int]int{}, version: map[[2]int32]netlist.Net{}}

	isInput, prodStage, lastUse := useStages(d, stageOf, L)

	// Ports: clk, rst, valid_i, d's inputs (same nets), d's outputs (the
	// output registers, made below) and valid_o.
	port := func(name string, dir netlist.Dir, bits netlist.Bus, doc string) {
		out.Ports = append(out.Ports, netlist.Port{Name: name, Dir: dir, Bits: bits, Doc: doc})
	}
	clk, rst, validI := b.newNet(), b.newNet(), b.newNet()
	port("clk", netlist.In, netlist.Bus{clk}, "clock; every register loads at its rising edge")
	port("rst", netlist.In, netlist.Bus{rst}, "synchronous reset, active high: drops every input in flight, this cycle's too")
	port("valid_i", netlist.In, netlist.Bus{validI}, "the inputs of this cycle are an operation (accepted every cycle)")
	for _, p := range d.Inputs() {
		port(p.Name, netlist.In, p.Bits, p.Doc)
	}

	// Stage registers: a net produced in stage s and read in stage u > s
	// passes through one register per boundary s..u-1, named
	// stage<k>_q by the boundary k (1-based) they end.
	type carried struct {
		net   netlist.Net
		stage int32
	}
	var carry []carried
	for n := netlist.Net(2); int(n) < d.NumNets; n++ {
		if lastUse[n] < 0 {
			continue
		}
		from := int32(0)
		if !isInput[n] {
			from = prodStage[n]
		}
		b.version[[2]int32{int32(n), from}] = n
		for st := from + 1; st <= lastUse[n]; st++ {
			carry = append(carry, carried{n, st})
		}
	}
	// Registers by boundary, then by net: each boundary's bus in net order.
	slices.SortStableFunc(carry, func(a, c carried) int { return int(a.stage - c.stage) })
	stageRegs := make([]int, max(L-1, 0))
	regs := make([]regBus, max(L-1, 0))
	for k := range regs {
		regs[k] = regBus{name: fmt.Sprintf("stage%d_q", k+1), doc: fmt.Sprintf("The values stage %d hands to stage %d.", k+1, k+2)}
	}
	for _, c := range carry {
		prev := b.version[[2]int32{int32(c.net), c.stage - 1}]
		q := b.dff(prev, int(c.stage-1))
		b.version[[2]int32{int32(c.net), c.stage}] = q
		rb := &regs[c.stage-1]
		rb.bits, rb.d = append(rb.bits, q), append(rb.d, prev)
		stageRegs[c.stage-1]++
	}
	var used []regBus
	for _, rb := range regs {
		if len(rb.bits) > 0 {
			nameBus(out, rb.name, rb.bits)
			used = append(used, rb)
		}
	}
	regs = used
	at := func(n netlist.Net, st int32) netlist.Net {
		if isConst(n) {
			return n
		}
		v, ok := b.version[[2]int32{int32(n), st}]
		if !ok {
			panic(fmt.Sprintf("retime: net %d has no version in stage %d", n, st))
		}
		return v
	}

	// The logic, each gate reading its inputs' versions in its stage.
	stageOfNet := map[netlist.Net]int32{}
	for gi, g := range d.Gates {
		stageOfNet[g.Out] = stageOf[gi]
		in := make([]netlist.Net, len(g.In))
		for i, n := range g.In {
			in[i] = at(n, stageOf[gi])
		}
		out.Gates = append(out.Gates, netlist.Gate{Kind: g.Kind, In: in, Out: g.Out})
		if name, ok := d.NetNames[g.Out]; ok {
			out.NetNames[g.Out] = name
		}
	}

	// The valid chain: valid_q[k] holds the operation of boundary k+1;
	// rst clears it. next is the last register's D: the output registers
	// load their data masked with it, so outputs are 0 when valid_o is.
	tree := b.fanoutTree(buffer)
	next, validQ := b.validChain(rst, validI, L, tree)

	masked := 0
	for _, p := range d.Outputs() {
		masked += p.Width()
	}
	masks := tree(next, masked)
	mask := func() netlist.Net {
		m := masks[0]
		masks = masks[1:]
		return m
	}
	outData := map[string]netlist.Bus{}
	for _, p := range d.Outputs() {
		bits := make(netlist.Bus, len(p.Bits))
		data := make(netlist.Bus, len(p.Bits))
		for i, n := range p.Bits {
			data[i] = at(n, int32(L-1))
			bits[i] = b.dff(b.gate(netlist.AND2, data[i], mask()), L-1)
		}
		nameBus(out, p.Name+"_q", bits)
		outData[p.Name] = data
		port(p.Name, netlist.Out, bits, p.Doc)
	}
	port("valid_o", netlist.Out, netlist.Bus{validQ[L-1]}, fmt.Sprintf("the outputs hold the operation presented %s before", cycles(L)))

	out.Header = append(out.Header, headerBefore(d)...)
	if err := out.Check(); err != nil {
		return nil, fmt.Errorf("retime: %s: %w", d.Name, err)
	}
	r := b.result(L, stageRegs)
	// The gate-by-gate view is written for the placement that is kept
	// only: most placements are timed and dropped.
	r.view = func() *netlist.RTL { return rtlView(out, stageOfNet, regs, outData, validQ, L) }
	out.Storage = storage(stageRegs, L, r.Registers)
	return r, nil
}

// nameBus names register bits as the netlist builder does: name for one
// bit, name_<i> for several.
func nameBus(d *netlist.Design, name string, bits netlist.Bus) {
	for i, n := range bits {
		if len(bits) == 1 {
			d.NetNames[n] = name
		} else {
			d.NetNames[n] = fmt.Sprintf("%s_%d", name, i)
		}
	}
}

// storage names the register groups for area reports.
func storage(stageRegs []int, L, total int) []netlist.Storage {
	var s []netlist.Storage
	data := total - L
	for k, n := range stageRegs {
		if n > 0 {
			s = append(s, netlist.Storage{Name: fmt.Sprintf("stage%d_q", k+1), Bits: n,
				Doc: fmt.Sprintf("the values stage %d hands to stage %d", k+1, k+2)})
			data -= n
		}
	}
	s = append(s, netlist.Storage{Name: "outputs", Bits: data, Doc: "the output registers"},
		netlist.Storage{Name: "valid_q", Bits: L, Doc: "the valid chain"})
	return s
}

// describe is the protocol paragraph of the header comment.
func describe(periodFO4 float64, mode string, L int, stages []float64) []string {
	st := make([]string, len(stages))
	for i, t := range stages {
		st[i] = fmt.Sprintf("%g", t)
	}
	return []string{
		fmt.Sprintf("Pipelined at a clock period of %.6g FO4 (%s): latency %s;", periodFO4, mode, cycles(L)),
		fmt.Sprintf("stage delays %s FO4,", strings.Join(st, ", ")),
		"each with a register's clock-to-Q and setup.",
		"Protocol: an input presented with valid_i = 1 in cycle t is on the outputs with valid_o = 1 in",
		fmt.Sprintf("cycle t+%d; an input is accepted every cycle. Outputs come from registers and are 0 while", L),
		"valid_o is 0. rst (synchronous, active high) clears valid_o and drops every input in flight.",
	}
}

// cycles is "1 cycle" or "N cycles".
func cycles(n int) string {
	if n == 1 {
		return "1 cycle"
	}
	return fmt.Sprintf("%d cycles", n)
}
