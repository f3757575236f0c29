package gen

import (
	"fmt"
	"slices"
	"testing"

	nl "github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
)

// TestSharedMemory_EveryRegisterBitKept: every bit of every register of
// the word-level view has its flip-flop in the gate netlist (none is dead
// and pruned there), over configurations of lanes, bank widths, access
// widths and atomics, with and without the front end of clock_fo4; the
// formal proof pairs them one to one.
func TestSharedMemory_EveryRegisterBitKept(t *testing.T) {
	atomics := [][]specs.ShmemOp{nil, {specs.ShmemAdd}, {specs.ShmemCAS, specs.ShmemSMin}, specs.ShmemAtomics}
	for _, lanes := range []int{1, 3, 8} {
		for _, bb := range []int{4, 8} {
			for _, ws := range [][]int{{32}, {64}, {128}, {32, 64}, {64, 128}, {32, 64, 128}} {
				for _, at := range atomics {
					if len(at) > 0 && ws[0] != 32 {
						continue
					}
					for _, clock := range []float64{0, 100} {
						u := &specs.SharedMemory{Name: "shm", Lanes: lanes, Bytes: 1024, BankBytes: bb, Banks: 4, Widths: ws,
							Atomics: slices.Clone(at), Row: specs.ShmemRow{Kind: specs.RowDivide}, Clock: specs.Clocking{ClockFO4: clock}}
						name := fmt.Sprintf("lanes %d, %d-byte banks, widths %v, atomics %v, clock_fo4 %g", lanes, bb, ws, at, clock)
						d, diags := SharedMemory(u)
						if diags.HasErrors() {
							t.Fatalf("%s: %v", name, diags)
						}
						bits := 0
						for _, r := range d.RTL.Regs {
							bits += r.Width
						}
						if dffs := d.Stats()[nl.DFF]; dffs != bits {
							t.Errorf("%s: %d register bits in the RTL, %d flip-flops", name, bits, dffs)
						}
					}
				}
			}
		}
	}
}
