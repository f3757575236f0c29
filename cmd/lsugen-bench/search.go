package main

import (
	"fmt"

	"github.com/lsugen/lsugen/tools/search"
)

// The hash search workloads are those of tools/search's benchmarks
// (search.KernelTrace, search.RandomTrace): the full 4,480-candidate bit-vector XOR space for a
// 2^14-word scratchpad with 32 banks, over one million accesses of a tiled
// kernel, and over 16,384 accesses of random addresses.

const (
	searchAddrBits = 14
	searchBankBits = 5
)

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
