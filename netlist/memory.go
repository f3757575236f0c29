package netlist

import (
	"fmt"
	"slices"
)

// Memory is a memory macro placed in a design: a bank of Words words of
// Width bits, not flip-flops. A 48 KB shared memory is 393,216 bits, far
// more than a gate netlist, its simulator or a proof should hold as gates;
// a real design puts an SRAM there. Both Verilog writers print an instance
// of the design's bank module (Module), which is written once, as a
// behavioural array that synthesis infers as a memory, in its own file.
//
// The macro has one synchronous read port and one write port, clocked by
// the design's clock. At a rising edge where RE is 1, RData takes word
// RAddr as it was before the edge (read-first: a write at the same edge is
// not seen); where RE is 0, RData holds. At a rising edge where WE is 1,
// the bits of word WAddr whose mask bit is 1 take WData's (mask bit j
// covers bits [j*Width/len(WMask), (j+1)*Width/len(WMask))). A read at
// or past Words gives 0 and a write there is ignored. The words have no
// reset value, and RData none until the first read.
type Memory struct {
	Name   string // instance name, unique in the design: "bank3"
	Module string // the bank module; every Memory of a design has the same geometry and module
	Words  int
	Width  int
	Doc    string // one line for the instance's comment

	// The macro's figures for the timing model, stated by the generator
	// (from the spec, or the documented defaults): clock to RData valid
	// and the setup of its inputs before the edge, in FO4, and its area
	// per bit in NAND2 equivalents (array and periphery together).
	AccessFO4, SetupFO4 float64
	AreaPerBit          float64

	RE    Net
	RAddr Bus
	RData Bus // driven by the memory: sources, like flip-flop outputs
	WE    Net
	WAddr Bus
	WData Bus // Width bits
	WMask Bus // at least one bit; Width is a multiple of its length
}

// MemoryAddrBits is the width of a memory's RAddr and WAddr: max(1,
// clog2(words)).
func MemoryAddrBits(words int) int {
	bits := 1
	for 1<<bits < words {
		bits++
	}
	return bits
}

// Memory declares memory macro name, a bank of module `module` with words
// words of width bits and a write mask of maskBits bits, and returns its
// RData nets, which may be read at once (as Reg's Q); MemoryPorts connects
// its inputs later (as Next does for a register). The macro's timing
// figures (AccessFO4, SetupFO4, AreaPerBit) are not the builder's: the
// generator sets them on the built design's Memories.
func (b *Builder) Memory(name, module string, words, width, maskBits int, doc string) Bus {
	if words < 1 || width < 1 || maskBits < 1 || width%maskBits != 0 {
		b.errs = append(b.errs, fmt.Errorf("netlist: %s: memory %s: %d words of %d bits with a %d-bit mask: want at least one word and one bit, and the width a multiple of the mask", b.d.Name, name, words, width, maskBits))
		width = max(width, 0)
	}
	for _, m := range b.d.Memories {
		if m.Name == name {
			b.errs = append(b.errs, fmt.Errorf("netlist: %s: memory %s is declared twice", b.d.Name, name))
		}
	}
	q := make(Bus, width)
	for i := range q {
		q[i] = b.newNet()
	}
	b.Name(name+"_rdata", q)
	b.d.Memories = append(b.d.Memories, Memory{Name: name, Module: module, Words: words, Width: width, Doc: doc,
		RE: -1, WE: -1, RData: q, WMask: make(Bus, max(maskBits, 0))})
	return slices.Clone(q)
}

// MemoryPorts connects the inputs of memory name (from Memory): its read
// enable and address, and its write enable, address, data and mask.
func (b *Builder) MemoryPorts(name string, re Net, raddr Bus, we Net, waddr, wdata, wmask Bus) {
	fail := func(format string, args ...any) {
		b.errs = append(b.errs, fmt.Errorf("netlist: %s: MemoryPorts %s: %s", b.d.Name, name, fmt.Sprintf(format, args...)))
	}
	for i := range b.d.Memories {
		m := &b.d.Memories[i]
		if m.Name != name {
			continue
		}
		switch a := MemoryAddrBits(m.Words); {
		case m.RE >= 0:
			fail("ports connected twice")
		case len(raddr) != a || len(waddr) != a:
			fail("%d-bit read and %d-bit write addresses, want %d bits for %d words", len(raddr), len(waddr), a, m.Words)
		case len(wdata) != m.Width:
			fail("%d-bit write data, want %d", len(wdata), m.Width)
		case len(wmask) != len(m.WMask):
			fail("%d-bit write mask, want %d", len(wmask), len(m.WMask))
		default:
			m.RE, m.RAddr, m.WE = re, slices.Clone(raddr), we
			m.WAddr, m.WData, m.WMask = slices.Clone(waddr), slices.Clone(wdata), slices.Clone(wmask)
		}
		return
	}
	fail("no such memory")
}

