package hdl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsugen/lsugen/internal/testenv"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/toolchain"
)

// add3 is the module under test: s_o = a_i + 3 (4 bits) and
// x_o = {b_i, a_i} ^ b_i truncated to 70 bits, so that x_o's bits cross the
// 64-bit word boundary at a 4-bit offset.
const add3V = `module add3 (
    input  wire [3:0]  a_i,
    input  wire [69:0] b_i,
    output wire [3:0]  s_o,
    output wire [69:0] x_o
);
    assign s_o = a_i + 4'd3;
    assign x_o = {b_i[65:0], a_i} ^ b_i;
endmodule
`

// add3Bad is add3 with bit 69 of x_o flipped when a_i is 5.
const add3BadV = `module add3_bad (
    input  wire [3:0]  a_i,
    input  wire [69:0] b_i,
    output wire [3:0]  s_o,
    output wire [69:0] x_o
);
    assign s_o = a_i + 4'd3;
    assign x_o = ({b_i[65:0], a_i} ^ b_i) ^ {a_i == 4'd5, 69'd0};
endmodule
`

func add3Ports() []netlist.Port {
	return []netlist.Port{
		{Name: "a_i", Dir: netlist.In, Bits: make(netlist.Bus, 4)},
		{Name: "b_i", Dir: netlist.In, Bits: make(netlist.Bus, 70)},
		{Name: "s_o", Dir: netlist.Out, Bits: make(netlist.Bus, 4)},
		{Name: "x_o", Dir: netlist.Out, Bits: make(netlist.Bus, 70)},
	}
}

// add3Go is add3 in Go on one vector: {s_o}, {x_o low word, x_o high word}.
func add3Go(vec [][]uint64) [][]uint64 {
	a := vec[0][0] & 15
	lo, hi := vec[1][0], vec[1][1]&(1<<6-1)
	s := (a + 3) & 15
	shLo := lo<<4 | a
	shHi := (hi<<4 | lo>>60) & (1<<6 - 1)
	return [][]uint64{{s}, {shLo ^ lo, shHi ^ hi}}
}

// add3Vectors returns n vectors: corner cases, then random ones with junk
// above each port's width (which must be ignored).
func add3Vectors(n int, seed uint64) [][][]uint64 {
	r := rand.New(rand.NewPCG(seed, 1))
	var vs [][][]uint64
	ones := ^uint64(0)
	for _, c := range [][][]uint64{
		{{0}, {0, 0}},
		{{15}, {ones, 1<<6 - 1}},
		{{5}, {ones, 0}},
		{{5}, {0, 1<<6 - 1}},
		{{12}, {1 << 63, 1 << 5}},
	} {
		vs = append(vs, c)
	}
	for len(vs) < n {
		vs = append(vs, [][]uint64{{r.Uint64()}, {r.Uint64(), r.Uint64()}})
	}
	return vs[:n]
}

// requireEngine fails the test when engine e's tools are missing.
func requireEngine(t testing.TB, e Engine) {
	t.Helper()
	names := map[Engine][]string{Icarus: {"iverilog", "vvp"}, Verilator: {"verilator", "make", "g++"}}[e]
	for _, n := range names {
		if _, err := toolchain.Find(n); err != nil {
			t.Fatalf("%s needs %s: %v", e, n, err)
		}
	}
}

// newBuildCache gives the test a cache of its own, so that its Verilator
// builds are built, with the run-time library and the precompiled headers
// from the machine's cache (testenv.NewCache).
func newBuildCache(t *testing.T) {
	testenv.NewCache(t, toolchain.CacheDirEnv, toolchain.CacheRoot(), "verilator-rt", "verilator-pch")
}

