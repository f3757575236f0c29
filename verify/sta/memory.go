package sta

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/timing/liberty"
)

// A design's memory macros (netlist.Memory) go through the flow as the
// macro the model times, not as the bank module's behavioural array:
// Yosys reads the bank module as a black box (a stub of its ports, read
// with -lib) and keeps its instances, and OpenSTA reads, beside the
// library, a liberty model of the bank written from the macro's stated
// figures (bankLiberty): a cell clocked by clk, every input with a setup
// of SetupFO4 and rdata_o a clock-to-output arc of AccessFO4, converted
// to ps by MacroScale.FO4PS. A path into a bank is charged its setup, as
// the model charges it; a path into a flip-flop still is not.

// MacroScale converts a memory macro's stated figures (FO4, NAND2
// equivalents) into the library's terms.
type MacroScale struct {
	// FO4PS is the FO4 in ps of the access and setup times; the
	// cross-check takes the characterized model's FO4, so that the model
	// and OpenSTA charge a bank the same ps and differ only in the logic
	// around it.
	FO4PS float64
	// NAND2Area is a NAND2's area in the library's unit: the macro's area
	// is bits × AreaPerBit × NAND2Area.
	NAND2Area float64
	// PinCapFF is each macro input pin's capacitance (the model loads a
	// macro input as a flip-flop's D pin), and SlewPS the read data's
	// transition (that of a stage of an FO4 chain).
	PinCapFF, SlewPS float64
}

// MacroScaleFor takes the scale from a characterization of the library:
// its model's FO4, its NAND2 cell's area, its flip-flop's D pin
// capacitance and its reference transition.
func MacroScaleFor(lib *liberty.Library, ch *liberty.Characterization) (MacroScale, error) {
	if len(ch.Kinds) != netlist.NumKinds {
		return MacroScale{}, fmt.Errorf("sta: characterization of %d kinds, want %d", len(ch.Kinds), netlist.NumKinds)
	}
	area := 0.0
	n := &ch.Kinds[netlist.NAND2]
	for _, name := range []string{n.Core, n.Inverter} {
		if name == "" {
			continue
		}
		c, ok := lib.Cells[name]
		if !ok {
			return MacroScale{}, fmt.Errorf("sta: NAND2 cell %s not in the library", name)
		}
		area += c.Area
	}
	dff := &ch.Kinds[netlist.DFF]
	s := MacroScale{FO4PS: ch.FO4PS, NAND2Area: area, SlewPS: ch.SlewPS}
	if len(dff.Pins) > 0 {
		s.PinCapFF = dff.Pins[0].CapFF
	}
	if !(s.FO4PS > 0 && s.NAND2Area > 0 && s.PinCapFF > 0 && s.SlewPS > 0) {
		return MacroScale{}, fmt.Errorf("sta: no macro scale from the characterization: %+v", s)
	}
	return s, nil
}

// macros are the files of a design's memory macros in a unit's work
// directory: the bank module's black-box stub for Yosys and its liberty
// model for OpenSTA.
type macros struct {
	module        string
	stub, liberty string // file names in the unit's directory
	setupPS       float64
}

// writeMacros writes d's bank stub and liberty model into dir; nil for a
// design without memories.
func (f *Flow) writeMacros(dir string, d *netlist.Design) (*macros, error) {
	if len(d.Memories) == 0 {
		return nil, nil
	}
	s := f.Macro
	if !(s.FO4PS > 0 && s.NAND2Area > 0 && s.PinCapFF > 0 && s.SlewPS > 0) {
		return nil, fmt.Errorf("sta: %s has memory macros, and the flow has no scale for their figures (Flow.Macro, MacroScaleFor)", d.Name)
	}
	m := &d.Memories[0]
	for _, x := range d.Memories {
		if x.Module != m.Module || x.Words != m.Words || x.Width != m.Width || len(x.WMask) != len(m.WMask) || len(x.RAddr) != len(m.RAddr) ||
			x.AccessFO4 != m.AccessFO4 || x.SetupFO4 != m.SetupFO4 || x.AreaPerBit != m.AreaPerBit {
			return nil, fmt.Errorf("sta: %s: memories %s and %s differ: one bank module has one liberty model", d.Name, m.Name, x.Name)
		}
	}
	if !verilogName(m.Module) {
		return nil, fmt.Errorf("sta: %s: bank module %q is not a plain name", d.Name, m.Module)
	}
	mc := &macros{module: m.Module, stub: m.Module + "_stub.v", liberty: m.Module + ".lib", setupPS: m.SetupFO4 * s.FO4PS}
	if err := os.WriteFile(filepath.Join(dir, mc.stub), []byte(bankStub(m)), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, mc.liberty), []byte(bankLiberty(m, s)), 0o644); err != nil {
		return nil, err
	}
	return mc, nil
}

