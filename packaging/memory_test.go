package packaging

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/toolchain"
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
	ref, a8 := netlist.Ref, netlist.Ref("a_i", 2)
	b.SetRTL(&netlist.RTL{Assigns: []netlist.Assign{
		{Name: "bank0", Inst: &netlist.InstanceRTL{Module: "bank_4x8", Ports: []netlist.PortConn{
			{Port: "clk", In: ref("clk", 1), W: 1},
			{Port: "re_i", In: netlist.ConstExpr(1, 1), W: 1},
			{Port: "raddr_i", In: a8, W: 2},
			{Port: "rdata_o", Wire: "q", W: 8},
			{Port: "we_i", In: netlist.ConstExpr(1, 1), W: 1},
			{Port: "waddr_i", In: a8, W: 2},
			{Port: "wdata_i", In: netlist.ConstExpr(0x5a, 8), W: 8},
			{Port: "wmask_i", In: netlist.ConstExpr(1, 1), W: 1},
		}}},
		{Name: "q_o", Expr: ref("q", 8)},
	}})
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
	if i, j := strings.Index(ys, "read_verilog -lib bank_4x8.v"), strings.Index(ys, "read_verilog membank.v"); i < 0 || j < i {
		t.Errorf("the Yosys script does not read bank_4x8.v as a black box before membank.v:\n%s", ys)
	}

	// Yosys runs the script: the bank stays one cell per memory.
	y, err := toolchain.Find("yosys")
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	files, err := rtl.Files(d, rtl.Info{Version: "lsugen test"})
	if err != nil {
		t.Fatal(err)
	}
	files[YosysFileName(u.Name)] = []byte(ys)
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := y.Command(dir, YosysFileName(u.Name)).Run(context.Background())
	if err != nil {
		t.Fatalf("yosys %s: %v", YosysFileName(u.Name), err)
	}
	if !regexp.MustCompile(`bank_4x8\s+1\n`).Match(res.Output) {
		t.Errorf("the statistics do not count one bank_4x8 cell:\n%s", res.Output[max(0, len(res.Output)-2000):])
	}
}
