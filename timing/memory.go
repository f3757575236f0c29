package timing

import (
	"fmt"

	"github.com/lsugen/lsugen/netlist"
)

// A memory macro (netlist.Memory) is timed by the figures its generator
// states, as a flip-flop is by its cell's: its read data are start points
// that arrive AccessFO4 after the clock edge, whatever their load (the
// macro's own output drivers are in that figure), and each of its inputs
// is an endpoint that must settle SetupFO4 before the edge, so a path
// into a memory is charged its setup (a path into a DFF is not, see
// SetupFO4). Each input pin loads its net as a DFF's D input does. In
// FO4 the figures hold under every gate table; a characterized library's
// are converted to ps by its FO4, as every delay is. The area is
// Words·Width·AreaPerBit NAND2 equivalents and the transistors six per
// bit (a 6T SRAM cell; the periphery is in AreaPerBit, not counted as
// transistors).

// MemTransistorsPerBit is the transistor count of a memory bit: a 6T
// SRAM cell.
const MemTransistorsPerBit = 6

// srcMem - i is the source (netTiming.src) of memory i's read data.
const srcMem = srcNone - 1

// memIndex is the memory whose read data has source s, or -1.
func memIndex(s int32) int {
	if s > srcMem {
		return -1
	}
	return int(srcMem - s)
}

// memPin is one input of a memory: its port name and nets.
type memPin struct {
	port string
	bus  netlist.Bus
}

// memInputs are memory m's inputs, the clock aside.
func memInputs(m *netlist.Memory) []memPin {
	var pins []memPin
	for _, p := range m.Ports() {
		if !p.Output && p.Name != netlist.BankClk {
			pins = append(pins, memPin{p.Name, p.Nets})
		}
	}
	return pins
}

// memBitName names bit i of a memory port of width w: bank3.raddr_i[1],
// or bank3.re_i for a one-bit port.
func memBitName(m *netlist.Memory, port string, i, w int) string {
	if w == 1 {
		return m.Name + "." + port
	}
	return fmt.Sprintf("%s.%s[%d]", m.Name, port, i)
}

// addMemLoads adds each memory input pin's load (a DFF D input's) and
// fanout to its net.
func addMemLoads(d *netlist.Design, cells *[netlist.NumKinds]Cell, load []float64, fanout []int32) {
	cin := cells[netlist.DFF].Cin[0]
	for i := range d.Memories {
		for _, p := range memInputs(&d.Memories[i]) {
			for _, n := range p.bus {
				load[n] += cin
				fanout[n]++
			}
		}
	}
}

// startMems makes every memory's read data a start point arriving its
// access time after the clock, in τ.
func startMems(d *netlist.Design, src []int32, arr []float64, tauPerFO4 float64) {
	for i := range d.Memories {
		m := &d.Memories[i]
		for _, n := range m.RData {
			src[n], arr[n] = srcMem-int32(i), m.AccessFO4*tauPerFO4
		}
	}
}

// MemoryResult is one memory macro of the report.
type MemoryResult struct {
	Name   string `json:"name"`
	Module string `json:"module"`
	Words  int    `json:"words"`
	Width  int    `json:"width"`
	Bits   int    `json:"bits"`
	// AreaGE is Bits·AreaPerBit in NAND2 equivalents.
	AreaGE float64 `json:"area_ge"`
	// AccessFO4 and SetupFO4 are the stated figures the analysis used.
	AccessFO4 float64 `json:"access_fo4"`
	SetupFO4  float64 `json:"setup_fo4"`
}

// memResults lists d's memories with their areas, and the totals.
func memResults(d *netlist.Design) (ms []MemoryResult, bits int, area float64) {
	for _, m := range d.Memories {
		b := m.Words * m.Width
		a := float64(b) * m.AreaPerBit
		ms = append(ms, MemoryResult{Name: m.Name, Module: m.Module, Words: m.Words, Width: m.Width, Bits: b,
			AreaGE: round4(a), AccessFO4: m.AccessFO4, SetupFO4: m.SetupFO4})
		bits += b
		area += a
	}
	return ms, bits, area
}

// checkMemFigures refuses figures the analysis cannot use.
func checkMemFigures(d *netlist.Design) error {
	for _, m := range d.Memories {
		for _, v := range []float64{m.AccessFO4, m.SetupFO4, m.AreaPerBit} {
			if !(v >= 0) || v > 1e9 {
				return fmt.Errorf("timing: design %s: memory %s: access %v FO4, setup %v FO4, area %v GE per bit: each must be finite and not negative", d.Name, m.Name, m.AccessFO4, m.SetupFO4, m.AreaPerBit)
			}
		}
	}
	return nil
}
