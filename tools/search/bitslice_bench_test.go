package search

import "testing"

// BenchmarkSlicedTotals_Random16K: the bit-sliced engine alone (plan and
// preparation outside the loop) over 16,384 random accesses, the full
// 4,480-candidate bit-vector XOR space (n = 14, m = 5); run with -cpu 1
// for the CPU time per access.
func BenchmarkSlicedTotals_Random16K(b *testing.B) {
	p, err := Prepare(RandomTrace(1<<14, 1), 14, 5)
	if err != nil {
		b.Fatal(err)
	}
	s, err := NewSpace(p, 14, 5, BitvectorXor, true)
	if err != nil {
		b.Fatal(err)
	}
	pl := newSlicedPlan(s)
	b.ResetTimer()
	for b.Loop() {
		slicedTotals(p, pl)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(p.Unique()), "ns/access")
}