func verilogName(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// bankPort is one port of the bank module.
type bankPort struct {
	name   string
	width  int
	output bool
}

// bankPorts are the bank module's ports (netlist.Memory's contract), clk
// first, and the nets m connects to them.
func bankPorts(m *netlist.Memory) ([]bankPort, []netlist.Bus) {
	var ps []bankPort
	var nets []netlist.Bus
	for _, p := range m.Ports() {
		ps = append(ps, bankPort{p.Name, p.Width, p.Output})
		nets = append(nets, p.Nets)
	}
	return ps, nets
}

// bankStub is the bank module's ports alone, for Yosys to read as a
// black box.
func bankStub(m *netlist.Memory) string {
	var b strings.Builder
	ps, _ := bankPorts(m)
	fmt.Fprintf(&b, "// The ports of the bank module %s: a black box for synthesis (the macro). Generated.\n(* blackbox *)\nmodule %s (", m.Module, m.Module)
	for i, p := range ps {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.name)
	}
	b.WriteString(");\n")
	for _, p := range ps {
		dir := "input"
		if p.output {
			dir = "output"
		}
		if p.width == 1 {
			fmt.Fprintf(&b, "  %s %s;\n", dir, p.name)
		} else {
			fmt.Fprintf(&b, "  %s [%d:0] %s;\n", dir, p.width-1, p.name)
		}
	}
	b.WriteString("endmodule\n")
	return b.String()
}

// bankLiberty is the liberty model of m's bank module under scale s, in
// ps and fF: inputs with a setup of SetupFO4 to clk's rising edge, read
// data valid AccessFO4 after it, area bits × AreaPerBit NAND2s.
func bankLiberty(m *netlist.Memory, s MacroScale) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	scalar := func(group string, v float64) string {
		return fmt.Sprintf("%s (scalar) { values (\"%.4f\"); }", group, v)
	}
	setup := s.FO4PS * m.SetupFO4
	p("/* The memory macro %s of lsugen's design, from its stated figures: access %g FO4, setup %g FO4,\n", m.Module, m.AccessFO4, m.SetupFO4)
	p("   %g NAND2 per bit, at %.4f ps per FO4 and %.4f area units per NAND2. Generated. */\n", m.AreaPerBit, s.FO4PS, s.NAND2Area)
	p("library (lsugen_%s) {\n  delay_model : table_lookup;\n  time_unit : \"1ps\";\n  capacitive_load_unit (1, ff);\n", m.Module)
	p("  voltage_unit : \"1V\";\n  current_unit : \"1mA\";\n  pulling_resistance_unit : \"1kohm\";\n  leakage_power_unit : \"1nW\";\n")
	for _, e := range []string{"rise", "fall"} {
		p("  input_threshold_pct_%[1]s : 50;\n  output_threshold_pct_%[1]s : 50;\n  slew_lower_threshold_pct_%[1]s : 20;\n  slew_upper_threshold_pct_%[1]s : 80;\n", e)
	}
	ps, _ := bankPorts(m)
	var widths []int
	for _, pt := range ps {
		if pt.width > 1 && !slices.Contains(widths, pt.width) {
			widths = append(widths, pt.width)
		}
	}
	slices.Sort(widths)
	for _, w := range widths {
		p("  type (lsugen_bus%[1]d) { base_type : array; data_type : bit; bit_width : %[1]d; bit_from : %[2]d; bit_to : 0; downto : true; }\n", w, w-1)
	}
	p("  cell (%s) {\n    area : %.4f;\n    dont_use : true;\n", m.Module, float64(m.Words*m.Width)*m.AreaPerBit*s.NAND2Area)
	for _, pt := range ps {
		group := "pin"
		if pt.width > 1 {
			group = "bus"
		}
		p("    %s (%s) {\n", group, pt.name)
		if group == "bus" {
			p("      bus_type : lsugen_bus%d;\n", pt.width)
		}
		switch {
		case pt.name == "clk":
			p("      direction : input;\n      clock : true;\n      capacitance : %.4f;\n", s.PinCapFF)
		case pt.output:
			p("      direction : output;\n      timing () {\n        related_pin : \"clk\";\n        timing_type : rising_edge;\n")
			p("        %s\n        %s\n", scalar("cell_rise", s.FO4PS*m.AccessFO4), scalar("cell_fall", s.FO4PS*m.AccessFO4))
			p("        %s\n        %s\n      }\n", scalar("rise_transition", s.SlewPS), scalar("fall_transition", s.SlewPS))
		default:
			p("      direction : input;\n      capacitance : %.4f;\n      timing () {\n        related_pin : \"clk\";\n        timing_type : setup_rising;\n", s.PinCapFF)
			p("        %s\n        %s\n      }\n", scalar("rise_constraint", setup), scalar("fall_constraint", setup))
		}
		p("    }\n")
	}
	p("  }\n}\n")
	return b.String()
}
