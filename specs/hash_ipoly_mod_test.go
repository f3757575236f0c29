package specs

import (
	"reflect"
	"testing"
)

// The expected units of testdata/valid/ipoly_mod.hcl, checked by
// TestSpecs_ValidFiles with the others.
func init() {
	wantHashes["ipoly_mod.hcl"] = map[string]Hash{
		// The matrix is the one written by hand in specs/hash_atomics.hcl.
		"ipoly_x5_x2_1": {Function: IPoly, AddrBits: 14, BankBits: 5, Polynomial: []int{5, 2, 0},
			Bits: [][]int{{0, 5, 8, 10, 11}, {1, 6, 9, 11, 12}, {2, 5, 7, 8, 11, 12, 13}, {3, 6, 8, 9, 12, 13}, {4, 7, 9, 10, 13}}},
		// x^i mod (x + 1) = 1: the parity of the address.
		"ipoly_parity":  {Function: IPoly, AddrBits: 3, BankBits: 1, Polynomial: []int{1, 0}, Bits: [][]int{{0, 1, 2}}},
		"mod24":         {Function: Mod, AddrBits: 12, BankBits: 5, Banks: 24},
		"mod_all_words": {Function: Mod, AddrBits: 10, BankBits: 10, Banks: 1024},
	}
}

// TestPolynomials_Factors: irreducible polynomials (those of GPGPU-Sim's
// IPOLY and BaseJump's, Peterson's table) have no factor; reducible ones
// give their smallest.
func TestPolynomials_Factors(t *testing.T) {
	for _, exps := range [][]int{{1, 0}, {2, 1, 0}, {3, 1, 0}, {3, 2, 0}, {4, 1, 0}, {5, 2, 0}, {6, 1, 0}, {7, 1, 0}, {8, 4, 3, 1, 0}, {6, 3, 0}, {16, 5, 3, 1, 0}} {
		if f := polySmallestFactor(polyBits(exps)); f != 0 {
			t.Errorf("%s: factor %s, want irreducible", polyString(polyBits(exps)), polyString(f))
		}
	}
	for _, tc := range []struct {
		exps []int
		want string
	}{
		{[]int{4, 0}, "x + 1"},          // (x + 1)^4
		{[]int{4, 2, 0}, "x^2 + x + 1"}, // (x^2 + x + 1)^2
		{[]int{5, 4, 0}, "x^2 + x + 1"}, // (x^2 + x + 1)(x^3 + x + 1)
		{[]int{16, 0}, "x + 1"},         // (x + 1)^16
		{[]int{3, 2, 1, 0}, "x + 1"},    // (x + 1)(x^2 + 1)
	} {
		p := polyBits(tc.exps)
		if got := polyString(polySmallestFactor(p)); got != tc.want {
			t.Errorf("%s: smallest factor %s, want %s", polyString(p), got, tc.want)
		}
	}
	if got := polyString(firstIrreducible(4)); got != "x^4 + x + 1" {
		t.Errorf("first irreducible of degree 4: %s", got)
	}
	if got := polyString(polyBits([]int{5, 2, 1, 0})); got != "x^5 + x^2 + x + 1" {
		t.Errorf("polyString: %s", got)
	}
}

// TestIPolyMatrix_PowersOfX: below the degree each address bit is its own
// bank bit; x^4 mod x^4 + x + 1 = x + 1 feeds bank bits 0 and 1.
func TestIPolyMatrix_PowersOfX(t *testing.T) {
	got := ipolyMatrix(polyBits([]int{4, 1, 0}), 4, 6)
	want := [][]int{{0, 4}, {1, 4, 5}, {2, 5}, {3}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("x^4 + x + 1 over 6 bits: %v, want %v", got, want)
	}
}
