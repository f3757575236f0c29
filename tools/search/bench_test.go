package search

import (
	"math/rand/v2"
	"testing"
)

// kernelTrace is n accesses of a tiled kernel in a 2^14-word scratchpad:
// row reads (stride 1), column writes (stride 64), stride-33 and stride-6
// accesses and 8×4 blocks, each from a random tile base: the repetition
// real traces have, which the XOR-offset reduction exploits.
func kernelTrace(n int, seed uint64) [][]uint64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([][]uint64, n)
	for k := range out {
		base := uint64(rng.IntN(1<<14)) &^ 31
		a := make([]uint64, 32)
		pat := rng.IntN(5)
		for l := range a {
			i := uint64(l)
			switch pat {
			case 0:
				a[l] = base + i
			case 1:
				a[l] = base&^2047 + i*64 + base&63
			case 2:
				a[l] = base + i*33
			case 3:
				a[l] = base + i*6
			default:
				a[l] = base + (i/8)*128 + i%8
			}
			a[l] &= 1<<14 - 1
		}
		out[k] = a
	}
	return out
}

// randomTrace is n accesses of 32 uniform random 14-bit addresses: the
// worst case, where no two accesses reduce to the same one.
func randomTrace(n int, seed uint64) [][]uint64 {
	rng := rand.New(rand.NewPCG(seed, 9))
	out := make([][]uint64, n)
	for k := range out {
		a := make([]uint64, 32)
		for l := range a {
			a[l] = uint64(rng.IntN(1 << 14))
		}
		out[k] = a
	}
	return out
}

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
func BenchmarkExhaustiveFull_1M(b *testing.B) { benchFull(b, kernelTrace(1_000_000, 1)) }

// BenchmarkExhaustiveFull_Random16K: the same space over 16,384 accesses of
// random addresses (nothing to merge); one million such accesses take
// about 61 times as long.
func BenchmarkExhaustiveFull_Random16K(b *testing.B) { benchFull(b, randomTrace(1<<14, 1)) }

// BenchmarkMIH_BitwiseXor_1M: MIH over the 105 bit pairs, one million
// kernel accesses.
func BenchmarkMIH_BitwiseXor_1M(b *testing.B) {
	acc := kernelTrace(1_000_000, 1)
	for b.Loop() {
		p, _ := Prepare(acc, 14, 5)
		if _, err := Search(p, BitwiseXor, MIH, false); err != nil {
			b.Fatal(err)
		}
	}
}
