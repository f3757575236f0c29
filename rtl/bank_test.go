package rtl

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/toolchain"
)

// memDesign is a clocked design with two memories of `words` words x 8
// bits and a 2-bit mask, in both views: bank0 on the ports as they are,
// bank1 with the inverted last read address (a register), the inverted
// read enable, write data XOR 0x5a and the mask swapped.
func memDesign(t *testing.T, words int) *netlist.Design {
	t.Helper()
	b := netlist.NewBuilder("two_banks")
	b.Header("Two memory banks, for testing the memory macro's writers.")
	b.Clock("clk", "clock")
	a := netlist.MemoryAddrBits(words)
	re := b.Input("re_i", 1, "read enable")[0]
	raddr := b.Input("raddr_i", a, "read address")
	we := b.Input("we_i", 1, "write enable")[0]
	waddr := b.Input("waddr_i", a, "write address")
	wdata := b.Input("wdata_i", 8, "write data")
	wmask := b.Input("wmask_i", 2, "write mask")
	module := fmt.Sprintf("bank_%dx8", words)
	r0 := b.Memory("bank0", module, words, 8, 2, "the ports as they are")
	r1 := b.Memory("bank1", module, words, 8, 2, "the last read address inverted")
	b.MemoryPorts("bank0", re, raddr, we, waddr, wdata, wmask)
	last := b.Reg("last_raddr", a)
	b.Next(last, raddr)
	inv := make(netlist.Bus, a)
	for i := range inv {
		inv[i] = b.Not(last[i])
	}
	wd1 := make(netlist.Bus, 8)
	for i := range wd1 {
		wd1[i] = b.Xor(wdata[i], netlist.Const(0x5a, 8)[i])
	}
	b.MemoryPorts("bank1", b.Not(re), inv, we, waddr, wd1, netlist.Bus{wmask[1], wmask[0]})
	x := make(netlist.Bus, 8)
	for i := range x {
		x[i] = b.Xor(r0[i], r1[i])
	}
	b.Output("rdata0_o", r0, "bank 0's read data")
	b.Output("rdata1_o", r1, "bank 1's read data")
	b.Output("x_o", x, "their XOR")

	ref := netlist.Ref
	bank := func(name string, re, raddr, wdata, wmask *netlist.Expr) netlist.Assign {
		return netlist.Assign{Name: name, Doc: "memory " + name, Inst: &netlist.InstanceRTL{Module: module, Ports: []netlist.PortConn{
			{Port: "clk", In: ref("clk", 1), W: 1},
			{Port: "re_i", In: re, W: 1},
			{Port: "raddr_i", In: raddr, W: a},
			{Port: "rdata_o", Wire: name + "_rdata", W: 8},
			{Port: "we_i", In: ref("we_i", 1), W: 1},
			{Port: "waddr_i", In: ref("waddr_i", a), W: a},
			{Port: "wdata_i", In: wdata, W: 8},
			{Port: "wmask_i", In: wmask, W: 2},
		}}}
	}
	wm := ref("wmask_i", 2)
	b.SetRTL(&netlist.RTL{
		Regs: []netlist.Reg{{Name: "last_raddr", Width: a, Next: ref("raddr_i", a), Doc: "the last read address"}},
		Assigns: []netlist.Assign{
			bank("bank0", ref("re_i", 1), ref("raddr_i", a), ref("wdata_i", 8), wm),
			bank("bank1", netlist.NotE(ref("re_i", 1)), netlist.NotE(ref("last_raddr", a)),
				netlist.XorE(ref("wdata_i", 8), netlist.ConstExpr(0x5a, 8)), netlist.Concat(netlist.Slice(wm, 1, 1), netlist.Slice(wm, 0, 0))),
			{Name: "rdata0_o", Expr: ref("bank0_rdata", 8)},
			{Name: "rdata1_o", Expr: ref("bank1_rdata", 8)},
			{Name: "x_o", Expr: netlist.XorE(ref("bank0_rdata", 8), ref("bank1_rdata", 8))},
		},
	})
	d, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func writeAll(t *testing.T, dir string, d *netlist.Design) map[string][]byte {
	t.Helper()
	files, err := Files(d, testInfo)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// TestMemory_FilesLintClean: Files returns the bank module beside both
// views, Sources lists it first, and each of the three files (the views
// with the bank module) is lint-clean, for a power-of-two depth (no range
// guard) and another.
func TestMemory_FilesLintClean(t *testing.T) {
	for _, words := range []int{6, 8} {
		t.Run(fmt.Sprint(words), func(t *testing.T) {
			d := memDesign(t, words)
			dir := outDir(t)
			files := writeAll(t, dir, d)
			bank := fmt.Sprintf("bank_%dx8.v", words)
			if len(files) != 3 || files[bank] == nil {
				t.Fatalf("Files gave %d files, want the two views and %s", len(files), bank)
			}
			rtlFiles, gateFiles := Sources(d)
			if rtlFiles[0] != bank || gateFiles[0] != bank || rtlFiles[1] != RTLFileName(d) || gateFiles[1] != GatesFileName(d) {
				t.Errorf("Sources = %v, %v: want %s first", rtlFiles, gateFiles, bank)
			}
			lint(t, dir, bank)
			for _, top := range []string{RTLFileName(d), GatesFileName(d)} {
				run(t, dir, "verilator", "--lint-only", "-Wall", bank, top)
				run(t, dir, "iverilog", "-g2005", "-Wall", "-o", os.DevNull, bank, top)
			}
			g := string(files[GatesFileName(d)])
			for _, want := range []string{"bank_" + fmt.Sprint(words) + "x8 bank0 (", ".rdata_o(bank1_rdata_o)", ".clk(clk)"} {
				if !strings.Contains(g, want) {
					t.Errorf("%s lacks %q", GatesFileName(d), want)
				}
			}
			guarded := strings.Contains(string(files[bank]), fmt.Sprintf("< 3'd%d", words))
			if guarded != (words == 6) {
				t.Errorf("%s: address range guard %v, want it only where addresses reach past the end", bank, guarded)
			}
		})
	}
}

// TestMemory_RTLNeedsBankInstances: the readable view must place every
// memory as an instance of the bank module under the memory's name, with
// the module's ports in order.
func TestMemory_RTLNeedsBankInstances(t *testing.T) {
	d := memDesign(t, 6)
	r := *d.RTL
	r.Assigns = append([]netlist.Assign{}, r.Assigns...)
	r.Assigns[1].Name = "other"
	d.RTL = &r
	var buf bytes.Buffer
	if err := WriteRTL(&buf, d, testInfo); err == nil || !strings.Contains(err.Error(), "no instance bank1") {
		t.Errorf("WriteRTL without bank1's instance: %v", err)
	}
	// The bank's ports in another order.
	d = memDesign(t, 6)
	r = *d.RTL
	r.Assigns = append([]netlist.Assign{}, r.Assigns...)
	inst := *r.Assigns[0].Inst
	inst.Ports = append([]netlist.PortConn{}, inst.Ports...)
	inst.Ports[1], inst.Ports[4] = inst.Ports[4], inst.Ports[1]
	r.Assigns[0].Inst = &inst
	d.RTL = &r
	if err := WriteRTL(&buf, d, testInfo); err == nil || !strings.Contains(err.Error(), "port 1 is we_i") {
		t.Errorf("WriteRTL with bank0's ports out of order: %v", err)
	}
}

// TestMemory_YosysInfersOneMemoryPerBank synthesizes each view with
// Yosys up to its fine stage (which would map memories to flip-flops, as
// a real flow replaces them by SRAM macros) and counts the memories:
// one per instance, each with its read register merged into a
// synchronous read port.
func TestMemory_YosysInfersOneMemoryPerBank(t *testing.T) {
	y, err := toolchain.Find("yosys")
	if err != nil {
		t.Skip(err)
	}
	d := memDesign(t, 6)
	dir := outDir(t)
	writeAll(t, dir, d)
	rtlFiles, gateFiles := Sources(d)
	for i, files := range [][]string{rtlFiles, gateFiles} {
		top := []string{d.Name, GatesModuleName(d)}[i]
		script := fmt.Sprintf("read_verilog %s; synth -flatten -top %s -run :fine; stat; dump t:$mem_v2", strings.Join(files, " "), top)
		res, err := y.Command(dir, "-p", script).Run(context.Background())
		if err != nil {
			t.Fatalf("yosys: %v", err)
		}
		m := regexp.MustCompile(`\$mem_v2\s+(\d+)`).FindStringSubmatch(string(res.Output))
		if m == nil || m[1] != "2" {
			t.Errorf("%s: yosys infers %v memories, want 2:\n%s", top, m, res.Output[max(0, len(res.Output)-3000):])
		}
		if n := strings.Count(string(res.Output), "parameter \\RD_CLK_ENABLE 1'1"); n != 2 {
			t.Errorf("%s: %d memories with a synchronous read port, want 2", top, n)
		}
	}
}

// TestMemory_BankGeometriesLintClean lints the bank module and the
// gate-level instance over corner geometries: one word, one bit, a
// one-bit mask, a power-of-two depth, the 48 KB memory's banks.
func TestMemory_BankGeometriesLintClean(t *testing.T) {
	for _, g := range [][3]int{{1, 1, 1}, {2, 4, 1}, {5, 16, 2}, {1536, 32, 4}, {1024, 64, 8}} {
		words, width, mask := g[0], g[1], g[2]
		t.Run(fmt.Sprintf("%dx%d_m%d", words, width, mask), func(t *testing.T) {
			b := netlist.NewBuilder("geom")
			b.Clock("clk", "clock")
			a := netlist.MemoryAddrBits(words)
			in := b.Input("in_i", 2+2*a+width+mask, "everything")
			module := fmt.Sprintf("bank_%dx%d", words, width)
			q := b.Memory("m", module, words, width, mask, "")
			b.MemoryPorts("m", in[0], in[2:2+a], in[1], in[2+a:2+2*a], in[2+2*a:2+2*a+width], in[2+2*a+width:])
			b.Output("q_o", q, "read data")
			ref := netlist.Ref
			b.SetRTL(&netlist.RTL{Assigns: []netlist.Assign{
				{Name: "m", Inst: &netlist.InstanceRTL{Module: module, Ports: []netlist.PortConn{
					{Port: "clk", In: ref("clk", 1), W: 1},
					{Port: "re_i", In: netlist.Slice(ref("in_i", len(in)), 0, 0), W: 1},
					{Port: "raddr_i", In: netlist.Slice(ref("in_i", len(in)), 1+a, 2), W: a},
					{Port: "rdata_o", Wire: "m_rdata", W: width},
					{Port: "we_i", In: netlist.Slice(ref("in_i", len(in)), 1, 1), W: 1},
					{Port: "waddr_i", In: netlist.Slice(ref("in_i", len(in)), 1+2*a, 2+a), W: a},
					{Port: "wdata_i", In: netlist.Slice(ref("in_i", len(in)), 1+2*a+width, 2+2*a), W: width},
					{Port: "wmask_i", In: netlist.Slice(ref("in_i", len(in)), len(in)-1, 2+2*a+width), W: mask},
				}}},
				{Name: "q_o", Expr: ref("m_rdata", width)},
			}})
			d, err := b.Build()
			if err != nil {
				t.Fatal(err)
			}
			dir := outDir(t)
			writeAll(t, dir, d)
			bank := BankFileName(d)
			lint(t, dir, bank)
			for _, top := range []string{RTLFileName(d), GatesFileName(d)} {
				run(t, dir, "verilator", "--lint-only", "-Wall", bank, top)
				run(t, dir, "iverilog", "-g2005", "-Wall", "-o", os.DevNull, bank, top)
			}
		})
	}
}
