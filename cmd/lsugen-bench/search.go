package main

import (
	"fmt"
	"math/rand/v2"

	"github.com/lsugen/lsugen/tools/search"
)

// The hash search workloads are those of tools/search's benchmarks
// (bench_test.go): the full 4,480-candidate bit-vector XOR space for a
// 2^14-word scratchpad with 32 banks, over one million accesses of a tiled
// kernel, and over 16,384 accesses of random addresses.

const (
	searchAddrBits = 14
	searchBankBits = 5
)

// kernelAccesses is n warp accesses of a tiled kernel in a 2^14-word
// scratchpad: row reads (stride 1), column writes (stride 64), stride-33
// and stride-6 accesses and 8×4 blocks, each from a random tile base.
func kernelAccesses(n int, seed uint64) [][]uint64 {
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

// randomAccesses is n accesses of 32 uniform random 14-bit addresses:
// nothing repeats, the search's worst case.
func randomAccesses(n int, seed uint64) [][]uint64 {
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

// searchWorkload is one timed search.
type searchWorkload struct {
	name     string
	accesses [][]uint64
}

// exhaustiveSearch is one pass: prepare the accesses and search the full
// bit-vector XOR space, as `lsugen search --method exhaustive --full`
// does. It returns the number of candidates evaluated.
func exhaustiveSearch(acc [][]uint64) (int64, error) {
	p, err := search.Prepare(acc, searchAddrBits, searchBankBits)
	if err != nil {
		return 0, err
	}
	res, err := search.Search(p, search.BitvectorXor, search.Exhaustive, true)
	if err != nil {
		return 0, err
	}
	if res.CandidatesEvaluated <= 0 {
		return 0, fmt.Errorf("exhaustive search evaluated %d candidates", res.CandidatesEvaluated)
	}
	return res.CandidatesEvaluated, nil
}
