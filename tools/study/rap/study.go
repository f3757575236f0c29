package rap

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"sync"

	"github.com/lsugen/lsugen/plot"
	"github.com/lsugen/lsugen/tools/rapsim"
	"github.com/lsugen/lsugen/tools/study"
)

// DMM is the study rap-dmm.
type DMM struct{}

// Limits of rap-dmm's parameters.
const (
	minW, maxW           = 4, 256 // transposes and Table IV: w² threads per trial
	minMCW, maxMCW       = 4, rapsim.MaxW
	maxLatency           = 1000
	maxTrials            = 100_000
	maxTransposeRequests = 1 << 27 // trials · w²: about a minute on one core
	maxMCTrials          = 1_000_000
)

// figure3L is the latency of the paper's Figure 3 example.
const figure3L = 5

func (DMM) Name() string  { return "rap-dmm" }
func (DMM) Paper() string { return "004" }
func (DMM) Summary() string {
	return "DMM pipeline timing and the CRSW/SRCW/DRDW transposes under RAW/RAS/RAP (Table III), Theorem 2 beside the Monte Carlo (Tables II, IV)"
}

func (DMM) Params() []study.Param {
	return []study.Param{
		{Name: "w", Default: "32", Help: fmt.Sprintf("banks and warp width of the transposes and of Table IV's w⁴ array: a power of two, %d..%d", minW, maxW)},
		{Name: "latency", Default: strconv.Itoa(figure3L), Help: fmt.Sprintf("DMM memory latency l in time units, 1..%d (the paper's Figure 3 uses 5; it gives none for the GPU)", maxLatency)},
		{Name: "trials", Default: "1000", Help: fmt.Sprintf("random draws of RAS's and RAP's numbers per transpose, 1..%d, and trials·w² <= %d", maxTrials, maxTransposeRequests)},
		{Name: "mc-w", Default: "16,32,64,128,256", Help: fmt.Sprintf("widths of Table II's Monte Carlo and Theorem 2's bound: distinct powers of two, %d..%d, comma-separated", minMCW, maxMCW)},
		{Name: "mc-trials", Default: strconv.Itoa(rapsim.DefaultTrials), Help: fmt.Sprintf("Monte Carlo trials per Table II/IV cell (tools/rapsim), 1..%d", maxMCTrials)},
		{Name: "seed", Default: "1", Help: "random seed, 0..2^64-1: the same seed gives the same result"},
	}
}

// config is rap-dmm's parameters, checked.
type config struct {
	w, l, trials, mcTrials int
	mcW                    []int
	seed                   uint64
}

func (s DMM) config(opt study.Options) (config, error) {
	ps := s.Params()
	if err := opt.CheckSet(ps); err != nil {
		return config{}, err
	}
	val := func(name string) string { return opt.Value(ps, name) }
	var c config
	var err error
	if c.w, err = intIn("w", val("w"), minW, maxW); err == nil && !pow2(c.w) {
		err = fmt.Errorf("w = %d: want a power of two in %d..%d", c.w, minW, maxW)
	}
	if err != nil {
		return c, err
	}
	if c.l, err = intIn("latency", val("latency"), 1, maxLatency); err != nil {
		return c, err
	}
	if c.trials, err = intIn("trials", val("trials"), 1, maxTrials); err != nil {
		return c, err
	}
	if n := c.trials * c.w * c.w; n > maxTransposeRequests {
		return c, fmt.Errorf("trials = %d at w = %d: trials·w² = %d requests, want at most %d", c.trials, c.w, n, maxTransposeRequests)
	}
	if c.mcTrials, err = intIn("mc-trials", val("mc-trials"), 1, maxMCTrials); err != nil {
		return c, err
	}
	seen := map[int]bool{}
	for _, f := range strings.Split(val("mc-w"), ",") {
		w, err := intIn("mc-w", strings.TrimSpace(f), minMCW, maxMCW)
		if err == nil && !pow2(w) {
			err = fmt.Errorf("mc-w = %d: want powers of two in %d..%d", w, minMCW, maxMCW)
		}
		if err == nil && seen[w] {
			err = fmt.Errorf("mc-w: %d given twice", w)
		}
		if err != nil {
			return c, err
		}
		seen[w] = true
		c.mcW = append(c.mcW, w)
	}
	if c.seed, err = strconv.ParseUint(strings.TrimSpace(val("seed")), 10, 64); err != nil {
		return c, fmt.Errorf("seed = %q: want a whole number in 0..%d", val("seed"), uint64(math.MaxUint64))
	}
	return c, nil
}

