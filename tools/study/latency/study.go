// Package latency is the coalescer-latency study of 003_* (Figs. 5.1 and
// 5.2): what the coalescer's latency costs a kernel on an SM that hides
// latency by switching among its warp contexts. A cycle model of one SM
// (Simulate) runs the warps of Accel-Sim traces round-robin; each LDG or
// STG waits for the coalescer (its fast path when the access is
// monotonic, as `lsugen profile` counts it) and the memory. The
// coalescers' latencies are those of the units lsugen generates at each
// clock, timed by the code `lsugen profile` uses (package
// tools/profile/coalescers), beside an ideal 1-cycle coalescer and the
// thesis's simulated 1- and 3-cycle coalescing.
package latency

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/lsugen/lsugen/plot"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/tools/accelsim"
	"github.com/lsugen/lsugen/tools/profile/coalescers"
	"github.com/lsugen/lsugen/tools/study"
	"github.com/lsugen/lsugen/units"
)

// ExampleTraces are the traces the study runs when given none, relative
// to the repository root: the example kernels of `lsugen profile`.
var ExampleTraces = []string{
	"specs/traces/accelsim/profile_copy.traceg",
	"specs/traces/accelsim/profile_spmv.traceg",
	"specs/traces/accelsim/profile_transpose.traceg",
}

// Study is the coalescer-latency study.
type Study struct {
	// Root is the directory ExampleTraces are relative to ("" is the
	// working directory).
	Root string
}

// Name is the study's name on the command line.
func (Study) Name() string { return "coalescer-latency" }

// Paper is 003_*.
func (Study) Paper() string { return "003" }

// Summary is its line in `lsugen study --list`.
func (Study) Summary() string {
	return "Figs. 5.1/5.2: slowdown of the generated coalescers against an ideal 1-cycle one, 48 and 24 warp contexts, on Accel-Sim traces"
}

// Limits of the list parameters.
const (
	maxContextValues = 4
	maxClocks        = 8
	maxThesisCycles  = 1000
)

// Params are the study's parameters.
func (Study) Params() []study.Param {
	return []study.Param{
		{Name: "contexts", Default: "48,24", Help: fmt.Sprintf("warp contexts of the SM, 1 to %d values of 1 to %d: the first is Fig. 5.1's configuration, the others Fig. 5.2's reduced ones", maxContextValues, MaxContexts)},
		{Name: "warps", Default: "192", Help: fmt.Sprintf("warps launched, 1 to %d: a trace's warps again in trace order until this many (each at least once), as a larger grid of the same kernel", MaxWarps)},
		{Name: "mem-latency", Default: "200", Help: fmt.Sprintf("cycles of the memory behind the coalescer for every LDG and STG, 0 to %d", MaxLatency)},
		{Name: "alu-latency", Default: "4", Help: fmt.Sprintf("cycles of every other instruction, 1 to %d", MaxLatency)},
		{Name: "clocks", Default: "40,48,56", Help: fmt.Sprintf("clock periods in FO4 at which the coalescers are generated, 1 to %d values of %d to %d (003_* Table 5.1's)", maxClocks, specs.MinClockFO4, specs.MaxClockFO4)},
		{Name: "timing-mode", Default: "unsized", Help: "timing model that pipelines the generated units: unsized (the model of the thesis's tables) or sized"},
		{Name: "thesis-fast", Default: "1", Help: fmt.Sprintf("cycles the thesis's simulated coalescer holds a monotonic warp (§4.2), 1 to %d", maxThesisCycles)},
		{Name: "thesis-slow", Default: "3", Help: fmt.Sprintf("cycles it holds any other warp, and the slow coalescer every warp (§5.2), 1 to %d", maxThesisCycles)},
		{Name: "pipelined", Default: "true", Help: "true: the coalescer takes an access every cycle (the clocked unit's ready_o = 1); false: an access holds it for its whole latency"},
	}
}

// settings are the parameters, checked.
type settings struct {
	contexts               []int
	warps                  int
	memLatency, aluLatency int
	clocks                 []float64
	mode                   timing.Mode
	thesisFast, thesisSlow int
	pipelined              bool
}

// intParam reads parameter name as an integer in lo..hi.
func intParam(opt study.Options, ps []study.Param, name string, lo, hi int) (int, error) {
	v := opt.Value(ps, name)
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("parameter %s = %q: want an integer from %d to %d", name, v, lo, hi)
	}
	return n, nil
}