// newAdd3Bench writes add3 and add3_bad into a temporary directory.
func newAdd3Bench(t testing.TB) *Bench {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.Mkdir(src, 0o777); err != nil {
		t.Fatal(err)
	}
	// One module per file named after it: Verilator's -Wall wants that
	// (DECLFILENAME).
	a := filepath.Join(src, "add3.v")
	b := filepath.Join(src, "add3_bad.v")
	for p, text := range map[string]string{a: add3V, b: add3BadV} {
		if err := os.WriteFile(p, []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	return &Bench{
		Dir:     filepath.Join(dir, "work"),
		Sources: []string{a, b},
		Modules: []string{"add3", "add3_bad"},
		Ports:   add3Ports(),
		// The tests of builds and runs run; TestBench_RunCache tests the
		// run cache.
		Rerun: true,
	}
}

func TestBench_IcarusMatchesGo(t *testing.T)    { testMatchesGo(t, Icarus) }
func TestBench_VerilatorMatchesGo(t *testing.T) { testMatchesGo(t, Verilator) }

func testMatchesGo(t *testing.T, e Engine) {
	requireEngine(t, e)
	b := newAdd3Bench(t)
	vs := add3Vectors(3000, 7)
	ctx := context.Background()
	start := time.Now()
	outs, err := b.Run(ctx, e, vs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: build and run of %d vectors: %v", e, len(vs), time.Since(start))
	checkAdd3(t, outs, vs)

	// Same inputs: no rebuild. New vectors: the same build.
	product := map[Engine]string{Icarus: "sim_icarus.vvp", Verilator: "obj_verilator/sim"}[e]
	st1, err := os.Stat(filepath.Join(b.Dir, product))
	if err != nil {
		t.Fatal(err)
	}
	vs2 := add3Vectors(500, 8)
	start = time.Now()
	outs2, err := b.Run(ctx, e, vs2)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: run of %d vectors without rebuild: %v", e, len(vs2), time.Since(start))
	checkAdd3(t, outs2, vs2)
	st2, err := os.Stat(filepath.Join(b.Dir, product))
	if err != nil {
		t.Fatal(err)
	}
	if !st2.ModTime().Equal(st1.ModTime()) {
		t.Errorf("%s rebuilt although nothing changed", product)
	}

	// No vectors at all is fine.
	outs0, err := b.Run(ctx, e, nil)
	if err != nil || len(outs0) != 2 || len(outs0[0]) != 0 {
		t.Fatalf("Run with no vectors: %v, %v", outs0, err)
	}
}

// checkAdd3 checks that module 0 matches add3Go everywhere and that module 1,
// add3_bad, mismatches exactly where a_i is 5, in bit 69 of x_o.
func checkAdd3(t *testing.T, outs [][][][]uint64, vs [][][]uint64) {
	t.Helper()
	if len(outs) != 2 || len(outs[0]) != len(vs) || len(outs[1]) != len(vs) {
		t.Fatalf("outs has shape %d x %d, want 2 x %d", len(outs), len(outs[0]), len(vs))
	}
	bad := 0
	for v, vec := range vs {
		want := add3Go(vec)
		if !equalPorts(outs[0][v], want) {
			t.Fatalf("add3, vector %d %x: got %x, want %x", v, vec, outs[0][v], want)
		}
		if !equalPorts(outs[1][v], want) {
			bad++
			if vec[0][0]&15 != 5 {
				t.Fatalf("add3_bad, vector %d %x: mismatch %x vs %x where a_i != 5", v, vec, outs[1][v], want)
			}
			if diff := outs[1][v][1][1] ^ want[1][1]; diff != 1<<5 || outs[1][v][1][0] != want[1][0] {
				t.Fatalf("add3_bad, vector %d: x_o differs in %x, want bit 69 only", v, diff)
			}
		} else if vec[0][0]&15 == 5 {
			t.Fatalf("add3_bad, vector %d %x: no mismatch where a_i == 5", v, vec)
		}
	}
	if bad == 0 {
		t.Fatal("the wrong module add3_bad matched everywhere")
	}
}

func equalPorts(a, b [][]uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				return false
			}
		}
	}
	return true
}

func TestBench_EnginesConcurrently(t *testing.T) {
	for _, e := range Engines {
		requireEngine(t, e)
	}
	b := newAdd3Bench(t)
	vs := add3Vectors(1000, 9)
	var wg sync.WaitGroup
	results := make([][][][][]uint64, 4)
	errs := make([]error, 4)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = b.Run(context.Background(), Engines[i%2], vs)
		}()
	}
	wg.Wait()
	for i := range results {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		checkAdd3(t, results[i], vs)
	}
}