// intIn parses parameter name's value v as a whole number in lo..hi.
func intIn(name, v string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%s = %q: want a whole number in %d..%d", name, v, lo, hi)
	}
	return n, nil
}

func pow2(n int) bool { return n > 0 && n&(n-1) == 0 }

// Run computes the study: the DMM's timing of the three access operations
// (and the paper's Figure 3 example), Table III's transposes, Theorem 2's
// bound beside Table II's Monte Carlo, and Table IV's Monte Carlo with the
// random numbers each mapping needs.
func (s DMM) Run(ctx context.Context, opt study.Options) (*study.Result, error) {
	c, err := s.config(opt)
	if err != nil {
		return nil, err
	}
	mc2 := rapsim.Options{W: c.mcW, Trials: c.mcTrials, Seed: c.seed, Matrix: true}
	mc4 := rapsim.Options{W: []int{c.w}, Trials: c.mcTrials, Seed: c.seed, Array4: true}
	// Progress in requests: the transposes' 2w² per trial, the Monte
	// Carlo's steps (one thread of one trial).
	transposeSteps := int64(len(Algorithms)*len(TransposeMappings)) * int64(c.trials) * int64(2*c.w*c.w)
	total := transposeSteps + mc2.Work().Steps + mc4.Work().Steps
	// rapsim reports from its workers: one call at a time to Progress.
	var mu sync.Mutex
	var done int64
	report := func(n int64) {
		if opt.Progress != nil {
			mu.Lock()
			defer mu.Unlock()
			done += n
			opt.Progress(int(done), int(total))
		}
	}
	mc2.Progress, mc4.Progress = report, report

	res := &study.Result{Study: s.Name(), Paper: s.Paper(), Params: opt.Resolved(s.Params()),
		Title: "RAP on the Discrete Memory Machine: pipelined timing, transposes, congestion bounds"}

	res.Tables = append(res.Tables, timingTable(c.w, c.l))

	tr, err := Transposes(ctx, c.w, c.l, c.trials, c.seed, func() { report(int64(2 * c.w * c.w)) })
	if err != nil {
		return nil, err
	}
	res.Tables = append(res.Tables, transposeTable(tr, c))
	res.Notes = append(res.Notes, transposeNotes(tr)...)

	rep2, err := rapsim.Run(ctx, mc2)
	if err != nil {
		return nil, err
	}
	rep4, err := rapsim.Run(ctx, mc4)
	if err != nil {
		return nil, err
	}
	t2, chart, notes := theoremTable(rep2, c)
	res.Tables = append(res.Tables, t2, monteCarloTable(rep2, c), table4(rep4, c))
	res.Notes = append(res.Notes, notes...)
	res.Charts = []plot.LineChart{chart}
	return res, nil
}

// accessOp is one of Section III's access operations: the element
// (row, column) thread T(i·w+j) accesses.
type accessOp struct {
	name string
	elem func(i, j, w int) [2]int
}

var accessOps = []accessOp{
	{"contiguous", func(i, j, w int) [2]int { return [2]int{i, j} }},
	{"stride", func(i, j, w int) [2]int { return [2]int{j, i} }},
	{"diagonal", func(i, j, w int) [2]int { return [2]int{j, (i + j) % w} }},
}

// timingTable simulates the DMM's pipeline on the paper's Figure 3 example
// and on Section III's three access operations under RAW (w warps), beside
// k + l − 1 for their k stages.
func timingTable(w, l int) study.Table {
	t := study.Table{
		Title:   fmt.Sprintf("DMM pipelined timing: k stages (the warps' summed congestion) take k + l − 1 time units (RAW mapping; Figure 3 at w = 4, l = %d; the access operations at w = %d, l = %d)", figure3L, w, l),
		Columns: []string{"access", "w", "l", "warps", "stages k", "DMM time (simulated)", "k + l − 1"},
	}
	row := func(name string, w, l int, warps [][]request) {
		cc := newCongestionCounter(w, w*w)
		stages := make([][]int, len(warps))
		k := 0
		for v, reqs := range warps {
			c := cc.of(reqs)
			stages[v] = []int{c}
			k += c
		}
		t.Rows = append(t.Rows, []string{name, strconv.Itoa(w), strconv.Itoa(l), strconv.Itoa(len(warps)),
			strconv.Itoa(k), strconv.Itoa(dmmTime(stages, l)), strconv.Itoa(k + l - 1)})
	}
	// Figure 3: W(0) reads m[7], m[5], m[15], m[0]; W(1) m[10], m[11], m[12], m[9].
	var fig3 [][]request
	for _, addrs := range [][]int{{7, 5, 15, 0}, {10, 11, 12, 9}} {
		var reqs []request
		for _, a := range addrs {
			reqs = append(reqs, request{addr: a, bank: a % 4})
		}
		fig3 = append(fig3, reqs)
	}
	row("Figure 3's two warps", 4, figure3L, fig3)
	for _, op := range accessOps {
		warps := make([][]request, w)
		for i := range w {
			for j := range w {
				e := op.elem(i, j, w)
				warps[i] = append(warps[i], request{addr: e[0]*w + e[1], bank: e[1]})
			}
		}
		row(op.name+" access", w, l, warps)
	}
	return t
}

