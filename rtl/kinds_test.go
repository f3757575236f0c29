package rtl

import (
	"strings"
	"testing"

	"github.com/lsugen/lsugen/netlist"
)

// kindsDesign is one gate of every combinational kind in netlist.Kinds,
// each over the low bits of x_i (pin i reads x_i[i]) and driving its own
// output port, with a readable view printed gate by gate through
// netlist.GateExpr: the design that shows the simulator and both Verilog
// writers what each kind computes.
func kindsDesign(t *testing.T) (d *netlist.Design, kinds []netlist.Kind) {
	t.Helper()
	d = &netlist.Design{Name: "kinds", Header: []string{"One output per combinational gate kind, for checking what each computes."}}
	x := netlist.Bus{2, 3, 4, 5}
	d.Ports = append(d.Ports, netlist.Port{Name: "x_i", Dir: netlist.In, Bits: x, Doc: "pin i of every gate reads bit i"})
	next := netlist.Net(6)
	r := &netlist.RTL{}
	for k := range netlist.Kind(netlist.NumKinds) {
		if k == netlist.DFF {
			continue
		}
		kinds = append(kinds, k)
		n := k.Arity()
		out := next
		next++
		d.Gates = append(d.Gates, netlist.Gate{Kind: k, In: append(netlist.Bus(nil), x[:n]...), Out: out})
		name := strings.ToLower(k.String()) + "_o"
		d.Ports = append(d.Ports, netlist.Port{Name: name, Dir: netlist.Out, Bits: netlist.Bus{out}, Doc: k.Func()})
		in := make([]*netlist.Expr, n)
		for i := range in {
			in[i] = netlist.Slice(netlist.Ref("x_i", len(x)), i, i)
		}
		r.Assigns = append(r.Assigns, netlist.Assign{Name: name, Expr: netlist.GateExpr(k, in)})
	}
	d.NumNets = int(next)
	d.RTL = r
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
	return d, kinds
}

// TestKinds_SimulatorAndVerilogMatchTruth: for every combinational kind
// and every input combination, the netlist simulator, the readable
// Verilog (netlist.GateExpr) and the gate-level Verilog (gateExpr), the
// latter two run by Icarus, all compute the kind's Truth column, which
// the Kinds table states apart from the function they are derived from.
// A wrong row, or a consumer that reads it wrongly, fails here.
func TestKinds_SimulatorAndVerilogMatchTruth(t *testing.T) {
	d, kinds := kindsDesign(t)
	dir := outDir(t)
	writeBoth(t, dir, d)
	var vecs []vec
	for m := range 16 {
		vecs = append(vecs, vec{"x_i": uint64(m)})
	}
	rtlOut, gateOut := simulate(t, dir, d, vecs)

	// The simulator: lane m applies input combination m.
	s := netlist.NewSim(d)
	words := make([]uint64, 4)
	for i := range words {
		for m := range 16 {
			words[i] |= uint64(m>>i&1) << m
		}
	}
	s.SetInput(0, words)
	s.Eval()

	for i, k := range kinds {
		port := d.Ports[1+i]
		truth := netlist.Kinds[k].Truth
		if truth == 0 || truth == 1<<(1<<k.Arity())-1 {
			t.Errorf("%s: truth table %#x is constant", k, truth)
		}
		for m := range 16 {
			// Combination m of the kind's own pins: the low Arity bits.
			want := uint64(truth>>(m&(1<<k.Arity()-1))) & 1
			if got := s.Net(port.Bits[0]) >> m & 1; got != want {
				t.Errorf("%s (%s) at x_i = %04b: simulator %d, want %d", k, k.Func(), m, got, want)
			}
			if got := rtlOut[m][port.Name]; got != want {
				t.Errorf("%s (%s) at x_i = %04b: readable Verilog %d, want %d", k, k.Func(), m, got, want)
			}
			if got := gateOut[m][port.Name]; got != want {
				t.Errorf("%s (%s) at x_i = %04b: gate-level Verilog %d, want %d", k, k.Func(), m, got, want)
			}
		}
	}
}
