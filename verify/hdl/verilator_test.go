package hdl

import (
	"bytes"
	"context"
	"fmt"
	"github.com/lsugen/lsugen/toolchain"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/netlist"
)

// The all-to-all comparator of a2aLanes lanes of a2aBits-bit values, the
// shape of the coalescers' gate netlists: unique_o[i] is set when no later
// lane j > i holds lane i's value. a2aGates writes it as one-bit gates (one
// assign per gate: XNOR per bit, an AND tree per pair, an OR tree per lane),
// a2aRTL with ==.
const (
	a2aLanes = 8
	a2aBits  = 8
)

func a2aGates() string {
	var b strings.Builder
	fmt.Fprintf(&b, "module a2a_gates (\n    input  wire [%d:0] v_i,\n    output wire [%d:0] unique_o\n);\n",
		a2aLanes*a2aBits-1, a2aLanes-1)
	n := 0
	gate := func(expr string) string {
		n++
		fmt.Fprintf(&b, "    wire n%d = %s;\n", n, expr)
		return fmt.Sprintf("n%d", n)
	}
	// tree reduces terms pairwise with op, as a gate netlist does.
	tree := func(terms []string, op string) string {
		for len(terms) > 1 {
			var next []string
			for k := 0; k+1 < len(terms); k += 2 {
				next = append(next, gate(terms[k]+" "+op+" "+terms[k+1]))
			}
			if len(terms)%2 == 1 {
				next = append(next, terms[len(terms)-1])
			}
			terms = next
		}
		return terms[0]
	}
	for i := 0; i < a2aLanes; i++ {
		var eqs []string
		for j := i + 1; j < a2aLanes; j++ {
			var bits []string
			for k := 0; k < a2aBits; k++ {
				bits = append(bits, gate(fmt.Sprintf("~(v_i[%d] ^ v_i[%d])", i*a2aBits+k, j*a2aBits+k)))
			}
			eqs = append(eqs, tree(bits, "&"))
		}
		if len(eqs) == 0 {
			fmt.Fprintf(&b, "    assign unique_o[%d] = 1'b1;\n", i)
			continue
		}
		fmt.Fprintf(&b, "    assign unique_o[%d] = ~%s;\n", i, tree(eqs, "|"))
	}
	b.WriteString("endmodule\n")
	return b.String()
}

func a2aRTL() string {
	var b strings.Builder
	fmt.Fprintf(&b, "module a2a (\n    input  wire [%d:0] v_i,\n    output wire [%d:0] unique_o\n);\n",
		a2aLanes*a2aBits-1, a2aLanes-1)
	for i := 0; i < a2aLanes; i++ {
		var ne []string
		for j := i + 1; j < a2aLanes; j++ {
			ne = append(ne, fmt.Sprintf("(v_i[%d +: %d] != v_i[%d +: %d])", i*a2aBits, a2aBits, j*a2aBits, a2aBits))
		}
		if len(ne) == 0 {
			ne = []string{"1'b1"}
		}
		fmt.Fprintf(&b, "    assign unique_o[%d] = %s;\n", i, strings.Join(ne, " & "))
	}
	b.WriteString("endmodule\n")
	return b.String()
}

// a2aGo is the comparator in Go.
func a2aGo(v uint64) uint64 {
	var u uint64
	lane := func(i int) uint64 { return v >> (i * a2aBits) & (1<<a2aBits - 1) }
	for i := 0; i < a2aLanes; i++ {
		unique := true
		for j := i + 1; j < a2aLanes; j++ {
			unique = unique && lane(i) != lane(j)
		}
		if unique {
			u |= 1 << i
		}
	}
	return u
}

// newA2ABench writes the comparator's two modules into a temporary
// directory.
func newA2ABench(t *testing.T) *Bench {
	t.Helper()
	dir := t.TempDir()
	var srcs []string
	for name, text := range map[string]string{"a2a": a2aRTL(), "a2a_gates": a2aGates()} {
		p := filepath.Join(dir, name+".v")
		if err := os.WriteFile(p, []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, p)
	}
	slices.Sort(srcs)
	return &Bench{
		Dir:     filepath.Join(dir, "work"),
		Sources: srcs,
		Modules: []string{"a2a", "a2a_gates"},
		Ports: []netlist.Port{
			{Name: "v_i", Dir: netlist.In, Bits: make(netlist.Bus, a2aLanes*a2aBits)},
			{Name: "unique_o", Dir: netlist.Out, Bits: make(netlist.Bus, a2aLanes)},
		},
	}
}