// listParam reads parameter name as 1..most comma-separated numbers, each
// in lo..hi, by parse.
func listParam[T int | float64](opt study.Options, ps []study.Param, name string, most int, lo, hi T, parse func(string) (T, error)) ([]T, error) {
	v := opt.Value(ps, name)
	fields := strings.Split(v, ",")
	bad := fmt.Errorf("parameter %s = %q: want 1 to %d comma-separated numbers from %v to %v", name, v, most, lo, hi)
	if len(fields) > most {
		return nil, bad
	}
	var out []T
	for _, f := range fields {
		x, err := parse(strings.TrimSpace(f))
		if err != nil || x < lo || x > hi || slices.Contains(out, x) {
			return nil, bad
		}
		out = append(out, x)
	}
	return out, nil
}

func (s Study) settings(opt study.Options) (settings, error) {
	ps := s.Params()
	var st settings
	if err := opt.CheckSet(ps); err != nil {
		return st, err
	}
	var err error
	if st.contexts, err = listParam(opt, ps, "contexts", maxContextValues, 1, MaxContexts, strconv.Atoi); err != nil {
		return st, err
	}
	if st.warps, err = intParam(opt, ps, "warps", 1, MaxWarps); err != nil {
		return st, err
	}
	if st.memLatency, err = intParam(opt, ps, "mem-latency", 0, MaxLatency); err != nil {
		return st, err
	}
	if st.aluLatency, err = intParam(opt, ps, "alu-latency", 1, MaxLatency); err != nil {
		return st, err
	}
	parseFloat := func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }
	if st.clocks, err = listParam(opt, ps, "clocks", maxClocks, float64(specs.MinClockFO4), float64(specs.MaxClockFO4), parseFloat); err != nil {
		return st, err
	}
	switch m := opt.Value(ps, "timing-mode"); m {
	case string(timing.Unsized), string(timing.Sized):
		st.mode = timing.Mode(m)
	default:
		return st, fmt.Errorf("parameter timing-mode = %q: want unsized or sized", m)
	}
	if st.thesisFast, err = intParam(opt, ps, "thesis-fast", 1, maxThesisCycles); err != nil {
		return st, err
	}
	if st.thesisSlow, err = intParam(opt, ps, "thesis-slow", 1, maxThesisCycles); err != nil {
		return st, err
	}
	switch v := opt.Value(ps, "pipelined"); v {
	case "true", "false":
		st.pipelined = v == "true"
	default:
		return st, fmt.Errorf("parameter pipelined = %q: want true or false", v)
	}
	return st, nil
}

// Coalescers are the coalescers the study compares, the ideal one first:
// the ideal 1-cycle coalescer; the thesis's simulated ones (fast: 1 cycle
// for a monotonic warp, 3 for others; slow: 3 always; §4.2, §5.2); and at
// each clock lsugen's all-to-all and speculative units as generated
// there, their cycles from coalescers.Time, the code `lsugen profile`
// uses (its combined timing: the clocked units' latencies).
func Coalescers(clocks []float64, mode timing.Mode, thesisFast, thesisSlow int) ([]Coalescer, error) {
	file, diags := specs.NewLoader().Parse([]byte(coalescers.Builtin), "coalescer_thesis.hcl")
	if diags.HasErrors() {
		return nil, diagError(diags)
	}
	tm, diags, err := coalescers.Time(file.Units, coalescers.Options{ClocksFO4: clocks, Mode: mode, SpecTiming: coalescers.Combined,
		Spec: coalescers.BuiltinName, Generate: units.Generate, Clock: units.ClockedAt(nil)})
	if err != nil {
		return nil, err
	}
	if diags.HasErrors() {
		return nil, diagError(diags)
	}
	out := []Coalescer{
		{Name: "ideal", Fast: 1, Slow: 1},
		{Name: "thesis fast", Fast: thesisFast, Slow: thesisSlow},
		{Name: "thesis slow", Fast: thesisSlow, Slow: thesisSlow},
	}
	for i, p := range clocks {
		out = append(out,
			Coalescer{Name: fmt.Sprintf("all-to-all @%g", p), Fast: tm.AllToAll.Cycles[i], Slow: tm.AllToAll.Cycles[i]},
			Coalescer{Name: fmt.Sprintf("speculative @%g", p), Fast: tm.SpeculativeFast.Cycles[i], Slow: tm.SpeculativeSlow.Cycles[i]})
	}
	return out, nil
}

