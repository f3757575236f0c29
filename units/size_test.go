package units

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/specs"
)

// actualSize generates u and measures what gen writes for it: its gates
// and the bytes of its Verilog files and those of the units it
// instantiates.
func actualSize(t *testing.T, u specs.Unit) (Size, bool) {
	t.Helper()
	d, diags := Generate(u)
	if diags.HasErrors() {
		return Size{}, false
	}
	s := Size{Gates: int64(len(d.Gates))}
	for _, x := range append([]*netlist.Design{d}, d.Submodules()...) {
		files, err := rtl.Files(x, rtl.Info{Version: "lsugen " + gen.Version, Source: "x.hcl:1"})
		if err != nil {
			t.Fatalf("%s: %v", u.UnitName(), err)
		}
		for _, b := range files {
			s.Bytes += int64(len(b))
		}
	}
	return s, true
}

// sizeFloor is what an estimate may exceed SizeSlack times the real size
// by: small units have fixed parts (ports, headers) that a budget of
// millions of gates need not count exactly.
var sizeFloor = Size{Gates: 500, Bytes: 64 << 10}

// checkBound fails unless est is at least got and at most SizeSlack times
// it plus sizeFloor (gates and bytes); it returns the two ratios.
func checkBound(t *testing.T, u specs.Unit, est, got Size) (float64, float64) {
	t.Helper()
	rg := float64(est.Gates) / float64(max(got.Gates, 1))
	rb := float64(est.Bytes) / float64(max(got.Bytes, 1))
	if est.Gates < got.Gates || est.Gates > SizeSlack*got.Gates+sizeFloor.Gates ||
		est.Bytes < got.Bytes || est.Bytes > 2*SizeSlack*got.Bytes+sizeFloor.Bytes {
		t.Errorf("%s %s (%s): estimated %d gates, %d bytes; generated %d gates, %d bytes (ratios %.2f, %.2f; want 1 to %d, %d)",
			u.UnitKind(), u.UnitName(), params(u), est.Gates, est.Bytes, got.Gates, got.Bytes, rg, rb, SizeSlack, 2*SizeSlack)
	}
	return rg, rb
}

// checkUnits checks the size estimate of every unit against real
// generation and returns the units checked per family.
func checkUnits(t *testing.T, all []specs.Unit) map[string]int {
	t.Helper()
	perKind := map[string]int{}
	worst := map[string][2]float64{}
	for _, u := range all {
		got, ok := actualSize(t, u)
		if !ok {
			continue
		}
		est, diags := Estimate(u)
		if diags.HasErrors() {
			t.Fatalf("%s: %v", u.UnitName(), diags)
		}
		rg, rb := checkBound(t, u, est, got)
		k := u.UnitKind()
		perKind[k]++
		w := worst[k]
		worst[k] = [2]float64{max(w[0], rg), max(w[1], rb)}
	}
	for _, k := range Kinds() {
		t.Logf("%s: %d units, worst ratios %.2f (gates), %.2f (bytes)", k, perKind[k], worst[k][0], worst[k][1])
	}
	return perKind
}

// TestSize_ExampleSpecs checks every family's size estimate against real
// generation on every unit of the example specs: never below the
// generated gates and Verilog bytes, and at most SizeSlack times the
// gates (twice that for bytes) plus sizeFloor.
func TestSize_ExampleSpecs(t *testing.T) {
	var all []specs.Unit
	paths, _ := filepath.Glob("../specs/*.hcl")
	if len(paths) == 0 {
		t.Fatal("no example specs")
	}
	for _, p := range paths {
		file, diags := specs.NewLoader().Load(p)
		if diags.HasErrors() {
			t.Fatalf("%s: %v", p, diags)
		}
		all = append(all, file.Units...)
	}
	checkUnits(t, all)
}

// TestSize_RandomSpecs checks the estimates as TestSize_ExampleSpecs
// does on random valid specs of every family (small sizes, to stay
// fast; the largest accepted unit of each family was measured once, by
// hand: docs/cli.md#budgets).
func TestSize_RandomSpecs(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 18))
	var all []specs.Unit
	for i := 0; i < 120; i++ {
		src := randomSpec(r, i)
		file, diags := specs.NewLoader().Parse([]byte(src), fmt.Sprintf("random%d.hcl", i))
		if diags.HasErrors() {
			continue // an invalid combination; the loader's business
		}
		all = append(all, file.Units...)
	}
	for k, n := range checkUnits(t, all) {
		if n < 10 {
			t.Errorf("%s: only %d random units checked, want at least 10", k, n)
		}
	}
}

