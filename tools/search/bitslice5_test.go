package search

import (
	"math/rand/v2"
	"testing"
)

// TestSliced5_MatchesDirectCount: the m = 5 path of the bit-sliced engine
// (window masks of two two-position parts, heavy-class lists of up to
// four, eight and sixteen classes, all-light windows) gives every row space
// the total of the direct per-address count, on random 32-lane accesses
// (the target workload), narrow and 33- to 64-lane ones, repeated ones
// (weights) and a pure permutation space.
func TestSliced5_MatchesDirectCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 5))
	acc := RandomTrace(150, 7)
	for i := 0; i < 60; i++ {
		a := make([]uint64, 2+rng.IntN(63))
		for l := range a {
			a[l] = uint64(rng.IntN(1 << 14))
		}
		acc = append(acc, a, a) // the second merges: weight 2
	}
	acc = append(acc, StrideAccess(1, 32), StrideAccess(64, 32), StrideAccess(33, 64), []uint64{0, 1 << 13})
	p := mustPrepare(t, acc, 14, 5)
	if p.Unique() >= len(acc) {
		t.Fatalf("%d unique of %d accesses: want repeated ones merged", p.Unique(), len(acc))
	}
	for _, fn := range []string{BitvectorXor, BitvectorPerm} {
		s, err := NewSpace(p, 14, 5, fn, true)
		if err != nil {
			t.Fatal(err)
		}
		pl := newSlicedPlan(s)
		if len(pl.masks5) == 0 || len(pl.serves5) != pl.slots {
			t.Fatalf("%s: %d masks, %d serves for %d row spaces: want the m = 5 path serving each once", fn, len(pl.masks5), len(pl.serves5), pl.slots)
		}
		totals, wide := slicedTotals(p, pl)
		if len(wide) != 0 {
			t.Fatalf("%s: %d wide accesses, want none", fn, len(wide))
		}
		for slot, ci := range pl.repCand {
			cfg := s.config(int64(ci))
			if got, want := totals[slot], p.Conflicts(cfg); got != want {
				t.Fatalf("%s %s: engine %d, direct count %d", fn, cfg, got, want)
			}
		}
	}
}
