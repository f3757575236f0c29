package packaging

import (
	"strings"
	"testing"

	"github.com/lsugen/lsugen/netlist"
)

// TestNewUnit_BankFile: a unit with memory macros lists its bank module's
// file in both filesets of the core and in the Yosys script, ahead of its
// own files.
func TestNewUnit_BankFile(t *testing.T) {
	b := netlist.NewBuilder("membank")
	b.Clock("clk", "clock")
	a := b.Input("a_i", 2, "address")
	q := b.Memory("bank0", "bank_4x8", 4, 8, 1, "")
	b.MemoryPorts("bank0", netlist.Const1, a, netlist.Const1, a, netlist.Const(0x5a, 8), netlist.Bus{netlist.Const1})
	b.Output("q_o", q, "read data")
	d, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	u := NewUnit(d, "test", "", "test.hcl:1", "0.1.0", Estimate{})
	if len(u.RTLLibs) != 1 || u.RTLLibs[0] != "bank_4x8.v" || len(u.GateLibs) != 1 || u.GateLibs[0] != "bank_4x8.v" {
		t.Errorf("RTLLibs %v, GateLibs %v: want the bank file in each", u.RTLLibs, u.GateLibs)
	}
	core := string(CoreFile(u))
	if n := strings.Count(core, "bank_4x8.v"); n != 2 {
		t.Errorf("the core names bank_4x8.v %d times, want once in each fileset:\n%s", n, core)
	}
	ys := string(YosysScript(u))
	if i, j := strings.Index(ys, "read_verilog bank_4x8.v"), strings.Index(ys, "read_verilog membank.v"); i < 0 || j < i {
		t.Errorf("the Yosys script does not read bank_4x8.v before membank.v:\n%s", ys)
	}
}
