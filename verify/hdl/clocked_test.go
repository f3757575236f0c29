package hdl

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/netlist"
)

// seqacc is a clocked module under test: a 70-bit XOR accumulator and a
// 4-bit counter of enabled cycles, both reset by rst, and a Mealy output
// sum_o = acc ^ x_i (this cycle's input). The 70 bits cross a word boundary.
const seqaccV = `module seqacc (
    input  wire        clk,
    input  wire        rst,
    input  wire        en_i,
    input  wire [69:0] x_i,
    output wire [69:0] sum_o,
    output wire [3:0]  cnt_o
);
    reg [69:0] acc_q;
    reg [3:0]  cnt_q;
    always @(posedge clk) begin
        if (rst) begin
            acc_q <= 70'd0;
            cnt_q <= 4'd0;
        end else if (en_i) begin
            acc_q <= acc_q ^ x_i;
            cnt_q <= cnt_q + 4'd1;
        end
    end
    assign sum_o = acc_q ^ x_i;
    assign cnt_o = cnt_q;
endmodule
`

// seqaccBad is seqacc whose counter skips from 7 to 9.
var seqaccBadV = strings.NewReplacer("module seqacc", "module seqacc_bad",
	"cnt_q <= cnt_q + 4'd1;", "cnt_q <= cnt_q + ((cnt_q == 4'd7) ? 4'd2 : 4'd1);").Replace(seqaccV)

func seqaccPorts() []netlist.Port {
	return []netlist.Port{
		{Name: "clk", Dir: netlist.In, Bits: make(netlist.Bus, 1)},
		{Name: "rst", Dir: netlist.In, Bits: make(netlist.Bus, 1)},
		{Name: "en_i", Dir: netlist.In, Bits: make(netlist.Bus, 1)},
		{Name: "x_i", Dir: netlist.In, Bits: make(netlist.Bus, 70)},
		{Name: "sum_o", Dir: netlist.Out, Bits: make(netlist.Bus, 70)},
		{Name: "cnt_o", Dir: netlist.Out, Bits: make(netlist.Bus, 4)},
	}
}

// seqaccGo runs seqacc (or, bad, seqacc_bad) in Go from the reset state over
// the vectors {rst}, {en_i}, {x_i lo, x_i hi}: outs[v] = {sum_o}, {cnt_o}.
func seqaccGo(vs [][][]uint64, bad bool) [][][]uint64 {
	const hiMask = 1<<6 - 1
	var lo, hi, cnt uint64
	outs := make([][][]uint64, len(vs))
	for v, vec := range vs {
		xl, xh := vec[2][0], vec[2][1]&hiMask
		outs[v] = [][]uint64{{lo ^ xl, hi ^ xh}, {cnt}}
		switch {
		case vec[0][0]&1 == 1:
			lo, hi, cnt = 0, 0, 0
		case vec[1][0]&1 == 1:
			lo, hi = lo^xl, hi^xh
			if bad && cnt == 7 {
				cnt++
			}
			cnt = (cnt + 1) & 15
		}
	}
	return outs
}

// seqaccVectors returns n cycles of random inputs with junk above the port
// widths; rst is 1 in about one cycle of 50 and en_i in three of four.
func seqaccVectors(n int, seed uint64) [][][]uint64 {
	r := rand.New(rand.NewPCG(seed, 2))
	vs := make([][][]uint64, n)
	for v := range vs {
		rst := uint64(0)
		if r.IntN(50) == 0 {
			rst = 1
		}
		en := uint64(0)
		if r.IntN(4) != 0 {
			en = 1
		}
		vs[v] = [][]uint64{{rst | r.Uint64()&^1}, {en | r.Uint64()&^1}, {r.Uint64(), r.Uint64()}}
	}
	return vs
}

