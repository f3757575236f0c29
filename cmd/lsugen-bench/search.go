package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"text/tabwriter"
	"time"

	"github.com/lsugen/lsugen/tools/search"
)

// The hash search workloads are those of tools/search's benchmarks
// (search.KernelTrace, search.RandomTrace): the full 4,480-candidate
// bit-vector XOR space for a 2^14-word scratchpad with 32 banks, over -accesses
// (one million) accesses of a tiled kernel and as many of random addresses.

const (
	searchAddrBits = 14
	searchBankBits = 5
	// searchGoal is the random workload's goal: one million accesses in
	// 15 s of wall time on 2 cores (lsugen issue 17).
	searchGoal = 15 * time.Second
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

// benchSearch times the exhaustive hash search on every core, as a user
// runs it: the wall time of a pass (preparation included) and the CPU time
// it used, the best of -trials passes.
func benchSearch(_ context.Context, c *config, _ string, stdout, _ io.Writer) error {
	workloads := []searchWorkload{
		{fmt.Sprintf("tiled kernel (%s accesses)", count(c.accesses)), search.KernelTrace(c.accesses, 1)},
		{fmt.Sprintf("random addresses (%s accesses)", count(c.accesses)), search.RandomTrace(c.accesses, 1)},
	}
	fmt.Fprintf(stdout, "Exhaustive hash search: the full bitvector_xor space for n = %d, m = %d over warp accesses\n"+
		"of 32 lanes (`lsugen search --method exhaustive --full`, preparation included), on all %d cores:\n"+
		"wall time and the CPU time of all threads, best of %d passes\n", searchAddrBits, searchBankBits, runtime.GOMAXPROCS(0), c.trials)
	tw := tabwriter.NewWriter(stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "workload\tcandidates\twall\tCPU\taccesses/s (wall)\tper million accesses (wall)")
	var randomPerMillion time.Duration
	for i, w := range workloads {
		var cands int64
		var wall, cpu time.Duration
		for range max(1, c.trials) {
			c0, w0 := processCPU(), time.Now()
			n, err := exhaustiveSearch(w.accesses)
			if err != nil {
				return err
			}
			cands = n
			dw, dc := time.Since(w0), processCPU()-c0
			if wall == 0 || dw < wall {
				wall = dw
			}
			if cpu == 0 || dc < cpu {
				cpu = dc
			}
		}
		perMillion := time.Duration(float64(wall) * 1e6 / float64(len(w.accesses)))
		if i == 1 {
			randomPerMillion = perMillion
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s/s\t%s\n", w.name, cands, dur(wall), dur(cpu),
			rate(float64(len(w.accesses))/wall.Seconds()), dur(perMillion))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(stdout, "goal: random addresses, one million accesses in at most %s on 2 cores: %s (%s per million on %d cores)\n",
		dur(searchGoal), metWord(randomPerMillion <= searchGoal && runtime.GOMAXPROCS(0) <= 2), dur(randomPerMillion), runtime.GOMAXPROCS(0))
	return err
}
