package search

import (
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