// newSeqaccBench writes seqacc and seqacc_bad into a temporary directory.
func newSeqaccBench(t testing.TB) *Bench {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.Mkdir(src, 0o777); err != nil {
		t.Fatal(err)
	}
	a := filepath.Join(src, "seqacc.v")
	b := filepath.Join(src, "seqacc_bad.v")
	for p, text := range map[string]string{a: seqaccV, b: seqaccBadV} {
		if err := os.WriteFile(p, []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	return &Bench{
		Dir:     filepath.Join(dir, "work"),
		Sources: []string{a, b},
		Modules: []string{"seqacc", "seqacc_bad"},
		Ports:   seqaccPorts(),
		Clock:   "clk",
		Reset:   "rst",
	}
}

func TestClockedBench_IcarusMatchesGo(t *testing.T)    { testClockedMatchesGo(t, Icarus) }
func TestClockedBench_VerilatorMatchesGo(t *testing.T) { testClockedMatchesGo(t, Verilator) }

// testClockedMatchesGo runs 3000 cycles through seqacc and seqacc_bad: the
// good module matches the Go model in every cycle (so the reset cycle came
// first and the outputs are sampled before the edge), the bad one exactly
// where the Go model of the bad one says. The build is warning-free under
// -Wall (a warning fails it), which is the lint check of the clocked
// testbench with both tools.
func testClockedMatchesGo(t *testing.T, e Engine) {
	requireEngine(t, e)
	b := newSeqaccBench(t)
	vs := seqaccVectors(3000, 11)
	outs, err := b.Run(context.Background(), e, vs)
	if err != nil {
		t.Fatal(err)
	}
	good, bad := seqaccGo(vs, false), seqaccGo(vs, true)
	differ := 0
	for v := range vs {
		if !equalPorts(outs[0][v], good[v]) {
			t.Fatalf("seqacc, cycle %d: got %x, want %x", v, outs[0][v], good[v])
		}
		if !equalPorts(outs[1][v], bad[v]) {
			t.Fatalf("seqacc_bad, cycle %d: got %x, want %x", v, outs[1][v], bad[v])
		}
		if !equalPorts(good[v], bad[v]) {
			differ++
		}
	}
	if differ == 0 {
		t.Fatal("the stream never exercises seqacc_bad's bug")
	}
	// A second run: the same build, a fresh reset.
	vs2 := seqaccVectors(200, 12)
	outs2, err := b.Run(context.Background(), e, vs2)
	if err != nil {
		t.Fatal(err)
	}
	want2 := seqaccGo(vs2, false)
	for v := range vs2 {
		if !equalPorts(outs2[0][v], want2[v]) {
			t.Fatalf("second run, cycle %d: got %x, want %x", v, outs2[0][v], want2[v])
		}
	}
}

// TestClockedBench_DumpVCDWindow replays 5000 cycles and dumps the last
// 1000 only; with a window of all cycles the dump starts at time 0, in the
// reset cycle.
func TestClockedBench_DumpVCDWindow(t *testing.T) {
	for _, e := range Engines {
		t.Run(string(e), func(t *testing.T) {
			requireEngine(t, e)
			b := newSeqaccBench(t)
			vs := seqaccVectors(5000, 13)
			path, err := b.DumpVCD(context.Background(), e, vs, "fail_4999")
			if err != nil {
				t.Fatal(err)
			}
			first, last, data := vcdTimes(t, path, e)
			// Cycle 4000 starts at 2*4000+2 ns; the last edge is at
			// 2*4999+3 ns and the clock falls at 2*4999+4.
			if first != 8002 || last != 10002 {
				t.Errorf("dump from %d ns to %d ns, want 8002 to 10002", first, last)
			}
			for _, want := range []string{"$enddefinitions", "dut0", "dut1", " clk ", " rst ", " x_i ", " sum_o ", " cnt_o ", " acc_q "} {
				if !bytes.Contains(data, []byte(want)) {
					t.Errorf("%s has no %q", path, want)
				}
			}
			if len(data) > 2_000_000 {
				t.Errorf("VCD of 1000 cycles is %d bytes", len(data))
			}

			b.VCDCycles = -1
			path, err = b.DumpVCD(context.Background(), e, vs[:10], "all")
			if err != nil {
				t.Fatal(err)
			}
			first, last, _ = vcdTimes(t, path, e)
			if first != 0 || last != 22 {
				t.Errorf("full dump from %d ns to %d ns, want 0 to 22", first, last)
			}
		})
	}
}

var (
	vcdTimeRE      = regexp.MustCompile(`(?m)^#(\d+)`)
	vcdTimescaleRE = regexp.MustCompile(`\$timescale\s+(\d+)\s*([a-z]+)`)
)

// vcdTimes returns the first and last time stamp of a VCD in ns.
func vcdTimes(t *testing.T, path string, e Engine) (first, last int, data []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := vcdTimeRE.FindAllSubmatch(data, -1)
	if len(m) == 0 {
		t.Fatalf("%s has no time stamps", path)
	}
	unit := 1
	switch ts := vcdTimescaleRE.FindSubmatch(data); {
	case ts == nil:
		t.Fatalf("%s has no $timescale", path)
	case string(ts[1]) == "1" && string(ts[2]) == "ps":
		unit = 1000
	case string(ts[1]) != "1" || string(ts[2]) != "ns":
		t.Fatalf("%s: $timescale %s%s", path, ts[1], ts[2])
	}
	first, _ = strconv.Atoi(string(m[0][1]))
	last, _ = strconv.Atoi(string(m[len(m)-1][1]))
	t.Logf("%s: %s, %d bytes, #%d .. #%d", e, filepath.Base(path), len(data), first, last)
	return first / unit, last / unit, data
}

func TestClockedTestbench_DocumentsProtocol(t *testing.T) {
	b := &Bench{Dir: t.TempDir(), Sources: []string{"x.v"}, Modules: []string{"seqacc", "seqacc_bad"}, Ports: seqaccPorts(), Clock: "clk", Reset: "rst"}
	tb := benchText(t, b)
	for _, want := range []string{
		"Clocked cross-check testbench",
		"the reset cycle (rst = 1, every other input 0",
		"every module's outputs written at 2v+3",
		"+vcdfrom=<n>",
		"inputs' values in hex, separated by\n// spaces: rst en_i x_i.",
		".clk(clk),",
		"        tb_in = {71'd0, 1'b1};\n        #1;\n        clk = 1'b1;",
		"wire  [69:0]  x_i = tb_in[71:2];",
		"tb_in = {tb_in_x_i, tb_in_en_i, tb_in_rst};",
		"m1_sum_o;",
		"$fwrite(tb_fout, \"%h %h\\n\", m1_sum_o, m1_cnt_o);\n            clk = 1'b1;",
		"wire mismatch = tb_exp && tb_check && (",
	} {
		if !strings.Contains(tb, want) {
			t.Errorf("testbench has no %q:\n%s", want, tb)
		}
	}
	if !strings.Contains(tb, "$fscanf(tb_fd, \"%h %h %h\\n\", tb_in_rst, tb_in_en_i, tb_in_x_i);") || strings.Contains(tb, "tb_in_clk") {
		t.Error("the clock is part of the vectors")
	}

	b.Reset = ""
	if tb := benchText(t, b); !strings.Contains(tb, "no reset cycle") || !strings.Contains(tb, "tb_in = 72'd0;\n        #2;") || strings.Contains(tb, "1'b1};") {
		t.Errorf("testbench without a reset:\n%s", tb)
	}
}

// benchText is the testbench a Bench writes for sources without a
// `timescale.
func benchText(t *testing.T, b *Bench) string {
	t.Helper()
	text, err := b.testbench(false).Write()
	if err != nil {
		t.Fatal(err)
	}
	return string(text)
}

func TestClockedBench_BadPorts(t *testing.T) {
	ports := seqaccPorts()
	cases := []struct {
		clock, reset string
		ports        []netlist.Port
		want         string
	}{
		{"clock", "rst", ports, "no clock input clock"},
		{"clk", "reset", ports, "no reset input reset"},
		{"", "rst", ports, "without a clock"},
		{"clk", "clk", ports, "both the clock and the reset"},
		{"x_i", "rst", ports, "clock x_i is not a one-bit input"},
		{"clk", "cnt_o", ports, "reset cnt_o is not a one-bit input"},
	}
	for _, c := range cases {
		b := &Bench{Dir: t.TempDir(), Sources: []string{"x.v"}, Modules: []string{"seqacc"}, Ports: c.ports, Clock: c.clock, Reset: c.reset}
		if _, err := b.Run(context.Background(), Icarus, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("clock %q reset %q: got %v, want %q", c.clock, c.reset, err, c.want)
		}
	}
}

// TestClockedBench_IcarusXZ: a register that rst does not reset is x under
// Icarus until written; Run fails with an *XZError naming the module, the
// cycle and the port, and DumpVCD still writes the VCD.
func TestClockedBench_IcarusXZ(t *testing.T) {
	requireEngine(t, Icarus)
	b := newSeqaccBench(t)
	text := strings.Replace(seqaccV, "acc_q <= 70'd0;", "", 1)
	if err := os.WriteFile(b.Sources[0], []byte(text), 0o666); err != nil {
		t.Fatal(err)
	}
	vs := seqaccVectors(50, 14)
	_, err := b.Run(context.Background(), Icarus, vs)
	var xe *XZError
	if !errors.As(err, &xe) || xe.Module != "seqacc" || xe.Vector != 0 || !xe.Clocked || xe.Port != "sum_o" {
		t.Fatalf("got %v, want an XZError of seqacc, cycle 0, sum_o", err)
	}
	if !strings.Contains(err.Error(), "cycle 0: output sum_o has x or z bits") {
		t.Errorf("error %q", err)
	}
	path, err := b.DumpVCD(context.Background(), Icarus, vs[:1], "xz")
	if err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(path); err != nil || !bytes.Contains(data, []byte("acc_q")) {
		t.Errorf("VCD %s: %v", path, err)
	}
}
