// Package rap holds the studies of 004_* (Nakano, Matsumae and Ito,
// "Random Address Permute-Shift Technique for the Shared Memory on GPUs"):
// the Discrete Memory Machine's pipelined timing and the paper's three
// matrix transposes simulated access by access under RAW, RAS and RAP
// (Table III), Theorem 2's bound beside the Monte Carlo congestion of
// tools/rapsim (Tables II and IV), and Table IV's random-number counts.
package rap

// The Discrete Memory Machine (DMM) of the paper's Section II: w banks, a
// warp of w threads sends one request per thread; requests to the same
// address merge; a warp access of congestion c occupies c consecutive
// stages of the MMU pipeline, one stage per time unit; a request takes l
// time units (it completes in the l-th stage), and a thread sends its next
// request only after the previous one completed. Warps with requests are
// dispatched round-robin. So k stages issued back to back take k + l − 1
// time units (the paper's "k + l − 1 time units to complete k access
// requests", which is behind Lemma 1).

// request is one thread's memory request: its address and the bank it
// lies in under the mapping in use.
type request struct{ addr, bank int }

// congestionCounter counts one warp access's congestion without
// allocating: the largest number of distinct addresses in one bank.
type congestionCounter struct {
	perBank []int
	seen    []uint32 // stamp per address: seen in this access
	stamp   uint32
}

func newCongestionCounter(banks, addrs int) *congestionCounter {
	return &congestionCounter{perBank: make([]int, banks), seen: make([]uint32, addrs)}
}

// of is the congestion of the warp access reqs (addresses below the
// counter's address space, banks below its bank count).
func (c *congestionCounter) of(reqs []request) int {
	c.stamp++
	if c.stamp == 0 { // wrapped: old stamps could look current
		clear(c.seen)
		c.stamp = 1
	}
	clear(c.perBank)
	worst := 0
	for _, r := range reqs {
		if c.seen[r.addr] == c.stamp {
			continue // same address as an earlier thread: merged
		}
		c.seen[r.addr] = c.stamp
		c.perBank[r.bank]++
		worst = max(worst, c.perBank[r.bank])
	}
	return worst
}

// dmmTime is the time units the DMM takes to complete every warp's
// accesses: stages[v][a] is the congestion of warp v's a-th access (0: the
// warp sends nothing then, and is not dispatched for it). Time units are
// numbered from 1; the result is the unit in which the last request
// completes (0 when there is none).
func dmmTime(stages [][]int, l int) int {
	n := len(stages)
	next := make([]int, n)  // the warp's next access
	ready := make([]int, n) // first time unit the warp may send it
	left := 0
	for v := range stages {
		ready[v] = 1
		left += len(stages[v])
	}
	t, end, rr := 1, 0, 0 // t: the pipeline's next free stage; rr: round-robin start
	for left > 0 {
		pick, earliest := -1, 0
		for q := range n {
			v := (rr + q) % n
			if next[v] == len(stages[v]) {
				continue
			}
			if ready[v] <= t {
				pick = v
				break
			}
			if earliest == 0 || ready[v] < earliest {
				earliest = ready[v]
			}
		}
		if pick < 0 {
			t = earliest // every warp waits for its previous access: the pipeline idles
			continue
		}
		c := stages[pick][next[pick]]
		next[pick]++
		left--
		rr = (pick + 1) % n
		if c == 0 {
			continue
		}
		last := t + c - 1    // the unit its last stage enters
		done := last + l - 1 // and completes in
		end = max(end, done)
		ready[pick] = done + 1
		t = last + 1
	}
	return end
}