// TestVerilatorBench_FlatNetlistSmallStatements: a flat gate netlist of
// the coalescers' shape verilates into small C++ statements (with
// Verilator's DFG pass, this 441-gate one becomes a 129 KB statement, and
// the 64-lane all-to-all coalescer's a 21.6 MB one, most of a 7 min 45 s
// build), and the build computes what the Go model does.
func TestVerilatorBench_FlatNetlistSmallStatements(t *testing.T) {
	requireEngine(t, Verilator)
	newBuildCache(t) // a build, not a cached simulator
	b := newA2ABench(t)
	r := rand.New(rand.NewPCG(5, 6))
	var vs [][][]uint64
	for len(vs) < 2000 {
		// Lanes from a small pool of values, so that repeats are common.
		var v uint64
		for i := 0; i < a2aLanes; i++ {
			v |= uint64(r.IntN(6)) << (i * a2aBits)
		}
		vs = append(vs, [][]uint64{{v}})
	}
	outs, err := b.Run(context.Background(), Verilator, vs)
	if err != nil {
		t.Fatal(err)
	}
	repeats := 0
	for v, vec := range vs {
		want := a2aGo(vec[0][0])
		if want != 1<<a2aLanes-1 {
			repeats++
		}
		for m, mod := range b.Modules {
			if got := outs[m][v][0][0]; got != want {
				t.Fatalf("%s, vector %d (%016x): unique_o %02x, want %02x", mod, v, vec[0][0], got, want)
			}
		}
	}
	if repeats < len(vs)/2 {
		t.Fatalf("only %d of %d vectors repeat a lane", repeats, len(vs))
	}

	cpps, _ := filepath.Glob(filepath.Join(b.Dir, "obj_verilator", "*.cpp"))
	if len(cpps) == 0 {
		t.Fatal("no verilated C++ in obj_verilator")
	}
	longest, where := 0, ""
	for _, f := range cpps {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range bytes.Split(text, []byte(";")) {
			if len(s) > longest {
				longest, where = len(s), filepath.Base(f)
			}
		}
	}
	// Without DFG the longest is under 9 KB; with DFG, 129 KB.
	const limit = 16 << 10
	if longest > limit {
		t.Errorf("the longest C++ statement of the model is %d bytes (%s), want at most %d", longest, where, limit)
	}
	t.Logf("longest C++ statement: %d bytes (%s)", longest, where)
}

