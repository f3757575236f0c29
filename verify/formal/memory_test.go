package formal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lsugen/lsugen/netlist"
)

// memDesign is a hand-built sequential design with two memory macros:
// bank0 is read at a register's address and written from the inputs;
// bank1 is written with bank0's read data, and its read data feed the
// register back. q is the XOR of the two banks' read data.
func memDesign() *netlist.Design {
	const (
		clk, a0, a1, w, r0, r1 = 2, 3, 4, 5, 6, 7
	)
	d0 := netlist.Bus{8, 9, 10, 11}
	d1 := netlist.Bus{12, 13, 14, 15}
	bank := func(name string) netlist.Memory {
		return netlist.Memory{Name: name, Module: "tbank", Words: 4, Width: 4, AccessFO4: 6, SetupFO4: 2, AreaPerBit: 1.5}
	}
	m0, m1 := bank("bank0"), bank("bank1")
	m0.RE, m0.RAddr, m0.RData, m0.WE, m0.WAddr = netlist.Const1, netlist.Bus{r0, r1}, d0, w, netlist.Bus{a0, a1}
	m0.WData, m0.WMask = netlist.Bus{a0, a1, a0, a1}, netlist.Bus{netlist.Const1, netlist.Const1}
	m1.RE, m1.RAddr, m1.RData, m1.WE, m1.WAddr = w, netlist.Bus{a0, a1}, d1, 18, netlist.Bus{r0, r1}
	m1.WData, m1.WMask = d0, netlist.Bus{netlist.Const1, a0}
	return &netlist.Design{
		Name:  "memtop",
		Clock: "clk",
		Ports: []netlist.Port{
			{Name: "clk", Dir: netlist.In, Bits: netlist.Bus{clk}},
			{Name: "a", Dir: netlist.In, Bits: netlist.Bus{a0, a1}},
			{Name: "w", Dir: netlist.In, Bits: netlist.Bus{w}},
			{Name: "q", Dir: netlist.Out, Bits: netlist.Bus{19, 20, 21, 22}},
		},
		Gates: []netlist.Gate{
			{Kind: netlist.XOR2, In: []netlist.Net{a0, 12}, Out: 16},
			{Kind: netlist.XOR2, In: []netlist.Net{a1, 13}, Out: 17},
			{Kind: netlist.INV, In: []netlist.Net{w}, Out: 18},
			{Kind: netlist.XOR2, In: []netlist.Net{8, 12}, Out: 19},
			{Kind: netlist.XOR2, In: []netlist.Net{9, 13}, Out: 20},
			{Kind: netlist.XOR2, In: []netlist.Net{10, 14}, Out: 21},
			{Kind: netlist.XOR2, In: []netlist.Net{11, 15}, Out: 22},
			{Kind: netlist.DFF, In: []netlist.Net{16}, Out: r0},
			{Kind: netlist.DFF, In: []netlist.Net{17}, Out: r1},
		},
		NumNets:  23,
		NetNames: map[netlist.Net]string{r0: "r_0", r1: "r_1"},
		RTL:      &netlist.RTL{Regs: []netlist.Reg{{Name: "r", Width: 2}}},
		Memories: []netlist.Memory{m0, m1},
	}
}

// The bank module, as the contract of netlist.Memory has it: a
// behavioural array, synchronous read-first, masked writes.
const memBankV = `module tbank(input clk, input re_i, input [1:0] raddr_i, output reg [3:0] rdata_o,
  input we_i, input [1:0] waddr_i, input [3:0] wdata_i, input [1:0] wmask_i);
  reg [3:0] mem [0:3];
  always @(posedge clk) begin
    if (re_i) rdata_o <= mem[raddr_i];
    if (we_i & wmask_i[0]) mem[waddr_i][1:0] <= wdata_i[1:0];
    if (we_i & wmask_i[1]) mem[waddr_i][3:2] <= wdata_i[3:2];
  end
endmodule
`

