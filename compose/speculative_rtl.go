package compose

import (
	"fmt"
	"strings"

	"github.com/lsugen/lsugen/netlist"
)

// gateRTL is a readable view of a clocked gate netlist: one assignment
// per combinational gate (a wire named after its net) and one one-bit
// register per flip-flop, in the netlist's order. It is what the
// variable-latency speculative coalescer, assembled from pipelines at gate
// level, prints as its RTL module; both views have the same registers
// under the same names.
func gateRTL(d *netlist.Design) (*netlist.RTL, error) {
	r := &netlist.RTL{}
	var wide []netlist.Net // bits of multi-bit inputs
	ref := make([]*netlist.Expr, d.NumNets)
	ref[netlist.Const0], ref[netlist.Const1] = netlist.ConstExpr(0, 1), netlist.ConstExpr(1, 1)
	taken := map[string]bool{}
	for _, p := range d.Ports {
		taken[p.Name] = true
		if p.Dir != netlist.In {
			continue
		}
		for i, n := range p.Bits {
			if p.Width() == 1 {
				ref[n] = netlist.Ref(p.Name, 1)
			} else {
				ref[n] = netlist.Slice(netlist.Ref(p.Name, p.Width()), i, i)
				wide = append(wide, n)
			}
		}
	}
	name := func(n netlist.Net) string {
		s := identifier(d.NetNames[n])
		if s == "" || taken[s] {
			s = fmt.Sprintf("n%d", n)
		}
		for taken[s] {
			s += "_"
		}
		taken[s] = true
		return s
	}
	// The bits of wide inputs that gates read are scalar wires, one
	// bit-select each: Icarus elaborates every bit-select slowly (see
	// retime's readable view).
	read := make([]bool, d.NumNets)
	for _, g := range d.Gates {
		for _, n := range g.In {
			read[n] = true
		}
	}
	for _, n := range wide {
		if read[n] {
			w := name(n)
			r.Assigns = append(r.Assigns, netlist.Assign{Name: w, Wire: true, Expr: ref[n]})
			ref[n] = netlist.Ref(w, 1)
		}
	}
	var regs []netlist.Gate
	for _, g := range d.Gates {
		if g.Kind == netlist.DFF {
			ref[g.Out] = netlist.Ref(name(g.Out), 1)
			regs = append(regs, g)
		}
	}
	for _, g := range d.Gates {
		if g.Kind == netlist.DFF {
			continue
		}
		in := make([]*netlist.Expr, len(g.In))
		for i, n := range g.In {
			in[i] = ref[n]
		}
		e := netlist.GateExpr(g.Kind, in)
		if e == nil {
			return nil, fmt.Errorf("%s: no word-level form of gate kind %s", d.Name, g.Kind)
		}
		w := name(g.Out)
		r.Assigns = append(r.Assigns, netlist.Assign{Name: w, Wire: true, Expr: e})
		ref[g.Out] = netlist.Ref(w, 1)
	}
	for _, g := range regs {
		r.Regs = append(r.Regs, netlist.Reg{Name: ref[g.Out].Name, Width: 1, Next: ref[g.In[0]]})
	}
	for _, p := range d.Outputs() {
		parts := make([]*netlist.Expr, p.Width())
		for i, n := range p.Bits {
			parts[i] = ref[n]
		}
		e := parts[0]
		if len(parts) > 1 {
			e = netlist.Concat(parts...)
		}
		r.Assigns = append(r.Assigns, netlist.Assign{Name: p.Name, Expr: e})
	}
	return r, nil
}

// identifier makes a net name a Verilog identifier: characters other than
// letters, digits and '_' become '_'.
func identifier(s string) string {
	if s == "" {
		return ""
	}
	b := []byte(s)
	for i, c := range b {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	out := strings.TrimRight(string(b), "_")
	if out == "" || out[0] >= '0' && out[0] <= '9' {
		return ""
	}
	return out
}
