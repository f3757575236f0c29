package rtl

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/lsugen/lsugen/netlist"
)

// WriteGates writes the structural module d.Name+"_gates", printed from
// d.Gates, with the same ports as the RTL module. Every internal net gets
// one wire (a reg for DFF outputs) and every gate one line, in the
// design's topological order:
//
//	assign n12 = addr_i[3] ^ addr_i[7];  // XOR2 g4
//	always @(posedge clk) begin  // all DFFs in one block
//	    q0 <= n12;  // DFF g9
//	end
//
// A gate whose net feeds exactly one output bit and no other gate is
// assigned straight into that bit; any other output bit gets its own
// assign. Output ports are never read inside the module.
func WriteGates(w io.Writer, d *netlist.Design, info Info) error {
	if d == nil {
		return errors.New("rtl: nil design")
	}
	if err := checkPorts(d); err != nil {
		return err
	}
	if err := d.Check(); err != nil {
		return fmt.Errorf("rtl: %s: %w", d.Name, err)
	}
	f, err := writeGates(d, info)
	if err != nil {
		return err
	}
	return f.writeTo(w)
}

// bitRef prints bit i of port p.
func bitRef(p *netlist.Port, i int) string {
	if p.Width() == 1 {
		return p.Name
	}
	return fmt.Sprintf("%s[%d]", p.Name, i)
}

type netInfo struct {
	text   string // how the net is printed when read
	driver int    // gate index, -1 for constants and input bits
	gateIn int    // how many gate pins read it
	outs   int    // how many output bits it drives
	owned  bool   // a gate assigns it straight into its one output bit
	read   bool   // read by a gate or an output assign
}