const memRTLV = `module memtop(input clk, input [1:0] a, input w, output [3:0] q);
  reg [1:0] r;
  wire [3:0] d0, d1;
  tbank bank0(.clk(clk), .re_i(1'b1), .raddr_i(r), .rdata_o(d0), .we_i(w), .waddr_i(a), .wdata_i({a, a}), .wmask_i(2'b11));
  tbank bank1(.clk(clk), .re_i(w), .raddr_i(a), .rdata_o(d1), .we_i(~w), .waddr_i(r), .wdata_i(d0), .wmask_i({a[0], 1'b1}));
  always @(posedge clk) r <= a ^ d1[1:0];
  assign q = d0 ^ d1;
endmodule
`

// memGatesV is the gate-level module; RADDR0, WE1 and BANK1 are
// replaced to break it.
const memGatesV = `module memtop_gates(input clk, input [1:0] a, input w, output [3:0] q);
  reg r_0, r_1;
  wire [3:0] d0, d1;
  wire n16, n17, n18;
  assign n16 = a[0] ^ d1[0];
  assign n17 = a[1] ^ d1[1];
  assign n18 = ~w;
  assign q = {d0[3] ^ d1[3], d0[2] ^ d1[2], d0[1] ^ d1[1], d0[0] ^ d1[0]};
  tbank bank0(.clk(clk), .re_i(1'b1), .raddr_i(RADDR0), .rdata_o(d0), .we_i(w), .waddr_i({a[1], a[0]}), .wdata_i({a[1], a[0], a[1], a[0]}), .wmask_i(2'b11));
  tbank BANK1(.clk(clk), .re_i(w), .raddr_i({a[1], a[0]}), .rdata_o(d1), .we_i(WE1), .waddr_i({r_1, r_0}), .wdata_i(d0), .wmask_i({a[0], 1'b1}));
  always @(posedge clk) begin
    r_0 <= n16;
    r_1 <= n17;
  end
endmodule
`

// writeMemUnit writes the bank, RTL and gate files into a new directory,
// the gate file with the given replacements; the bank file is read first
// on both sides, as rtl.Sources lists it.
func writeMemUnit(t *testing.T, d *netlist.Design, repl ...string) Unit {
	t.Helper()
	dir := t.TempDir()
	// The caller's replacements first, then the correct module's.
	gates := strings.NewReplacer(repl...).Replace(memGatesV)
	gates = strings.NewReplacer("RADDR0", "{r_1, r_0}", "WE1", "n18", "BANK1", "bank1").Replace(gates)
	files := map[string]string{"tbank.v": memBankV, "memtop.v": memRTLV, "memtop_gates.v": gates}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bank := filepath.Join(dir, "tbank.v")
	return Unit{Design: d, RTL: filepath.Join(dir, "memtop.v"), Gates: filepath.Join(dir, "memtop_gates.v"), RTLLibs: []string{bank}, GateLibs: []string{bank}}
}

// TestStateWords_MemoryBitsAreNoFlipFlops: the register correspondence of
// a design with memories holds its registers only; the macros' 32 bits
// are no flip-flops.
func TestStateWords_MemoryBitsAreNoFlipFlops(t *testing.T) {
	ws, err := stateWords(memDesign())
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 1 || ws[0].gold != "r" || strings.Join(ws[0].gates, " ") != "r_0 r_1" {
		t.Fatalf("state words %+v, want the register r alone", ws)
	}
}

// TestProve_MemoriesEquivalent proves the hand-built design with two
// banks: the banks are black boxes, their read data shared inputs and
// their inputs compared outputs.
func TestProve_MemoriesEquivalent(t *testing.T) {
	requireYosys(t)
	eachGateSide(t, func(t *testing.T, gatesFile bool) {
		d := memDesign()
		u := writeMemUnit(t, d)
		res, err := Prove(context.Background(), u, Options{Dir: filepath.Dir(u.RTL), Timeout: 5 * time.Minute, NoCache: true, GatesFile: gatesFile})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Equivalent || res.Cex != nil {
			t.Fatalf("not equivalent:\n%s", res.Cex)
		}
		// 4 input bits, 2 x 4 read data bits, 2 register pairs.
		if res.Inputs != 4+8+2 || !strings.HasPrefix(res.Method, "induction, 2 register pairs") {
			t.Errorf("method %q with %d inputs, want induction over 2 pairs with 14 inputs", res.Method, res.Inputs)
		}
	})
}

