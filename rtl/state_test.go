package rtl

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/netlist"
)

// stateDesign is a small sequential design with a cleared register, a
// memory and a run-time left shift: four 3-bit words with valid bits.
//
//	valid <= rst ? 0 : valid | (we_i << addr_i)
//	mem[addr_i] <= data_i when we_i
//	rdata_o = valid[addr_i] ? mem[addr_i] : 0;  valid_o = valid
func stateDesign(t *testing.T) *netlist.Design {
	t.Helper()
	b := netlist.NewBuilder("regmem")
	b.Header("A register file with valid bits, for testing the sequential RTL printer.",
		"Protocol: synchronous, rising edge of clk; rst clears the valid bits.")
	b.Clock("clk", "clock")
	rst := b.Input("rst", 1, "synchronous reset")
	we := b.Input("we_i", 1, "write enable")
	addr := b.Input("addr_i", 2, "word address")
	data := b.Input("data_i", 3, "write data")
	valid := b.Reg("valid", 4)
	words := make([]netlist.Bus, 4)
	for i := range words {
		words[i] = b.Reg(fmt.Sprintf("mem_%d", i), 3)
	}
	var set netlist.Bus
	for i := range 4 {
		dec := b.And(we[0], b.Equal(addr, netlist.Const(uint64(i), 2)))
		set = append(set, b.Or(valid[i], dec))
		b.Next(words[i], b.MuxBus(dec, words[i], data))
	}
	b.NextClear(valid, set, rst[0])
	v := b.Select(addr, valid)
	rdata := make(netlist.Bus, 3)
	for bit := range rdata {
		rdata[bit] = b.And(v, b.Select(addr, netlist.Bus{words[0][bit], words[1][bit], words[2][bit], words[3][bit]}))
	}
	b.Output("rdata_o", rdata, "the addressed word, 0 when it is not valid")
	b.Output("valid_o", valid, "valid bits")

	ae := netlist.Ref("addr_i", 2)
	b.SetRTL(&netlist.RTL{
		Regs: []netlist.Reg{{Name: "valid", Width: 4, Doc: "valid bit per word",
			Clear: netlist.Ref("rst", 1),
			Next:  netlist.OrE(netlist.Ref("valid", 4), netlist.ShlE(netlist.Concat(netlist.Ref("we_i", 1), netlist.ConstExpr(0, 3)), ae))}},
		Mems: []netlist.Mem{{Name: "mem", Width: 3, Depth: 4, Doc: "the words",
			When: netlist.Ref("we_i", 1), Addr: ae, Data: netlist.Ref("data_i", 3)}},
		Assigns: []netlist.Assign{
			{Name: "rdata_o", Expr: netlist.MuxE(netlist.BitAt(netlist.Ref("valid", 4), ae), netlist.MemE("mem", 3, ae), netlist.ConstExpr(0, 3))},
			{Name: "valid_o", Expr: netlist.Ref("valid", 4)},
		},
	})
	d, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestStateDesign lints both writers' output and runs the RTL and the
// gates under Icarus against a Go model of the register file.
func TestStateDesign(t *testing.T) {
	d := stateDesign(t)
	dir := outDir(t)
	rtlText, _ := writeBoth(t, dir, d)
	for _, want := range []string{"    reg [3:0] valid;\n", "    reg [2:0] mem [0:3];\n",
		"        if (rst) valid <= 4'd0;\n", "        else valid <= valid | ({3'd0, we_i} << addr_i);\n",
		"        if (we_i) mem[addr_i] <= data_i;\n", "assign rdata_o = valid[addr_i] ? mem[addr_i] : 3'd0;"} {
		if !strings.Contains(rtlText, want) {
			t.Errorf("RTL lacks %q:\n%s", want, rtlText)
		}
	}
	lint(t, dir, RTLFileName(d))
	lint(t, dir, GatesFileName(d))

	// we_i, addr_i, data_i per cycle; the first cycle resets.
	type step struct{ rst, we, addr, data uint64 }
	steps := []step{{1, 0, 0, 0}, {0, 1, 2, 5}, {0, 0, 2, 0}, {0, 1, 0, 3}, {0, 0, 0, 0}, {0, 0, 1, 0}, {0, 1, 2, 6}, {0, 0, 2, 0}, {1, 0, 2, 0}, {0, 0, 2, 0}}
	var want []string
	var valid uint64
	var mem [4]uint64
	for _, s := range steps {
		rd := uint64(0)
		if valid>>s.addr&1 == 1 {
			rd = mem[s.addr]
		}
		want = append(want, fmt.Sprintf("%x %x", rd, valid))
		if s.rst == 1 {
			valid = 0
		} else if s.we == 1 {
			valid |= 1 << s.addr
			mem[s.addr] = s.data
		}
	}
	for _, module := range []string{d.Name, d.Name + "_gates"} {
		tb := "`timescale 1ns / 1ps\n`default_nettype none\nmodule tb;\n" +
			"    reg clk; reg rst; reg we_i; reg [1:0] addr_i; reg [2:0] data_i;\n    wire [2:0] rdata_o; wire [3:0] valid_o;\n" +
			"    " + module + " dut (.clk(clk), .rst(rst), .we_i(we_i), .addr_i(addr_i), .data_i(data_i), .rdata_o(rdata_o), .valid_o(valid_o));\n" +
			"    initial begin\n        clk = 1'b0;\n"
		for _, s := range steps {
			tb += fmt.Sprintf("        rst = 1'b%d; we_i = 1'b%d; addr_i = 2'd%d; data_i = 3'd%d; #1 $display(\"%%h %%h\", rdata_o, valid_o); clk = 1'b1; #1 clk = 1'b0;\n",
				s.rst, s.we, s.addr, s.data)
		}
		tb += "        $finish;\n    end\nendmodule\n`default_nettype wire\n"
		if err := os.WriteFile(filepath.Join(dir, "tb.v"), []byte(tb), 0o644); err != nil {
			t.Fatal(err)
		}
		run(t, dir, "iverilog", "-g2005", "-Wall", "-o", "sim.vvp", "tb.v", RTLFileName(d), GatesFileName(d))
		cmd := exec.Command(tool(t, "vvp"), "-n", "sim.vvp")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("vvp: %v\n%s", err, out)
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if !strings.Contains(l, "$finish") {
				got = append(got, l)
			}
		}
		// The first cycle's outputs read the power-up state: x under
		// Icarus; compare from the second cycle on.
		if strings.Join(got[1:], "\n") != strings.Join(want[1:], "\n") {
			t.Errorf("%s: got\n%s\nwant\n%s", module, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

func TestWriteRTL_StateErrors(t *testing.T) {
	d := stateDesign(t)
	bad := *d
	r := *d.RTL
	bad.RTL = &r
	bad.Clock = ""
	if err := WriteRTL(&bytes.Buffer{}, &bad, testInfo); err == nil || !strings.Contains(err.Error(), "clock") {
		t.Errorf("registers without a clock: %v", err)
	}
	bad.Clock = d.Clock
	r.Mems = []netlist.Mem{{Name: "mem", Width: 3, Depth: 3}}
	if err := WriteRTL(&bytes.Buffer{}, &bad, testInfo); err == nil || !strings.Contains(err.Error(), "power of two") {
		t.Errorf("3-word memory: %v", err)
	}
	r.Mems = d.RTL.Mems
	r.Regs = []netlist.Reg{{Name: "valid", Width: 4, Next: netlist.Ref("addr_i", 2)}}
	if err := WriteRTL(&bytes.Buffer{}, &bad, testInfo); err == nil || !strings.Contains(err.Error(), "next value is 2 bits") {
		t.Errorf("2-bit next for a 4-bit reg: %v", err)
	}
}
