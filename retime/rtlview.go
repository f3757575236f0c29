package retime

import (
	"fmt"
	"regexp"

	"github.com/lsugen/lsugen/netlist"
)

// rtlView writes the readable view of a pipelined design: each stage's
// logic as one assignment per gate, in stage order, over the ports and the
// stage registers stage<k>_q; the output registers <port>_q and the valid
// chain valid_q. Register bit i of a bus is the flip-flop the gate-level
// netlist names <bus>_<i>, so that the two views are proved equal by
// register correspondence.
func rtlView(p *netlist.Design, stageOfGate map[netlist.Net]int32, regs []regBus, outRegs map[string]netlist.Bus, validQ netlist.Bus, L int) *netlist.RTL {
	r := &netlist.RTL{}
	taken := map[string]bool{}
	for _, pt := range p.Ports {
		taken[pt.Name] = true
	}
	for _, rb := range regs {
		taken[rb.name] = true
	}
	for name := range outRegs {
		taken[name+"_q"] = true
	}
	taken["valid_q"] = true

	// How each net is read: a port bit, a register bit, a wire or a
	// constant.
	ref := map[netlist.Net]*netlist.Expr{}
	bitOf := func(name string, w, i int) *netlist.Expr {
		if w == 1 {
			return netlist.Ref(name, 1)
		}
		return netlist.Slice(netlist.Ref(name, w), i, i)
	}
	// The bits of wide ports and registers that the logic reads are
	// scalar wires, one bit-select each: Icarus elaborates every
	// bit-select of a wide vector slowly (a 21,000-gate pipeline took 28 s
	// to compile with a bit-select per reader, as the gate-level module
	// took 0.8 s with scalars).
	read := map[netlist.Net]bool{}
	for _, g := range p.Gates {
		if g.Kind != netlist.DFF {
			if _, ok := stageOfGate[g.Out]; ok {
				for _, n := range g.In {
					read[n] = true
				}
			}
		}
	}
	scalar := func(bus string, w int, bits netlist.Bus, suffix string) {
		for i, n := range bits {
			if w == 1 || !read[n] {
				ref[n] = bitOf(bus, w, i)
				continue
			}
			name := fmt.Sprintf("%s_%s%d", bus, suffix, i)
			for taken[name] {
				name += "_"
			}
			taken[name] = true
			r.Assigns = append(r.Assigns, netlist.Assign{Name: name, Wire: true, Compact: true, Expr: bitOf(bus, w, i)})
			ref[n] = netlist.Ref(name, 1)
		}
	}
	for _, pt := range p.Inputs() {
		scalar(pt.Name, pt.Width(), pt.Bits, "")
	}
	for _, rb := range regs {
		scalar(rb.name, len(rb.bits), rb.bits, "b")
	}
	for i, n := range validQ {
		ref[n] = bitOf("valid_q", len(validQ), i)
	}
	operand := func(n netlist.Net) *netlist.Expr {
		switch n {
		case netlist.Const0:
			return netlist.ConstExpr(0, 1)
		case netlist.Const1:
			return netlist.ConstExpr(1, 1)
		}
		e, ok := ref[n]
		if !ok {
			panic(fmt.Sprintf("retime: net %d read before it is named", n))
		}
		return e
	}

	// The logic, a wire per gate, stage by stage (gates are in
	// topological order within the design, and stage order keeps it).
	var wireOrder []netlist.Gate
	for k := int32(0); k < int32(L); k++ {
		for _, g := range p.Gates {
			if g.Kind != netlist.DFF {
				if st, ok := stageOfGate[g.Out]; ok && st == k {
					wireOrder = append(wireOrder, g)
				}
			}
		}
	}
	lastStage := int32(-1)
	for _, g := range wireOrder {
		name := wireName(p, g.Out, taken)
		args := make([]*netlist.Expr, len(g.In))
		for i, n := range g.In {
			args[i] = operand(n)
		}
		a := netlist.Assign{Name: name, Wire: true, Compact: true, Expr: netlist.GateExpr(g.Kind, args)}
		if st := stageOfGate[g.Out]; st != lastStage {
			a.Doc = fmt.Sprintf("Stage %d.", st+1)
			lastStage = st
		}
		r.Assigns = append(r.Assigns, a)
		ref[g.Out] = netlist.Ref(name, 1)
	}

	// Registers. The valid chain is cleared by rst; the output registers
	// load 0 unless an operation enters them (the last valid bit's next
	// value), so outputs are 0 while valid_o is.
	rst := netlist.Ref("rst", 1)
	validIn := netlist.Ref("valid_i", 1)
	next := validIn
	if L > 1 {
		next = netlist.Concat(validIn, netlist.Slice(netlist.Ref("valid_q", L), L-2, 0))
	}
	r.Regs = append(r.Regs, netlist.Reg{Name: "valid_q", Width: L, Clear: rst, Next: next,
		Doc: "valid_q[k] holds whether stage k+2 (the outputs for k = L-1) has an operation."})
	for _, rb := range regs {
		parts := make([]*netlist.Expr, len(rb.d))
		for i, n := range rb.d {
			parts[i] = operand(n)
		}
		r.Regs = append(r.Regs, netlist.Reg{Name: rb.name, Width: len(rb.bits), Next: concat(parts), Doc: rb.doc})
	}
	entering := netlist.AndE(bitOf("valid_q", L, L-2), netlist.NotE(rst))
	if L == 1 {
		entering = netlist.AndE(validIn, netlist.NotE(rst))
	}
	for _, pt := range p.Outputs() {
		if pt.Name == "valid_o" {
			continue
		}
		data := outRegs[pt.Name]
		parts := make([]*netlist.Expr, len(data))
		for i, n := range data {
			parts[i] = operand(n)
		}
		r.Regs = append(r.Regs, netlist.Reg{Name: pt.Name + "_q", Width: pt.Width(), Clear: netlist.NotE(entering), Next: concat(parts),
			Doc: fmt.Sprintf("The output register of %s.", pt.Name)})
		r.Assigns = append(r.Assigns, netlist.Assign{Name: pt.Name, Expr: netlist.Ref(pt.Name+"_q", pt.Width())})
	}
	r.Assigns = append(r.Assigns, netlist.Assign{Name: "valid_o", Expr: bitOf("valid_q", L, L-1)})
	return r
}

// regBus is one boundary's stage registers: their Q nets, the nets they
// load (D) and the bus name.
type regBus struct {
	name    string
	doc     string
	bits, d netlist.Bus
}

func concat(parts []*netlist.Expr) *netlist.Expr {
	if len(parts) == 1 {
		return parts[0]
	}
	return netlist.Concat(parts...)
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// wireName is the net's generator name when it is a free identifier, else
// n<number>.
func wireName(p *netlist.Design, n netlist.Net, taken map[string]bool) string {
	name := p.NetNames[n]
	if name == "" || !identifier.MatchString(name) || taken[name] {
		name = fmt.Sprintf("n%d", n)
	}
	for taken[name] {
		name += "_"
	}
	taken[name] = true
	return name
}