func transposeTable(tr []TransposeResult, c config) study.Table {
	t := study.Table{
		Title: fmt.Sprintf("Table III on the DMM: transposes of a %d×%d matrix simulated access by access, latency l = %d, mean of %d draws of the mapping's numbers (seed %d)",
			c.w, c.w, c.l, c.trials, c.seed),
		Columns: []string{"transpose", "mapping", "read congestion", "write congestion", "read max", "write max", "stages", "DMM time", "time min..max", "time / RAP's"},
	}
	rapTime := map[Algorithm]float64{}
	for _, r := range tr {
		if r.Mapping == rapsim.RAP {
			rapTime[r.Algorithm] = r.Time
		}
	}
	for _, r := range tr {
		t.Rows = append(t.Rows, []string{string(r.Algorithm), string(r.Mapping),
			f2(r.ReadCongestion), f2(r.WriteCongestion), strconv.Itoa(r.ReadMax), strconv.Itoa(r.WriteMax),
			f1(r.Stages), f1(r.Time), fmt.Sprintf("%d..%d", r.TimeMin, r.TimeMax), f2(r.Time / rapTime[r.Algorithm])})
	}
	return t
}

func transposeNotes(tr []TransposeResult) []string {
	time := map[Algorithm]map[rapsim.Mapping]float64{}
	for _, r := range tr {
		if time[r.Algorithm] == nil {
			time[r.Algorithm] = map[rapsim.Mapping]float64{}
		}
		time[r.Algorithm][r.Mapping] = r.Time
	}
	var notes []string
	for _, a := range []Algorithm{CRSW, SRCW} {
		m := time[a]
		notes = append(notes, fmt.Sprintf("%s: RAP is %.1f× faster than RAW and %.2f× faster than RAS on the DMM", a,
			m[rapsim.RAW]/m[rapsim.RAP], m[rapsim.RAS]/m[rapsim.RAP]))
	}
	m := time[DRDW]
	notes = append(notes, fmt.Sprintf("DRDW: RAP takes %.2f× RAW's time (the diagonal is RAW's conflict-free order) and %.2f× RAS's", m[rapsim.RAP]/m[rapsim.RAW], m[rapsim.RAP]/m[rapsim.RAS]))
	return notes
}

// theorem2 returns the threshold of Lemma 4, e²·ln w / ln ln w (a half
// warp exceeds it in a bank with probability < 1/w²), and the bound on a
// warp's expected congestion it gives in the proof of Theorem 2: two half
// warps, each below the threshold plus (1/2w)·w.
func theorem2(w int) (threshold, warpBound float64) {
	lw := math.Log(float64(w))
	threshold = math.E * math.E * lw / math.Log(lw)
	return threshold, 2 * (threshold + 0.5)
}