// diagError flattens the built-in spec's diagnostics: they are lsugen's
// own units, so an error there is a bug, not the user's input.
func diagError(diags hcl.Diagnostics) error {
	return fmt.Errorf("the built-in coalescers: %s", diags.Error())
}

// config is the SM of these settings with coalescer c and n contexts.
func (st settings) config(c Coalescer, n int) Config {
	return Config{Contexts: n, Warps: st.warps, ALULatency: st.aluLatency, MemLatency: st.memLatency, Coalescer: c, Pipelined: st.pipelined}
}

// traces are the traces a run reads: inputs, checked (each an Accel-Sim
// trace that exists, none twice), or the example traces under s.Root.
func (s Study) traces(inputs []string) ([]string, error) {
	if len(inputs) == 0 {
		var out []string
		for _, t := range ExampleTraces {
			t = filepath.Join(s.Root, t)
			if _, err := os.Stat(t); err != nil {
				return nil, fmt.Errorf("%w (the example traces are read from the repository: run in its root, or give traces)", err)
			}
			out = append(out, t)
		}
		return out, nil
	}
	seen := map[string]bool{}
	for _, t := range inputs {
		if seen[filepath.Clean(t)] {
			return nil, fmt.Errorf("%s given twice", t)
		}
		seen[filepath.Clean(t)] = true
		if !accelsim.IsTracePath(t) {
			return nil, fmt.Errorf("%s: not an Accel-Sim trace (want a kernelslist.g, or a kernel trace that starts with its \"-kernel name\" header, plain or xz)", t)
		}
		if _, err := os.Stat(t); err != nil {
			return nil, err
		}
	}
	return inputs, nil
}

// Run computes the study: the coalescers' latencies, then per trace each
// coalescer's cycles at each contexts value (of the parameter and of the
// figure's axis), the tables, the figure and the notes.
func (s Study) Run(ctx context.Context, opt study.Options) (*study.Result, error) {
	st, err := s.settings(opt)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	traces, err := s.traces(opt.Inputs)
	if err != nil {
		return nil, err
	}
	// chart: slowdown against the contexts, every 4 up to the most given
	var chartContexts []int
	for n := 4; n <= slices.Max(st.contexts); n += 4 {
		chartContexts = append(chartContexts, n)
	}
	if len(chartContexts) == 0 {
		chartContexts = []int{slices.Max(st.contexts)}
	}
	cs, err := Coalescers(st.clocks, st.mode, st.thesisFast, st.thesisSlow)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	allContexts := slices.Clone(st.contexts)
	for _, n := range chartContexts {
		if !slices.Contains(allContexts, n) {
			allContexts = append(allContexts, n)
		}
	}
	steps, done := len(traces)*len(cs)*len(allContexts), 0
	budget := accelsim.NewBudget()
	res := &study.Result{Study: s.Name(), Paper: s.Paper(), Params: opt.Resolved(s.Params()),
		Title: "Coalescer latency against warp contexts (003_* Figs. 5.1, 5.2)"}
	main := study.Table{Title: "Cycles and slowdown against the ideal 1-cycle coalescer (Fig. 5.1 at the first contexts, Fig. 5.2 at the others)",
		Columns: []string{"trace", "coalescer", "fast / slow"}}
	for _, n := range st.contexts {
		main.Columns = append(main.Columns, fmt.Sprintf("cycles @%d", n), fmt.Sprintf("vs ideal @%d", n))
	}
	work := study.Table{Title: "Workloads", Columns: []string{"trace", "warps traced", "warps launched", "instructions", "LDG/STG", "monotonic"}}
	var slowdowns []pairSlowdown
	for _, path := range traces {
		w, err := Load(ctx, path, budget)
		if err != nil {
			return nil, err
		}
		launched := max(st.warps, len(w.Warps))
		work.Rows = append(work.Rows, []string{w.Name, fmt.Sprint(len(w.Warps)), fmt.Sprint(launched), fmt.Sprint(w.Instructions),
			fmt.Sprint(w.Accesses), percent(w.MonotonicAccesses, w.Accesses)})
		// cycles[ci][n]: coalescer cs[ci] with n contexts
		cycles := make([]map[int]int64, len(cs))
		for ci, c := range cs {
			cycles[ci] = map[int]int64{}
			for _, n := range allContexts {
				r, err := Simulate(ctx, w, st.config(c, n))
				if err != nil {
					return nil, err
				}
				cycles[ci][n] = r.Cycles
				if done++; opt.Progress != nil {
					opt.Progress(done, steps)
				}
			}
		}
		slowdown := func(ci, n int) float64 { return ratio(cycles[ci][n], cycles[0][n]) }
		chart := plot.LineChart{Title: w.Name, Subtitle: fmt.Sprintf("%d warps launched, memory %d cycles, ALU %d", launched, st.memLatency, st.aluLatency),
			XLabel: "warp contexts", YLabel: "cycles / ideal coalescer's", HLines: []plot.Line{{Value: 1, Label: "ideal"}}}
		for ci, c := range cs {
			row := []string{w.Name, c.Name, fmt.Sprintf("%d / %d", c.Fast, c.Slow)}
			var sd []float64
			for _, n := range st.contexts {
				row = append(row, fmt.Sprint(cycles[ci][n]), fmt.Sprintf("%.4f", slowdown(ci, n)))
				sd = append(sd, slowdown(ci, n))
			}
			main.Rows = append(main.Rows, row)
			if ci == 0 {
				continue
			}
			slowdowns = append(slowdowns, pairSlowdown{trace: w.Name, coalescer: c.Name, generated: ci >= thesisRows, at: sd})
			ser := plot.Series{Name: c.Name}
			for _, n := range chartContexts {
				y := slowdown(ci, n)
				ser.Points = append(ser.Points, plot.Point{X: float64(n), Y: y, Tip: fmt.Sprintf("%s, %d contexts: %d cycles, %.4f× ideal", c.Name, n, cycles[ci][n], y)})
			}
			chart.Series = append(chart.Series, ser)
		}
		res.Charts = append(res.Charts, chart)
	}
	res.Tables = append(res.Tables, coalescerTable(cs), work, main)
	res.Notes = notes(slowdowns, st.contexts)
	return res, nil
}

