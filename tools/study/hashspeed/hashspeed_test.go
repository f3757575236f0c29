package hashspeed

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/lsugen/lsugen/plot/svgcheck"
	"github.com/lsugen/lsugen/tools/study"
)

const specsDir = "../../../specs"

// TestSimulate_HandCounted: the model's cycles on programs counted by
// hand (other instructions 8 cycles, shared accesses 24 + d − 1, the
// hash's cycle added to an access's latency only).
func TestSimulate_HandCounted(t *testing.T) {
	base := Timing{Warps: 8, ShmLatency: 24, OtherLatency: 8}
	for _, tc := range []struct {
		name  string
		progs [][]int32
		t     Timing
		want  int64
	}{
		{"one other instruction", [][]int32{{0}}, base, 8},
		// issued at 0, the access at 8 completes at 8 + 24
		{"other then access", [][]int32{{0, 1}}, base, 32},
		{"other then access, hash cycle", [][]int32{{0, 1}}, base.with(1), 33},
		// warp 0's 4-way access holds the banks 0..3 (done 0+24+3 = 27);
		// warp 1's issues at 4, done at 31
		{"two 4-way accesses", [][]int32{{4}, {4}}, base, 31},
		// the hash cycle is latency: the second access still issues at 4
		{"two 4-way accesses, hash cycle", [][]int32{{4}, {4}}, base.with(1), 32},
		// one context: each warp starts when the one before completes
		{"one context, three warps", [][]int32{{0}, {0}, {0}}, Timing{Warps: 1, ShmLatency: 24, OtherLatency: 8}, 24},
		// two warps, round robin: 0 at 0, 1 at 1, 0 at 8, 1 at 9
		{"round robin", [][]int32{{0, 0}, {0, 0}}, base, 17},
		// an empty warp takes no context
		{"empty warp", [][]int32{{}, {0}}, base, 8},
	} {
		got, err := simulate(context.Background(), tc.progs, tc.t)
		if err != nil || got != tc.want {
			t.Errorf("%s: %d cycles (%v), want %d", tc.name, got, err, tc.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := simulate(ctx, [][]int32{{0}}, base); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}

// run runs the study on the inputs alone (examples = none).
func run(t *testing.T, set map[string]string, inputs ...string) *study.Result {
	t.Helper()
	if set == nil {
		set = map[string]string{}
	}
	if _, ok := set["examples"]; !ok {
		set["examples"] = "none"
	}
	res, err := Study{}.Run(context.Background(), study.Options{Set: set, Inputs: inputs})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// cell is table ti's cell in the row starting with name, column col.
func cell(t *testing.T, res *study.Result, ti int, name, col string) string {
	t.Helper()
	tab := res.Tables[ti]
	c := -1
	for i, h := range tab.Columns {
		if h == col {
			c = i
		}
	}
	for _, r := range tab.Rows {
		if r[0] == name && c >= 0 {
			return r[c]
		}
	}
	t.Fatalf("table %q has no cell %s / %s", tab.Title, name, col)
	return ""
}

// TestStudy_TransposeTrace: the 32×32 transpose trace, counted by hand.
// Its 8 accesses go to 8 warps, each after 3 other instructions, issued
// at cycles 0..23; the accesses issue from cycle 24. Under mod 32 the 4
// row reads are conflict-free (done at 48..51) and the 4 column writes
// 32-way: they hold the banks from 28, 60, 92 and 124 for 32 cycles
// each, the last done at 124 + 24 + 31 = 179. Under the fixed XOR every
// access takes one bank cycle, the last issues at 31 and is done at 55;
// the configurable hashes remove every conflict too (124), one cycle
// later: 56.
func TestStudy_TransposeTrace(t *testing.T) {
	res := run(t, nil, specsDir+"/traces/transpose.trace")
	const w = "transpose.trace"
	if got := cell(t, res, 0, w, "cycles"); got != "179" {
		t.Errorf("cycles under mod 32: %s, want 179", got)
	}
	if got := cell(t, res, 0, w, "conflicts"); got != "124" {
		t.Errorf("conflicts under mod 32: %s, want 124", got)
	}
	for col, want := range map[string]string{"mod 32": "179", "fixed XOR": "55", "bv XOR": "56", "bw XOR MIH": "56"} {
		if got := cell(t, res, 1, w, col); got != want {
			t.Errorf("cycles under %s: %s, want %s", col, got, want)
		}
	}
	for col, want := range map[string]float64{"fixed XOR": 179.0 / 55, "bv XOR": 179.0 / 56, "bw XOR MIH": 179.0 / 56} {
		got, _ := strconv.ParseFloat(cell(t, res, 0, w, col), 64)
		if math.Abs(got-want) > 0.0005 {
			t.Errorf("%s: speed-up %.3f, want %.3f", col, got, want)
		}
	}
	if got := cell(t, res, 2, w, "bv XOR"); got != "100.0%" {
		t.Errorf("bv XOR removes %s, want 100.0%%", got)
	}
	// Under mod 32 the hash cycle delays the last access's result only.
	if got := cell(t, res, 3, w, "with hash cycles"); got != "180" {
		t.Errorf("mod 32 with the hash cycle: %s, want 180", got)
	}
}

// TestStudy_AccelSimKernels: an Accel-Sim kernel list gives one workload
// per kernel with the trace's own instructions: kernel 1's warp 0 runs
// S2R, STS, LDS, LDS.64, LDS.128, LDG, EXIT and warp 1 LDS, EXIT (5
// shared, 4 other); kernel 2 has 3 shared and 2 other.
func TestStudy_AccelSimKernels(t *testing.T) {
	res := run(t, nil, specsDir+"/traces/accelsim/kernelslist.g")
	for _, tc := range []struct{ name, shared, other string }{
		{"kernelslist.g: k1 _Z9transposePfS_", "5", "4"},
		{"kernelslist.g: k2 _Z6reducePi", "3", "2"},
	} {
		if s, o := cell(t, res, 0, tc.name, "shared"), cell(t, res, 0, tc.name, "other"); s != tc.shared || o != tc.other {
			t.Errorf("%s: %s shared, %s other; want %s and %s", tc.name, s, o, tc.shared, tc.other)
		}
	}
}

// TestStudy_Examples: the default workloads (the 000_* patterns grouped
// by benchmark, the access traces, the Accel-Sim traces), Fig. 9's
// geometric means, Table 6's mean, and the Accel-Sim profile traces left
// out for having no shared-memory access.
func TestStudy_Examples(t *testing.T) {
	res := run(t, map[string]string{"examples": specsDir})
	var names []string
	for _, r := range res.Tables[0].Rows {
		names = append(names, r[0])
	}
	want := []string{"patterns_000.hcl: transpose", "patterns_000.hcl: reduction", "patterns_000.hcl: fwt", "transpose.trace",
		"fig5a_002.trace", "fig5b_002.trace", "fig5c_002.trace", "kernelslist.g: k1 _Z9transposePfS_", "kernelslist.g: k2 _Z6reducePi",
		"pipesim_example.traceg: k1 _Z13pipesim_tilesPf", "geometric mean"}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Errorf("workloads %q,\nwant %q", names, want)
	}
	// The patterns' transpose (16×16 tile): 8 column writes of two
	// 16-word columns in 4 banks (7 conflicts each), as Table 5's
	// transpose; the exhaustive bit-vector XOR removes them all.
	if got := cell(t, res, 2, "patterns_000.hcl: transpose", "conflicts"); got != "56" {
		t.Errorf("pattern transpose: %s conflicts, want 56", got)
	}
	if got := cell(t, res, 2, "mean of 9 (Table 6)", "bv XOR"); got != "99.3%" {
		t.Errorf("Table 6 mean of bv XOR: %s, want 99.3%% (the Accel-Sim transpose keeps 1 of 38)", got)
	}
	// fig5a_002 has no bank conflicts: every configurable method is
	// slower by the hash cycle at best.
	for _, m := range methods[1:] {
		if x, _ := strconv.ParseFloat(cell(t, res, 0, "fig5a_002.trace", m.label), 64); x >= 1 {
			t.Errorf("fig5a_002 under %s: speed-up %v, want below 1 (no conflict to remove, one more cycle)", m.label, x)
		}
	}
	var note string
	for _, n := range res.Notes {
		if strings.HasPrefix(n, "left out") {
			note = n
		}
	}
	if !strings.Contains(note, "profile_copy.traceg") || !strings.Contains(note, "profile_spmv.traceg") {
		t.Errorf("no note of the workloads left out: %q", res.Notes)
	}
	// Geometric means: the bitwise permutations, which cannot fold high
	// bits onto the bank bits, gain least.
	var bv, perm float64
	for i, m := range methods {
		x, _ := strconv.ParseFloat(cell(t, res, 0, "geometric mean", m.label), 64)
		switch m.label {
		case "bv XOR":
			bv = x
		case "bw perm MIH":
			perm = x
		}
		if x <= 1 {
			t.Errorf("geometric mean of %s: %v, want above 1", methods[i].label, x)
		}
	}
	if perm >= bv {
		t.Errorf("bw perm MIH %v ≥ bv XOR %v", perm, bv)
	}
	svg, err := res.SVG()
	if err != nil {
		t.Fatalf("figure: %v", err)
	}
	d, err := svgcheck.Parse(svg)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range d.Faults() {
		t.Errorf("figure: %s", f)
	}
	// Table 5's transpose row (TILE_DIM = 16): bit-vector XOR k1 = 0,
	// k2 = 4, mask = 14; bitwise permutation (0) (4) (1) (2) (3) by both
	// heuristics; bitwise XOR by MIH (0) (4) (1^5) (2^6) (3^7).
	for method, want := range map[string]string{
		"bv XOR":      "k1 = 0, k2 = 4, mask = 14",
		"bw perm GH":  "bits = [0, 4, 1, 2, 3]",
		"bw perm MIH": "bits = [0, 4, 1, 2, 3]",
		"bw XOR MIH":  "bits = [[0, 0], [4, 4], [1, 5], [2, 6], [3, 7]]",
	} {
		got := ""
		for _, r := range res.Tables[4].Rows {
			if r[0] == "patterns_000.hcl: transpose" && r[1] == method {
				got = r[2]
			}
		}
		if got != want {
			t.Errorf("transpose under %s: %q, want %q (Table 5)", method, got, want)
		}
	}
}

// TestStudy_Deterministic: two runs print the same bytes.
func TestStudy_Deterministic(t *testing.T) {
	var out [2][]byte
	for i := range out {
		res := run(t, map[string]string{"examples": specsDir, "warps": "4"})
		b, err := res.JSON()
		if err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	if !bytes.Equal(out[0], out[1]) {
		t.Error("two runs differ")
	}
}

// TestStudy_Refusals: parameters out of range, unknown, inconsistent, and
// inputs that are no workload are refused, naming what is wrong.
func TestStudy_Refusals(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.trace")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.hcl")
	if err := os.WriteFile(bad, []byte("pattern \"x\" {\n  matrix = 3\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	none := map[string]string{"examples": "none"}
	for _, tc := range []struct {
		set    map[string]string
		inputs []string
		want   string
	}{
		{map[string]string{"warps": "0"}, nil, "parameter warps = \"0\": want an integer from 1 to 64"},
		{map[string]string{"bank_bits": "x"}, nil, "parameter bank_bits = \"x\": want an integer from 1 to 10"},
		{map[string]string{"hash_cycles": "9"}, nil, "parameter hash_cycles = \"9\": want an integer from 0 to 8"},
		{map[string]string{"addr_bits": "9"}, nil, "parameter addr_bits = 9: want at least 2·bank_bits = 10"},
		{map[string]string{"colour": "red"}, nil, "unknown parameter \"colour\""},
		{map[string]string{"examples": "none"}, nil, "no workload"},
		{map[string]string{"examples": "/nonexistent"}, nil, "example workload /nonexistent/patterns_000.hcl"},
		{map[string]string{"examples": "none"}, []string{specsDir + "/traces/figure4.ptrace"}, "figure4.ptrace"},
		{none, []string{specsDir + "/traces/accelsim/profile_copy.traceg"}, "no workload has a shared-memory access"},
		// a FIFO nobody writes is refused, not waited on
		{none, []string{fifo}, "fifo.trace is a FIFO, not a regular file"},
		{none, []string{dir}, "is a directory, not a regular file"},
		{none, []string{bad}, `bad.hcl:2,12-13: Incorrect attribute value type`},
	} {
		_, err := Study{}.Run(context.Background(), study.Options{Set: tc.set, Inputs: tc.inputs})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v: %v, want %q", tc.set, tc.inputs, err, tc.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (Study{}).Run(ctx, study.Options{Set: map[string]string{"examples": specsDir}}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: %v, want context.Canceled", err)
	}
}
