package formal

import (
	"fmt"

	"github.com/lsugen/lsugen/netlist"
)

// netlistSide is the gate netlist of d as an and-inverter graph, built
// here from its gates and what each kind computes (netlist.Kinds), with
// the names the RTL module's graph has: an input per input port bit and
// memory read data bit, an output per output port bit and memory input
// bit (INSTANCE.PORT), and a latch per flip-flop, named after its net as
// the gate-level Verilog names it.
//
// This is the netlist that timing, area and the gate-level Verilog come
// from; the proof of RTL = netlist then needs Yosys for the RTL only.
// Reading the gate-level file back with Yosys instead (Options.GatesFile)
// also proves the gate writer, at several times the cost on large units.
//
// As Yosys's opt_clean does on the RTL side, a flip-flop that no output
// depends on (through any number of gates and flip-flops) is left out:
// its bit is unobservable.
//
// cuts are the equivalence points (nil for none), cut as Yosys's expose
// -cut cuts the RTL's: each point net's driver becomes an output NAME,
// and its readers read a new input NAME.i.
func netlistSide(d *netlist.Design, cuts []cutWire) (*side, error) {
	if err := d.Check(); err != nil {
		return nil, err
	}
	driver := make([]int32, d.NumNets)
	for i := range driver {
		driver[i] = -1
	}
	for gi, g := range d.Gates {
		driver[g.Out] = int32(gi)
	}
	outs := outNets(d)
	live := liveFlipFlops(d, driver, outs)

	s := &side{what: "gate netlist", m: &aigMap{}, in: map[mapBit]int{}, out: map[mapBit]int{}, latch: map[mapBit]int{}}
	b := &aigBuilder{}
	lit := make([]uint32, d.NumNets)
	done := make([]bool, d.NumNets)
	lit[netlist.Const0], lit[netlist.Const1] = 0, 1
	done[netlist.Const0], done[netlist.Const1] = true, true
	input := func(n netlist.Net, k mapBit) {
		s.in[k] = b.inputs
		s.m.inputs = append(s.m.inputs, k)
		b.inputs++
		lit[n], done[n] = uint32(2*b.inputs), true
	}
	for _, p := range d.Inputs() {
		for i, n := range p.Bits {
			input(n, mapBit{p.Name, i})
		}
	}
	for _, m := range d.Memories {
		for i, n := range m.RData {
			input(n, mapBit{m.Name + "." + netlist.BankRData, i})
		}
	}
	netOf := map[string]netlist.Net{}
	if len(cuts) > 0 {
		for n, name := range d.NetNames {
			netOf[name] = n
		}
		for _, c := range cuts {
			for _, g := range c.gates {
				n, ok := netOf[g]
				if !ok || driver[n] < 0 || done[n] { // done: already a point
					return nil, fmt.Errorf("equivalence point %s: no net of that name with a driver", g)
				}
				input(n, mapBit{g + cutSuffix, 0})
			}
		}
	}
	var ffs []int // gate index of each latch
	for _, gi := range live {
		name, ok := d.NetNames[d.Gates[gi].Out]
		if !ok || name == "" {
			name = fmt.Sprintf("n%d", d.Gates[gi].Out)
		}
		n := d.Gates[gi].Out
		s.latch[mapBit{name, 0}] = len(ffs)
		s.m.latches = append(s.m.latches, []mapBit{{name, 0}})
		ffs = append(ffs, gi)
		lit[n], done[n] = uint32(2*(b.inputs+len(ffs))), true
	}
	b.latches = make([]aigLatch, len(ffs))

	// Each net's literal, gates first needed first; an explicit stack,
	// since a path can be thousands of gates deep.
	var stack []netlist.Net
	var pins []uint32
	gateLit := func(g netlist.Gate) uint32 {
		pins = pins[:0]
		for _, in := range g.In {
			pins = append(pins, lit[in])
		}
		return b.fn(netlist.Kinds[g.Kind].Fn, pins)
	}
	netLit := func(root netlist.Net) (uint32, error) {
		stack = append(stack[:0], root)
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			if done[n] {
				stack = stack[:len(stack)-1]
				continue
			}
			gi := driver[n]
			if gi < 0 {
				return 0, fmt.Errorf("net %s has no driver", d.NetName(n))
			}
			ready := true
			for _, in := range d.Gates[gi].In {
				if !done[in] {
					stack = append(stack, in)
					ready = false
				}
			}
			if !ready {
				continue // Check refused combinational loops, so this ends
			}
			lit[n], done[n] = gateLit(d.Gates[gi]), true
			stack = stack[:len(stack)-1]
		}
		return lit[root], nil
	}
	// A point's driver: its gate on the literals of its inputs.
	for _, c := range cuts {
		for _, g := range c.gates {
			n := netOf[g]
			gate := d.Gates[driver[n]]
			for _, in := range gate.In {
				if _, err := netLit(in); err != nil {
					return nil, err
				}
			}
			s.out[mapBit{g, 0}] = len(b.outputs)
			b.outputs = append(b.outputs, gateLit(gate))
		}
	}
	for _, o := range outs {
		l, err := netLit(o.net)
		if err != nil {
			return nil, err
		}
		s.out[o.bit] = len(b.outputs)
		b.outputs = append(b.outputs, l)
	}
	for i, gi := range ffs {
		l, err := netLit(d.Gates[gi].In[0])
		if err != nil {
			return nil, err
		}
		b.latches[i].next = l
	}
	s.a = b.aig()
	return s, nil
}

