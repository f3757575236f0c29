package search

import (
	"testing"
)

func benchFull(b *testing.B, acc [][]uint64) {
	b.ReportAllocs()
	for b.Loop() {
		p, err := Prepare(acc, 14, 5)
		if err != nil {
			b.Fatal(err)
		}
		res, err := Search(p, BitvectorXor, Exhaustive, true)
		if err != nil || res.CandidatesEvaluated != 4480 {
			b.Fatal(err)
		}
	}
}

// BenchmarkExhaustiveFull_1M: the full 4,480-candidate bit-vector XOR
// space (n = 14, m = 5) over one million accesses of a tiled kernel,
// preparation included.
func BenchmarkExhaustiveFull_1M(b *testing.B) { benchFull(b, KernelTrace(1_000_000, 1)) }

// BenchmarkExhaustiveFull_Random16K: the same space over 16,384 accesses of
// random addresses (nothing to merge).
func BenchmarkExhaustiveFull_Random16K(b *testing.B) { benchFull(b, RandomTrace(1<<14, 1)) }

// BenchmarkExhaustiveFull_Random1M: the same space over one million
// accesses of random addresses, the target workload of the bit-sliced
// engine (docs/performance.md).
func BenchmarkExhaustiveFull_Random1M(b *testing.B) { benchFull(b, RandomTrace(1_000_000, 1)) }

// BenchmarkMIH_BitwiseXor_1M: MIH over the 105 bit pairs, one million
// kernel accesses.
func BenchmarkMIH_BitwiseXor_1M(b *testing.B) {
	acc := KernelTrace(1_000_000, 1)
	for b.Loop() {
		p, _ := Prepare(acc, 14, 5)
		if _, err := Search(p, BitwiseXor, MIH, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPrepare_Random1M is the preparation alone (one thread) of the
// random 1 M workload: sorting, reducing and hashing every access.
func BenchmarkPrepare_Random1M(b *testing.B) {
	acc := RandomTrace(1_000_000, 1)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Prepare(acc, 14, 5); err != nil {
			b.Fatal(err)
		}
	}
}