// randomSpec is the HCL of one random unit (or a unit and the units it
// refers to) of family i mod 7, small enough to generate in
// milliseconds. Some combinations are invalid; the caller skips them.
func randomSpec(r *rand.Rand, i int) string {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	in := func(lo, hi int) int { return lo + r.IntN(hi-lo+1) }
	pow2 := func(lo, hi int) int { return 1 << in(lo, hi) }
	b := func() bool { return r.IntN(2) == 0 }
	var sb strings.Builder
	switch i % 7 {
	case 0:
		sb.WriteString(randomHash(r, "h", in(4, 20)))
	case 1:
		st := pick("all_to_all", "neighbor", "speculative")
		a := in(2, 24)
		fmt.Fprintf(&sb, "coalescer \"c\" {\n structure = %q\n lanes = %d\n addr_bits = %d\n block_bits = %d\n active_mask = %v\n requests = %v\n",
			st, in(2, 16), a, in(0, a-1), b(), r.IntN(3) == 0)
		if st == "speculative" {
			fmt.Fprintf(&sb, " adder = %q\n", pick("ripple", "cla", "cla4", "prefix"))
		}
		sb.WriteString("}\n")
	case 2:
		fmt.Fprintf(&sb, "monotonicity_detector \"m\" {\n lanes = %d\n addr_bits = %d\n adder = %q\n active_mask = %v\n}\n",
			in(2, 16), in(1, 24), pick("ripple", "cla", "cla4", "prefix"), b())
	case 3:
		sb.WriteString(randomArbiter(r, "a", in(2, 16)))
	case 4:
		warp := pow2(2, 6)
		simd := max(warp>>in(0, 4), 1)
		fmt.Fprintf(&sb, "elastic_pipeline \"p\" {\n mem_stages = %d\n warp_size = %d\n simd_width = %d\n shmem_ports = %d\n tag_bits = %d\n variant = %q\n",
			in(1, 6), warp, simd, max(simd>>in(0, 3), 1), in(1, 16), pick("elastic", "baseline_unified", "baseline_split"))
		if r.IntN(3) == 0 {
			fmt.Fprintf(&sb, " arbiter = bank_arbiter.pa\n}\n")
			sb.WriteString(strings.Replace(randomArbiter(r, "pa", simd), "serialize = true", "serialize = false", 1))
		} else {
			sb.WriteString("}\n")
		}
	case 5:
		warp := pow2(2, 7)
		simd := max(warp>>in(0, 4), 1)
		sets := pow2(1, 7)
		fmt.Fprintf(&sb, "warp_ready_mask \"w\" {\n warp_contexts = %d\n history_sets = %d\n history_ways = %d\n pc_bits = %d\n warp_size = %d\n simd_width = %d\n shmem_ports = %d\n}\n",
			in(1, 32), sets, in(1, 4), in(1, 16), warp, simd, max(simd>>in(0, 3), 1))
	case 6:
		bb, banks := pick("4", "8"), in(2, 8)
		ws := pick("[32]", "[32, 64]", "[64, 128]", "[32, 64, 128]")
		at := pick("[]", `["add"]`, `["cas", "smin", "xor"]`)
		if !strings.Contains(ws, "32,") && ws != "[32]" {
			at = "[]"
		}
		fmt.Fprintf(&sb, "shared_memory \"s\" {\n lanes = %d\n bytes = %d\n bank_bytes = %s\n banks = %d\n widths = %s\n atomics = %s\n}\n",
			in(1, 8), 16*banks*in(1, 4), bb, banks, ws, at)
	}
	return sb.String()
}

// randomArbiter is a bank arbiter of the given lanes, with a random hash
// or lock hash now and then.
func randomArbiter(r *rand.Rand, name string, lanes int) string {
	a := 4 + r.IntN(13)
	var sb strings.Builder
	fmt.Fprintf(&sb, "bank_arbiter %q {\n lanes = %d\n addr_bits = %d\n broadcast = %v\n serialize = %v\n", name, lanes, a, r.IntN(2) == 0, r.IntN(3) == 0)
	var extra string
	switch r.IntN(3) {
	case 0:
		fmt.Fprintf(&sb, " bank_bits = %d\n", 1+r.IntN(min(a, 5)))
	case 1:
		fmt.Fprintf(&sb, " hash = hash.%s_h\n", name)
		extra = randomHash(r, name+"_h", a)
	case 2:
		fmt.Fprintf(&sb, " bank_bits = %d\n lock_hash = hash.%s_l\n", 1+r.IntN(min(a, 5)), name)
		extra = randomHash(r, name+"_l", a)
	}
	sb.WriteString("}\n")
	return sb.String() + extra
}