func theoremTable(rep *rapsim.Report, c config) (study.Table, plot.LineChart, []string) {
	t := study.Table{
		Title: fmt.Sprintf("Theorem 2 beside the Monte Carlo (tools/rapsim, %d trials, seed %d): the bound on RAP's expected congestion of any warp access, and the measured means",
			c.mcTrials, c.seed),
		Columns: []string{"w", "e²·ln w/ln ln w", "bound 2(…+½)", "min(bound, w)", "RAP random", "RAP diagonal", "RAP stride", "RAS stride", "bound / worst RAP"},
	}
	chart := plot.LineChart{Title: "Mean congestion of a warp access against w (Monte Carlo) and Theorem 2's bound",
		XLabel: "w (banks = threads per warp)", YLabel: "congestion", LogX: true}
	series := map[string]*plot.Series{}
	names := []string{"RAP diagonal", "RAP random", "RAS stride", "RAW stride", "Theorem 2 bound (min with w)"}
	for _, n := range names {
		series[n] = &plot.Series{Name: n}
	}
	add := func(name string, w int, y float64) {
		series[name].Points = append(series[name].Points, plot.Point{X: float64(w), Y: y, Tip: fmt.Sprintf("%s, w = %d: %.2f", name, w, y)})
	}
	cell := func(w int, m rapsim.Mapping, a rapsim.Access) float64 {
		q, _ := rep.Cell(rapsim.Matrix, w, m, a)
		return q.Congestion
	}
	var vacuous []string
	for _, w := range c.mcW {
		th, bound := theorem2(w)
		worst := 0.0
		for _, a := range rapsim.MatrixAccesses {
			worst = max(worst, cell(w, rapsim.RAP, a))
		}
		capped := math.Min(bound, float64(w))
		if bound >= float64(w) {
			vacuous = append(vacuous, strconv.Itoa(w))
		}
		t.Rows = append(t.Rows, []string{strconv.Itoa(w), f2(th), f2(bound), f2(capped),
			f2(cell(w, rapsim.RAP, rapsim.Random)), f2(cell(w, rapsim.RAP, rapsim.Diagonal)), f2(cell(w, rapsim.RAP, rapsim.Stride)),
			f2(cell(w, rapsim.RAS, rapsim.Stride)), f1(bound / worst)})
		add("RAP diagonal", w, cell(w, rapsim.RAP, rapsim.Diagonal))
		add("RAP random", w, cell(w, rapsim.RAP, rapsim.Random))
		add("RAS stride", w, cell(w, rapsim.RAS, rapsim.Stride))
		add("RAW stride", w, cell(w, rapsim.RAW, rapsim.Stride))
		add("Theorem 2 bound (min with w)", w, capped)
	}
	for _, n := range names {
		chart.Series = append(chart.Series, *series[n])
	}
	var notes []string
	if len(vacuous) > 0 {
		notes = append(notes, fmt.Sprintf("Theorem 2's bound is at least w (no better than the trivial congestion ≤ w) at w = %s", strings.Join(vacuous, ", ")))
	}
	return t, chart, notes
}

// monteCarloTable is Table II: rapsim's mean congestion per mapping and
// access, a column per w.
func monteCarloTable(rep *rapsim.Report, c config) study.Table {
	t := study.Table{Title: fmt.Sprintf("Table II: mean congestion of a warp access to a w×w matrix (tools/rapsim, %d trials, seed %d)", c.mcTrials, c.seed),
		Columns: []string{"mapping", "access"}}
	for _, w := range c.mcW {
		t.Columns = append(t.Columns, fmt.Sprintf("w=%d", w))
	}
	for _, m := range rapsim.MatrixMappings {
		for _, a := range rapsim.MatrixAccesses {
			row := []string{string(m), string(a)}
			for _, w := range c.mcW {
				q, _ := rep.Cell(rapsim.Matrix, w, m, a)
				row = append(row, f2(q.Congestion))
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// RandomNumbers is how many random numbers in 0..w-1 a mapping of a w⁴
// array draws (Table IV's last row), as a formula in w and its value: RAS
// one per (i, j, k); each permutation w; w²P w² permutations; 1Pw²R one
// permutation and w² numbers.
func RandomNumbers(m rapsim.Mapping, w int) (formula string, n int) {
	switch m {
	case rapsim.RAW:
		return "0", 0
	case rapsim.RAS:
		return "w³", w * w * w
	case rapsim.P1, rapsim.R1P:
		return "w", w
	case rapsim.P3:
		return "3w", 3 * w
	case rapsim.W2P:
		return "w²·w", w * w * w
	case rapsim.P1W2R:
		return "w² + w", w*w + w
	}
	return "?", -1
}

// table4 is Table IV at w: rapsim's mean congestion per mapping and access
// of a w⁴ array, with the random numbers each mapping needs and their bits.
func table4(rep *rapsim.Report, c config) study.Table {
	t := study.Table{Title: fmt.Sprintf("Table IV at w = %d: mean congestion of a warp access to a w⁴ array (tools/rapsim, %d trials, seed %d; malicious = the worst access measured) and the random numbers each mapping needs",
		c.w, c.mcTrials, c.seed),
		Columns: []string{"mapping"}}
	for _, a := range rapsim.Array4Accesses {
		t.Columns = append(t.Columns, string(a))
	}
	t.Columns = append(t.Columns, "random numbers", "count", "table bits")
	l := bits.TrailingZeros(uint(c.w))
	for _, m := range rapsim.Array4Mappings {
		row := []string{string(m)}
		for _, a := range rapsim.Array4Accesses {
			q, ok := rep.Cell(rapsim.Array4, c.w, m, a)
			if !ok {
				row = append(row, "-")
				continue
			}
			row = append(row, f2(q.Congestion))
		}
		formula, n := RandomNumbers(m, c.w)
		row = append(row, formula, strconv.Itoa(n), strconv.Itoa(n*l))
		t.Rows = append(t.Rows, row)
	}
	return t
}

func f1(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }
func f2(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
