package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/flow"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/tools/trace"
	"github.com/lsugen/lsugen/units"
	"github.com/lsugen/lsugen/verify"
)

// transposeTrace is a 32×32 tile of a 2^10-word scratchpad read by rows
// (conflict-free under mod 32) and written by columns (stride 32: every
// lane in bank 0), plus a stride-2 access.
func transposeTrace() string {
	var b strings.Builder
	b.WriteString("# 32x32 tile transpose\n@load\n")
	for ty := 0; ty < 8; ty++ {
		for tx := 0; tx < 32; tx++ {
			fmt.Fprintf(&b, "%d ", ty*32+tx)
		}
		b.WriteString("\n")
	}
	b.WriteString("@store\n")
	for ty := 0; ty < 8; ty++ {
		for tx := 0; tx < 32; tx++ {
			fmt.Fprintf(&b, "0x%x ", tx*32+ty)
		}
		b.WriteString("\n")
	}
	b.WriteString("@pairs\n")
	for tx := 0; tx < 32; tx++ {
		fmt.Fprintf(&b, "%d ", 2*tx)
	}
	b.WriteString("\n")
	return b.String()
}

type searchDoc struct {
	Function            string         `json:"function"`
	Method              string         `json:"method"`
	Config              map[string]any `json:"config"`
	CandidatesEvaluated int64          `json:"candidates_evaluated"`
	ConflictsBefore     int64          `json:"conflicts_before"`
	ConflictsAfter      int64          `json:"conflicts_after"`
}

