package sta

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/timing/liberty"
)

// memFlow is a flow on sky130 with the macro scale of its
// characterization, as Crosscheck sets it up.
func memFlow(t *testing.T) (*Flow, *liberty.Characterization) {
	t.Helper()
	lib := needFlow(t)
	f, err := New(Config{Liberty: lib, WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := liberty.Characterize(f.Lib.Library, liberty.Options{DontUse: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	if f.Macro, err = MacroScaleFor(f.Lib.Library, ch); err != nil {
		t.Fatal(err)
	}
	return f, ch
}

// memChain is a hand-built design with two 4x4 banks: bank0 read at
// input a, bit 0 of its read data through three inverters to bit 0 of
// bank1's read address; bank1's read data is the output q.
func memChain() *netlist.Design {
	const clk, a0, a1 = 2, 3, 4
	d0, d1 := netlist.Bus{5, 6, 7, 8}, netlist.Bus{9, 10, 11, 12}
	bank := func(name string, raddr, rdata netlist.Bus) netlist.Memory {
		return netlist.Memory{Name: name, Module: "tbank", Words: 4, Width: 4, AccessFO4: 8, SetupFO4: 2, AreaPerBit: 1.5,
			RE: netlist.Const1, RAddr: raddr, RData: rdata, WE: netlist.Const0, WAddr: netlist.Bus{a0, a1},
			WData: netlist.Bus{a0, a1, a0, a1}, WMask: netlist.Bus{netlist.Const1, a0}}
	}
	return &netlist.Design{Name: "memchain", Clock: "clk", NumNets: 16,
		Gates: []netlist.Gate{{Kind: netlist.INV, In: []netlist.Net{d0[0]}, Out: 13}, {Kind: netlist.INV, In: []netlist.Net{13}, Out: 14},
			{Kind: netlist.INV, In: []netlist.Net{14}, Out: 15}},
		Ports: []netlist.Port{{Name: "clk", Dir: netlist.In, Bits: netlist.Bus{clk}}, {Name: "a", Dir: netlist.In, Bits: netlist.Bus{a0, a1}},
			{Name: "q", Dir: netlist.Out, Bits: d1}},
		Memories: []netlist.Memory{bank("bank0", netlist.Bus{a0, a1}, d0), bank("bank1", netlist.Bus{15, a1}, d1)},
	}
}

// TestRunMapped_MemoryMacros: lsugen's gates in sky130 cells and the two
// banks as instances of their liberty model: OpenSTA's worst endpoint is
// bank1's read address, reached from bank0's read data at the access
// time (8 FO4 of the model), and its figure includes the setup (2 FO4).
func TestRunMapped_MemoryMacros(t *testing.T) {
	f, ch := memFlow(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	d := memChain()
	tm, err := f.RunMapped(ctx, d, ch)
	if err != nil {
		t.Fatal(err)
	}
	access, setup := 8*f.Macro.FO4PS, 2*f.Macro.FO4PS
	lines := pathLines(tm.Report)
	rdata, okR := lines["bank0/rdata_o[0]"]
	raddr, okA := lines["bank1/raddr_i[0]"]
	if tm.Endpoint != "bank1/raddr_i[0]" || !okR || !okA || tm.Depth != 3 {
		t.Fatalf("endpoint %s, depth %d, report:\n%s", tm.Endpoint, tm.Depth, tm.Report)
	}
	unit := f.Lib.TimeUnitPS
	if math.Abs(rdata*unit-access) > 0.5 {
		t.Errorf("read data at %v ps, want the access time %v ps", rdata*unit, access)
	}
	if inv := raddr*unit - rdata*unit; !(inv > 0) || math.Abs(tm.DelayPS-(raddr*unit+setup)) > 0.5 {
		t.Errorf("%v ps, want the arrival %v ps + the setup %v ps", tm.DelayPS, raddr*unit, setup)
	}
	text, err := os.ReadFile(filepath.Join(f.WorkDir(), d.Name, "mapped_netlist.v"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "tbank bank1 (.clk(clk), .re_i({1'b1}), .raddr_i({a[1], n15}), .rdata_o({q[3], q[2], q[1], q[0]})") &&
		!strings.Contains(string(text), "tbank bank1 (.clk(clk), .re_i({1'b1}), .raddr_i({a[1], n15}), .rdata_o({n12, n11, n10, n9})") {
		t.Errorf("no instance of bank1 in the mapped netlist:\n%s", text)
	}
}

// TestFlow_MemoryMacrosSynthesized: Yosys keeps the banks of a
// hand-written RTL module as black boxes (the stub), and OpenSTA times
// the synthesised netlist with the banks' liberty model: bank0's read
// data through an XOR into bank1's read address, plus the setup.
func TestFlow_MemoryMacrosSynthesized(t *testing.T) {
	f, _ := memFlow(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	d := memChain()
	dir := filepath.Join(f.WorkDir(), "rtl")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	mc, err := f.writeMacros(dir, d)
	if err != nil {
		t.Fatal(err)
	}
	const rtlV = `module memchain(input clk, input [1:0] a, output [3:0] q);
  wire [3:0] d0;
  tbank bank0(.clk(clk), .re_i(1'b1), .raddr_i(a), .rdata_o(d0), .we_i(1'b0), .waddr_i(a), .wdata_i({a, a}), .wmask_i({a[0], 1'b1}));
  tbank bank1(.clk(clk), .re_i(1'b1), .raddr_i({a[1], d0[0] ^ a[0]}), .rdata_o(q), .we_i(1'b0), .waddr_i(a), .wdata_i({a, a}), .wmask_i({a[0], 1'b1}));
endmodule
`
	if err := os.WriteFile(filepath.Join(dir, "memchain.v"), []byte(rtlV), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := f.flow(ctx, dir, "memchain", []string{mc.stub, "memchain.v"}, mc, "clk", "plain", 0)
	if err != nil {
		t.Fatal(err)
	}
	net, err := os.ReadFile(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(net), "tbank ") != 2 || strings.Contains(string(net), "dfxtp") {
		t.Errorf("the synthesised netlist does not keep the two banks as macros:\n%s", net)
	}
	lines := pathLines(res.Report)
	raddr, ok := lines["bank1/raddr_i[0]"]
	access, setup := 8*f.Macro.FO4PS, 2*f.Macro.FO4PS
	if res.Endpoint != "bank1/raddr_i[0]" || !ok || res.Depth < 1 {
		t.Fatalf("endpoint %s, depth %d:\n%s", res.Endpoint, res.Depth, res.Report)
	}
	if at := raddr * f.Lib.TimeUnitPS; !(at > access) || math.Abs(res.DelayPS-(at+setup)) > 0.5 {
		t.Errorf("%v ps with bank1's address at %v ps; want it after the access %v ps, plus the setup %v ps", res.DelayPS, at, access, setup)
	}
}

// TestBankLiberty: the liberty model states the macro's figures in ps,
// its area in the library's unit and one setup arc per input.
func TestBankLiberty(t *testing.T) {
	m := memChain().Memories[0]
	s := MacroScale{FO4PS: 90, NAND2Area: 3.75, PinCapFF: 1.5, SlewPS: 70}
	lib := bankLiberty(&m, s)
	for _, want := range []string{"cell (tbank)", "area : 90.0000;", `cell_rise (scalar) { values ("720.0000"); }`,
		`rise_constraint (scalar) { values ("180.0000"); }`, "bus (rdata_o)", "bus (wmask_i)", "pin (re_i)", "clock : true;"} {
		if !strings.Contains(lib, want) {
			t.Errorf("no %q in:\n%s", want, lib)
		}
	}
	if n := strings.Count(lib, "setup_rising"); n != 6 {
		t.Errorf("%d setup arcs, want 6 (re, raddr, we, waddr, wdata, wmask)", n)
	}
	f := &Flow{}
	if _, err := f.writeMacros(t.TempDir(), memChain()); err == nil || !strings.Contains(err.Error(), "Flow.Macro") {
		t.Errorf("no scale: err %v", err)
	}
}