// randomHash is a hash unit of a random function over a address bits.
func randomHash(r *rand.Rand, name string, a int) string {
	in := func(lo, hi int) int { return lo + r.IntN(max(hi-lo+1, 1)) }
	m := in(1, min(6, a))
	fn := []string{"bitvector_perm", "bitvector_xor", "bitwise_perm", "bitwise_xor", "xor_matrix", "fixed_xor", "add", "rap", "ipoly", "mod"}[r.IntN(10)]
	cfg := r.IntN(2) == 0 && fn != "xor_matrix" && fn != "fixed_xor" && fn != "add" && fn != "ipoly" && fn != "mod"
	var sb strings.Builder
	fmt.Fprintf(&sb, "hash %q {\n function = %q\n", name, fn)
	switch fn {
	case "rap":
		fmt.Fprintf(&sb, " w = %d\n", 1<<in(1, 6))
		if !cfg {
			fmt.Fprintf(&sb, " seed = %d\n", r.IntN(1000))
		}
	case "ipoly":
		poly := [][]int{{3, 1, 0}, {4, 1, 0}, {5, 2, 0}, {6, 1, 0}}[r.IntN(4)]
		fmt.Fprintf(&sb, " addr_bits = %d\n polynomial = %s\n", max(a, poly[0]+1), ints(poly))
	case "mod":
		fmt.Fprintf(&sb, " addr_bits = %d\n banks = %d\n", a, in(2, min(1<<min(a, 10), 200)))
	default:
		fmt.Fprintf(&sb, " addr_bits = %d\n bank_bits = %d\n", a, m)
	}
	if !cfg {
		switch fn {
		case "bitvector_perm":
			fmt.Fprintf(&sb, " k = %d\n", in(0, a-m))
		case "bitvector_xor":
			fmt.Fprintf(&sb, " k1 = %d\n k2 = %d\n mask = %d\n", in(0, a-m), in(0, a-m), r.IntN(1<<m))
		case "bitwise_perm", "bitwise_xor", "xor_matrix":
			n := map[string]int{"bitwise_perm": 1, "bitwise_xor": 2, "xor_matrix": in(1, min(a, 8))}[fn]
			rows := make([]string, m)
			for i := range rows {
				row := make([]int, n)
				for j := range row {
					row[j] = r.IntN(a)
				}
				rows[i] = ints(row)
			}
			fmt.Fprintf(&sb, " bits = [%s]\n", strings.Join(rows, ", "))
		case "add":
			fmt.Fprintf(&sb, " adder = %q\n", []string{"ripple", "cla"}[r.IntN(2)])
		}
	} else {
		fmt.Fprintf(&sb, " configurable = true\n")
		if r.IntN(2) == 0 {
			fmt.Fprintf(&sb, " config = \"register\"\n")
		}
	}
	sb.WriteString("}\n")
	return sb.String()
}

func ints(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// params are u's sizes, for messages.
func params(u specs.Unit) string {
	switch x := u.(type) {
	case *specs.Hash:
		return fmt.Sprintf("fn=%s a=%d m=%d cfg=%v reg=%v w=%d banks=%d bits=%v", x.Function, x.AddrBits, x.BankBits, x.Configurable, x.Registered(), x.W, x.Banks, x.Bits)
	case *specs.Coalescer:
		return fmt.Sprintf("st=%s L=%d A=%d B=%d act=%v req=%v adder=%s", x.Structure, x.Lanes, x.AddrBits, x.BlockBits, x.ActiveMask, x.Requests, x.Adder)
	case *specs.MonotonicityDetector:
		return fmt.Sprintf("L=%d A=%d act=%v adder=%s", x.Lanes, x.AddrBits, x.ActiveMask, x.Adder)
	case *specs.BankArbiter:
		return fmt.Sprintf("L=%d A=%d B=%d bc=%v ser=%v hash=%v lock=%v", x.Lanes, x.AddrBits, x.BankBits, x.Broadcast, x.Serialize, x.Hash != nil, x.LockHash != nil)
	case *specs.ElasticPipeline:
		return fmt.Sprintf("M=%d warp=%d simd=%d ports=%d tag=%d var=%s arb=%v", x.MemStages, x.WarpSize, x.SIMDWidth, x.ShmemPorts, x.TagBits, x.PipeVariant, x.Arbiter != nil)
	case *specs.WarpReadyMask:
		return fmt.Sprintf("ctx=%d sets=%d ways=%d pc=%d warp=%d simd=%d ports=%d", x.WarpContexts, x.HistorySets, x.HistoryWays, x.PCBits, x.WarpSize, x.SIMDWidth, x.ShmemPorts)
	}
	return ""
}
