package rapsim

import (
	"context"
	"errors"
	"github.com/lsugen/lsugen/internal/testenv"
	"math"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

var paperW = []int{16, 32, 64, 128, 256}

// tableII is the paper's Table II, typed in from the paper: congestion per
// mapping and access, one value per w in paperW.
var tableII = map[Mapping]map[Access][]float64{
	RAW: {
		Contiguous: {1, 1, 1, 1, 1},
		Stride:     {16, 32, 64, 128, 256},
		Diagonal:   {1, 1, 1, 1, 1},
		Random:     {2.92, 3.44, 3.90, 4.34, 4.75},
	},
	RAS: {
		Contiguous: {1, 1, 1, 1, 1},
		Stride:     {3.08, 3.53, 3.96, 4.38, 4.77},
		Diagonal:   {3.08, 3.53, 3.96, 4.38, 4.77},
		Random:     {2.92, 3.44, 3.90, 4.34, 4.75},
	},
	RAP: {
		Contiguous: {1, 1, 1, 1, 1},
		Stride:     {1, 1, 1, 1, 1},
		Diagonal:   {3.20, 3.61, 4.00, 4.41, 4.78},
		Random:     {2.92, 3.44, 3.90, 4.34, 4.75},
	},
}

// analyticII lists the Table II cells that hold in every trial, not only on
// average: they must come out exact, min = max = value.
func analyticII(m Mapping, a Access) bool {
	return a == Contiguous || (m == RAW && a != Random) || (m == RAP && a == Stride)
}

func run(t *testing.T, o Options) *Report {
	t.Helper()
	r, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustCell(t *testing.T, r *Report, a Array, w int, m Mapping, acc Access) Result {
	t.Helper()
	q, ok := r.Cell(a, w, m, acc)
	if !ok {
		t.Fatalf("no result for %s w=%d %s %s", a, w, m, acc)
	}
	return q
}

// TestTableII_MatchesPaper checks every cell of the paper's Table II: the
// analytic ones exactly, the others within ±0.05 at the default trials
// (standard error about 0.005).
func TestTableII_MatchesPaper(t *testing.T) {
	o := DefaultOptions()
	o.W, o.Array4 = paperW, false
	r := run(t, o)
	worst := 0.0
	for m, rows := range tableII {
		for a, want := range rows {
			for n, w := range paperW {
				q := mustCell(t, r, Matrix, w, m, a)
				if analyticII(m, a) {
					if q.Congestion != want[n] || q.Min != q.Max {
						t.Errorf("%s %s w=%d: %v (min %d, max %d), want exactly %v", m, a, w, q.Congestion, q.Min, q.Max, want[n])
					}
					continue
				}
				d := math.Abs(q.Congestion - want[n])
				worst = max(worst, d)
				if d > 0.05 {
					t.Errorf("%s %s w=%d: %.3f, paper %.2f", m, a, w, q.Congestion, want[n])
				}
			}
		}
	}
	t.Logf("largest deviation from Table II: %.3f", worst)
}

// ballsInBins is E[max load] of w balls thrown independently into w bins,
// exactly: P(max ≤ m) = w!/w^w · [x^w] (Σ_{c≤m} x^c/c!)^w. It is the
// congestion of any access whose w banks are independent and uniform.
func ballsInBins(w int) float64 {
	lw, _ := math.Lgamma(float64(w + 1))
	scale := math.Exp(lw - float64(w)*math.Log(float64(w))) // w!/w^w
	inv := []float64{1}                                     // 1/c!
	e, prev := 0.0, 0.0
	for m := 1; m <= w && prev < 1-1e-13; m++ {
		inv = append(inv, inv[m-1]/float64(m))
		poly := []float64{1}
		for range w {
			next := make([]float64, min(len(poly)+m, w+1))
			for a, pa := range poly {
				for c := 0; c <= m && a+c <= w; c++ {
					next[a+c] += pa * inv[c]
				}
			}
			poly = next
		}
		p := 0.0
		if len(poly) > w {
			p = poly[w] * scale
		}
		e += float64(m) * (p - prev)
		prev = p
	}
	return e
}

// TestBallsInBins_IsRASStride: the reference used for Table IV agrees with
// the paper's RAS stride row, which is the same quantity.
func TestBallsInBins_IsRASStride(t *testing.T) {
	for n, w := range paperW {
		if got, want := ballsInBins(w), tableII[RAS][Stride][n]; math.Abs(got-want) > 0.01 {
			t.Errorf("w=%d: %.4f, paper %.2f", w, got, want)
		}
	}
}

// TestTableIV_Exact: the Table IV cells that are 1 or w hold in every trial.
func TestTableIV_Exact(t *testing.T) {
	o := DefaultOptions()
	o.W, o.Trials, o.Matrix = []int{4, 16, 64}, 500, false
	r := run(t, o)
	for _, w := range o.W {
		want := map[Mapping]map[Access]int{
			RAW:   {Contiguous: 1, Stride1: w, Stride2: w, Stride3: w, Permuted: w, Malicious: w},
			RAS:   {Contiguous: 1},
			P1:    {Contiguous: 1, Stride1: 1, Stride2: w, Stride3: w, Malicious: w, Permuted: 2},
			R1P:   {Contiguous: 1, Stride1: 1, Stride2: 1, Stride3: 1},
			P3:    {Contiguous: 1, Stride1: 1, Stride2: 1, Stride3: 1},
			W2P:   {Contiguous: 1, Stride1: 1},
			P1W2R: {Contiguous: 1, Stride1: 1},
		}
		for m, rows := range want {
			for a, v := range rows {
				q := mustCell(t, r, Array4, w, m, a)
				if q.Min != v || q.Max != v {
					t.Errorf("%s %s w=%d: congestion %d..%d, want always %d", m, a, w, q.Min, q.Max, v)
				}
			}
		}
	}
}

// TestTableIV_LogOverLogLog: the cells Table IV gives as Õ(log w/log log w)
// (other than R1P's malicious access) are w requests on independent uniform
// banks, so their mean congestion is the balls-in-bins value; tolerance
// ±0.05 at 10,000 trials (standard error about 0.007).
func TestTableIV_LogOverLogLog(t *testing.T) {
	o := DefaultOptions()
	o.W, o.Trials, o.Matrix = []int{16, 32, 64}, 10_000, false
	r := run(t, o)
	cells := map[Mapping][]Access{
		RAW:   {Random},
		RAS:   {Stride1, Stride2, Stride3, Random, Permuted, Malicious},
		P1:    {Random},
		R1P:   {Random},
		P3:    {Random, Permuted, Malicious},
		W2P:   {Stride2, Stride3, Random, Permuted, Malicious},
		P1W2R: {Stride2, Stride3, Random, Permuted, Malicious},
	}
	for _, w := range o.W {
		want := ballsInBins(w)
		for m, accs := range cells {
			for _, a := range accs {
				if q := mustCell(t, r, Array4, w, m, a); math.Abs(q.Congestion-want) > 0.05 {
					t.Errorf("%s %s w=%d: %.3f, want %.3f ± 0.05", m, a, w, q.Congestion, want)
				}
			}
		}
		// R1P's malicious access: the six orderings of a triple share a
		// bank, so every trial has a bank with at least 6 requests.
		q := mustCell(t, r, Array4, w, R1P, Malicious)
		if q.From != Permuted || q.Min < 6 || q.Congestion < want+2 {
			t.Errorf("R1P malicious w=%d: %+v, want the permuted access, always ≥ 6", w, q)
		}
	}
}

// TestRAP_BankIsColumnPlusRowShift: RAP puts a[i][j] in bank (j + r_i) mod w
// with r a permutation, the convention of gen's "rap" hash.
func TestRAP_BankIsColumnPlusRowShift(t *testing.T) {
	s := newSim(cell{Matrix, 16, RAP, Random}, 7)
	for range 10 {
		s.trial()
		seen := map[int32]bool{}
		for _, v := range s.perm[0] {
			seen[v] = true
		}
		if len(seen) != 16 {
			t.Fatalf("r is not a permutation: %v", s.perm[0])
		}
		for i := range 16 {
			for j := range 16 {
				if got, want := s.bank(0, 0, i, j), (j+int(s.perm[0][i]))%16; got != want {
					t.Fatalf("a[%d][%d]: bank %d, want %d", i, j, got, want)
				}
			}
		}
	}
}

// TestRun_Deterministic: the same seed gives the same report whatever the
// other cells asked for; another seed gives another one.
func TestRun_Deterministic(t *testing.T) {
	o := Options{W: []int{8, 32}, Trials: 300, Seed: 42, Matrix: true, Array4: true}
	a, b := run(t, o), run(t, o)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two runs with one seed differ")
	}
	o.W = []int{32}
	c := run(t, o)
	for _, q := range c.Results {
		if p, _ := a.Cell(q.Array, q.W, q.Mapping, q.Access); p != q {
			t.Errorf("w=32 alone: %+v, with w=8: %+v", q, p)
		}
	}
	o.Seed = 43
	if d := run(t, o); reflect.DeepEqual(c, d) {
		t.Error("seeds 42 and 43 gave the same report")
	}
}

// TestOptions_Invalid: every bad option is reported, before any work.
func TestOptions_Invalid(t *testing.T) {
	o := Options{W: []int{3, 2048, 16, 16, 1}, Trials: 0, Matrix: false}
	err := o.Validate()
	if err == nil {
		t.Fatal("accepted")
	}
	for _, s := range []string{"w = 3", "w = 2048", "w = 16 given twice", "w = 1:", "trials = 0", "neither table"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("%q missing from %q", s, err)
		}
	}
	if _, err := Run(context.Background(), Options{W: []int{16}, Trials: MaxTrials + 1, Matrix: true}); err == nil {
		t.Error("trials above the limit accepted")
	}
	if _, err := Run(context.Background(), Options{Trials: 1, Matrix: true}); err == nil {
		t.Error("no w accepted")
	}
}