// TestVerilatorBench_OptionsInFingerprint: a build is reused while nothing
// changes and redone when the verilation options change, so that a new
// lsugen never runs a binary built with other options.
func TestVerilatorBench_OptionsInFingerprint(t *testing.T) {
	requireEngine(t, Verilator)
	b := newAdd3Bench(t)
	vs := add3Vectors(200, 11)
	ctx := context.Background()
	stampPath := filepath.Join(b.Dir, "obj_verilator", "lsugen.stamp")
	build := func() string {
		t.Helper()
		outs, err := b.Run(ctx, Verilator, vs)
		if err != nil {
			t.Fatal(err)
		}
		checkAdd3(t, outs, vs)
		stamp, err := os.ReadFile(stampPath)
		if err != nil {
			t.Fatal(err)
		}
		return string(stamp)
	}
	first := build()
	// A marker file in the build directory survives only while the build
	// is reused: a rebuild starts from an empty directory.
	marker := filepath.Join(b.Dir, "obj_verilator", "marker")
	if err := os.WriteFile(marker, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if again := build(); again != first {
		t.Errorf("fingerprint changed without a change: %s then %s", first, again)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("rebuilt although nothing changed: %v", err)
	}

	saved := verilatorFlags
	t.Cleanup(func() { verilatorFlags = saved })
	verilatorFlags = append(slices.Clone(saved), "--output-split-ctrace", "1000")
	if other := build(); other == first {
		t.Error("fingerprint unchanged after the verilation options changed")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("not rebuilt after the verilation options changed")
	}
}

// TestVerilatorBench_SimulatorCache: a second bench with the same
// testbench and sources in another directory gets the first one's
// simulator from the cache (no verilated C++ in its build directory) and
// computes the same; a changed source is built anew.
func TestVerilatorBench_SimulatorCache(t *testing.T) {
	requireEngine(t, Verilator)
	newBuildCache(t)
	vs := add3Vectors(200, 11)
	ctx := context.Background()
	first := newAdd3Bench(t)
	want, err := first.Run(ctx, Verilator, vs)
	if err != nil {
		t.Fatal(err)
	}
	cpps := func(b *Bench) int {
		m, _ := filepath.Glob(filepath.Join(b.Dir, "obj_verilator", "*.cpp"))
		return len(m)
	}
	if cpps(first) == 0 {
		t.Fatal("the first build left no verilated C++")
	}
	second := newAdd3Bench(t)
	if second.Dir == first.Dir {
		t.Fatal("the benches share a directory")
	}
	got, err := second.Run(ctx, Verilator, vs)
	if err != nil {
		t.Fatal(err)
	}
	if n := cpps(second); n != 0 {
		t.Errorf("the second bench verilated %d C++ files; want its simulator from the cache", n)
	}
	if !reflect.DeepEqual(got, want) {
		t.Error("the cached simulator computes other outputs")
	}
	// Another source (a comment more) is another key: built anew.
	third := newAdd3Bench(t)
	src := third.Sources[0]
	text, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, append(text, "// changed\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := third.Run(ctx, Verilator, vs); err != nil {
		t.Fatal(err)
	}
	if cpps(third) == 0 {
		t.Error("a changed source was served from the cache")
	}
}

// TestVerilatorBench_PrecompiledHeaderUsed: a build with a cache gets
// verilated.h precompiled for each set of flags its model's files are
// compiled with (fast and slow files, where they differ), and g++ takes it
// for each (-H marks a precompiled header it uses with "!"), in a model
// split into files as the large units' are and in a small one compiled as
// one file (prefix__ALL.cpp, which includes the others); the models still
// compute what the Go model does.
func TestVerilatorBench_PrecompiledHeaderUsed(t *testing.T) {
	requireEngine(t, Verilator)
	newBuildCache(t)
	saved := verilatorFlags
	defer func() { verilatorFlags = saved }()
	for _, c := range []struct {
		name  string
		flags []string
	}{
		{"split", []string{"-fno-dfg", "--output-split", "2000", "--output-split-cfuncs", "200"}},
		{"one file", saved},
	} {
		verilatorFlags = c.flags
		b := newA2ABench(t)
		vs := [][][]uint64{{{0}}, {{0x0102030405}}, {{0x0101010101}}}
		outs, err := b.Run(context.Background(), Verilator, vs)
		if err != nil {
			t.Fatal(err)
		}
		for v, vec := range vs {
			if got, want := outs[1][v][0][0], a2aGo(vec[0][0]); got != want {
				t.Fatalf("%s: vector %d: unique_o %02x, want %02x", c.name, v, got, want)
			}
		}
		files := precompiledHeaderUsers(t, filepath.Join(b.Dir, "obj_verilator"))
		all := slices.Contains(files, "V"+TopModule+"__ALL.cpp")
		if (c.name == "one file") != all {
			t.Errorf("%s: model files compiled %v", c.name, files)
		}
	}
}

// precompiledHeaderUsers compiles each of the model files of the build in
// mdir as make would, with -H instead of its object, checks that g++ takes
// the precompiled verilated.h for each, and returns the files.
func precompiledHeaderUsers(t *testing.T, mdir string) []string {
	t.Helper()
	gch, _ := filepath.Glob(filepath.Join(mdir, pchDir, "*.gch"))
	if len(gch) == 0 {
		t.Fatalf("no precompiled header in %s", mdir)
	}
	mk, err := toolchain.Find("make")
	if err != nil {
		t.Fatal(err)
	}
	cxx, err := toolchain.Find("g++")
	if err != nil {
		t.Fatal(err)
	}
	prefix := "V" + TopModule
	dry, err := exec.Command(mk.Path, "-C", mdir, "-f", prefix+".mk", "-n", "-B",
		"OPT_FAST="+verilatorOptFast, "OPT_SLOW="+verilatorOptSlow, "OPT_GLOBAL="+verilatorOptGlobal, "CXX="+cxx.Path, "sim").Output()
	if err != nil {
		t.Fatal(err)
	}
	header, sets := modelCompileFlags(string(dry), prefix)
	if header == "" || len(sets) != len(gch) {
		t.Fatalf("make -n: verilated.h %q, %d flag sets for %d precompiled headers:\n%s", header, len(sets), len(gch), dry)
	}
	var files []string
	for _, line := range strings.Split(string(dry), "\n") {
		f := strings.Fields(line)
		c := slices.Index(f, "-c")
		if c < 1 || !modelFile(f[len(f)-1], prefix) {
			continue
		}
		cmd := exec.Command(cxx.Path, append(slices.Clone(f[1:c]), "-H", "-Winvalid-pch", "-fsyntax-only", f[len(f)-1])...)
		cmd.Dir = mdir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
		}
		if !regexp.MustCompile(`(?m)^! .*\.gch$`).Match(out) {
			t.Errorf("%s: g++ did not use a precompiled verilated.h:\n%.1500s", f[len(f)-1], out)
		}
		files = append(files, f[len(f)-1])
	}
	if len(files) == 0 {
		t.Fatalf("no model file compiled:\n%s", dry)
	}
	return files
}

