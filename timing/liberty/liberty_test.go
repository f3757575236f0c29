package liberty

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/timing"
)

// tinyLib reads testdata/tiny.lib, a small liberty with the constructs
// the reader must get through.
func tinyLib(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "tiny.lib"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseLibrary_TinyLibrary(t *testing.T) {
	src := tinyLib(t)
	l, err := ParseLibrary([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if l.Name != "tiny" || l.TimeUnitPS != 1 || l.CapUnitFF != 1 || l.DefaultWireLoad != "w1" {
		t.Errorf("library %q, time unit %v ps, cap unit %v fF, wire load %q", l.Name, l.TimeUnitPS, l.CapUnitFF, l.DefaultWireLoad)
	}
	if strings.Join(l.Order, " ") != "tiny_inv_2 tiny_inv_1 tiny_lpflow_inv_0 tiny_buf_1 tiny_dff" {
		t.Errorf("cells %v", l.Order)
	}
	inv1 := l.Cells["tiny_inv_1"]
	if inv1.Inputs[0].Cap != 1.3 || inv1.Outputs[0].Function != "A'" {
		t.Errorf("tiny_inv_1: cap %v (want the larger of rise and fall, 1.3), function %q", inv1.Inputs[0].Cap, inv1.Outputs[0].Function)
	}
	ff := l.Cells["tiny_dff"].FF
	if !l.Cells["tiny_dff"].Sequential || ff == nil || ff.IQ != "IQ" || ff.NextState != "D" || ff.ClockedOn != "CLK" {
		t.Errorf("flip-flop %+v", ff)
	}
	a := l.Cells["tiny_inv_2"].Outputs[0].Arcs[0]
	if a.Err != nil || a.RelatedPin != "A" || a.Type != "combinational" {
		t.Fatalf("arc %+v", a)
	}
	// The template's index; bilinear interpolation, linear extrapolation.
	for _, c := range []struct{ slew, load, want float64 }{
		{1, 1, 1}, {2, 2, 4}, {1.5, 1.5, 2.5}, {1, 3, 3}, {0, 1, -1},
	} {
		if got := a.CellRise.At(c.slew, c.load); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("cell_rise at (%v, %v) = %v, want %v", c.slew, c.load, got, c.want)
		}
	}
	// Swapped axes: index_1 is the load, index_2 the transition.
	if f := a.CellFall; f.Slew[1] != 3 || f.Load[1] != 20 || f.At(3, 10) != 2 || f.At(1, 20) != 3 {
		t.Errorf("swapped table %+v", f)
	}
	w := l.WireLoads["w1"]
	for f, want := range map[int]float64{0: 0, 1: 1, 2: 3, 3: 3.5, 4: 4, 7: 10} {
		if got := w.Length(f); got != want {
			t.Errorf("wire length at fanout %d = %v, want %v", f, got, want)
		}
	}
	// The cell's span is its whole lines, for cutting it out.
	c := l.Cells["tiny_inv_1"]
	if s := src[c.Span[0]:c.Span[1]]; !strings.HasPrefix(s, "  cell (\"tiny_inv_1\")") || !strings.HasSuffix(s, "  }\n") {
		t.Errorf("span %q", s)
	}
}

func TestParseLibrary_Errors(t *testing.T) {
	for _, src := range []string{
		"",
		"library (x) {",
		"library (x) { cell (a) { area : 1; }",
		`library (x) { time_unit : "1 parsec"; }`,
		`library (x) { capacitive_load_unit (1, furlong); }`,
		"library (x) { /* unterminated",
		`library (x) { default_wire_load : "none"; }`,
		`library (x) { wire_load ("w") { fanout_length (0, 1); } }`,
		"library (x) { a : \"unterminated }",
		strings.Repeat("g () {", 100) + strings.Repeat("}", 100),
	} {
		if _, err := ParseLibrary([]byte(src)); err == nil {
			t.Errorf("%.60q: no error", src)
		}
	}
	// A malformed table is an error of its arc only.
	l, err := ParseLibrary([]byte(`library (x) { cell (c) { pin (Y) { direction : output; timing () { related_pin : A; cell_rise (s) { index_1 ("1, 2"); index_2 ("1"); values ("1"); } } } } }`))
	if err != nil {
		t.Fatal(err)
	}
	if l.Cells["c"].Outputs[0].Arcs[0].Err == nil {
		t.Error("a table with 1 row for 2 index_1 points accepted")
	}
}

func TestUnits_TimeAndCapacitance(t *testing.T) {
	for s, want := range map[string]float64{"1ns": 1000, "10ps": 10, "1ps": 1, "": 1000, "0.1ns": 100} {
		if got, err := timeUnitPS(s); err != nil || got != want {
			t.Errorf("time_unit %q: %v, %v; want %v", s, got, err, want)
		}
	}
	for s, want := range map[string]float64{"1,pf": 1000, "1.0000,pf": 1000, "1,ff": 1, "": 1000} {
		if got, err := capUnitFF(s); err != nil || got != want {
			t.Errorf("capacitive_load_unit %q: %v, %v; want %v", s, got, err, want)
		}
	}
}

func TestFunction_TruthTables(t *testing.T) {
	for _, c := range []struct {
		f      string
		inputs []string
		want   uint64
	}{
		{"!A", []string{"A"}, 0b01},
		{"A'", []string{"A"}, 0b01},
		{"(A&!B) | (!A&B)", []string{"A", "B"}, 0b0110},
		{"A^B", []string{"A", "B"}, 0b0110},
		{"!((A1&A2) | B1)", []string{"A1", "A2", "B1"}, 0b00000111},
		{"(A1 A2)+B1", []string{"A1", "A2", "B1"}, 0b11111000},
		{"(A0&!S) | (A1&S)", []string{"S", "A0", "A1"}, 0b11100100},
		{"A*B'", []string{"A", "B"}, 0b0010},
		{"1", []string{"A"}, 0b11},
		{"A | B ^ C", []string{"A", "B", "C"}, 0b10111110}, // A | (B^C)
	} {
		f, err := ParseFunction(c.f)
		if err != nil {
			t.Errorf("%q: %v", c.f, err)
			continue
		}
		got, err := f.TruthTable(c.inputs)
		if err != nil || got != c.want {
			t.Errorf("%q over %v: %08b, %v; want %08b", c.f, c.inputs, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "A &", "(A", "A)", "A # B", strings.Repeat("(", 200) + "A" + strings.Repeat(")", 200)} {
		if _, err := ParseFunction(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	f, _ := ParseFunction("A&B")
	if _, err := f.TruthTable([]string{"A"}); err == nil {
		t.Error("a variable that is no input accepted")
	}
}

// linearCell writes a cell whose delay from every pin is a + b·C ps at any
// input transition (C in fF), with the given pin capacitance.
func linearCell(name, function string, pins []string, capFF, a, b, area float64) string {
	var s strings.Builder
	fmt.Fprintf(&s, "  cell (%s) {\n    area : %g;\n", name, area)
	for _, p := range pins {
		fmt.Fprintf(&s, "    pin (%s) { direction : input; capacitance : %g; }\n", p, capFF)
	}
	fmt.Fprintf(&s, "    pin (Y) { direction : output; function : \"%s\";\n", function)
	for _, p := range pins {
		row := fmt.Sprintf(`"%g, %g"`, a+b*1, a+b*100)
		fmt.Fprintf(&s, "      timing () { related_pin : %s; timing_sense : non_unate;\n", p)
		for _, tbl := range []string{"cell_rise", "cell_fall"} {
			fmt.Fprintf(&s, "        %s (lin) { values (%s, %s); }\n", tbl, row, row)
		}
		for _, tbl := range []string{"rise_transition", "fall_transition"} {
			fmt.Fprintf(&s, "        %s (lin) { values (\"30, 30\", \"30, 30\"); }\n", tbl)
		}
		s.WriteString("      }\n")
	}
	s.WriteString("    }\n  }\n")
	return s.String()
}

// linearLibrary has a cell for every gate kind: the reference inverter
// inv_1 (2 fF, 10 + 5·C ps), a weaker and larger inverter, and for each
// other kind a cell of 3 fF pins and delay 20 + 7.5·C ps (OR4: 200 +
// 7.5·C ps).
func linearLibrary(drop string) string {
	var s strings.Builder
	s.WriteString("library (lin) {\n  time_unit : \"1ps\";\n  capacitive_load_unit (1, ff);\n")
	s.WriteString("  lu_table_template (lin) { variable_1 : input_net_transition; variable_2 : total_output_net_capacitance; index_1 (\"10, 100\"); index_2 (\"1, 100\"); }\n")
	s.WriteString(linearCell("inv_1", "!A", []string{"A"}, 2, 10, 5, 1.5))
	s.WriteString(linearCell("inv_weak", "!A", []string{"A"}, 1, 10, 20, 2.0))
	funcs := []struct {
		kind, f string
		pins    []string
	}{
		{"BUF", "A", []string{"A"}},
		{"NAND2", "!(A&B)", []string{"A", "B"}}, {"NAND3", "!(A&B&C)", []string{"A", "B", "C"}}, {"NAND4", "!(A&B&C&D)", []string{"A", "B", "C", "D"}},
		{"NOR2", "!(A|B)", []string{"A", "B"}}, {"NOR3", "!(A|B|C)", []string{"A", "B", "C"}}, {"NOR4", "!(A|B|C|D)", []string{"A", "B", "C", "D"}},
		{"AND2", "A&B", []string{"A", "B"}}, {"AND3", "A&B&C", []string{"A", "B", "C"}}, {"AND4", "A&B&C&D", []string{"A", "B", "C", "D"}},
		{"OR2", "A|B", []string{"A", "B"}}, {"OR3", "A|B|C", []string{"A", "B", "C"}}, {"OR4", "A|B|C|D", []string{"A", "B", "C", "D"}},
		{"XOR2", "A^B", []string{"A", "B"}}, {"XNOR2", "!(A^B)", []string{"A", "B"}},
		{"AOI21", "!((A1&A2)|B1)", []string{"B1", "A1", "A2"}}, {"OAI21", "!((A1|A2)&B1)", []string{"A1", "A2", "B1"}},
		{"MUX2", "(A0&!S)|(A1&S)", []string{"A0", "A1", "S"}},
	}
	for _, f := range funcs {
		a := 20.0
		if f.kind == "OR4" {
			a = 200 // slow: NOR4 + INV beats it
		}
		if f.kind != drop {
			s.WriteString(linearCell(strings.ToLower(f.kind)+"_1", f.f, f.pins, 3, a, 7.5, 3))
		}
	}
	if drop != "DFF" {
		s.WriteString(`  cell (dff_1) { area : 6;
    ff (IQ, IQN) { next_state : "D"; clocked_on : "CLK"; }
    pin (CLK) { direction : input; capacitance : 1; clock : true; }
    pin (D) { direction : input; capacitance : 1; }
    pin (Q) { direction : output; function : "IQ";
      timing () { related_pin : CLK; timing_type : rising_edge;
        cell_rise (lin) { values ("40, 535", "40, 535"); } cell_fall (lin) { values ("40, 535", "40, 535"); } } }
  }
`)
	}
	s.WriteString("}\n")
	return s.String()
}

// TestCharacterize_LinearLibrary: with delays linear in the load, the
// fit is exact and every figure follows from the definitions: τ = 5 ps/fF
// · 2 fF = 10 ps, p_inv = 10 ps / τ = 1; a 3 fF pin (Cin 1.5) of slope
// 7.5 ps/fF has g = 1.5 · 7.5/5 = 2.25 and p = 20/10 = 2; the flip-flop's
// D pin (Cin 0.5) with clock-to-Q 35 + 5·C ps has g 0.5, p 3.5.
func TestCharacterize_LinearLibrary(t *testing.T) {
	l, err := ParseLibrary([]byte(linearLibrary("")))
	if err != nil {
		t.Fatal(err)
	}
	ch, err := Characterize(l, Options{})
	if err != nil {
		t.Fatal(err)
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	if ch.Inverter != "inv_1" || ch.Kinds[netlist.INV].Cell != "inv_1" {
		t.Errorf("reference inverter %s", ch.Inverter)
	}
	near("tau ps", ch.TauPS, 10)
	near("p_inv", ch.PInv, 1)
	near("input p_inv", ch.InputPInv, 1)
	near("slew ps", ch.SlewPS, 30)
	near("FO4 ps", ch.FO4PS, 50) // 4 + 1 τ
	tech := ch.Tech
	for k := netlist.Kind(0); int(k) < netlist.NumKinds; k++ {
		c := tech.Cells[k]
		switch k {
		case netlist.INV:
			near("INV g", c.G[0], 1)
			near("INV p", c.P, 1)
			near("INV area", c.Area, 0.5)
		case netlist.DFF:
			near("DFF g", c.G[0], 0.5)
			near("DFF p", c.P, 3.5)
		case netlist.BUF:
			// Two inverters (1·1 + 1, then 1 + 1: p = 3) drive an FO4
			// load faster than buf_1 (7 τ against 2.25/1.5·4 + 2 = 8).
			if kf := ch.Kinds[k]; kf.Cell != "inv_1 + inv_1" {
				t.Errorf("BUF: %s, want inv_1 + inv_1", kf.Cell)
			}
			near("BUF composite g", c.G[0], 1)
			near("BUF composite p", c.PinP[0], 3)
		case netlist.OR4:
			// NOR4 driving the inverter (load 1): 2.25/1.5·1 + 2 =
			// 3.5 τ, then the inverter: p = 3.5 + 1; the inverter
			// drives the load (g/Cin = 1); the pins are NOR4's.
			if kf := ch.Kinds[k]; kf.Cell != "nor4_1 + inv_1" || kf.Single != "or4_1" {
				t.Errorf("OR4: %s (single %s), want nor4_1 + inv_1", kf.Cell, kf.Single)
			}
			for i := range c.G {
				near("OR4 composite g", c.G[i], 1.5)
				near("OR4 composite cin", c.Cin[i], 1.5)
				near("OR4 composite p", c.PinP[i], 4.5)
			}
			near("OR4 composite area", c.Area, 1.5)
		default:
			if len(c.G) != k.Arity() {
				t.Fatalf("%v: %d pins", k, len(c.G))
			}
			for i := range c.G {
				near(k.String()+" g", c.G[i], 2.25)
				near(k.String()+" cin", c.Cin[i], 1.5)
				near(k.String()+" p", c.PinP[i], 2)
			}
			near(k.String()+" area", c.Area, 1)
		}
		if c.Transistors != timing.Cells[k].Transistors {
			t.Errorf("%v: %d transistors", k, c.Transistors)
		}
	}
	// The pins are matched by function, not by position: AOI21's B1 is
	// the library's first pin, the kind's last.
	if p := ch.Kinds[netlist.AOI21].Pins; p[0].Pin != "A1" || p[2].Pin != "B1" {
		t.Errorf("AOI21 pins %v", p)
	}
	if p := ch.Kinds[netlist.MUX2].Pins; p[0].Pin != "S" || p[1].Pin != "A0" || p[2].Pin != "A1" {
		t.Errorf("MUX2 pins %v", p)
	}

	// The model in this technology: an inverter driving four inverters
	// is 4 + 1 τ, one FO4, 50 ps.
	if got := timing.OptionsFor(tech).TauPerFO4(); math.Abs(got-5) > 1e-12 {
		t.Errorf("TauPerFO4 %v, want 5", got)
	}

	// A kind without a cell is an error that names it.
	l2, _ := ParseLibrary([]byte(linearLibrary("XNOR2")))
	if _, err := Characterize(l2, Options{}); err == nil || !strings.Contains(err.Error(), "XNOR2") {
		t.Errorf("missing XNOR2: %v", err)
	}
	// Cells can be left out by pattern, and the inverter named.
	if _, err := Characterize(l, Options{DontUse: []string{"mux2*"}}); err == nil || !strings.Contains(err.Error(), "MUX2") {
		t.Errorf("mux2 left out: %v", err)
	}
	ch3, err := Characterize(l, Options{Inverter: "inv_weak"})
	if err != nil || ch3.RefCapFF != 1 || ch3.Kinds[netlist.INV].Cell != "inv_weak" {
		t.Errorf("named inverter: %v, %+v", err, ch3)
	}
	if _, err := Characterize(l, Options{Inverter: "nand2_1"}); err == nil {
		t.Error("a NAND2 accepted as the inverter")
	}
}

// sky130 is the liberty the project's checks use; it lives beside the
// repository, never in it.
var sky130 = filepath.Join("..", "..", "..", "shared", "liberty", "sky130_fd_sc_hd__tt_025C_1v80.lib.gz")

// TestCharacterize_Sky130 reads the real library: the unit-drive cell of
// each kind is found, and the figures are those of a real process.
func TestCharacterize_Sky130(t *testing.T) {
	if _, err := os.Stat(sky130); err != nil {
		t.Skipf("no sky130 liberty: %v", err)
	}
	l, err := Load(sky130)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := Characterize(l, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tau %.2f ps, p_inv %.2f, slew %.1f ps, FO4 %.1f ps", ch.TauPS, ch.PInv, ch.SlewPS, ch.FO4PS)
	if ch.Inverter != "sky130_fd_sc_hd__inv_1" || ch.WireLoad != "Small" {
		t.Errorf("inverter %s, wire load %s", ch.Inverter, ch.WireLoad)
	}
	// Measured here: τ 10.87 ps, p_inv 3.53, FO4 86.1 ps; OpenSTA times
	// the same FO4 stage at 92.2 ps (verify/sta).
	if ch.TauPS < 8 || ch.TauPS > 14 || ch.PInv < 2.5 || ch.PInv > 4.5 || ch.FO4PS < 75 || ch.FO4PS > 100 {
		t.Errorf("tau %.2f ps, p_inv %.2f, FO4 %.1f ps out of range", ch.TauPS, ch.PInv, ch.FO4PS)
	}
	want := map[netlist.Kind]string{
		netlist.INV: "sky130_fd_sc_hd__inv_1", netlist.NAND2: "sky130_fd_sc_hd__nand2_1",
		netlist.XOR2: "sky130_fd_sc_hd__xor2_2", netlist.MUX2: "sky130_fd_sc_hd__mux2_2",
		netlist.DFF: "sky130_fd_sc_hd__dfxtp_1", netlist.AOI21: "sky130_fd_sc_hd__a21oi_2",
	}
	for k, c := range want {
		if got := ch.Kinds[k].Cell; got != c {
			t.Errorf("%v: %s, want %s", k, got, c)
		}
	}
	// sky130's XOR is slow: a two-stage cell of parasitic delay near
	// 12 τ, against 4 in the textbook.
	if p := ch.Tech.Cells[netlist.XOR2].P; p < 8 || p > 16 {
		t.Errorf("XOR2 p = %.2f τ", p)
	}
}
