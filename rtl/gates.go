package rtl

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/verilog"
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
	for _, m := range d.Memories {
		for _, id := range []string{m.Name, m.Module} {
			if !validIdent(id) || verilog.IsReserved(id) {
				return nil, fmt.Errorf("rtl: %s: memory %s: %q is not a usable Verilog identifier", d.Name, m.Name, id)
			}
		}
		if !names.reserve(m.Name) {
			return nil, fmt.Errorf("rtl: %s: memory %s: the name is taken by a port or the module", d.Name, m.Name)
		}
	}
	instOf := d.InstanceOf()
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
	for i := range d.Memories { // memory inputs are read like gate pins
		for _, n := range memoryConns(&d.Memories[i]) {
			if n.in {
				for _, b := range n.bits {
					nets[b].gateIn++
				}
			}
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
	if ndff > 0 || len(d.Memories) > 0 {
		clock = d.Port(d.Clock)
		if clock == nil || clock.Dir != netlist.In || clock.Width() != 1 {
			return nil, fmt.Errorf("rtl: %s: %d DFFs and %d memories but the clock %q is not a one-bit input port", d.Name, ndff, len(d.Memories), d.Clock)
		}
	}

	// Name the gate outputs in gate order.
	for _, p := range d.Outputs() {
		for i, n := range p.Bits {
			ni := &nets[n]
			if ni.driver >= 0 && instOf[ni.driver] < 0 && d.Gates[ni.driver].Kind != netlist.DFF && ni.gateIn == 0 && ni.outs == 1 {
				ni.owned, ni.text = true, bitRef(p, i)
			}
		}
	}
	insts := instanceWires(d, nets, instOf, names)
	memWires := memoryWires(d, nets, names)
	var wires, regs []netlist.Net
	for gi, g := range d.Gates {
		ni := &nets[g.Out]
		if ni.owned || instOf[gi] >= 0 {
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
	if ndff > 0 {
		extra = append(extra, fmt.Sprintf("The DFFs load D at the rising edge of %s.", clock.Name))
	}
	extra = append(extra, instanceSummary(d)...)
	extra = append(extra, memorySummary(d)...)
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
	if len(wires)+len(regs)+len(insts)+len(memWires) > 0 {
		f.blank()
		f.line("    // Internal nets.")
		for _, iw := range insts {
			for _, o := range iw.outs {
				f.line("    wire %s%s;", declRange(len(o.used)), o.name)
			}
		}
		for _, o := range memWires {
			f.line("    wire %s%s;", declRange(len(o.used)), o.name)
		}
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
		if k := instOf[gi]; k >= 0 {
			if gi == d.Instances[k].First {
				writeInstance(f, d, k, nets, insts[k])
			}
			continue
		}
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
	for i := range d.Memories {
		writeMemory(f, &d.Memories[i], nets, memWires[i], clock)
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
	for _, iw := range insts {
		for _, o := range iw.outs {
			for i, n := range o.bits {
				o.used[i] = o.used[i] && nets[n].read
			}
			if !allTrue(o.used) {
				items = append(items, bitRanges(o.name, o.used)...)
			}
		}
	}
	for _, o := range memWires {
		for i, n := range o.bits {
			o.used[i] = nets[n].read
		}
		if !allTrue(o.used) {
			items = append(items, bitRanges(o.name, o.used)...)
		}
	}
	unusedSink(f, names.take(unusedName), items)
	f.blank()
	f.line("endmodule")
	f.blank()
	f.line("`default_nettype wire")
	return f, nil
}

// memConn is one port of a memory instance: the bank module's port and the
// design's nets on it.
type memConn struct {
	port string
	in   bool
	bits netlist.Bus
}

// memoryConns lists m's ports in the bank module's order, the clock apart.
func memoryConns(m *netlist.Memory) []memConn {
	return []memConn{
		{netlist.BankRE, true, netlist.Bus{m.RE}}, {netlist.BankRAddr, true, m.RAddr}, {netlist.BankRData, false, m.RData},
		{netlist.BankWE, true, netlist.Bus{m.WE}}, {netlist.BankWAddr, true, m.WAddr}, {netlist.BankWData, true, m.WData}, {netlist.BankWMask, true, m.WMask},
	}
}

// memoryWires declares the read data wire of every memory, <name>_rdata_o,
// and prints its nets as bits of it.
func memoryWires(d *netlist.Design, nets []netInfo, names *namer) []instOut {
	var out []instOut
	for _, m := range d.Memories {
		o := instOut{name: names.take(m.Name + "_" + netlist.BankRData), bits: m.RData, used: make([]bool, len(m.RData))}
		for i, n := range m.RData {
			nets[n].text = bitRef(&netlist.Port{Name: o.name, Bits: o.bits}, i)
		}
		out = append(out, o)
	}
	return out
}

// writeMemory prints memory m as an instance of its bank module.
func writeMemory(f *file, m *netlist.Memory, nets []netInfo, rdata instOut, clock *netlist.Port) {
	f.blank()
	doc := fmt.Sprintf("%s: a memory, an instance of %s (%d words of %d bits)", m.Name, m.Module, m.Words, m.Width)
	if d := oneLine(m.Doc); d != "" {
		doc += ": " + d
	}
	f.comment("    ", doc+".")
	f.line("    %s %s (", m.Module, m.Name)
	writeConn(f, netlist.BankClk, clock.Name, ",")
	conns := memoryConns(m)
	for ci, c := range conns {
		val := rdata.name
		if c.in {
			parts := make([]string, len(c.bits))
			for i, n := range c.bits {
				parts[len(c.bits)-1-i] = nets[n].text
				nets[n].read = true
			}
			val = concatText(parts)
		}
		sep := ","
		if ci == len(conns)-1 {
			sep = ""
		}
		writeConn(f, c.port, val, sep)
	}
	f.line("    );")
}

// instWires are the output wires of one instance in the gate-level module.
type instWires struct {
	outs []instOut
}

type instOut struct {
	name string
	bits netlist.Bus
	used []bool // bit i names its net in the parent (then read if the net is)
}

// instanceWires declares a wire per output port of every instance and
// prints the nets the instance drives as bits of it. An output bit that
// is an input bit or a constant of the instantiated design, or a net
// already named by another bit, keeps its parent name: the same value.
func instanceWires(d *netlist.Design, nets []netInfo, instOf []int, names *namer) []instWires {
	var out []instWires
	for k, inst := range d.Instances {
		var iw instWires
		for pi, p := range inst.Design.Ports {
			if p.Dir != netlist.Out {
				continue
			}
			o := instOut{name: names.take(inst.Name + "_" + p.Name), bits: inst.Conns[pi], used: make([]bool, p.Width())}
			for i, n := range o.bits {
				ni := &nets[n]
				if ni.driver >= 0 && instOf[ni.driver] == k && ni.text == "" {
					ni.text = bitRef(&netlist.Port{Name: o.name, Bits: o.bits}, i)
					o.used[i] = true
				}
			}
			iw.outs = append(iw.outs, o)
		}
		out = append(out, iw)
	}
	return out
}

// writeInstance prints instance k of d as an instance of its gate-level
// module; its output wires were named by instanceWires.
func writeInstance(f *file, d *netlist.Design, k int, nets []netInfo, iw instWires) {
	inst := d.Instances[k]
	sub := inst.Design
	f.line("    // %s: an instance of %s (%d cells, g%d to g%d).", inst.Name, GatesModuleName(sub), inst.Last-inst.First, inst.First, inst.Last-1)
	f.line("    %s %s (", GatesModuleName(sub), inst.Name)
	oi := 0
	for pi, p := range sub.Ports {
		var val string
		if p.Dir == netlist.In {
			parts := make([]string, p.Width())
			for i, n := range inst.Conns[pi] {
				parts[p.Width()-1-i] = nets[n].text
				nets[n].read = true
			}
			val = concatText(parts)
		} else {
			val = iw.outs[oi].name
			oi++
		}
		sep := ","
		if pi == len(sub.Ports)-1 {
			sep = ""
		}
		writeConn(f, p.Name, val, sep)
	}
	f.line("    );")
}

// writeConn prints one port connection, wrapping a long concatenation.
func writeConn(f *file, port, val, sep string) {
	line := fmt.Sprintf("        .%s(%s)%s", port, val, sep)
	if len(line) <= maxLine || !strings.HasPrefix(val, "{") {
		f.line("%s", line)
		return
	}
	f.line("        .%s({", port)
	parts := strings.Split(strings.TrimSuffix(strings.TrimPrefix(val, "{"), "}"), ", ")
	cur := "            "
	for i, p := range parts {
		if i < len(parts)-1 {
			p += ","
		}
		if len(cur)+len(p)+1 > maxLine && strings.TrimSpace(cur) != "" {
			f.line("%s", strings.TrimRight(cur, " "))
			cur = "            "
		}
		cur += p + " "
	}
	f.line("%s", strings.TrimRight(cur, " "))
	f.line("        })%s", sep)
}

// gateExpr is the Verilog expression of a combinational cell over its
// printed inputs (in the kind's pin order), written from the kind's
// function in netlist.Kinds.
func gateExpr(k netlist.Kind, in []string) string {
	f := netlist.Kinds[k].Fn
	if f.Op == netlist.FnNone {
		panic(fmt.Sprintf("rtl: no expression for cell %s", k)) // Check rejects unknown kinds; DFF is printed apart
	}
	return fnVerilog(f, in)
}

// fnVerilog writes f over the inputs in: a pin operand bare, any other
// in parentheses, e.g. "~((a & b) | c)".
func fnVerilog(f netlist.Fn, in []string) string {
	operand := func(a netlist.Fn) string {
		if a.Op == netlist.FnPin {
			return in[a.Pin]
		}
		return "(" + fnVerilog(a, in) + ")"
	}
	switch f.Op {
	case netlist.FnPin:
		return in[f.Pin]
	case netlist.FnNot:
		return "~" + operand(f.Args[0])
	case netlist.FnAnd, netlist.FnOr, netlist.FnXor:
		parts := make([]string, len(f.Args))
		for i, a := range f.Args {
			parts[i] = operand(a)
		}
		return strings.Join(parts, map[netlist.FnOp]string{netlist.FnAnd: " & ", netlist.FnOr: " | ", netlist.FnXor: " ^ "}[f.Op])
	case netlist.FnMux:
		return operand(f.Args[0]) + " ? " + operand(f.Args[1]) + " : " + operand(f.Args[2])
	}
	panic(fmt.Sprintf("rtl: no Verilog for function operator %d", f.Op))
}

// memorySummary is the header's line about the memories of d.
func memorySummary(d *netlist.Design) []string {
	if len(d.Memories) == 0 {
		return nil
	}
	m := d.Memories[0]
	return []string{fmt.Sprintf("Memories: %d of %s (%d words of %d bits, defined in %s), clocked by %s.",
		len(d.Memories), m.Module, m.Words, m.Width, BankFileName(d), d.Clock)}
}

// instanceSummary is the header's line about the instances of d.
func instanceSummary(d *netlist.Design) []string {
	if len(d.Instances) == 0 {
		return nil
	}
	count := map[string]int{}
	var order []string
	for _, inst := range d.Instances {
		m := GatesModuleName(inst.Design)
		if count[m] == 0 {
			order = append(order, m)
		}
		count[m]++
	}
	var parts []string
	for _, m := range order {
		parts = append(parts, fmt.Sprintf("%d of %s", count[m], m))
	}
	return []string{"Instances: " + strings.Join(parts, ", ") + " (the cell count includes their cells)."}
}