// coalescerTable lists the coalescers' latencies.
func coalescerTable(cs []Coalescer) study.Table {
	t := study.Table{Title: "Coalescers: cycles of a monotonic access (fast) and of the others (slow)", Columns: []string{"coalescer", "fast", "slow", "from"}}
	for _, c := range cs {
		from := "the unit lsugen generates at this clock (as `lsugen profile` counts it)"
		switch c.Name {
		case "ideal":
			from = "every access in 1 cycle"
		case "thesis fast", "thesis slow":
			from = "the thesis's simulated latencies (thesis-fast, thesis-slow)"
		}
		t.Rows = append(t.Rows, []string{c.Name, fmt.Sprint(c.Fast), fmt.Sprint(c.Slow), from})
	}
	return t
}

// thesisRows is the number of coalescers Coalescers lists before the
// generated units: the ideal and the thesis's two.
const thesisRows = 3

// pairSlowdown is a (trace, coalescer) pair's slowdown against the ideal
// coalescer at each contexts value.
type pairSlowdown struct {
	trace, coalescer string
	generated        bool // one of lsugen's generated units
	at               []float64
}

// notes are the computed observations against the paper's claims: the
// largest slowdown at each contexts value, over all coalescers and over
// lsugen's generated units, and in how many pairs the gap to the ideal
// coalescer grows from the first contexts value to the last (Fig. 5.2).
func notes(slowdowns []pairSlowdown, contexts []int) []string {
	var out []string
	worst := func(i int, generated bool) string {
		w := -1
		for k, p := range slowdowns {
			if (!generated || p.generated) && (w < 0 || p.at[i] > slowdowns[w].at[i]) {
				w = k
			}
		}
		if w < 0 {
			return "none"
		}
		p := slowdowns[w]
		return fmt.Sprintf("%+.2f%% (%s on %s)", 100*(p.at[i]-1), p.coalescer, p.trace)
	}
	for i, n := range contexts {
		out = append(out, fmt.Sprintf("With %d warp contexts the largest slowdown against the ideal coalescer is %s; of lsugen's generated units %s.", n, worst(i, false), worst(i, true)))
	}
	if last := len(contexts) - 1; last > 0 && len(slowdowns) > 0 {
		grew := 0
		for _, p := range slowdowns {
			if p.at[last] > p.at[0]+1e-9 {
				grew++
			}
		}
		out = append(out, fmt.Sprintf("From %d to %d contexts the gap to the ideal coalescer grows in %d of %d (trace, coalescer) pairs.", contexts[0], contexts[last], grew, len(slowdowns)))
	}
	return out
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

func percent(n, of int) string {
	if of == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}