// TestProve_MemoryPortDiffers: a gate-level module (file or netlist)
// whose bank address bits are swapped, or whose bank write enable is
// changed, gives a counterexample that names the bank port.
func TestProve_MemoryPortDiffers(t *testing.T) {
	requireYosys(t)
	for _, c := range []struct {
		name, from, to, port string
		edit                 func(d *netlist.Design) // the same change to the netlist
	}{
		{"raddr bits swapped", "RADDR0", "{r_0, r_1}", "bank0.raddr_i", func(d *netlist.Design) {
			m := &d.Memories[0]
			m.RAddr = netlist.Bus{m.RAddr[1], m.RAddr[0]}
		}},
		{"write enable changed", "WE1", "w", "bank1.we_i", func(d *netlist.Design) { d.Memories[1].WE = d.Port("w").Bits[0] }},
	} {
		t.Run(c.name, func(t *testing.T) {
			eachGateSide(t, func(t *testing.T, gatesFile bool) {
				u := writeMemUnit(t, memDesign(), c.from, c.to)
				if !gatesFile {
					c.edit(u.Design)
				}
				memoryPortDiffers(t, u, gatesFile, c.port)
			})
		})
	}
}

func memoryPortDiffers(t *testing.T, u Unit, gatesFile bool, port string) {
	res, err := Prove(context.Background(), u, Options{Dir: filepath.Dir(u.RTL), Timeout: 5 * time.Minute, NoCache: true, GatesFile: gatesFile})
	if err != nil {
		t.Fatal(err)
	}
	if res.Equivalent || res.Cex == nil {
		t.Fatal("proved equivalent")
	}
	var names []string
	for _, df := range res.Cex.Diffs {
		names = append(names, df.Name)
	}
	if len(names) != 1 || names[0] != port {
		t.Errorf("differ on %v, want %s alone", names, port)
	}
	if !strings.Contains(res.Cex.String(), port+": RTL ") {
		t.Errorf("the counterexample does not name %s:\n%s", port, res.Cex)
	}
	// The run from the all-zero state reaches the difference too.
	if res.Cex.Run == nil || !strings.Contains(res.Cex.String(), "differ: "+port) {
		t.Errorf("no run to the difference on %s:\n%s", port, res.Cex)
	}
}

// TestProve_MemoryPortsExactly: a gate-level file whose bank instance
// has another name than the design's memory is refused by the port check
// (neither side may have a bank port the other lacks).
func TestProve_MemoryPortsExactly(t *testing.T) {
	requireYosys(t)
	u := writeMemUnit(t, memDesign(), "BANK1", "bank2")
	_, err := Prove(context.Background(), u, Options{Dir: filepath.Dir(u.RTL), Timeout: 5 * time.Minute, NoCache: true, GatesFile: true})
	if err == nil || !strings.Contains(err.Error(), "bank1.rdata_o") || !strings.Contains(err.Error(), "gate-level") {
		t.Fatalf("err %v, want the gate-level module's missing bank1.rdata_o", err)
	}
}

// TestProofCache_BankFileInKey: the proof cache's key covers the bank
// module's file: a proof is taken from the cache until that file
// changes, though the unit's own two files do not.
func TestProofCache_BankFileInKey(t *testing.T) {
	requireYosys(t)
	u := writeMemUnit(t, memDesign())
	opt := Options{Dir: filepath.Dir(u.RTL), CacheDir: t.TempDir()}
	for i, want := range []bool{false, true} {
		res, err := Prove(context.Background(), u, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Equivalent || res.Cached != want {
			t.Fatalf("proof %d: equivalent %v, cached %v, want cached %v", i, res.Equivalent, res.Cached, want)
		}
	}
	if err := os.WriteFile(u.RTLLibs[0], []byte(memBankV+"// another bank\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Prove(context.Background(), u, opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.Cached || !res.Equivalent {
		t.Fatalf("after the bank file changed: cached %v, equivalent %v", res.Cached, res.Equivalent)
	}
}