// TestRun_SmallestW: w = 2 works, without the permuted access (a triple
// needs three indices) but with a malicious row.
func TestRun_SmallestW(t *testing.T) {
	r := run(t, Options{W: []int{2}, Trials: 100, Seed: 1, Matrix: true, Array4: true})
	if _, ok := r.Cell(Array4, 2, R1P, Permuted); ok {
		t.Error("permuted access at w=2")
	}
	if q, ok := r.Cell(Array4, 2, RAW, Malicious); !ok || q.Congestion != 2 {
		t.Errorf("RAW malicious at w=2: %+v", q)
	}
}

// TestWriteTable_Layout: a row per mapping and access, a column per w.
func TestWriteTable_Layout(t *testing.T) {
	r := run(t, Options{W: []int{16, 32}, Trials: 50, Seed: 1, Matrix: true, Array4: true})
	var b strings.Builder
	if err := r.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, s := range []string{"w=16", "w=32", "RAP      stride   1.00   1.00", "R1P   malicious", "R1P   malicious", "(permuted)", "over 50 trials, seed 1"} {
		if !strings.Contains(out, s) {
			t.Errorf("%q missing from\n%s", s, out)
		}
	}
}

// TestTrial_NoAllocs: a trial reuses its buffers.
func TestTrial_NoAllocs(t *testing.T) {
	for _, m := range Array4Mappings {
		s := newSim(cell{Array4, 64, m, Random}, 1)
		if n := testing.AllocsPerRun(100, func() { s.trial() }); n != 0 {
			t.Errorf("%s: %v allocations per trial", m, n)
		}
	}
}

