package main

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/toolchain"
	"github.com/lsugen/lsugen/verify"
)

const (
	hashRef = "../../specs/hash_configurable.hcl:cfg_bitwise_xor"
	a2a32   = "../../specs/coalescer_thesis.hcl:coalesce_a2a_32"
)

func mustUnit(t testing.TB, ref string) *benchUnit {
	t.Helper()
	refs, err := parseUnitRefs(ref)
	if err != nil {
		t.Fatal(err)
	}
	u, err := loadUnit(refs[0], io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestSimRunner_ChecksumMatchesModel: the simulator run, transposition
// included, folds the same outputs as the behavioural model, on a vector
// count that is not a multiple of 64 and on a unit with a 1,024-bit input.
func TestSimRunner_ChecksumMatchesModel(t *testing.T) {
	for _, ref := range []string{hashRef, a2a32} {
		u := mustUnit(t, ref)
		set := unitVectors(u)
		set.n = min(set.n, 1000) // 15 batches of 64 and a partial one
		want, err := modelChecksum(u, set)
		if err != nil {
			t.Fatal(err)
		}
		if got := newSimRunner(u.design, set).pass(); got != want {
			t.Errorf("%s: simulator checksum %016x, model %016x", ref, got, want)
		}
		// A changed output changes the checksum: flip one input bit of
		// vector 0 and the model's checksum must move.
		set.data[0] ^= 1
		if other, _ := modelChecksum(u, set); other == want {
			t.Errorf("%s: checksum blind to a changed vector", ref)
		}
	}
}

// TestSimRunner_WordsStraddlingChunks: ports whose words straddle two
// 64-bit chunks of the concatenation (a 40-bit port after a 40-bit one, a
// 70-bit port) come back intact: the design swaps a and b through
// inverters twice, so its outputs are its inputs in another order.
func TestSimRunner_WordsStraddlingChunks(t *testing.T) {
	b := netlist.NewBuilder("straddle")
	a := b.Input("a_i", 40, "")
	c := b.Input("b_i", 40, "")
	w := b.Input("w_i", 70, "")
	pass := func(in netlist.Bus) netlist.Bus {
		out := make(netlist.Bus, len(in))
		for i, n := range in {
			out[i] = b.Not(b.Buf(b.Not(n)))
		}
		return out
	}
	b.Output("w_o", pass(w), "")
	b.Output("b_o", pass(c), "")
	b.Output("a_o", pass(a), "")
	d, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	var vs []verify.Vector
	for range 100 {
		vs = append(vs, verify.Vector{{r.Uint64()}, {r.Uint64()}, {r.Uint64(), r.Uint64()}})
	}
	set := packVectors(d.Inputs(), vs, "random")
	want := uint64(fnvOffset)
	for i := range set.n {
		v := set.vector(i) // a, b, w[0], w[1], masked to the widths
		for _, x := range []uint64{v[2], v[3], v[1], v[0]} {
			want = mix(want, x)
		}
	}
	if got := newSimRunner(d, set).pass(); got != want {
		t.Errorf("checksum %016x, want %016x", got, want)
	}
	if set.vector(0)[0]>>40 != 0 || set.vector(0)[3]>>6 != 0 {
		t.Error("packVectors left bits above a port's width")
	}
}

// TestVerilatorHarness_ChecksumAgrees builds the Verilator harness of the
// small hash, runs it on the same vectors as lsugen's simulator, and checks
// the checksums agree; a second build comes from the cache.
func TestVerilatorHarness_ChecksumAgrees(t *testing.T) {
	for _, tool := range []string{"verilator", "make", "g++"} {
		if _, err := toolchain.Find(tool); err != nil {
			t.Fatal(err)
		}
	}
	u := mustUnit(t, hashRef)
	set := unitVectors(u)
	want := newSimRunner(u.design, set).pass()
	files, err := rtl.Files(u.design, rtl.Info{Version: "lsugen " + gen.Version, Source: "test"})
	if err != nil {
		t.Fatal(err)
	}
	gates := files[u.design.Name+"_gates.v"]
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	ctx := context.Background()
	// An outdated build of the same unit, to be replaced.
	stale := filepath.Join(cache, "verilator-"+u.design.Name+"-"+strings.Repeat("0", 20))
	if err := os.MkdirAll(stale, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := buildVerilator(ctx, u.design, gates, cache, dir)
	if err != nil {
		t.Fatal(err)
	}
	if b.Cached || b.Compile <= 0 {
		t.Errorf("first build: cached %v, compile time %v", b.Cached, b.Compile)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("the outdated build is still in the cache")
	}
	if ents, err := os.ReadDir(filepath.Dir(b.Exe)); err != nil || len(ents) != 1 {
		t.Errorf("the cached build keeps %d files beside the binary (%v)", len(ents)-1, err)
	}
	vec := filepath.Join(dir, "v.bin")
	if err := writeVectorFile(vec, set); err != nil {
		t.Fatal(err)
	}
	hr, err := runHarness(ctx, b.Exe, vec, time.Millisecond, 1)
	if err != nil {
		t.Fatal(err)
	}
	if hr.vectors != set.n || hr.checksum != want {
		t.Errorf("Verilator: %d vectors, checksum %016x; lsugen: %d, %016x", hr.vectors, hr.checksum, set.n, want)
	}

	again, err := buildVerilator(ctx, u.design, gates, cache, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Cached || again.Exe != b.Exe || again.Compile != b.Compile {
		t.Errorf("second build: cached %v, exe %s (first %s)", again.Cached, again.Exe, b.Exe)
	}
	// Another netlist is another key.
	tools, err := findVerilatorTools()
	if err != nil {
		t.Fatal(err)
	}
	changed := bytes.Replace(gates, []byte("// Input bits."), []byte("// Input bits (changed)."), 1)
	if bytes.Equal(changed, gates) {
		t.Fatal("the gate-level Verilog has no '// Input bits.' line to change")
	}
	if k := tools.key(u.design, gates); filepath.Base(filepath.Dir(filepath.Dir(b.Exe))) != "verilator-"+k {
		t.Errorf("build in %s, not under key %s", b.Exe, k)
	}
	if tools.key(u.design, changed) == tools.key(u.design, gates) {
		t.Error("a changed netlist has the same key")
	}

	// A vector file for another layout is refused, not misread.
	bad := &vectorSet{n: 1, stride: set.stride + 1, data: make([]uint64, set.stride+1)}
	if err := writeVectorFile(vec, bad); err != nil {
		t.Fatal(err)
	}
	if _, err := runHarness(ctx, b.Exe, vec, time.Millisecond, 1); err == nil || !strings.Contains(err.Error(), "not a vector file") {
		t.Errorf("wrong stride: %v", err)
	}
}

// TestParseHarness_Lines: every key is read; a missing key or a bad
// number is an error naming it.
func TestParseHarness_Lines(t *testing.T) {
	good := "vectors 262144\npasses 12\ntrials 3\nbest_pass_ns 8912345\nbest_wall_ns 9912345\nchecksum ff3e1d652e144325\n"
	r, err := parseHarness([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if r.vectors != 262144 || r.passes != 12 || r.trials != 3 || r.bestPass != 8912345 || r.bestWall != 9912345 || r.checksum != 0xff3e1d652e144325 {
		t.Errorf("parsed %+v", r)
	}
	for _, tc := range []struct{ out, want string }{
		{strings.Replace(good, "checksum ff3e1d652e144325\n", "", 1), "no checksum line"},
		{strings.Replace(good, "passes 12", "passes x", 1), "passes"},
		{strings.Replace(good, "best_pass_ns 8912345", "best_pass_ns 0", 1), "best pass"},
	} {
		if _, err := parseHarness([]byte(tc.out)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one with %q", tc.out, err, tc.want)
		}
	}
}

// TestParseLTP_FindsTopModule: ltp's line for the top module is read among
// others; no line is an error.
func TestParseLTP_FindsTopModule(t *testing.T) {
	log := []byte("7. Executing LTP pass (find longest path).\n" +
		"Longest topological path in sub (length=3):\n" +
		"Longest topological path in coalesce_a2a_64 (length=68):\n    0 $auto$...\n")
	if n, err := parseLTP(log, "coalesce_a2a_64"); err != nil || n != 68 {
		t.Errorf("length %d, %v; want 68", n, err)
	}
	if _, err := parseLTP(log, "other"); err == nil {
		t.Error("no error for a module without an ltp line")
	}
}

// TestParseUnitRefs_Errors: references need a file and a name.
func TestParseUnitRefs_Errors(t *testing.T) {
	refs, err := parseUnitRefs("a.hcl:x, b.hcl:y")
	if err != nil || len(refs) != 2 || refs[1] != (unitRef{"b.hcl", "y"}) {
		t.Errorf("refs %v, %v", refs, err)
	}
	for _, s := range []string{"", "a.hcl", "a.hcl:", ":x"} {
		if _, err := parseUnitRefs(s); err == nil {
			t.Errorf("%q: no error", s)
		}
	}
	if _, err := loadUnit(unitRef{"../../specs/hash_configurable.hcl", "nope"}, io.Discard); err == nil ||
		!strings.Contains(err.Error(), "cfg_bitwise_xor") {
		t.Errorf("unknown unit: %v (want the declared names listed)", err)
	}
}

// TestRun_GenAndSearchParts runs the command's gen part on the small hash
// (Yosys included) and a small search, and checks the report's lines.
func TestRun_GenAndSearchParts(t *testing.T) {
	if _, err := toolchain.Find("yosys"); err != nil {
		t.Fatal(err)
	}
	t.Chdir("../..")
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"-parts", "gen,search", "-gen", "specs/hash_configurable.hcl:cfg_bitwise_xor",
		"-min-time", "10ms", "-trials", "1", "-accesses", "2000"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
	for _, want := range []string{"machine: ", "yosys 0.", "cfg_bitwise_xor  190", "6 gates", "6 cells",
		"goal: gen + timing at least 50× faster", "tiled kernel (2,000 accesses)", "random addresses (2,000 accesses)", "4480", "goal: random addresses, one million accesses"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	if code := run(context.Background(), []string{"-parts", "sim,bogus"}, io.Discard, io.Discard); code != 2 {
		t.Errorf("bad -parts: exit %d, want 2", code)
	}
}

// TestRun_ReplayPart runs the replay part on the 8-lane shared memory:
// the netlist simulator, Verilator and the model alone each replay the
// random trace, every instruction as predicted, and the report gives each
// engine's row and the goals.
func TestRun_ReplayPart(t *testing.T) {
	if _, err := toolchain.Find("verilator"); err != nil {
		t.Fatal(err)
	}
	t.Chdir("../..")
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"-parts", "replay", "-replay", "specs/shared_memory.hcl:shmem_small",
		"-replay-instrs", "3000", "-replay-verilator-instrs", "40", "-replay-model-instrs", "2000", "-trials", "1"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
	for _, want := range []string{"Replay: `lsugen replay` of shmem_small", "netlist  ", "3,000", "verilator  ", "model alone  ", "2,000",
		"netlist simulator / Verilator: ", "goal: the netlist simulator at least 50.0 k", "goal: the model alone, one million"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	if code := run(context.Background(), []string{"-parts", "replay", "-replay", "a.hcl"}, io.Discard, io.Discard); code != 2 {
		t.Errorf("bad -replay: exit %d, want 2", code)
	}
}

// BenchmarkSimRunner_BitwiseXor is one pass of the bench's simulator run on
// the configurable hash (262,144 vectors), transposition included.
func BenchmarkSimRunner_BitwiseXor(b *testing.B) {
	u := mustUnit(b, hashRef)
	r := newSimRunner(u.design, unitVectors(u))
	for b.Loop() {
		r.pass()
	}
	b.ReportMetric(float64(r.set.n*b.N)/b.Elapsed().Seconds(), "vectors/s")
}