func TestBench_DumpVCD(t *testing.T) {
	for _, e := range Engines {
		t.Run(string(e), func(t *testing.T) {
			requireEngine(t, e)
			b := newAdd3Bench(t)
			vs := add3Vectors(3, 10)
			path, err := b.DumpVCD(context.Background(), e, vs, "fail_v2")
			if err != nil {
				t.Fatal(err)
			}
			if filepath.Dir(path) != b.Dir && filepath.Dir(path) != mustAbs(t, b.Dir) {
				t.Errorf("VCD %s not in %s", path, b.Dir)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(data) == 0 {
				t.Fatal("empty VCD")
			}
			for _, want := range []string{"$enddefinitions", "lsugen_tb", "dut0", "dut1", " a_i ", " b_i ", " s_o ", " x_o ", "$var wire 70 "} {
				if !bytes.Contains(data, []byte(want)) {
					t.Errorf("%s has no %q", path, want)
				}
			}
			// The run that made the dump still checks its outputs.
			if _, err := b.Run(context.Background(), e, vs); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// oneModuleBench is a bench of a single module add3 with the given text.
func oneModuleBench(t *testing.T, text string) *Bench {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "add3.v")
	if err := os.WriteFile(src, []byte(text), 0o666); err != nil {
		t.Fatal(err)
	}
	return &Bench{Dir: dir, Sources: []string{src}, Modules: []string{"add3"}, Ports: add3Ports()}
}

func TestBench_BuildErrorNamesEngineAndStep(t *testing.T) {
	broken := strings.Replace(add3V, "assign s_o", "assign s_o = = ", 1)
	for _, e := range Engines {
		t.Run(string(e), func(t *testing.T) {
			requireEngine(t, e)
			b := oneModuleBench(t, broken)
			_, err := b.Run(context.Background(), e, add3Vectors(2, 1))
			var se *StepError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a *StepError", err)
			}
			if se.Engine != e || !strings.HasPrefix(se.Step, "build") {
				t.Errorf("engine %s step %q", se.Engine, se.Step)
			}
			if !strings.Contains(err.Error(), "add3.v") || !strings.Contains(err.Error(), string(e)) {
				t.Errorf("error does not name the engine and the source:\n%v", err)
			}
			t.Logf("%v", err)
		})
	}
}

func TestBench_VerilatorLintWarningIsError(t *testing.T) {
	requireEngine(t, Verilator)
	// b_i[69] is unused: -Wall says UNUSEDSIGNAL.
	b := oneModuleBench(t, strings.Replace(add3V, "assign x_o = {b_i[65:0], a_i} ^ b_i;",
		"assign x_o = {b_i[65:0], a_i} ^ {1'b0, b_i[68:0]};", 1))
	_, err := b.Run(context.Background(), Verilator, add3Vectors(2, 1))
	if err == nil || !strings.Contains(err.Error(), "UNUSEDSIGNAL") {
		t.Fatalf("got %v, want an UNUSEDSIGNAL lint error", err)
	}
}

func TestBench_IcarusWarningIsError(t *testing.T) {
	requireEngine(t, Icarus)
	// An implicitly declared net draws a -Wimplicit warning.
	b := oneModuleBench(t, strings.Replace(add3V, "assign s_o = a_i + 4'd3;",
		"assign tmp = a_i[0];\n    assign s_o = a_i + 4'd3 + {3'd0, tmp} - {3'd0, tmp};", 1))
	_, err := b.Run(context.Background(), Icarus, add3Vectors(2, 1))
	if err == nil || !strings.Contains(err.Error(), "warning") || !strings.Contains(err.Error(), "icarus build") {
		t.Fatalf("got %v, want an Icarus build error for a warning", err)
	}
	t.Logf("%v", err)
}

func TestBench_IcarusUndrivenOutputIsError(t *testing.T) {
	requireEngine(t, Icarus)
	b := oneModuleBench(t, strings.Replace(add3V, "assign s_o = a_i + 4'd3;", "", 1))
	_, err := b.Run(context.Background(), Icarus, add3Vectors(2, 1))
	if err == nil || !strings.Contains(err.Error(), "x or z") || !strings.Contains(err.Error(), "module add3") {
		t.Fatalf("got %v, want an x/z output error", err)
	}
}

func TestBench_TimescaleInSources(t *testing.T) {
	// With a `timescale in the sources, the testbench gets one too, and
	// neither tool warns.
	for _, e := range Engines {
		t.Run(string(e), func(t *testing.T) {
			requireEngine(t, e)
			b := oneModuleBench(t, "`timescale 1ns / 1ps\n"+add3V)
			vs := add3Vectors(20, 3)
			outs, err := b.Run(context.Background(), e, vs)
			if err != nil {
				t.Fatal(err)
			}
			for v := range vs {
				if !equalPorts(outs[0][v], add3Go(vs[v])) {
					t.Fatalf("vector %d: %x", v, outs[0][v])
				}
			}
			tb, _ := os.ReadFile(filepath.Join(b.Dir, TopModule+".v"))
			if !bytes.Contains(tb, []byte("`timescale 1ns / 1ps")) {
				t.Error("testbench has no `timescale")
			}
		})
	}
}

// TestBench_OddShapes covers one-bit ports, an output over two words and a
// module with no inputs, under both engines.
func TestBench_OddShapes(t *testing.T) {
	const oddV = `module odd (
    input  wire         e_i,
    input  wire [63:0]  w_i,
    output wire [129:0] w_o,
    output wire         f_o
);
    assign w_o = {w_i, ~w_i, e_i, ~e_i};
    assign f_o = ^w_i ^ e_i;
endmodule
`
	const constV = `module konst (
    output wire [3:0] c_o
);
    assign c_o = 4'd9;
endmodule
`
	for _, e := range Engines {
		t.Run(string(e), func(t *testing.T) {
			requireEngine(t, e)
			dir := t.TempDir()
			odd := filepath.Join(dir, "odd.v")
			konst := filepath.Join(dir, "konst.v")
			os.WriteFile(odd, []byte(oddV), 0o666)
			os.WriteFile(konst, []byte(constV), 0o666)
			b := &Bench{Dir: filepath.Join(dir, "odd"), Sources: []string{odd}, Modules: []string{"odd"}, Ports: []netlist.Port{
				{Name: "e_i", Dir: netlist.In, Bits: make(netlist.Bus, 1)},
				{Name: "w_i", Dir: netlist.In, Bits: make(netlist.Bus, 64)},
				{Name: "w_o", Dir: netlist.Out, Bits: make(netlist.Bus, 130)},
				{Name: "f_o", Dir: netlist.Out, Bits: make(netlist.Bus, 1)},
			}}
			r := rand.New(rand.NewPCG(5, 6))
			vs := make([][][]uint64, 300)
			for v := range vs {
				vs[v] = [][]uint64{{r.Uint64()}, {r.Uint64()}}
			}
			outs, err := b.Run(context.Background(), e, vs)
			if err != nil {
				t.Fatal(err)
			}
			for v, vec := range vs {
				ei, w := vec[0][0]&1, vec[1][0]
				// {w, ~w, e, ~e}: bit 0 ~e, bit 1 e, bits 2..65 ~w, bits 66..129 w.
				lo := (ei ^ 1) | ei<<1 | ^w<<2
				mid := ^w>>62 | w<<2
				hi := w >> 62
				f := uint64(bits.OnesCount64(w)+int(ei)) & 1
				want := [][]uint64{{lo, mid, hi}, {f}}
				if !equalPorts(outs[0][v], want) {
					t.Fatalf("vector %d %x: got %x, want %x", v, vec, outs[0][v], want)
				}
			}

			k := &Bench{Dir: filepath.Join(dir, "konst"), Sources: []string{konst}, Modules: []string{"konst"}, Ports: []netlist.Port{
				{Name: "c_o", Dir: netlist.Out, Bits: make(netlist.Bus, 4)},
			}}
			outs, err = k.Run(context.Background(), e, [][][]uint64{{}, {}})
			if err != nil {
				t.Fatal(err)
			}
			if len(outs[0]) != 2 || outs[0][1][0][0] != 9 {
				t.Fatalf("konst: %v", outs)
			}
		})
	}
}

func TestBench_CancelledContext(t *testing.T) {
	requireEngine(t, Icarus)
	b := newAdd3Bench(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.Run(ctx, Icarus, add3Vectors(2, 1)); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

func TestBench_BadArguments(t *testing.T) {
	b := newAdd3Bench(t)
	ctx := context.Background()
	cases := []struct {
		name    string
		e       Engine
		vectors [][][]uint64
		want    string
	}{
		{"engine", "modelsim", nil, "unknown engine"},
		{"inputs", Icarus, [][][]uint64{{{1}}}, "1 input values, want 2"},
		{"words", Icarus, [][][]uint64{{{1}, {1}}}, "1 words for 70 bits, want 2"},
	}
	for _, c := range cases {
		if _, err := b.Run(ctx, c.e, c.vectors); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := b.DumpVCD(ctx, Icarus, nil, "../x"); err == nil {
		t.Error("DumpVCD accepted name ../x")
	}
	noOut := &Bench{Dir: t.TempDir(), Sources: b.Sources, Modules: b.Modules, Ports: add3Ports()[:2]}
	if _, err := noOut.Run(ctx, Icarus, nil); err == nil || !strings.Contains(err.Error(), "no output ports") {
		t.Errorf("no outputs: %v", err)
	}
}

func TestTestbench_DocumentsLayout(t *testing.T) {
	b := newAdd3Bench(t)
	tb := benchText(t, b)
	for _, want := range []string{
		"module lsugen_tb;",
		"inputs' values in hex, separated by\n// spaces: a_i b_i.",
		"Output file: per vector one line per module",
		"wire  [69:0]  b_i = tb_in[73:4];",
		"add3_bad dut1 (",
		".x_o(m1_x_o)",
		"tb_r = $fscanf(tb_fd, \"%h %h %h %h\\n\", tb_in_a_i, tb_in_b_i, s_o_expected, x_o_expected);",
		"tb_r = $fscanf(tb_fd, \"%h %h\\n\", tb_in_a_i, tb_in_b_i);",
		"tb_in = {tb_in_b_i, tb_in_a_i};",
		"$fwrite(tb_fout, \"%h %h\\n\", m1_s_o, m1_x_o);",
		"$dumpvars(0, lsugen_tb);",
	} {
		if !strings.Contains(tb, want) {
			t.Errorf("testbench has no %q:\n%s", want, tb)
		}
	}
	if strings.Contains(tb, "`timescale") && !strings.Contains(tb, "no `timescale") {
		t.Error("testbench has a `timescale although the sources have none")
	}
}

// TestTestbench_NameClashes: a port whose name is one of the testbench's
// own is refused, whichever testbench it would be.
func TestTestbench_NameClashes(t *testing.T) {
	port := func(name string, dir netlist.Dir, w int) netlist.Port {
		return netlist.Port{Name: name, Dir: dir, Bits: make(netlist.Bus, w)}
	}
	for _, c := range []struct {
		name string
		tb   Testbench
		want string
	}{
		{"tb_", Testbench{Module: "t", Modules: []string{"m"}, Ports: []netlist.Port{port("tb_x", netlist.In, 1), port("o", netlist.Out, 1)}}, "tb_*"},
		{"instance", Testbench{Module: "t", Modules: []string{"m"}, Ports: []netlist.Port{port("dut0", netlist.In, 1), port("o", netlist.Out, 1)}}, "instance dut0"},
		{"macro", Testbench{Module: "t", Modules: []string{"m"}, Macro: "DUT", Ports: []netlist.Port{port("DUT", netlist.In, 1), port("o", netlist.Out, 1)}}, "macro DUT"},
		{"output wire", Testbench{Module: "t", Modules: []string{"m"}, Ports: []netlist.Port{port("m0_o", netlist.In, 1), port("o", netlist.Out, 1)}}, "m0_o"},
		{"expected", Testbench{Module: "t", Modules: []string{"m"}, Macro: "DUT", Golden: true, Ports: []netlist.Port{port("o_expected", netlist.In, 1), port("o", netlist.Out, 1)}}, "o_expected"},
		{"mismatch", Testbench{Module: "t", Modules: []string{"m"}, Ports: []netlist.Port{port("mismatch", netlist.In, 1), port("o", netlist.Out, 1)}}, "mismatch"},
		{"golden without macro", Testbench{Module: "t", Modules: []string{"m"}, Golden: true, Ports: []netlist.Port{port("i", netlist.In, 1), port("o", netlist.Out, 1)}}, "macro"},
	} {
		if _, err := c.tb.Write(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
}

// TestVectorIO_RoundTrip: the vector file's columns read back through the
// output parser, for widths around the word and digit boundaries; junk
// above a width is dropped and x digits are errXZ.
func TestVectorIO_RoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	widths := []int{1, 3, 4, 5, 63, 64, 65, 127, 128, 129, 200, 300}
	dir := t.TempDir()
	for iter := 0; iter < 50; iter++ {
		var ins, outs []field
		for i := 0; i < 1+r.IntN(5); i++ {
			w := widths[r.IntN(len(widths))]
			ins = append(ins, field{fmt.Sprintf("p%d", i), w})
			outs = append(outs, field{fmt.Sprintf("q%d", i), w})
		}
		vs := make([][][]uint64, 7)
		for v := range vs {
			for _, f := range ins {
				val := make([]uint64, words(f.width)+1) // one word of junk
				for j := range val {
					val[j] = r.Uint64()
				}
				vs[v] = append(vs[v], val)
			}
		}
		path := filepath.Join(dir, "v.hex")
		if err := writeVectors(path, &tbPorts{ins: ins, reset: -1}, vs, nil); err != nil {
			t.Fatal(err)
		}
		back, err := readOutputs(path, &tbPorts{outs: outs, reset: -1}, 1, len(vs))
		if err != nil {
			t.Fatal(err)
		}
		for v := range vs {
			for i, f := range ins {
				for j, got := range back[0][v][i] {
					want := vs[v][i][j]
					if j == words(f.width)-1 && f.width%64 != 0 {
						want &= 1<<uint(f.width%64) - 1
					}
					if got != want {
						t.Fatalf("vector %d, port %s (width %d), word %d: %x, want %x", v, f.name, f.width, j, got, want)
					}
				}
			}
		}
	}
	if err := parseHex(make([]uint64, 1), []byte("1x")); !errors.Is(err, errXZ) {
		t.Errorf("parseHex(1x) = %v", err)
	}
}

// The timing figures: go test -run ^$ -bench . -benchtime 1x ./verify/hdl

func benchVectors(n int) [][][]uint64 { return add3Vectors(n, 42) }

func BenchmarkIcarusRun100k(b *testing.B)    { benchRun(b, Icarus) }
func BenchmarkVerilatorRun100k(b *testing.B) { benchRun(b, Verilator) }

// benchRun times Run of 100k vectors through add3 and add3_bad, the build
// done beforehand.
func benchRun(b *testing.B, e Engine) {
	requireEngine(b, e)
	bench := newAdd3Bench(b)
	vs := benchVectors(100_000)
	if _, err := bench.Run(context.Background(), e, vs[:1]); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := bench.Run(context.Background(), e, vs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerilatorBuild times a build from scratch (the run-time library
// from the cache, filled before the timer starts) and a one-vector run.
func BenchmarkVerilatorBuild(b *testing.B) {
	requireEngine(b, Verilator)
	if _, err := newAdd3Bench(b).Run(context.Background(), Verilator, benchVectors(1)); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		bench := newAdd3Bench(b)
		b.StartTimer()
		if _, err := bench.Run(context.Background(), Verilator, benchVectors(1)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVectorIO times the Go side for 1M vectors of 300 input and 300
// output bits: writing the vector file and parsing an output file.
func BenchmarkVectorIO(b *testing.B) {
	ports := []netlist.Port{
		{Name: "a", Dir: netlist.In, Bits: make(netlist.Bus, 100)},
		{Name: "b", Dir: netlist.In, Bits: make(netlist.Bus, 200)},
		{Name: "x", Dir: netlist.Out, Bits: make(netlist.Bus, 100)},
		{Name: "y", Dir: netlist.Out, Bits: make(netlist.Bus, 200)},
	}
	tp, err := (&Testbench{Module: "t", Modules: []string{"m"}, Ports: ports}).ports()
	if err != nil {
		b.Fatal(err)
	}
	// The vector file has the output file's layout (same widths).
	back := &tbPorts{outs: tp.ins, reset: -1}
	const n = 1_000_000
	r := rand.New(rand.NewPCG(3, 4))
	vs := make([][][]uint64, n)
	for v := range vs {
		vs[v] = [][]uint64{{r.Uint64(), r.Uint64()}, {r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64()}}
	}
	path := filepath.Join(b.TempDir(), "v.hex")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := writeVectors(path, tp, vs, nil); err != nil {
			b.Fatal(err)
		}
		outs, err := readOutputs(path, back, 1, n)
		if err != nil {
			b.Fatal(err)
		}
		if outs[0][n-1][1][0] != vs[n-1][1][0] {
			b.Fatal("round trip")
		}
	}
}
