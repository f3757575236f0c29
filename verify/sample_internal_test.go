package verify

import (
	"slices"
	"sync"
	"testing"
	"time"
)

// TestSample: Icarus's vectors are every directed one, then an even
// spread of the rest, at least IcarusMinVectors, at most budget/gates.
func TestSample(t *testing.T) {
	cases := []struct {
		n, directed, gates, budget int
		want                       []int // nil: check only the length
		wantLen                    int
	}{
		{n: 10, directed: 2, gates: 5, budget: 0, want: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{n: 300, directed: 3, gates: 1000, budget: 1 << 20, wantLen: 300},        // 1048 fit: all
		{n: 2000, directed: 66, gates: 87414, budget: 1 << 23, wantLen: 66 + 95}, // 8388608/87414
		{n: 2000, directed: 66, gates: 98166, budget: 1 << 22, wantLen: 66 + 64}, // 42 < 64: the floor
		{n: 20000, directed: 0, gates: 1000, budget: 1 << 23, wantLen: 8388},
	}
	for _, c := range cases {
		got := sample(c.n, c.directed, c.gates, c.budget)
		if c.want != nil && !slices.Equal(got, c.want) {
			t.Errorf("sample(%d, %d, %d, %d) = %v, want %v", c.n, c.directed, c.gates, c.budget, got, c.want)
		}
		if c.want == nil && len(got) != c.wantLen {
			t.Errorf("sample(%d, %d, %d, %d): %d vectors, want %d", c.n, c.directed, c.gates, c.budget, len(got), c.wantLen)
		}
		for i := range c.directed {
			if got[i] != i {
				t.Errorf("sample(%d, %d, ...)[%d] = %d: a directed vector is missing", c.n, c.directed, i, got[i])
			}
		}
		if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
			t.Errorf("sample(%d, %d, %d, %d) is not strictly increasing", c.n, c.directed, c.gates, c.budget)
		}
		if len(got) > 0 && got[len(got)-1] >= c.n {
			t.Errorf("sample(%d, ...) picks %d, past the end", c.n, got[len(got)-1])
		}
		if len(got) > c.directed+1 && got[len(got)-1] < c.n*9/10 {
			t.Errorf("sample(%d, ...) ends at %d: not spread over the list", c.n, got[len(got)-1])
		}
	}
}

// TestIcarusCycles: Icarus runs the first cycles of the stream, at most
// IcarusGateCycles / gates and at least IcarusMinCycles.
func TestIcarusCycles(t *testing.T) {
	p := SeqPlan{Cycles: 100_000, IcarusGateCycles: 1 << 26}
	for _, c := range []struct{ gates, want int }{
		{474, 100_000},   // the elastic pipelines: the whole stream
		{24_911, 2_693},  // the paper's history cache
		{1 << 20, 1_000}, // the floor
	} {
		if got := p.icarusCycles(c.gates); got != c.want {
			t.Errorf("%d gates: %d cycles, want %d", c.gates, got, c.want)
		}
	}
	p.IcarusGateCycles = 0
	if got := p.icarusCycles(24_911); got != 100_000 {
		t.Errorf("no bound: %d cycles, want the whole 100000", got)
	}
}

// TestParallel: every index once, never more than jobs at a time.
func TestParallel(t *testing.T) {
	for _, jobs := range []int{0, 1, 3, 50} {
		var mu sync.Mutex
		running, peak := 0, 0
		seen := make([]int, 20)
		Parallel(len(seen), jobs, func(i int) {
			mu.Lock()
			running++
			peak = max(peak, running)
			seen[i]++
			mu.Unlock()
			time.Sleep(time.Millisecond)
			mu.Lock()
			running--
			mu.Unlock()
		})
		for i, n := range seen {
			if n != 1 {
				t.Errorf("jobs %d: index %d called %d times", jobs, i, n)
			}
		}
		if limit := max(1, jobs); peak > limit {
			t.Errorf("jobs %d: %d at once", jobs, peak)
		}
	}
	Parallel(0, 2, func(int) { t.Error("called for n = 0") })
}
