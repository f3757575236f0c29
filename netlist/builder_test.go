package netlist

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func mustBuild(tb testing.TB, b *Builder) *Design {
	tb.Helper()
	d, err := b.Build()
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

func TestBuilder_ConstantFolding(t *testing.T) {
	b := NewBuilder("fold")
	in := b.Input("x", 3, "")
	a, c, s := in[0], in[1], in[2]
	na := b.Not(a)
	cases := []struct {
		name      string
		got, want Net
	}{
		{"And(a, 0)", b.And(a, Const0), Const0},
		{"And(a, 1)", b.And(a, Const1), a},
		{"And()", b.And(), Const1},
		{"And(a, a)", b.And(a, a), a},
		{"And(a, !a)", b.And(a, na), Const0},
		{"And(a, c, !a)", b.And(a, c, na), Const0},
		{"Or(a, 1)", b.Or(a, Const1), Const1},
		{"Or(a, 0)", b.Or(a, Const0), a},
		{"Or()", b.Or(), Const0},
		{"Or(a, !a)", b.Or(na, a), Const1},
		{"Nand(a, 0)", b.Nand(a, Const0), Const1},
		{"Nand(a, 1)", b.Nand(Const1, a), na},
		{"Nand()", b.Nand(), Const0},
		{"Nor(a, 1)", b.Nor(a, Const1), Const0},
		{"Nor(a, 0)", b.Nor(a, Const0), na},
		{"Nor()", b.Nor(), Const1},
		{"Not(!a)", b.Not(na), a},
		{"Not(0)", b.Not(Const0), Const1},
		{"Not(1)", b.Not(Const1), Const0},
		{"Buf(1)", b.Buf(Const1), Const1},
		{"Xor(a, a)", b.Xor(a, a), Const0},
		{"Xor(a, !a)", b.Xor(a, na), Const1},
		{"Xor(a, 0)", b.Xor(a, Const0), a},
		{"Xor(0, a)", b.Xor(Const0, a), a},
		{"Xor(a, 1)", b.Xor(a, Const1), na},
		{"Xnor(a, a)", b.Xnor(a, a), Const1},
		{"Xnor(a, !a)", b.Xnor(na, a), Const0},
		{"Xnor(a, 1)", b.Xnor(a, Const1), a},
		{"Xnor(a, 0)", b.Xnor(a, Const0), na},
		{"XorAll()", b.XorAll(), Const0},
		{"XorAll(a)", b.XorAll(a), a},
		{"XorAll(a, c, a)", b.XorAll(a, c, a), b.Xor(b.Xor(a, c), a)},
		{"Mux(s, a, a)", b.Mux(s, a, a), a},
		{"Mux(0, a, c)", b.Mux(Const0, a, c), a},
		{"Mux(1, a, c)", b.Mux(Const1, a, c), c},
		{"Mux(s, 0, 1)", b.Mux(s, Const0, Const1), s},
		{"Mux(s, 1, 0)", b.Mux(s, Const1, Const0), b.Not(s)},
		{"Mux(s, 0, c)", b.Mux(s, Const0, c), b.And(s, c)},
		{"Mux(s, a, 0)", b.Mux(s, a, Const0), b.And(b.Not(s), a)},
		{"Mux(s, 1, c)", b.Mux(s, Const1, c), b.Or(b.Not(s), c)},
		{"Mux(s, a, 1)", b.Mux(s, a, Const1), b.Or(s, a)},
		{"Select([], {a})", b.Select(nil, Bus{a}), a},
		{"Select({s}, {})", b.Select(Bus{s}, nil), Const0},
		{"Select({s}, {a})", b.Select(Bus{s}, Bus{a}), b.And(b.Not(s), a)},
		{"Select({0,1}, {a,c,s})", b.Select(Bus{Const0, Const1}, Bus{a, c, s}), s},
		{"Aoi21(a, c, 1)", b.Aoi21(a, c, Const1), Const0},
		{"Aoi21(a, 1, 0)", b.Aoi21(a, Const1, Const0), na},
		{"Oai21(a, c, 0)", b.Oai21(a, c, Const0), Const1},
		{"Oai21(a, 0, 1)", b.Oai21(a, Const0, Const1), na},
		{"Equal(x, x)", b.Equal(in, in), Const1},
		{"Equal({}, {})", b.Equal(nil, nil), Const1},
		{"Equal({a}, {!a})", b.Equal(Bus{a}, Bus{na}), Const0},
		{"Equal({a,c}, {a,1})", b.Equal(Bus{a, c}, Bus{a, Const1}), c},
	}
	for _, tc := range cases {
		if tc.got != tc.want {
			t.Errorf("%s = net %d, want %d", tc.name, tc.got, tc.want)
		}
	}
	// Nothing above needs more than the inverters of a and s and the
	// handful of reference gates; check the folds created no constant
	// inputs on gates.
	b.Output("y", Bus{na, b.Not(s), b.And(s, c), b.Or(s, a), b.Xor(a, c)}, "")
	d := mustBuild(t, b)
	for i, g := range d.Gates {
		for _, n := range g.In {
			if n == Const0 || n == Const1 {
				t.Errorf("gate %d (%s) reads a constant", i, g.Kind)
			}
		}
	}
	if got := Const(0b1010, 5); !slices.Equal(got, Bus{Const0, Const1, Const0, Const1, Const0}) {
		t.Errorf("Const(0b1010, 5) = %v", got)
	}
}

func TestBuilder_SharesGates(t *testing.T) {
	b := NewBuilder("share")
	in := b.Input("x", 6, "")
	a, c, s := in[0], in[1], in[2]
	same := []struct {
		name   string
		n1, n2 Net
	}{
		{"And commutes", b.And(a, c), b.And(c, a)},
		{"Nand repeats", b.Nand(a, c, s), b.Nand(s, a, c)},
		{"Or with duplicates", b.Or(a, c, a), b.Or(c, a)},
		{"wide And tree", b.And(in...), b.And(reversed(in)...)},
		{"Xor commutes", b.Xor(a, c), b.Xor(c, a)},
		{"Xnor commutes", b.Xnor(a, c), b.Xnor(c, a)},
		{"Mux repeats", b.Mux(s, a, c), b.Mux(s, a, c)},
		{"Aoi21 repeats", b.Aoi21(a, c, s), b.Aoi21(a, c, s)},
		{"Not repeats", b.Not(a), b.Not(a)},
		{"Buf repeats", b.Buf(a), b.Buf(a)},
		{"Equal repeats", b.Equal(in[:3], in[3:]), b.Equal(in[:3], in[3:])},
	}
	for _, tc := range same {
		if tc.n1 != tc.n2 {
			t.Errorf("%s: nets %d and %d, want one gate", tc.name, tc.n1, tc.n2)
		}
	}
	if b.Mux(s, a, c) == b.Mux(s, c, a) {
		t.Error("Mux(s, a, c) shares with Mux(s, c, a)")
	}
	if b.Aoi21(a, c, s) == b.Aoi21(a, s, c) {
		t.Error("Aoi21 shares across its B pin")
	}
	var outs Bus
	for _, tc := range same {
		outs = append(outs, tc.n1)
	}
	b.Output("y", outs, "")
	d := mustBuild(t, b)
	// One gate per distinct function: And2, Nand3, Or2, the And6 tree
	// (AND4, AND2, AND2), Xor, Xnor, Mux, Aoi21, Not, Buf and Equal (three
	// XNOR2 and an AND3); the Mux and Aoi21 built only for comparison are
	// dead.
	seen := map[string]bool{}
	for _, g := range d.Gates {
		in := slices.Clone(g.In)
		if g.Kind != MUX2 && g.Kind != AOI21 && g.Kind != OAI21 {
			slices.Sort(in)
		}
		key := fmt.Sprint(g.Kind, in)
		if seen[key] {
			t.Errorf("duplicate gate %s", key)
		}
		seen[key] = true
	}
	if want := 1 + 1 + 1 + 3 + 1 + 1 + 1 + 1 + 1 + 1 + 4; len(d.Gates) != want {
		t.Errorf("%d gates, want %d:\n%v", len(d.Gates), want, d.Gates)
	}
}

func reversed(bus Bus) Bus {
	r := slices.Clone(bus)
	slices.Reverse(r)
	return r
}

func TestBuilder_DeadLogicRemoved(t *testing.T) {
	b := NewBuilder("dead")
	in := b.Input("x", 3, "")
	a, c, s := in[0], in[1], in[2]
	x := b.And(a, c)
	dead := b.Or(b.Nand(a, s), b.Xor(c, s)) // reaches no output
	b.Name("dead", Bus{dead})
	b.Name("x", Bus{x})
	y := b.Xor(x, c)
	b.Output("y", Bus{y}, "")
	d := mustBuild(t, b)

	if len(d.Gates) != 2 || d.Gates[0].Kind != AND2 || d.Gates[1].Kind != XOR2 {
		t.Fatalf("gates %v, want AND2 then XOR2", d.Gates)
	}
	// Dense numbering: constants, the 3 input bits, then the 2 gate outputs.
	if d.NumNets != 2+3+2 {
		t.Errorf("NumNets %d, want 7", d.NumNets)
	}
	if !slices.Equal(d.Port("x").Bits, Bus{2, 3, 4}) || !slices.Equal(d.Port("y").Bits, Bus{6}) {
		t.Errorf("ports %v", d.Ports)
	}
	if d.Gates[0].Out != 5 || !slices.Equal(d.Gates[1].In, Bus{5, 3}) {
		t.Errorf("gates not renumbered: %v", d.Gates)
	}
	if len(d.NetNames) != 1 || d.NetNames[5] != "x" {
		t.Errorf("net names %v, want only x on net 5", d.NetNames)
	}
	// Logic on an otherwise unused input is dropped too; the port stays.
	b = NewBuilder("unused")
	u := b.Input("u", 2, "")
	b.Not(u[0])
	b.Output("o", Bus{u[1]}, "")
	d = mustBuild(t, b)
	if len(d.Gates) != 0 || d.NumNets != 4 {
		t.Errorf("gates %v NumNets %d, want none and 4", d.Gates, d.NumNets)
	}
}

func TestBuilder_Registers(t *testing.T) {
	// A 2-bit counter with enable and synchronous clear.
	b := NewBuilder("counter")
	b.Clock("clk", "clock")
	clr := b.Input("clr", 1, "clear")
	en := b.Input("en", 1, "count enable")
	q := b.Reg("count", 2)
	inc := Bus{b.Xor(q[0], en[0]), b.Xor(q[1], b.And(q[0], en[0]))}
	b.NextClear(q, inc, clr[0])
	b.Output("q_o", q, "the count")
	d, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if d.Clock != "clk" || d.Stats()[DFF] != 2 {
		t.Fatalf("clock %q, %d DFFs", d.Clock, d.Stats()[DFF])
	}
	s := NewSim(d)
	seq := []struct{ clr, en, want uint64 }{{0, 1, 0}, {0, 1, 1}, {0, 0, 2}, {0, 1, 2}, {0, 1, 3}, {0, 1, 0}, {1, 1, 1}, {0, 0, 0}}
	out := make([]uint64, 2)
	for i, c := range seq {
		s.SetInput(1, []uint64{c.clr})
		s.SetInput(2, []uint64{c.en})
		s.Eval()
		s.Output(3, out)
		if got := out[0]&1 | (out[1]&1)<<1; got != c.want {
			t.Errorf("cycle %d: count %d, want %d", i, got, c.want)
		}
		s.Step()
	}
}

func TestBuilder_RegisterErrors(t *testing.T) {
	b := NewBuilder("noclock")
	q := b.Reg("r", 1)
	b.Next(q, q)
	b.Output("o", q, "")
	if _, err := b.Build(); err == nil || !strings.Contains(err.Error(), "no clock") {
		t.Errorf("registers without a clock: %v", err)
	}
	b = NewBuilder("nonext")
	b.Clock("clk", "")
	q = b.Reg("r", 2)
	b.Output("o", q, "")
	if _, err := b.Build(); err == nil || !strings.Contains(err.Error(), "registers without a next value") {
		t.Errorf("register without next: %v", err)
	}
	b = NewBuilder("width")
	b.Clock("clk", "")
	q = b.Reg("r", 2)
	b.Next(q, Bus{Const1})
	if _, err := b.Build(); err == nil || !strings.Contains(err.Error(), "2-bit register, 1-bit value") {
		t.Errorf("width mismatch: %v", err)
	}
	b = NewBuilder("twice")
	b.Clock("clk", "")
	q = b.Reg("r", 1)
	b.Next(q, Bus{Const1})
	b.Next(q, Bus{Const0})
	if _, err := b.Build(); err == nil || !strings.Contains(err.Error(), "not a register bit without a next value") {
		t.Errorf("second Next: %v", err)
	}
}
