package search

import (
	"context"
	"math"
	"strings"
	"testing"
)

// polyMod is addr(x) mod P(x) by long division over GF(2), written apart
// from ipolyColumns.
func polyMod(a uint64, poly []int) uint64 {
	var p uint64
	deg := 0
	for _, e := range poly {
		p |= 1 << uint(e)
		deg = max(deg, e)
	}
	for i := 63; i >= deg; i-- {
		if a>>uint(i)&1 == 1 {
			a ^= p << uint(i-deg)
		}
	}
	return a
}

// TestIpoly_IsPolynomialRemainder: for 16, 32 and 64 banks, every 14-bit
// address's bank under the ipoly columns is the address modulo
// GPGPU-Sim's polynomial.
func TestIpoly_IsPolynomialRemainder(t *testing.T) {
	want := map[int]string{4: "P(x) = x^4 + x + 1", 5: "P(x) = x^5 + x^2 + 1", 6: "P(x) = x^6 + x + 1"}
	for m := 4; m <= 6; m++ {
		poly, ok := IpolyPolynomial(m)
		if !ok {
			t.Fatalf("m = %d: no polynomial", m)
		}
		c := Config{Function: Ipoly, Poly: poly}
		if c.String() != want[m] {
			t.Errorf("m = %d: %s, want %s", m, c, want[m])
		}
		cols := c.Columns(14, m)
		for a := uint64(0); a < 1<<14; a++ {
			if got, w := BankOf(cols, a), polyMod(a, poly); got != w {
				t.Fatalf("m = %d, address %d: bank %d, want %d", m, a, got, w)
			}
		}
	}
	if _, ok := IpolyPolynomial(3); ok {
		t.Error("m = 3 has a GPGPU-Sim polynomial")
	}
}

// TestModConflicts_Definition: bank = word mod N for a count that is not
// a power of two; equal words merge; N out of range is refused.
func TestModConflicts_Definition(t *testing.T) {
	acc := [][]uint64{
		{0, 17, 34, 1, 0}, // banks 0, 0, 0, 1: degree 3
		{1, 18, 2, 19},    // banks 1, 1, 2, 2: degree 2
		{5},
	}
	got, err := ModConflicts(acc, 17)
	if err != nil || got != 2+1 {
		t.Errorf("mod 17: %d (%v), want 3", got, err)
	}
	for _, n := range []int{1, 1025} {
		if _, err := ModConflicts(acc, n); err == nil {
			t.Errorf("--banks %d accepted", n)
		}
	}
}

// TestCompare_Rows: the rows of a comparison, in order, each with the
// reference count of its configuration.
func TestCompare_Rows(t *testing.T) {
	acc := table5Transpose()
	before, rows, err := Compare(acc, 14, 5, 32, false)
	if err != nil {
		t.Fatal(err)
	}
	if before != 56 { // each of the 8 column accesses puts 8 words in 4 banks: 7 conflicts
		t.Errorf("before %d, want 56", before)
	}
	var labels []string
	for _, r := range rows {
		labels = append(labels, r.Label())
		switch r.Function {
		case Mod:
			if r.ConflictsAfter != before {
				t.Errorf("mod 32 gives %d, want %d (as before)", r.ConflictsAfter, before)
			}
		default:
			if want := Conflicts(acc, 14, 5, r.Config); r.ConflictsAfter != want {
				t.Errorf("%s: %d, reference %d", r.Label(), r.ConflictsAfter, want)
			}
		}
	}
	want := "mod 32|ipoly|fixed bit-vector XOR|bitvector_xor exhaustive|bitwise_perm givargis|bitwise_perm mih|bitwise_xor givargis|bitwise_xor mih"
	if got := strings.Join(labels, "|"); got != want {
		t.Errorf("rows %s, want %s", got, want)
	}
}

// TestCompareKernels_MeanPerKernel: Table 6 averages the kernels'
// percentages; the pooled percentage weighs kernels by their conflicts;
// a conflict-free kernel is in neither. The fixed bit-vector XOR leaves
// the 16×16 transpose's column writes 2-way (8 of its 56 conflicts:
// 85.7 % removed) and removes the 31 of one stride-32 access (100 %):
// mean 92.9 %, pooled (87 − 8)/87 = 90.8 %.
func TestCompareKernels_MeanPerKernel(t *testing.T) {
	kernels := []Kernel{
		{Name: "transpose", Accesses: table5Transpose()},
		{Name: "stride 32", Accesses: [][]uint64{StrideAccess(32, 32)}},
		{Name: "linear", Accesses: [][]uint64{StrideAccess(1, 32)}},
	}
	got, err := CompareKernels(context.Background(), kernels, 14, 5, 32, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Kernels) != 3 || got.Kernels[0].Before != 56 || got.Kernels[1].Before != 31 || got.Kernels[2].Before != 0 {
		t.Fatalf("kernels %+v, want 56, 31 and 0 conflicts before", got.Kernels)
	}
	var fixed, mod *Total
	for i := range got.Totals {
		switch got.Totals[i].Function {
		case FixedXor:
			fixed = &got.Totals[i]
		case Mod:
			mod = &got.Totals[i]
		}
	}
	if fixed == nil || mod == nil {
		t.Fatal("no fixed_xor or mod total")
	}
	near := func(p *float64, want float64) bool { return p != nil && math.Abs(*p-want) < 1e-9 }
	if fixed.ConflictsAfter != 8 || fixed.Before != 87 || fixed.Averaged != 2 ||
		!near(fixed.MeanRemoved, (100*48.0/56+100)/2) || !near(fixed.PooledRemoved, 100*79.0/87) {
		t.Errorf("fixed XOR total %+v (mean %v, pooled %v); want 8 of 87 left, 2 kernels averaged, mean 92.857, pooled 90.805",
			fixed, deref(fixed.MeanRemoved), deref(fixed.PooledRemoved))
	}
	if !near(mod.MeanRemoved, 0) || mod.Averaged != 2 {
		t.Errorf("mod 32 total: mean %v over %d kernels, want 0 over 2 (it is the before mapping)", deref(mod.MeanRemoved), mod.Averaged)
	}
	none, err := CompareKernels(context.Background(), kernels[2:], 14, 5, 32, false)
	if err != nil || none.Totals[0].MeanRemoved != nil || none.Totals[0].PooledRemoved != nil {
		t.Errorf("conflict-free kernels only: %+v, %v; want no percentages", none, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := CompareKernels(ctx, kernels, 14, 5, 32, false); err != context.Canceled {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