// TestRun_CancelStops: a run of hours stops soon after its context's
// cancellation, with the context's error. "Soon" is counted in work, not
// time: each worker checks the context before every chunk of trials (a
// new cell's first included), so after the cancellation each finishes at
// most the chunk it is in.
func TestRun_CancelStops(t *testing.T) {
	o := Options{W: []int{1024}, Trials: MaxTrials, Seed: 1, Matrix: true, Array4: true}
	ctx, cancel := context.WithCancel(context.Background())
	var steps atomic.Int64
	o.Progress = func(n int64) { steps.Add(n) }
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, o)
		done <- err
	}()
	for steps.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	at := steps.Load()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		// A chunk is max(1, pollSteps/w) trials of w steps.
		bound := int64(runtime.GOMAXPROCS(0)) * int64(pollSteps+1024)
		if after := steps.Load() - at; after > bound {
			t.Errorf("%d trial steps after the cancellation, want at most one chunk per worker (%d)", after, bound)
		}
	case <-time.After(testenv.Limit(5 * time.Minute)):
		t.Fatal("still running long after the cancellation")
	}
}

// TestWork_MatchesProgress: Work counts the steps a run reports through
// Progress, trials × w per cell, and prices them per table.
func TestWork_MatchesProgress(t *testing.T) {
	o := Options{W: []int{2, 16, 64}, Trials: 1000, Seed: 1, Matrix: true, Array4: true}
	var steps atomic.Int64
	o.Progress = func(n int64) { steps.Add(n) }
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	wk := o.Work()
	// Table II: 12 cells per w; Table IV: 42 (no permuted access at w = 2: 35).
	wantSteps := int64(1000) * (12*(2+16+64) + 35*2 + 42*(16+64))
	if wk.Steps != wantSteps || steps.Load() != wantSteps {
		t.Errorf("Work().Steps = %d, reported %d, want %d", wk.Steps, steps.Load(), wantSteps)
	}
	if wk.Cells != 3*12+35+2*42 {
		t.Errorf("%d cells", wk.Cells)
	}
	wantCPU := time.Duration(1000 * (StepNsMatrix*12*(2+16+64) + StepNsArray4*(35*2+42*(16+64))))
	if wk.CPU != wantCPU || wk.Longest != time.Duration(1000*64*StepNsArray4) {
		t.Errorf("CPU %v, longest %v; want %v, %v", wk.CPU, wk.Longest, wantCPU, time.Duration(1000*64*StepNsArray4))
	}
	// The largest run the limits allow does not overflow.
	big := Options{W: []int{2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}, Trials: MaxTrials, Matrix: true, Array4: true}.Work()
	if big.CPU <= 0 || big.CPU < 4*time.Hour {
		t.Errorf("largest run: %v", big.CPU)
	}
}