func writeGates(d *netlist.Design, info Info) (*file, error) {
	module := GatesModuleName(d)
	nets := make([]netInfo, d.NumNets)
	for i := range nets {
		nets[i].driver = -1
	}
	nets[netlist.Const0].text = "1'b0"
	nets[netlist.Const1].text = "1'b1"

	names := newNamer()
	names.reserve(module)
	for pi := range d.Ports {
		p := &d.Ports[pi]
		names.reserve(p.Name)
		for i, n := range p.Bits {
			if p.Dir == netlist.In {
				nets[n].text = bitRef(p, i)
			} else {
				nets[n].outs++
			}
		}
	}
	ndff := 0
	for gi, g := range d.Gates {
		nets[g.Out].driver = gi
		for _, n := range g.In {
			nets[n].gateIn++
		}
		if g.Kind == netlist.DFF {
			ndff++
		}
	}
	// Bits of multi-bit inputs that anything reads become scalar nets:
	// Icarus elaborates each bit-select of a wide port slowly (a 20,000-gate
	// netlist took 25 s to compile with bit-selects, 0.5 s with scalars).
	var scalars []netlist.Net
	for _, p := range d.Inputs() {
		if p.Width() == 1 {
			continue
		}
		for i, n := range p.Bits {
			if nets[n].gateIn > 0 || nets[n].outs > 0 {
				nets[n].text = names.take(fmt.Sprintf("%s_%d", p.Name, i))
				scalars = append(scalars, n)
			}
		}
	}
	var clock *netlist.Port
	if ndff > 0 {
		clock = d.Port(d.Clock)
		if clock == nil || clock.Dir != netlist.In || clock.Width() != 1 {
			return nil, fmt.Errorf("rtl: %s: %d DFFs but the clock %q is not a one-bit input port", d.Name, ndff, d.Clock)
		}
	}

	// Name the gate outputs in gate order.
	for _, p := range d.Outputs() {
		for i, n := range p.Bits {
			ni := &nets[n]
			if ni.driver >= 0 && d.Gates[ni.driver].Kind != netlist.DFF && ni.gateIn == 0 && ni.outs == 1 {
				ni.owned, ni.text = true, bitRef(p, i)
			}
		}
	}
	var wires, regs []netlist.Net
	for _, g := range d.Gates {
		ni := &nets[g.Out]
		if ni.owned {
			continue
		}
		base, ok := d.NetNames[g.Out]
		if !ok || base == "" {
			base = fmt.Sprintf("n%d", g.Out)
		}
		ni.text = names.take(base)
		if g.Kind == netlist.DFF {
			regs = append(regs, g.Out)
		} else {
			wires = append(wires, g.Out)
		}
	}

	// Header.
	stats := d.Stats()
	var counts []string
	total := 0
	for k, c := range stats {
		if c > 0 {
			counts = append(counts, fmt.Sprintf("%s %d", netlist.Kind(k), c))
			total += c
		}
	}
	cells := fmt.Sprintf("Cells: %d", total)
	if total > 0 {
		cells += " (" + strings.Join(counts, ", ") + ")"
	}
	extra := []string{
		fmt.Sprintf("Structural gate-level netlist of module %s (readable RTL: %s).", d.Name, RTLFileName(d)),
		"One continuous assign per library cell; the comment names the cell.",
		cells + ".",
	}
	if clock != nil {
		extra = append(extra, fmt.Sprintf("The DFFs load D at the rising edge of %s.", clock.Name))
	}
	f := &file{}
	header(f, d, module, info, extra)
	portList(f, d, module)

	if len(scalars) > 0 {
		f.blank()
		f.line("    // Input bits.")
		for _, p := range d.Inputs() {
			for i, n := range p.Bits {
				if p.Width() > 1 && nets[n].text != bitRef(p, i) {
					f.line("    wire %s = %s;", nets[n].text, bitRef(p, i))
					nets[n].read = true
				}
			}
		}
	}
	if len(wires)+len(regs) > 0 {
		f.blank()
		f.line("    // Internal nets.")
		for _, n := range wires {
			f.line("    wire %s;", nets[n].text)
		}
		for _, n := range regs {
			f.line("    reg %s;", nets[n].text)
		}
	}

	if len(d.Gates) > 0 {
		f.blank()
		f.line("    // Cells, in topological order.")
	}
	// The flip-flops share one always block: Icarus schedules one process
	// per block, and one block per DFF made large register files several
	// times slower to simulate.
	var dffLines []string
	for gi, g := range d.Gates {
		in := make([]string, len(g.In))
		for i, n := range g.In {
			in[i] = nets[n].text
			nets[n].read = true
		}
		out := nets[g.Out].text
		if g.Kind == netlist.DFF {
			dffLines = append(dffLines, fmt.Sprintf("        %s <= %s;  // DFF g%d", out, in[0], gi))
			continue
		}
		f.line("    assign %s = %s;  // %s g%d", out, gateExpr(g.Kind, in), g.Kind, gi)
	}
	if len(dffLines) > 0 {
		f.blank()
		f.line("    always @(posedge %s) begin", clock.Name)
		for _, l := range dffLines {
			f.line("%s", l)
		}
		f.line("    end")
	}
	if clock != nil {
		nets[clock.Bits[0]].read = true
	}

	var outAssigns []string
	for _, p := range d.Outputs() {
		for i, n := range p.Bits {
			if nets[n].owned {
				continue
			}
			nets[n].read = true
			outAssigns = append(outAssigns, fmt.Sprintf("assign %s = %s;", bitRef(p, i), nets[n].text))
		}
	}
	if len(outAssigns) > 0 {
		f.blank()
		f.line("    // Output bits driven by inputs, constants or shared nets.")
		for _, l := range outAssigns {
			f.line("    %s", l)
		}
	}

	var items []string
	for _, p := range d.Inputs() {
		used := make([]bool, p.Width())
		for i, n := range p.Bits {
			used[i] = nets[n].read
		}
		if !allTrue(used) {
			items = append(items, bitRanges(p.Name, used)...)
		}
	}
	for _, n := range append(wires, regs...) {
		if !nets[n].read {
			items = append(items, nets[n].text)
		}
	}
	unusedSink(f, names.take(unusedName), items)
	f.blank()
	f.line("endmodule")
	f.blank()
	f.line("`default_nettype wire")
	return f, nil
}

// gateExpr is the Verilog expression of a combinational cell over its
// printed inputs (in the kind's pin order).
func gateExpr(k netlist.Kind, in []string) string {
	switch k {
	case netlist.INV:
		return "~" + in[0]
	case netlist.BUF:
		return in[0]
	case netlist.NAND2, netlist.NAND3, netlist.NAND4:
		return "~(" + strings.Join(in, " & ") + ")"
	case netlist.NOR2, netlist.NOR3, netlist.NOR4:
		return "~(" + strings.Join(in, " | ") + ")"
	case netlist.AND2, netlist.AND3, netlist.AND4:
		return strings.Join(in, " & ")
	case netlist.OR2, netlist.OR3, netlist.OR4:
		return strings.Join(in, " | ")
	case netlist.XOR2:
		return in[0] + " ^ " + in[1]
	case netlist.XNOR2:
		return "~(" + in[0] + " ^ " + in[1] + ")"
	case netlist.AOI21:
		return "~((" + in[0] + " & " + in[1] + ") | " + in[2] + ")"
	case netlist.OAI21:
		return "~((" + in[0] + " | " + in[1] + ") & " + in[2] + ")"
	case netlist.MUX2:
		return in[0] + " ? " + in[2] + " : " + in[1]
	}
	panic(fmt.Sprintf("rtl: no expression for cell %s", k)) // Check rejects unknown kinds; DFF is printed apart
}