func runSearch(t *testing.T, args ...string) searchDoc {
	t.Helper()
	code, stdout, stderr := lsugen(t, append([]string{"search", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc searchDoc
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	return doc
}

// netlistBanks maps every address through the generated design on the
// netlist simulator, 64 addresses per pass.
func netlistBanks(t *testing.T, d *netlist.Design, addrs []uint64, n, m int) []uint64 {
	t.Helper()
	in, out := -1, -1
	for i, p := range d.Ports {
		switch p.Name {
		case "addr_i":
			in = i
		case "bank_o":
			out = i
		}
	}
	if in < 0 || out < 0 {
		t.Fatal("design lacks addr_i or bank_o")
	}
	sim := netlist.NewSim(d)
	banks := make([]uint64, len(addrs))
	words := make([]uint64, n)
	res := make([]uint64, m)
	for lo := 0; lo < len(addrs); lo += 64 {
		hi := min(lo+64, len(addrs))
		clear(words)
		for l, a := range addrs[lo:hi] {
			for i := 0; i < n; i++ {
				words[i] |= (a >> uint(i) & 1) << uint(l)
			}
		}
		sim.SetInput(in, words)
		sim.Eval()
		sim.Output(out, res)
		for l := range addrs[lo:hi] {
			for b := 0; b < m; b++ {
				banks[lo+l] |= (res[b] >> uint(l) & 1) << uint(b)
			}
		}
	}
	return banks
}

// conflictsOf is Σ (degree − 1) with the banks from bankOf, straight from
// the definition.
func conflictsOf(tr *trace.Trace, bankOf func([]uint64) []uint64) int64 {
	var total int64
	for _, a := range tr.Accesses {
		d := slices.Clone(a.Addrs)
		slices.Sort(d)
		d = slices.Compact(d)
		count := map[uint64]int64{}
		var deg int64
		for _, b := range bankOf(d) {
			count[b]++
			deg = max(deg, count[b])
		}
		total += deg - 1
	}
	return total
}

// TestSearch_TraceToVerifiedHash: trace → search -o → load → generate →
// netlist verification, for every function; the generated hardware's bank
// mapping of the trace gives the conflicts the search reported.
func TestSearch_TraceToVerifiedHash(t *testing.T) {
	const n, m = 10, 5
	dir := t.TempDir()
	tracePath := writeSpec(t, dir, "transpose.trace", transposeTrace())
	tr, err := trace.ParseFile(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ function, method string }{
		{"bitvector_perm", "exhaustive"},
		{"bitvector_xor", "exhaustive"},
		{"bitwise_perm", "givargis"},
		{"bitwise_perm", "mih"},
		{"bitwise_xor", "givargis"},
		{"bitwise_xor", "mih"},
	} {
		t.Run(tc.function+"_"+tc.method, func(t *testing.T) {
			out := filepath.Join(dir, tc.function+"_"+tc.method+".hcl")
			doc := runSearch(t, "--function", tc.function, "--method", tc.method,
				"--addr-bits", "10", "--bank-bits", "5", "-o", out, "--name", "h_"+tc.function, tracePath)
			if doc.ConflictsBefore != 8*31+1 {
				t.Errorf("conflicts before %d, want %d (8 column writes of 32 words in one bank, stride 2 two-way)", doc.ConflictsBefore, 8*31+1)
			}
			if tc.function == "bitvector_xor" && doc.ConflictsAfter != 0 {
				t.Errorf("bitvector_xor leaves %d conflicts, want 0 (k1 = 0, k2 = 5 removes them)", doc.ConflictsAfter)
			}
			s, err := flow.Load([]string{out}, flow.Options{})
			if err != nil || len(s.Units) != 1 {
				t.Fatalf("the written spec does not load and generate: %v", err)
			}
			u := s.Units[0].Spec
			job, err := units.Job(u, s.Units[0].Built)
			if err != nil {
				t.Fatal(err)
			}
			job.Dir = t.TempDir()
			r, err := verify.Run(context.Background(), job,
				verify.DefaultPlan(), []verify.Engine{verify.Netlist})
			if err != nil {
				t.Fatal(err)
			}
			if r.Failed() {
				t.Fatalf("netlist does not match the model: %+v", r.Checks)
			}
			got := conflictsOf(tr, func(a []uint64) []uint64 { return netlistBanks(t, s.Units[0].Design, a, n, m) })
			if got != doc.ConflictsAfter {
				t.Errorf("generated hash gives %d conflicts on the trace, search reported %d", got, doc.ConflictsAfter)
			}
		})
	}
}

// TestSearch_JSONShape: the documented keys, configs under the hash
// block's attribute names, and 188 candidates for strides 4 and 6.
func TestSearch_JSONShape(t *testing.T) {
	doc := runSearch(t, "--function", "bitvector_xor", "--addr-bits", "14", "--bank-bits", "5", "--stride", "4,6")
	if doc.Function != "bitvector_xor" || doc.Method != "exhaustive" || doc.CandidatesEvaluated != 188 {
		t.Errorf("unexpected %+v", doc)
	}
	for _, k := range []string{"k1", "k2", "mask"} {
		if _, ok := doc.Config[k]; !ok {
			t.Errorf("config lacks %q: %v", k, doc.Config)
		}
	}
	full := runSearch(t, "--function", "bitvector_xor", "--full", "--addr-bits", "14", "--bank-bits", "5", "--stride", "4", "--stride", "6")
	if full.CandidatesEvaluated != 4480 {
		t.Errorf("--full evaluated %d, want 4480", full.CandidatesEvaluated)
	}
	g := runSearch(t, "--function", "bitwise_perm", "--method", "givargis", "--addr-bits", "14", "--bank-bits", "5", "--stride", "8,45")
	if fmt.Sprint(g.Config["bits"]) != "[3 4 5 6 7]" {
		t.Errorf("Givargis on strides 8, 45: bits %v, want [3 4 5 6 7]", g.Config["bits"])
	}
	x := runSearch(t, "--function", "bitwise_xor", "--method", "mih", "--addr-bits", "14", "--bank-bits", "5", "--stride", "8,13")
	if bits, ok := x.Config["bits"].([]any); !ok || len(bits) != 5 {
		t.Errorf("bitwise_xor config %v, want 5 pairs", x.Config)
	}
}

// TestSearch_CountTable1: --count prints the Table 1 classes for n = 14,
// m = 5, computed from the formulas.
func TestSearch_CountTable1(t *testing.T) {
	code, stdout, stderr := lsugen(t, "search", "--count", "--addr-bits", "14", "--bank-bits", "5", "--stride", "4,6")
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, want := range []string{"XOR-based functions", "1.2e21", "1.2e14", "Bit-vector functions           n - m + 1                10",
		"4480", "2002", "9.7e7 (96560646)", "Bit-vector XOR, pruned", "188"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--count output lacks %q:\n%s", want, stdout)
		}
	}
}

// TestSearch_SVG: the histogram is written atomically, names the
// instructions and is the same bytes on every run.
func TestSearch_SVG(t *testing.T) {
	dir := t.TempDir()
	tracePath := writeSpec(t, dir, "t.trace", transposeTrace())
	svg := filepath.Join(dir, "out", "h.svg")
	if err := os.Mkdir(filepath.Dir(svg), 0o755); err != nil { // an output file's directory must exist
		t.Fatal(err)
	}
	args := []string{"search", "--function", "bitvector_xor", "--addr-bits", "10", "--bank-bits", "5", "--svg", svg, tracePath}
	if code, _, stderr := lsugen(t, args...); code != 0 {
		t.Fatal(stderr)
	}
	a, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "before: bank = addr mod 32: 249 conflicts", "after: bitvector_xor", "store", "</svg>"} {
		if !strings.Contains(string(a), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if code, _, stderr := lsugen(t, args...); code != 0 {
		t.Fatal(stderr)
	}
	b, _ := os.ReadFile(svg)
	if string(a) != string(b) {
		t.Error("two runs wrote different SVGs")
	}
	entries, _ := os.ReadDir(filepath.Dir(svg))
	if len(entries) != 1 {
		t.Errorf("%d entries beside the SVG, want none (no temporaries)", len(entries)-1)
	}
}

// TestSearch_Refusals: bad sizes and combinations fail with a message and
// exit 2 before any work; a bad trace names its line (exit 2 too: bad
// input).
func TestSearch_Refusals(t *testing.T) {
	dir := t.TempDir()
	bad := writeSpec(t, dir, "bad.trace", "1 2 3\n4 zz\n")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--function", "bitvector_xor", "--addr-bits", "65", "--bank-bits", "5", "--stride", "4"}, 2, "--addr-bits 65"},
		{[]string{"--function", "bitvector_xor", "--addr-bits", "14", "--bank-bits", "14", "--stride", "4"}, 2, "must be below"},
		{[]string{"--function", "bitvector_xor", "--addr-bits", "40", "--bank-bits", "17", "--stride", "4"}, 2, "--bank-bits 17"},
		{[]string{"--function", "bitvector_xor", "--method", "mih", "--addr-bits", "14", "--bank-bits", "5", "--stride", "4"}, 2, "bitwise_perm or bitwise_xor"},
		{[]string{"--function", "bitwise_xor", "--addr-bits", "14", "--bank-bits", "5", "--stride", "4"}, 2, "use --method givargis or mih"},
		{[]string{"--function", "crc", "--addr-bits", "14", "--bank-bits", "5", "--stride", "4"}, 2, `--function "crc"`},
		{[]string{"--function", "bitvector_xor", "--addr-bits", "14", "--bank-bits", "5"}, 2, "no accesses"},
		{[]string{"--function", "bitvector_xor", "--addr-bits", "14", "--bank-bits", "5", "--stride", "0"}, 2, "positive stride"},
		{[]string{"--function", "bitvector_xor", "--addr-bits", "14", "--bank-bits", "5", bad}, 2, "bad.trace:2"},
	} {
		code, _, stderr := lsugen(t, append([]string{"search"}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

// transposeSpec is the two transpose patterns of specs/patterns_000.hcl
// (TILE_DIM = 16).
const transposeSpec = `
pattern "transpose_load" {
  matrix     = [[1, 0], [0, 1]]
  cols       = 16
  block      = [16, 16]
  iterations = 1
  step       = [1, 0]
}
pattern "transpose_store" {
  matrix     = [[0, 1], [1, 0]]
  cols       = 16
  block      = [16, 16]
  iterations = 1
  step       = [0, 1]
}
`

// TestSearch_PatternSpecs: search reads spec files' pattern blocks (it
// refused them as traces before); MIH over the transpose patterns gives
// Table 5's transpose row, single bits before equal pairs.
func TestSearch_PatternSpecs(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "transpose.hcl", transposeSpec)
	doc := runSearch(t, "--function", "bitwise_xor", "--method", "mih", "--addr-bits", "14", "--bank-bits", "5", spec)
	if got := fmt.Sprint(doc.Config["bits"]); got != "[[0 0] [4 4] [1 5] [2 6] [3 7]]" {
		t.Errorf("MIH on transpose: %s, want (0) (4) (1^5) (2^6) (3^7) (Table 5)", got)
	}
	if doc.ConflictsBefore != 56 || doc.ConflictsAfter != 0 {
		t.Errorf("conflicts %d before, %d after; want 56 and 0", doc.ConflictsBefore, doc.ConflictsAfter)
	}
	code, _, stderr := lsugen(t, "search", "--function", "bitvector_xor", "--addr-bits", "14", "--bank-bits", "5", "../../specs/patterns_000.hcl")
	if code != 0 {
		t.Errorf("patterns_000.hcl: exit %d: %s", code, stderr)
	}
}

type compareDoc struct {
	ConflictsBefore int64 `json:"conflicts_before"`
	Accesses        int   `json:"accesses"`
	Kernels         []struct {
		Name            string    `json:"name"`
		Accesses        int       `json:"accesses"`
		ConflictsBefore int64     `json:"conflicts_before"`
		Rows            []rowJSON `json:"rows"`
		ConflictsAfter  *int64    `json:"conflicts_after"`
		RemovedPercent  *float64  `json:"removed_percent"`
	} `json:"kernels"`
	Compare []rowJSON `json:"compare"`
}

type rowJSON struct {
	Function       string         `json:"function"`
	Method         string         `json:"method"`
	Banks          int            `json:"banks"`
	Config         map[string]any `json:"config"`
	ConflictsAfter int64          `json:"conflicts_after"`
	RemovedPercent *float64       `json:"removed_percent"`
	// totals only
	PooledRemovedPercent *float64 `json:"pooled_removed_percent"`
	KernelsAveraged      int      `json:"kernels_averaged"`
}

// TestSearch_Compare: --compare per kernel (the transpose spec, a trace,
// the --stride accesses) and in total; the total rows add up the kernels'
// conflicts, their removed_percent is the mean of the kernels' (Table 6)
// and pooled_removed_percent the pooled one; the document follows
// search.json. The mod 17 row is hand-checked on
// the trace: 32 consecutive words (a row), 32 words 32 apart (a column:
// 32·tx ≡ 15·tx mod 17) and 32 even words each fill 17 banks at most
// twice, 1 conflict per access: 8 + 8 + 1.
func TestSearch_Compare(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "transpose.hcl", transposeSpec)
	tr := writeSpec(t, dir, "t.trace", transposeTrace())
	args := []string{"search", "--compare", "--json", "--addr-bits", "14", "--bank-bits", "5", "--banks", "17", "--stride", "4,6", spec, tr}
	code, stdout, stderr := lsugen(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	validateJSON(t, "search.json", stdout)
	var doc compareDoc
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, k := range doc.Kernels {
		names = append(names, filepath.Base(k.Name))
	}
	if got := strings.Join(names, ", "); got != "transpose.hcl, t.trace, --stride 4,6" {
		t.Errorf("kernels %s, want transpose.hcl, t.trace, --stride 4,6", got)
	}
	want := []string{"mod", "ipoly", "fixed_xor", "bitvector_xor exhaustive", "bitwise_perm givargis", "bitwise_perm mih", "bitwise_xor givargis", "bitwise_xor mih"}
	if len(doc.Compare) != len(want) {
		t.Fatalf("%d total rows, want %d", len(doc.Compare), len(want))
	}
	var before int64
	for _, k := range doc.Kernels {
		before += k.ConflictsBefore
	}
	if before != doc.ConflictsBefore || doc.ConflictsBefore != 56+249+3+1 {
		t.Errorf("conflicts before %d (kernels %d), want %d", doc.ConflictsBefore, before, 56+249+3+1)
	}
	for i, r := range doc.Compare {
		if got := strings.TrimSpace(r.Function + " " + r.Method); got != want[i] {
			t.Errorf("row %d: %s, want %s", i, got, want[i])
		}
		var sum int64
		for _, k := range doc.Kernels {
			sum += k.Rows[i].ConflictsAfter
		}
		if sum != r.ConflictsAfter {
			t.Errorf("%s: total %d, kernels add up to %d", want[i], r.ConflictsAfter, sum)
		}
		var mean float64
		for _, k := range doc.Kernels {
			mean += 100 * float64(k.ConflictsBefore-k.Rows[i].ConflictsAfter) / float64(k.ConflictsBefore) / 3
		}
		pooled := 100 * float64(doc.ConflictsBefore-r.ConflictsAfter) / float64(doc.ConflictsBefore)
		if r.KernelsAveraged != 3 || r.RemovedPercent == nil || math.Abs(*r.RemovedPercent-mean) > 1e-9 ||
			r.PooledRemovedPercent == nil || math.Abs(*r.PooledRemovedPercent-pooled) > 1e-9 {
			t.Errorf("%s: removed %v (mean of %d kernels), pooled %v; want mean %.4f of 3, pooled %.4f",
				want[i], r.RemovedPercent, r.KernelsAveraged, r.PooledRemovedPercent, mean, pooled)
		}
	}
	// The mod 17 row, by hand: the transpose spec's 16 + 16 words of two
	// tile rows (or columns: 16·tx ≡ −tx) fill 17 banks at most twice, 1
	// conflict in each of its 16 accesses; the trace's 17 (above); strides
	// 4 and 6 (4 and 1 conflicts before) meet 17 banks at most twice, 1
	// each. Per kernel 71.43 %, 93.17 % and 50 % removed: a mean of
	// 71.53 %, where pooling gives (309 − 35)/309 = 88.67 %.
	if r := doc.Compare[0]; r.ConflictsAfter != 16+17+2 || r.RemovedPercent == nil || math.Abs(*r.RemovedPercent-(100*40.0/56+100*232.0/249+50)/3) > 1e-9 ||
		r.PooledRemovedPercent == nil || math.Abs(*r.PooledRemovedPercent-100*274.0/309) > 1e-9 {
		t.Errorf("mod 17 total: %d left, removed %v, pooled %v; want 35, 71.53 and 88.67", r.ConflictsAfter, r.RemovedPercent, r.PooledRemovedPercent)
	}
	// Every exhaustive and MIH bitwise_xor row removes the transposes'
	// conflicts: the kernels are configured one by one.
	for _, k := range doc.Kernels[:2] {
		for _, i := range []int{3, 7} {
			if k.Rows[i].ConflictsAfter != 0 || k.Rows[i].Config == nil {
				t.Errorf("%s %s: %d conflicts, config %v; want 0 and a configuration", k.Name, want[i], k.Rows[i].ConflictsAfter, k.Rows[i].Config)
			}
		}
	}
	if r := doc.Kernels[1].Rows[0]; r.Banks != 17 || r.ConflictsAfter != 17 {
		t.Errorf("mod row of the trace: %d banks, %d conflicts; want 17 and 17", r.Banks, r.ConflictsAfter)
	}
	code, text, stderr := lsugen(t, append([]string{"search", "--compare"}, args[3:]...)...)
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, s := range []string{"mod 17", "ipoly", "P(x) = x^5 + x^2 + 1", "fixed bit-vector XOR", "total: 3 kernels", "000_* Table 6's form", "hash function", "givargis", "mih"} {
		if !strings.Contains(text, s) {
			t.Errorf("text report lacks %q:\n%s", s, text)
		}
	}
}

// TestSearch_AccelSimKernels: the Accel-Sim example trace's two kernels
// are reported apart.
func TestSearch_AccelSimKernels(t *testing.T) {
	code, stdout, stderr := lsugen(t, "search", "--compare", "--json", "--addr-bits", "14", "--bank-bits", "5", "../../specs/traces/accelsim/kernelslist.g")
	if code != 0 {
		t.Fatal(stderr)
	}
	var doc compareDoc
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Kernels) != 2 || !strings.HasPrefix(doc.Kernels[0].Name, "k1 ") || !strings.HasPrefix(doc.Kernels[1].Name, "k2 ") {
		t.Errorf("kernels %+v, want k1 and k2", doc.Kernels)
	}
}

// TestSearch_CompareRefusals: --compare with a single search's flags, and
// --banks out of range.
func TestSearch_CompareRefusals(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--compare", "--function", "bitvector_xor"}, "drop --function"},
		{[]string{"--compare", "--banks", "1025"}, "--banks 1025"},
		{[]string{"--compare", "--banks", "1"}, "--banks 1"},
		{[]string{"--function", "bitvector_xor", "--bank-bytes", "3"}, "--bank-bytes 3"},
	} {
		args := append([]string{"search", "--addr-bits", "14", "--bank-bits", "5", "--stride", "4"}, tc.args...)
		code, _, stderr := lsugen(t, args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
