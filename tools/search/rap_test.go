package search

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestSearchRAP_ColumnReadsConflictFree: a w×w matrix read by columns
// (lane i reads row i) has every lane in one bank under addr mod w; the
// descent gives each row its own shift, so none conflict, and the rows
// the accesses never read keep shift 0.
func TestSearchRAP_ColumnReadsConflictFree(t *testing.T) {
	const w, n = 32, 11
	var accs [][]uint64
	for col := range 4 {
		a := make([]uint64, w)
		for row := range w {
			a[row] = uint64(row*w + col)
		}
		accs = append(accs, a)
	}
	perm, evaluated, before, after, err := SearchRAP(accs, w, n)
	if err != nil {
		t.Fatal(err)
	}
	if before != 4*(w-1) || after != 0 || evaluated == 0 {
		t.Errorf("before %d, after %d, %d evaluated; want %d, 0", before, after, evaluated, 4*(w-1))
	}
	seen := map[int]bool{}
	for _, r := range perm {
		seen[r] = true
	}
	if len(seen) != w {
		t.Errorf("shifts %v are not a permutation", perm)
	}
}

// TestSearchRAP_NeverWorse: on random accesses the descent ends at no
// more conflicts than it started from (every r_i = 0, addr mod w), its
// count is the straightforward one of its shifts, and the same accesses
// give the same shifts.
func TestSearchRAP_NeverWorse(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 2))
	const w, n = 16, 9
	for trial := range 20 {
		var accs [][]uint64
		for range 1 + rng.IntN(20) {
			a := make([]uint64, 1+rng.IntN(16))
			for i := range a {
				a[i] = rng.Uint64N(1 << (n + 1)) // a bit above n: a distinct word
			}
			accs = append(accs, a)
			if rng.IntN(3) == 0 {
				accs = append(accs, a) // kept once, weighted twice
			}
		}
		perm, _, before, after, err := SearchRAP(accs, w, n)
		if err != nil {
			t.Fatal(err)
		}
		again, _, _, _, _ := SearchRAP(accs, w, n)
		if after > before || rapConflicts(accs, perm, w) != after || rapConflicts(accs, make([]int, w), w) != before {
			t.Errorf("trial %d: before %d, after %d, recounted %d", trial, before, after, rapConflicts(accs, perm, w))
		}
		for i := range perm {
			if perm[i] != again[i] {
				t.Fatalf("trial %d: shifts differ between runs: %v, %v", trial, perm, again)
			}
		}
	}
	if _, _, _, _, err := SearchRAP(nil, 12, 8); err == nil {
		t.Error("w = 12 accepted")
	}
	// past MaxRAPWork: refused while the accesses are read
	var many [][]uint64
	for range 2000 {
		a := make([]uint64, 32)
		for i := range a {
			a[i] = rng.Uint64N(1 << 20)
		}
		many = append(many, a)
	}
	if _, _, _, _, err := SearchRAP(many, 1024, 20); err == nil || !strings.Contains(err.Error(), "word evaluations per pass") {
		t.Errorf("2000 accesses over w = 1024: %v, want the work refused", err)
	}
}

// rapConflicts counts from the definition: per access the most distinct
// addresses in one bank (column + r_row) mod w, minus one.
func rapConflicts(accs [][]uint64, perm []int, w int) int64 {
	l := 0
	for 1<<l < w {
		l++
	}
	var total int64
	for _, a := range accs {
		banks := map[int]map[uint64]bool{}
		most := 0
		for _, x := range a {
			b := (int(x)%w + perm[int(x>>l)%w]) % w
			if banks[b] == nil {
				banks[b] = map[uint64]bool{}
			}
			banks[b][x] = true
			most = max(most, len(banks[b]))
		}
		total += int64(max(most-1, 0))
	}
	return total
}