// outNet is one output of the graph: a bit of an output port, or of a
// memory's input (its clock is the unit's clock).
type outNet struct {
	bit mapBit
	net netlist.Net
}

// outNets lists the graph's outputs in outPorts' order.
func outNets(d *netlist.Design) []outNet {
	var os []outNet
	add := func(name string, bits netlist.Bus) {
		for i, n := range bits {
			os = append(os, outNet{mapBit{name, i}, n})
		}
	}
	for _, p := range d.Outputs() {
		add(p.Name, p.Bits)
	}
	for i := range d.Memories {
		m := &d.Memories[i]
		for _, p := range m.Ports() {
			switch {
			case p.Output:
			case p.Name == netlist.BankClk:
				add(m.Name+"."+p.Name, d.Port(d.Clock).Bits)
			default:
				add(m.Name+"."+p.Name, p.Nets)
			}
		}
	}
	return os
}

// liveFlipFlops lists, in gate order, the flip-flops that some output
// depends on.
func liveFlipFlops(d *netlist.Design, driver []int32, outs []outNet) []int {
	seen := make([]bool, d.NumNets)
	var stack []netlist.Net
	for _, o := range outs {
		stack = append(stack, o.net)
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[n] {
			continue
		}
		seen[n] = true
		if gi := driver[n]; gi >= 0 {
			stack = append(stack, d.Gates[gi].In...)
		}
	}
	var live []int
	for gi, g := range d.Gates {
		if g.Kind == netlist.DFF && seen[g.Out] {
			live = append(live, gi)
		}
	}
	return live
}

// fn builds f over the pins' literals.
func (b *aigBuilder) fn(f netlist.Fn, pins []uint32) uint32 {
	switch f.Op {
	case netlist.FnPin:
		return pins[f.Pin]
	case netlist.FnNot:
		return b.fn(f.Args[0], pins) ^ 1
	case netlist.FnAnd, netlist.FnOr, netlist.FnXor:
		v := b.fn(f.Args[0], pins)
		for _, a := range f.Args[1:] {
			w := b.fn(a, pins)
			switch f.Op {
			case netlist.FnAnd:
				v = b.and(v, w)
			case netlist.FnOr:
				v = b.or(v, w)
			default:
				v = b.xor(v, w)
			}
		}
		return v
	case netlist.FnMux:
		s := b.fn(f.Args[0], pins)
		return b.or(b.and(s, b.fn(f.Args[1], pins)), b.and(s^1, b.fn(f.Args[2], pins)))
	}
	panic(fmt.Sprintf("formal: no Boolean function %d", f.Op)) // DFFs are latches here
}
