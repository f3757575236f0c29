package netlist

import (
	"fmt"
	"slices"
)

// Instance is another unit's design placed inside this one, as a unit
// that refers to another (a bank arbiter's hash) uses it. Its gates are
// copied into the parent's Gates, so the simulator, timing and every
// check see the flat design; the Verilog writers print a module instance
// of Design (and of its gate-level module) in their place.
type Instance struct {
	Name   string  // instance name, unique in the parent
	Design *Design // the instantiated unit; combinational
	// Conns are the parent's nets on each port of Design, in
	// Design.Ports order: for an input what drives it, for an output the
	// nets the copy drives (an output that is an input bit or a constant
	// in Design is that parent net or constant).
	Conns []Bus
	// Gates[First:Last] are the copy of Design.Gates, in order.
	First, Last int
}

// Instance places a copy of the combinational design sub, named name,
// with its input ports driven by in (port name -> parent nets, each of
// the port's width) and returns its output ports' nets by name. The copy
// is kept whole (Build never removes part of it) and shares no gate with
// the rest of the design, so the gate-level module can instantiate sub's.
func (b *Builder) Instance(name string, sub *Design, in map[string]Bus) map[string]Bus {
	out := map[string]Bus{}
	fail := func(format string, args ...any) map[string]Bus {
		b.errs = append(b.errs, fmt.Errorf("netlist: %s: instance %s of %s: %s", b.d.Name, name, sub.Name, fmt.Sprintf(format, args...)))
		for _, p := range sub.Outputs() {
			out[p.Name] = make(Bus, p.Width())
		}
		return out
	}
	if sub.Clock != "" || len(sub.Memories) > 0 {
		return fail("only combinational designs can be instantiated (no registers or memories)")
	}
	for _, inst := range b.d.Instances {
		if inst.Name == name {
			return fail("the instance name is used twice")
		}
	}
	m := make([]Net, sub.NumNets)
	for i := range m {
		m[i] = -1
	}
	m[Const0], m[Const1] = Const0, Const1
	for _, p := range sub.Inputs() {
		bits, ok := in[p.Name]
		if !ok || len(bits) != p.Width() {
			return fail("input %s wants %d bits, got %d", p.Name, p.Width(), len(bits))
		}
		for i, n := range p.Bits {
			m[n] = bits[i]
		}
	}
	for port := range in {
		if p := sub.Port(port); p == nil || p.Dir != In {
			return fail("%s is not an input port", port)
		}
	}
	inst := Instance{Name: name, Design: sub, First: len(b.d.Gates)}
	for _, g := range sub.Gates {
		ng := Gate{Kind: g.Kind, In: make([]Net, len(g.In)), Out: b.newNet()}
		for i, n := range g.In {
			ng.In[i] = m[n]
		}
		m[g.Out] = ng.Out
		b.d.Gates = append(b.d.Gates, ng)
	}
	inst.Last = len(b.d.Gates)
	for _, p := range sub.Ports {
		bus := make(Bus, p.Width())
		for i, n := range p.Bits {
			bus[i] = m[n]
		}
		inst.Conns = append(inst.Conns, bus)
		if p.Dir == Out {
			out[p.Name] = slices.Clone(bus)
			b.Name(name+"_"+p.Name, bus)
		}
	}
	b.d.Instances = append(b.d.Instances, inst)
	return out
}

// Submodules returns every design instantiated in d, directly or deeper,
// each once, the deepest first (the order a tool must read them in), by
// module name.
func (d *Design) Submodules() []*Design {
	var out []*Design
	seen := map[string]bool{}
	var walk func(x *Design)
	walk = func(x *Design) {
		for _, inst := range x.Instances {
			if seen[inst.Design.Name] {
				continue
			}
			walk(inst.Design)
			seen[inst.Design.Name] = true
			out = append(out, inst.Design)
		}
	}
	walk(d)
	return out
}

// InstanceOf returns, for each gate of d, the index in d.Instances of the
// instance it was copied for, or -1 for the design's own gates.
func (d *Design) InstanceOf() []int {
	own := make([]int, len(d.Gates))
	for i := range own {
		own[i] = -1
	}
	for k, inst := range d.Instances {
		for i := inst.First; i < inst.Last; i++ {
			own[i] = k
		}
	}
	return own
}

// Uninstance makes the gates of instance name the design's own: they are
// no longer printed as a module instance (a generator that writes the
// copied unit's logic inline, in both views) and Build may remove those
// nothing reads.
func (b *Builder) Uninstance(name string) {
	for i, inst := range b.d.Instances {
		if inst.Name == name {
			b.d.Instances = slices.Delete(b.d.Instances, i, i+1)
			return
		}
	}
	b.errs = append(b.errs, fmt.Errorf("netlist: %s: Uninstance: no instance %s", b.d.Name, name))
}
