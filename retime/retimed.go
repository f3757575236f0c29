package retime

import (
	"errors"
	"fmt"
	"strings"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/timing"
)

// PipelineForRetiming writes d for a flow that retimes: d's logic as it
// is, followed by L register stages, L the latency Pipeline finds at
// opt (the least with every stage within the period). Ports, protocol and
// latency are Pipeline's; the registers are all after the logic, so the
// first stage holds the whole combinational delay until synthesis moves
// them (StageFO4 says so).
//
// The readable module is d's word-level view with its outputs renamed to
// wires <port>_comb, then per output the registers <port>_q1 ...
// <port>_q<L-1> and <port>_q; d's instances stay instances in both
// modules. The gate-level flip-flops are named <reg>_<bit> after them,
// so that the proof pairs the two views' registers.
func PipelineForRetiming(d *netlist.Design, opt Options) (*Result, error) {
	if d != nil && d.RTL == nil {
		return nil, fmt.Errorf("retime: %s has no word-level view to write before the registers", d.Name)
	}
	placed, err := Pipeline(d, opt)
	if err != nil {
		return nil, err
	}
	L := placed.Latency
	r, err := buildRetimed(d, L, opt.Timing.Mode != timing.Sized)
	if err != nil {
		return nil, err
	}
	mode, lib := opt.Recorded()
	r.Design.Pipeline = &netlist.Pipeline{PeriodFO4: opt.PeriodFO4, Mode: mode, Library: lib, Latency: L, RegStage: r.regStage()}
	if _, err := r.measure(opt.Timing); err != nil {
		return nil, err
	}
	placedSt := make([]string, len(placed.StageFO4))
	for i, t := range placed.StageFO4 {
		placedSt[i] = fmt.Sprintf("%g", t)
	}
	r.Design.Header = append(r.Design.Header,
		fmt.Sprintf("Written for a flow that retimes (pipeline = \"retime\"): the combinational logic, then %s of registers.", cycles(L)),
		fmt.Sprintf("Placed in the logic at a clock period of %.6g FO4 (%s) the registers give stage delays", opt.PeriodFO4, opt.modeWords()),
		fmt.Sprintf("%s FO4; here the first stage holds the whole logic, %.2f FO4, until synthesis retimes them.", strings.Join(placedSt, ", "), r.StageFO4[0]),
		"Protocol: an input presented with valid_i = 1 in cycle t is on the outputs with valid_o = 1 in",
		fmt.Sprintf("cycle t+%d; an input is accepted every cycle. Outputs come from registers and are 0 while", L),
		"valid_o is 0. rst (synchronous, active high) clears valid_o and drops every input in flight.")
	return r, nil
}

// buildRetimed makes d's gates followed by L register stages per output
// bit, with the valid chain and output mask of build.
func buildRetimed(d *netlist.Design, L int, buffer bool) (*Result, error) {
	if L < 1 {
		return nil, errors.New("retime: latency below 1")
	}
	out := &netlist.Design{
		Name:      d.Name,
		NumNets:   d.NumNets,
		NetNames:  map[netlist.Net]string{},
		Clock:     "clk",
		Instances: append([]netlist.Instance(nil), d.Instances...),
	}
	b := &builder{d: d, out: out, rank: map[int]int{}}
	for n, s := range d.NetNames {
		out.NetNames[n] = s
	}
	// d's gates keep their indices, so its instances' gate ranges hold.
	for _, g := range d.Gates {
		out.Gates = append(out.Gates, netlist.Gate{Kind: g.Kind, In: append([]netlist.Net(nil), g.In...), Out: g.Out})
	}

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

	// The valid chain, as build makes it (with the unsized model the
	// reset and the valid mask through buffer trees).
	tree := b.fanoutTree(buffer)
	next, validQ := b.validChain(rst, validI, L, tree)

	// Each output through L-1 stage registers, then its masked output
	// register.
	stageRegs := make([]int, L-1)
	outs := d.Outputs()
	var stages [][]string   // per output, its register names in order
	var lasts []netlist.Bus // per output, its last stage's bits
	for _, p := range outs {
		var names []string
		cur := p.Bits
		for k := 1; k < L; k++ {
			q := make(netlist.Bus, len(cur))
			for i, n := range cur {
				q[i] = b.dff(n, k-1)
			}
			name := fmt.Sprintf("%s_q%d", p.Name, k)
			nameBus(out, name, q)
			names = append(names, name)
			stageRegs[k-1] += len(q)
			cur = q
		}
		stages = append(stages, names)
		lasts = append(lasts, cur)
	}
	masked := 0
	for _, p := range outs {
		masked += p.Width()
	}
	masks := tree(next, masked)
	mask := func() netlist.Net {
		m := masks[0]
		masks = masks[1:]
		return m
	}
	for oi, p := range outs {
		last := lasts[oi]
		bits := make(netlist.Bus, len(last))
		for i, n := range last {
			bits[i] = b.dff(b.gate(netlist.AND2, n, mask()), L-1)
		}
		nameBus(out, p.Name+"_q", bits)
		port(p.Name, netlist.Out, bits, p.Doc)
	}
	port("valid_o", netlist.Out, netlist.Bus{validQ[L-1]}, fmt.Sprintf("the outputs hold the operation presented %s before", cycles(L)))

	out.Header = append(out.Header, headerBefore(d)...)
	rv, err := retimedView(d, stages, L)
	if err != nil {
		return nil, err
	}
	out.RTL = rv
	if err := out.Check(); err != nil {
		return nil, fmt.Errorf("retime: %s: %w", d.Name, err)
	}
	r := b.result(L, stageRegs)
	out.Storage = retimedStorage(d, L, r.Registers)
	return r, nil
}