// memoryInputs lists the nets a memory reads: RE, RAddr, WE, WAddr,
// WData and WMask, in that order.
func (m *Memory) memoryInputs() Bus {
	in := Bus{m.RE}
	in = append(in, m.RAddr...)
	in = append(in, m.WE)
	in = append(in, m.WAddr...)
	in = append(in, m.WData...)
	return append(in, m.WMask...)
}

// checkMemories verifies the memories' geometry and port widths, that
// their names are unique and their module and geometry shared, and that
// the design has a clock. Check calls it; driver checks are Check's.
func (d *Design) checkMemories() error {
	if len(d.Memories) == 0 {
		return nil
	}
	if p := d.Port(d.Clock); d.Clock == "" || p == nil || p.Dir != In || p.Width() != 1 {
		return fmt.Errorf("memories need a one-bit clock input port, and the clock is %q", d.Clock)
	}
	first := &d.Memories[0]
	names := map[string]bool{}
	for i := range d.Memories {
		m := &d.Memories[i]
		if m.Name == "" || names[m.Name] {
			return fmt.Errorf("memory %d: name %q is empty or used twice", i, m.Name)
		}
		names[m.Name] = true
		if m.Words < 1 || m.Width < 1 || len(m.WMask) < 1 || m.Width%len(m.WMask) != 0 {
			return fmt.Errorf("memory %s: %d words of %d bits with a %d-bit mask: want at least one word and one bit, and the width a multiple of the mask", m.Name, m.Words, m.Width, len(m.WMask))
		}
		if m.Module == "" || m.Module != first.Module || m.Words != first.Words || m.Width != first.Width || len(m.WMask) != len(first.WMask) {
			return fmt.Errorf("memory %s: module %q of %dx%d bits, mask %d; memory %s is %q of %dx%d, mask %d: every memory of a design is one bank module",
				m.Name, m.Module, m.Words, m.Width, len(m.WMask), first.Name, first.Module, first.Words, first.Width, len(first.WMask))
		}
		a := MemoryAddrBits(m.Words)
		if len(m.RAddr) != a || len(m.WAddr) != a || len(m.RData) != m.Width || len(m.WData) != m.Width {
			return fmt.Errorf("memory %s: read address %d, write address %d, read data %d, write data %d bits; want %d, %d, %d, %d",
				m.Name, len(m.RAddr), len(m.WAddr), len(m.RData), len(m.WData), a, a, m.Width, m.Width)
		}
	}
	return nil
}

// The bank module's ports, in its order (clk first, rdata_o the only
// output): the one statement of their names, for the module rtl writes,
// both views' instances, the proof, the timing report and the liberty
// model of the macro.
const (
	BankClk   = "clk"
	BankRE    = "re_i"
	BankRAddr = "raddr_i"
	BankRData = "rdata_o"
	BankWE    = "we_i"
	BankWAddr = "waddr_i"
	BankWData = "wdata_i"
	BankWMask = "wmask_i"
)

// MemoryPort is one port of m's bank module and the nets m connects to
// it (none for the clock, which is the design's).
type MemoryPort struct {
	Name   string
	Output bool
	Width  int
	Nets   Bus
}

// Ports are m's bank module ports in the module's order.
func (m *Memory) Ports() []MemoryPort {
	return []MemoryPort{
		{BankClk, false, 1, nil},
		{BankRE, false, 1, Bus{m.RE}},
		{BankRAddr, false, len(m.RAddr), m.RAddr},
		{BankRData, true, len(m.RData), m.RData},
		{BankWE, false, 1, Bus{m.WE}},
		{BankWAddr, false, len(m.WAddr), m.WAddr},
		{BankWData, false, len(m.WData), m.WData},
		{BankWMask, false, len(m.WMask), m.WMask},
	}
}
