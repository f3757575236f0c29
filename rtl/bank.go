package rtl

import (
	"errors"
	"fmt"
	"io"

	"github.com/lsugen/lsugen/netlist"
)

// BankFileName is the file of d's bank module, "<Module>.v", or "" for a
// design without memories.
func BankFileName(d *netlist.Design) string {
	if len(d.Memories) == 0 {
		return ""
	}
	return d.Memories[0].Module + ".v"
}

// bankDesign is the bank module's interface as a design of ports only, so
// that the header and port list are printed as every module's are.
func bankDesign(m *netlist.Memory) *netlist.Design {
	a := netlist.MemoryAddrBits(m.Words)
	g := m.Width / len(m.WMask)
	port := func(name string, dir netlist.Dir, w int, doc string) netlist.Port {
		return netlist.Port{Name: name, Dir: dir, Bits: make(netlist.Bus, w), Doc: doc}
	}
	d := &netlist.Design{Name: m.Module, Clock: netlist.BankClk, Ports: []netlist.Port{
		port(netlist.BankClk, netlist.In, 1, "clock: both ports act at its rising edge"),
		port(netlist.BankRE, netlist.In, 1, "read enable"),
		port(netlist.BankRAddr, netlist.In, a, "read address (word)"),
		port(netlist.BankRData, netlist.Out, m.Width, "read data: the word read at the last edge with re_i"),
		port(netlist.BankWE, netlist.In, 1, "write enable"),
		port(netlist.BankWAddr, netlist.In, a, "write address (word)"),
		port(netlist.BankWData, netlist.In, m.Width, "write data"),
		port(netlist.BankWMask, netlist.In, len(m.WMask), fmt.Sprintf("write mask: bit j enables bits [j*%d +: %d]", g, g)),
	}}
	d.Header = []string{
		fmt.Sprintf("A memory bank of %d words of %d bits (%d bits), one synchronous read port and one write port, both clocked by the rising edge of clk.",
			m.Words, m.Width, m.Words*m.Width),
		"",
		"Read: at a rising edge where re_i is 1, rdata_o takes word raddr_i as it was before the edge (read-first: a write at the same edge is not seen); where re_i is 0, rdata_o holds.",
		fmt.Sprintf("Write: at a rising edge where we_i is 1, the %d-bit granules of word waddr_i whose wmask_i bit is 1 take wdata_i's.", g),
		fmt.Sprintf("An address at or past %d reads 0 and is not written.", m.Words),
		"The words and rdata_o have no reset value: they are X in simulation until written and read.",
		"",
		"Synthesis infers one memory (Yosys $mem_v2 with a synchronous read port); a real design replaces this module by an SRAM macro with the same ports and behaviour.",
	}
	return d
}

// WriteBank writes d's bank module (the Module of its memories), a
// behavioural array that synthesis infers as a memory.
func WriteBank(w io.Writer, d *netlist.Design, info Info) error {
	if d == nil || len(d.Memories) == 0 {
		return errors.New("rtl: WriteBank: a design with memories is required")
	}
	if err := d.Check(); err != nil {
		return fmt.Errorf("rtl: %s: %w", d.Name, err)
	}
	m := &d.Memories[0]
	if !validIdent(m.Module) {
		return fmt.Errorf("rtl: %s: bank module name %q is not a Verilog identifier", d.Name, m.Module)
	}
	bd := bankDesign(m)
	a, g := netlist.MemoryAddrBits(m.Words), m.Width/len(m.WMask)
	f := &file{}
	header(f, bd, m.Module, info, nil)
	portList(f, bd, m.Module)
	f.blank()
	f.line("    reg %smem [0:%d];", declRange(m.Width), m.Words-1)
	f.line("    reg %srdata;", declRange(m.Width))
	f.blank()
	// A guard only where the address can reach past the last word: Verilator
	// flags a comparison that is always true.
	guard := func(addr string) string {
		if needGuard(a, m.Words) {
			return fmt.Sprintf(" && %s < %d'd%d", addr, a, m.Words)
		}
		return ""
	}
	f.line("    // Read port: read-first; holds while re_i is 0.")
	f.line("    always @(posedge %s) begin", netlist.BankClk)
	if needGuard(a, m.Words) {
		f.line("        if (%s) begin", netlist.BankRE)
		f.line("            if (%s < %d'd%d) %s <= mem[%s];", netlist.BankRAddr, a, m.Words, "rdata", netlist.BankRAddr)
		f.line("            else rdata <= %d'd0;", m.Width)
		f.line("        end")
	} else {
		f.line("        if (%s) rdata <= mem[%s];", netlist.BankRE, netlist.BankRAddr)
	}
	f.line("    end")
	f.line("    assign %s = rdata;", netlist.BankRData)
	f.blank()
	f.line("    // Write port: one enable per %d-bit granule.", g)
	f.line("    always @(posedge %s) begin", netlist.BankClk)
	f.line("        if (%s%s) begin", netlist.BankWE, guard(netlist.BankWAddr))
	for j := range len(m.WMask) {
		en := netlist.BankWMask
		if len(m.WMask) > 1 {
			en = fmt.Sprintf("%s[%d]", netlist.BankWMask, j)
		}
		hi, lo := (j+1)*g-1, j*g
		sel := fmt.Sprintf("[%d:%d]", hi, lo)
		if m.Width == 1 {
			sel = ""
		}
		f.line("            if (%s) mem[%s]%s <= %s%s;", en, netlist.BankWAddr, sel, netlist.BankWData, sel)
	}
	f.line("        end")
	f.line("    end")
	f.blank()
	f.line("endmodule")
	f.blank()
	f.line("`default_nettype wire")
	return f.writeTo(w)
}

// checkBankPorts verifies that a word-level instance of m's bank module
// connects its ports in the module's order and widths, an output only
// at rdata_o, and clk to the design's clock.
func checkBankPorts(m *netlist.Memory, inst *netlist.InstanceRTL, clock string) error {
	want := bankDesign(m).Ports
	if len(inst.Ports) != len(want) {
		return fmt.Errorf("the instance connects %d ports, the bank module has %d", len(inst.Ports), len(want))
	}
	for i, p := range want {
		c := inst.Ports[i]
		if c.Port != p.Name || c.W != p.Width() || (c.In == nil) != (p.Dir == netlist.Out) {
			return fmt.Errorf("port %d is %s (%d bits), want %s (%d bits, %s)", i, c.Port, c.W, p.Name, p.Width(), map[netlist.Dir]string{netlist.In: "an input", netlist.Out: "an output"}[p.Dir])
		}
	}
	if c := inst.Ports[0].In; c.Op != netlist.OpRef || c.Name != clock {
		return fmt.Errorf("%s must be the design's clock %s", netlist.BankClk, clock)
	}
	return nil
}