// retimedStorage names the register groups for area reports.
func retimedStorage(d *netlist.Design, L, total int) []netlist.Storage {
	var s []netlist.Storage
	outBits := 0
	for _, p := range d.Outputs() {
		outBits += p.Width()
	}
	if L > 1 {
		s = append(s, netlist.Storage{Name: "stages", Bits: total - L - outBits,
			Doc: fmt.Sprintf("the outputs' %d register stages before the output registers, for synthesis to retime", L-1)})
	}
	return append(s, netlist.Storage{Name: "outputs", Bits: outBits, Doc: "the output registers"},
		netlist.Storage{Name: "valid_q", Bits: L, Doc: "the valid chain"})
}

// retimedView is d's word-level view with each output assigned to a wire
// <port>_comb instead, followed by the registers of stages (per output,
// its stage registers' names) and the output registers.
func retimedView(d *netlist.Design, stages [][]string, L int) (*netlist.RTL, error) {
	taken := takenNames(d.Ports, d.RTL)
	outs := d.Outputs()
	comb := map[string]string{}
	for oi, p := range outs {
		name := p.Name + "_comb"
		for taken[name] {
			name += "_"
		}
		taken[name] = true
		comb[p.Name] = name
		for _, reg := range append(stages[oi], p.Name+"_q") {
			if taken[reg] {
				return nil, fmt.Errorf("retime: %s: the register name %s is taken in its word-level view", d.Name, reg)
			}
			taken[reg] = true
		}
	}
	// References to an output port read its combinational value.
	rename := func(e *netlist.Expr) *netlist.Expr {
		return netlist.MapRefs(e, func(ref *netlist.Expr) *netlist.Expr {
			if c, ok := comb[ref.Name]; ok {
				return netlist.Ref(c, ref.W)
			}
			return ref
		})
	}
	r := &netlist.RTL{Params: d.RTL.Params}
	for _, a := range d.RTL.Assigns {
		a.Expr = rename(a.Expr)
		if a.Inst != nil {
			inst := *a.Inst
			inst.Ports = make([]netlist.PortConn, len(a.Inst.Ports))
			for i, c := range a.Inst.Ports {
				c.In = rename(c.In)
				inst.Ports[i] = c
			}
			a.Inst = &inst
		} else if !a.Wire {
			a.Name, a.Wire = comb[a.Name], true
		}
		r.Assigns = append(r.Assigns, a)
	}

	rst := netlist.Ref("rst", 1)
	validIn := netlist.Ref("valid_i", 1)
	next := validIn
	if L > 1 {
		next = netlist.Concat(validIn, netlist.Slice(netlist.Ref("valid_q", L), L-2, 0))
	}
	r.Regs = append(r.Regs, netlist.Reg{Name: "valid_q", Width: L, Clear: rst, Next: next,
		Doc: "valid_q[k] holds whether register stage k+1 (the outputs for k = L-1) has an operation."})
	bit := func(name string, w, i int) *netlist.Expr {
		if w == 1 {
			return netlist.Ref(name, 1)
		}
		return netlist.Slice(netlist.Ref(name, w), i, i)
	}
	entering := netlist.AndE(validIn, netlist.NotE(rst))
	if L > 1 {
		entering = netlist.AndE(bit("valid_q", L, L-2), netlist.NotE(rst))
	}
	for oi, p := range outs {
		w := p.Width()
		prev := comb[p.Name]
		for k, name := range stages[oi] {
			doc := ""
			if oi == 0 {
				doc = fmt.Sprintf("Register stage %d of the outputs (a retiming flow moves these into the logic).", k+1)
			}
			r.Regs = append(r.Regs, netlist.Reg{Name: name, Width: w, Next: netlist.Ref(prev, w), Doc: doc})
			prev = name
		}
		r.Regs = append(r.Regs, netlist.Reg{Name: p.Name + "_q", Width: w, Clear: netlist.NotE(entering), Next: netlist.Ref(prev, w),
			Doc: fmt.Sprintf("The output register of %s.", p.Name)})
		r.Assigns = append(r.Assigns, netlist.Assign{Name: p.Name, Expr: netlist.Ref(p.Name+"_q", w)})
	}
	r.Assigns = append(r.Assigns, netlist.Assign{Name: "valid_o", Expr: bit("valid_q", L, L-1)})
	return r, nil
}