// TestVerilator_BitOpTreeInversion is the gate netlist on which Verilator
// 5.006's bit-op-tree folding lost an inversion (issue #4059; see
// verilatorFlags): bit 1 of rap_w4_3p's bank, an XOR tree of inverted
// address bits and a NAND-INV carry. Verilated without
// -fno-const-bit-op-tree it computed the complement for every input.
func TestVerilator_BitOpTreeInversion(t *testing.T) {
	requireEngine(t, Verilator)
	dir := t.TempDir()
	src := filepath.Join(dir, "bot.v")
	text := `module bot (input wire [7:0] addr_i, output wire o);
    wire k1 = ~addr_i[2];
    wire j0 = ~addr_i[5];
    wire n13 = ~(addr_i[3] & j0);
    wire n14 = ~n13;
    wire n16 = (k1 ^ addr_i[4]) ^ n14;
    wire i1 = ~addr_i[7];
    assign o = n16 ^ i1;
    wire unused_ok = &{1'b0, addr_i[6], addr_i[1:0]};
endmodule
`
	if err := os.WriteFile(src, []byte(text), 0o666); err != nil {
		t.Fatal(err)
	}
	b := &Bench{Dir: filepath.Join(dir, "work"), Sources: []string{src}, Modules: []string{"bot"},
		Ports: []netlist.Port{
			{Name: "addr_i", Dir: netlist.In, Bits: make(netlist.Bus, 8)},
			{Name: "o", Dir: netlist.Out, Bits: make(netlist.Bus, 1)},
		}}
	var vs [][][]uint64
	for a := range uint64(256) {
		vs = append(vs, [][]uint64{{a}})
	}
	outs, err := b.Run(context.Background(), Verilator, vs)
	if err != nil {
		t.Fatal(err)
	}
	bit := func(a uint64, i int) uint64 { return a >> i & 1 }
	for a := range uint64(256) {
		n13 := 1 ^ (bit(a, 3) & (1 ^ bit(a, 5)))
		want := (1 ^ bit(a, 2)) ^ bit(a, 4) ^ (1 ^ n13) ^ (1 ^ bit(a, 7))
		if got := outs[0][a][0][0]; got != want {
			t.Fatalf("addr %#x: o = %d, want %d", a, got, want)
		}
	}
}
