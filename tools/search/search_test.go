package search

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func strideAccesses(lanes int, strides ...uint64) [][]uint64 {
	var out [][]uint64
	for _, s := range strides {
		out = append(out, StrideAccess(s, lanes))
	}
	return out
}

func mustPrepare(t testing.TB, acc [][]uint64, n, m int) *Prepared {
	t.Helper()
	p, err := Prepare(acc, n, m)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func singleBits(c Config) []int {
	var out []int
	for _, b := range c.Bits {
		out = append(out, b[0])
	}
	return out
}

// TestMIH_Figure6: the eight addresses of Figure 6 and three bank bits give
// bits 0, 3, 4 in that order.
func TestMIH_Figure6(t *testing.T) {
	p := mustPrepare(t, [][]uint64{{27, 12, 6, 19, 11, 4, 28, 3}}, 5, 3)
	res, err := Search(p, BitwisePerm, MIH, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := singleBits(res.Config); !slices.Equal(got, []int{0, 3, 4}) {
		t.Errorf("MIH selected %v, want [0 3 4]", got)
	}
}

// TestGivargis_Strides: §5.2.1's examples, one reference set per stride
// (32 lanes, lane i reads i·S), n = 14, m = 5.
func TestGivargis_Strides(t *testing.T) {
	for _, tc := range []struct {
		strides []uint64
		want    []int
	}{
		{[]uint64{8, 45}, []int{3, 4, 5, 6, 7}},
		{[]uint64{8, 13}, []int{3, 4, 6, 5, 7}},
	} {
		p := mustPrepare(t, strideAccesses(32, tc.strides...), 14, 5)
		res, err := Search(p, BitwisePerm, Givargis, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := singleBits(res.Config); !slices.Equal(got, tc.want) {
			t.Errorf("strides %v: Givargis selected %v, want %v", tc.strides, got, tc.want)
		}
	}
}

// TestExhaustive_PrunedCount: strides 4 and 6 leave 188 of the 4,480
// bit-vector XOR candidates (§5.1), and the full space has 4,480.
func TestExhaustive_PrunedCount(t *testing.T) {
	p := mustPrepare(t, strideAccesses(32, 4, 6), 14, 5)
	r := p.Pruning()
	if !slices.Equal(r.K1, []int{1, 2}) || r.K2Min != 1 || r.MSB != 7 {
		t.Errorf("pruning %+v, want k1 in {1, 2}, k2 in [1, 7]", r)
	}
	res, err := Search(p, BitvectorXor, Exhaustive, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.CandidatesEvaluated != 188 {
		t.Errorf("pruned search evaluated %d candidates, want 188", res.CandidatesEvaluated)
	}
	full, err := Search(p, BitvectorXor, Exhaustive, true)
	if err != nil {
		t.Fatal(err)
	}
	if full.CandidatesEvaluated != 4480 {
		t.Errorf("full search evaluated %d candidates, want 4480", full.CandidatesEvaluated)
	}
	// Stride 6 (3·2^1) over 32 lanes cannot be spread over 32 banks by a
	// bit-vector XOR: one 2-way conflict remains in either space.
	if res.ConflictsAfter != 1 || full.ConflictsAfter != 1 {
		t.Errorf("strides 4 and 6 leave %d / %d conflicts, want 1", res.ConflictsAfter, full.ConflictsAfter)
	}
	if res.ConflictsBefore != 3+1 { // stride 4: 4-way (3); stride 6: 2-way (1)
		t.Errorf("conflicts before %d, want 4", res.ConflictsBefore)
	}
}

// TestExhaustive_MatchesBruteForce: the parallel, bounded search returns
// the same configuration and count as a plain loop over the space with
// the reference conflict count and the documented tie-break.
func TestExhaustive_MatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var acc [][]uint64
	for i := 0; i < 300; i++ {
		s := uint64(rng.IntN(40) + 1)
		base := uint64(rng.IntN(1 << 12))
		a := make([]uint64, 32)
		for l := range a {
			a[l] = base + uint64(l)*s
			if rng.IntN(10) == 0 {
				a[l] = a[0] // equal addresses merge
			}
		}
		acc = append(acc, a)
	}
	const n, m = 12, 4
	p := mustPrepare(t, acc, n, m)
	for _, fn := range []string{BitvectorPerm, BitvectorXor, BitwisePerm} {
		for _, full := range []bool{false, true} {
			res, err := Search(p, fn, Exhaustive, full)
			if err != nil {
				t.Fatal(err)
			}
			s, err := NewSpace(p, n, m, fn, full)
			if err != nil {
				t.Fatal(err)
			}
			bi, bc := int64(-1), int64(0)
			for i := int64(0); i < s.Count(); i++ {
				c := Conflicts(acc, n, m, s.config(i))
				if bi < 0 || c < bc || (c == bc && s.less(i, bi)) {
					bi, bc = i, c
				}
			}
			want := s.config(bi)
			if res.ConflictsAfter != bc || res.Config.String() != want.String() || res.CandidatesEvaluated != s.Count() {
				t.Errorf("%s full=%v: got %s (%d conflicts, %d candidates), want %s (%d)", fn, full,
					res.Config, res.ConflictsAfter, res.CandidatesEvaluated, want, bc)
			}
			if got := Conflicts(acc, n, m, res.Config); got != res.ConflictsAfter {
				t.Errorf("%s: reference count %d, search reported %d", fn, got, res.ConflictsAfter)
			}
		}
	}
}

// TestConflicts_Definition: degree is the most distinct addresses in one
// bank; equal addresses merge; addresses equal below bit n still conflict.
func TestConflicts_Definition(t *testing.T) {
	mod := Config{Function: BitvectorPerm}
	acc := [][]uint64{
		{0, 4, 8, 0, 4},     // banks 0,0,0 (m = 2): degree 3
		{1, 2, 3, 0},        // conflict-free
		{5, 5, 5},           // one address
		{1, 1 + 1<<10, 0x2}, // 1 and 1+2^10 alias in the hash (n = 10)
	}
	want := int64(2 + 0 + 0 + 1)
	if got := Conflicts(acc, 10, 2, mod); got != want {
		t.Errorf("reference Conflicts = %d, want %d", got, want)
	}
	if got := mustPrepare(t, acc, 10, 2).Conflicts(mod); got != want {
		t.Errorf("prepared Conflicts = %d, want %d", got, want)
	}
}

// TestTable1_Counts: the class sizes for n = 14, m = 5 from the formulas,
// and the enumerated spaces agree with them.
func TestTable1_Counts(t *testing.T) {
	cl, err := Table1(14, 5)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range cl {
		got[c.Name] = c.Approx
	}
	want := map[string]string{
		// 32^16384 = 10^24660.377 = 2.38e24660; the paper prints 2.3e24660
		// (truncated), while its 9.7e7 (96,560,646) is rounded.
		"All functions":                 "2.4e24660",
		"XOR-based functions":           "1.2e21",
		"Unique XOR-based functions":    "1.2e14",
		"Bit-vector functions":          "10",
		"Bit-vector XOR functions":      "4.5e3",
		"Bitwise permutation functions": "2.0e3",
		"Bitwise XOR functions":         "9.7e7",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s, want %s", k, got[k], v)
		}
	}
	for _, tc := range []struct {
		fn   string
		want int64
	}{{BitvectorPerm, 10}, {BitvectorXor, 4480}, {BitwisePerm, 2002}} {
		s, err := NewSpace(nil, 14, 5, tc.fn, true)
		if err != nil {
			t.Fatal(err)
		}
		if s.Count() != tc.want {
			t.Errorf("%s space: %d candidates, want %d", tc.fn, s.Count(), tc.want)
		}
	}
	if _, err := NewSpace(nil, 14, 5, BitwiseXor, true); err == nil {
		t.Error("bitwise_xor exhaustive over 9.7e7 candidates was accepted")
	}
}

// TestSearch_RefusesSizes: out-of-range widths fail before any work.
func TestSearch_RefusesSizes(t *testing.T) {
	for _, nm := range [][2]int{{65, 5}, {14, 14}, {14, 0}, {40, 17}, {1, 1}} {
		if _, err := Prepare(nil, nm[0], nm[1]); err == nil {
			t.Errorf("n = %d, m = %d accepted", nm[0], nm[1])
		}
	}
}

// TestExhaustive_WideAccess: an access of more than 255 addresses in one
// bank is counted exactly (the fast path's 8-bit counters are not used).
func TestExhaustive_WideAccess(t *testing.T) {
	acc := [][]uint64{StrideAccess(64, 300)}
	p := mustPrepare(t, acc, 16, 5)
	res, err := Search(p, BitvectorXor, Exhaustive, true)
	if err != nil {
		t.Fatal(err)
	}
	if res.ConflictsBefore != 299 {
		t.Errorf("conflicts before %d, want 299", res.ConflictsBefore)
	}
	if want := Conflicts(acc, 16, 5, res.Config); res.ConflictsAfter != want {
		t.Errorf("search reported %d conflicts for %s, reference count %d", res.ConflictsAfter, res.Config, want)
	}
}

// table5Transpose is the CUDA SDK transpose of §3.2.1 and §3.2.2 with
// TILE_DIM = 16 and one 16×16 thread block (eight warps of 32 lanes, lane
// tid = 16·ty + tx): tile[ty][tx] is written (word 16·ty + tx) and
// tile[tx][ty] read (word 16·tx + ty).
func table5Transpose() [][]uint64 {
	var out [][]uint64
	for _, store := range []bool{false, true} {
		for w := 0; w < 8; w++ {
			a := make([]uint64, 32)
			for l := range a {
				tid := 32*w + l
				tx, ty := uint64(tid%16), uint64(tid/16)
				a[l] = ty*16 + tx
				if store {
					a[l] = tx*16 + ty
				}
			}
			out = append(out, a)
		}
	}
	return out
}

// table5Reduction is the CUDA SDK reduction with interleaved addressing
// (§3.2.3) for a block of 256 threads: sdata[tid] is written (linear),
// then for S = 1, 2, …, 128 the threads with 2·S·tid < 256 read
// sdata[2·S·tid] and sdata[2·S·tid + S] and write the first.
func table5Reduction() [][]uint64 {
	const threads = 256
	var out [][]uint64
	for w := 0; w < threads/32; w++ {
		out = append(out, StrideAccess(1, 32))
		for l := range out[len(out)-1] {
			out[len(out)-1][l] += uint64(32 * w)
		}
	}
	for s := 1; s < threads; s *= 2 {
		active := threads / (2 * s)
		for lo := 0; lo < active; lo += 32 {
			var a, b []uint64
			for tid := lo; tid < min(lo+32, active); tid++ {
				a = append(a, uint64(2*s*tid))
				b = append(b, uint64(2*s*tid+s))
			}
			out = append(out, a, b)
		}
	}
	return out
}

func pairsOf(c Config) string {
	var b strings.Builder
	for _, e := range c.Bits {
		if e[0] == e[len(e)-1] {
			fmt.Fprintf(&b, "(%d)", e[0])
		} else {
			fmt.Fprintf(&b, "(%d^%d)", e[0], e[1])
		}
	}
	return b.String()
}

// TestHeuristics_Table5: the MIH rows of Table 5 for transpose and
// reduction (n = 14, m = 5) from the kernels' access patterns. The single
// bits (4) and (3) tie with the pairs (0^4) and (0^3) there (bit 0 is
// balanced by the bits already chosen), and the rule "fewer XOR gates
// first" takes the single bit as the paper does.
func TestHeuristics_Table5(t *testing.T) {
	for _, tc := range []struct {
		name, fn, method string
		acc              [][]uint64
		want             string
	}{
		{"transpose", BitwiseXor, MIH, table5Transpose(), "(0)(4)(1^5)(2^6)(3^7)"},
		{"transpose", BitwisePerm, MIH, table5Transpose(), "(0)(4)(1)(2)(3)"},
		{"transpose", BitwisePerm, Givargis, table5Transpose(), "(0)(4)(1)(2)(3)"},
		{"reduction", BitwiseXor, MIH, table5Reduction(), "(2^7)(1^6)(0^5)(4)(3)"},
	} {
		p := mustPrepare(t, tc.acc, 14, 5)
		res, err := Search(p, tc.fn, tc.method, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := pairsOf(res.Config); got != tc.want {
			t.Errorf("%s %s %s: %s, want %s (Table 5)", tc.name, tc.fn, tc.method, got, tc.want)
		}
	}
}

// TestHeuristics_TiesFewerGates: two columns of equal score go to the
// single bit. Bit 0 never varies within an access, so (0^j) scores as
// (j) in both heuristics.
func TestHeuristics_TiesFewerGates(t *testing.T) {
	acc := [][]uint64{StrideAccess(2, 32), StrideAccess(2, 32)}
	for i := range acc[1] {
		acc[1][i]++ // odd words: bit 0 is 1 in every lane
	}
	p := mustPrepare(t, acc, 8, 3)
	for _, method := range []string{Givargis, MIH} {
		res, err := Search(p, BitwiseXor, method, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := pairsOf(res.Config); got != "(1)(2)(3)" {
			t.Errorf("%s: %s, want (1)(2)(3): single bits before the equal (0^j)", method, got)
		}
	}
}

// TestSliced_MatchesReference: the bit-sliced engine's total for every
// candidate of the full bit-vector spaces equals the reference count, for
// accesses of 2 to 64 distinct addresses (lane masks) and one of 70
// (counted directly), with 1, 5 and 6 bank bits.
func TestSliced_MatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var acc [][]uint64
	for i := 0; i < 10; i++ {
		a := make([]uint64, 2+rng.IntN(63))
		for l := range a {
			a[l] = uint64(rng.IntN(1 << 14))
			if l > 0 && rng.IntN(8) == 0 {
				a[l] = a[rng.IntN(l)] // repeated addresses merge
			}
		}
		acc = append(acc, a)
	}
	acc = append(acc, StrideAccess(96, 64), StrideAccess(3, 70), []uint64{5, 5})
	for _, nm := range [][2]int{{14, 5}, {10, 1}, {12, 6}} {
		n, m := nm[0], nm[1]
		p := mustPrepare(t, acc, n, m)
		for _, fn := range []string{BitvectorXor, BitvectorPerm} {
			s, err := NewSpace(p, n, m, fn, true)
			if err != nil {
				t.Fatal(err)
			}
			pl := newSlicedPlan(s)
			totals, wide := slicedTotals(p, pl)
			if len(wide) != 1 {
				t.Errorf("n = %d, m = %d: %d wide accesses, want 1", n, m, len(wide))
			}
			ev := newEvaluator(p)
			for slot, ci := range pl.repCand {
				for _, u := range wide {
					totals[slot] += ev.access(u, s.config(int64(ci)).Columns(n, m))
				}
			}
			for i := range s.vec {
				cfg := s.config(int64(i))
				if got, want := totals[pl.rep[i]], Conflicts(acc, n, m, cfg); got != want {
					t.Fatalf("n = %d, m = %d, %s %s: engine %d, reference %d", n, m, fn, cfg, got, want)
				}
			}
		}
	}
}
