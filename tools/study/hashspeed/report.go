package hashspeed

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/lsugen/lsugen/plot"
	"github.com/lsugen/lsugen/tools/search"
	"github.com/lsugen/lsugen/tools/study"
)

func speedText(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }

func percentText(p *float64) string {
	if p == nil {
		return "-"
	}
	return strconv.FormatFloat(*p, 'f', 1, 64) + "%"
}

// geomean is the geometric mean of each method's speed-ups.
func geomean(rows []*row) []float64 {
	out := make([]float64, len(methods))
	for i := range methods {
		var sum float64
		for _, r := range rows {
			sum += math.Log(r.speedups[i])
		}
		out[i] = math.Exp(sum / float64(len(rows)))
	}
	return out
}

// speedupTable is Fig. 9's form: per workload the speed-up of each method
// over mod N, and their geometric means.
func speedupTable(rows []*row, s settings) study.Table {
	t := study.Table{
		Title:   fmt.Sprintf("speed-up over mod %d (execution time under mod %d / under the method; Fig. 9's form)", 1<<s.m, 1<<s.m),
		Columns: []string{"workload", "shared", "other", "conflicts", "cycles"},
	}
	for _, m := range methods {
		t.Columns = append(t.Columns, m.label)
	}
	for _, r := range rows {
		cells := []string{r.w.Name, strconv.Itoa(r.shared), strconv.Itoa(r.other), strconv.FormatInt(r.before, 10), strconv.FormatInt(r.base, 10)}
		for _, x := range r.speedups {
			cells = append(cells, speedText(x))
		}
		t.Rows = append(t.Rows, cells)
	}
	cells := []string{"geometric mean", "", "", "", ""}
	for _, g := range geomean(rows) {
		cells = append(cells, speedText(g))
	}
	t.Rows = append(t.Rows, cells)
	return t
}

// cyclesTable is the execution times the speed-ups divide: under mod N
// and under each method.
func cyclesTable(rows []*row, s settings) study.Table {
	t := study.Table{Title: "execution time in cycles", Columns: []string{"workload", fmt.Sprintf("mod %d", 1<<s.m)}}
	for _, m := range methods {
		t.Columns = append(t.Columns, m.label)
	}
	for _, r := range rows {
		cells := []string{r.w.Name, strconv.FormatInt(r.base, 10)}
		for _, c := range r.cycles {
			cells = append(cells, strconv.FormatInt(c, 10))
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}

// removedTable is Fig. 8's form per workload and Table 6's mean below it,
// with the pooled percentage beside.
func removedTable(rows []*row, cmp *search.KernelsCompared) study.Table {
	t := study.Table{
		Title:   "bank conflicts removed (Fig. 8's form per workload; Table 6: their mean over the workloads with conflicts; +N: N added where mod N had none)",
		Columns: []string{"workload", "conflicts"},
	}
	for _, m := range methods {
		t.Columns = append(t.Columns, m.label)
	}
	for _, r := range rows {
		cells := []string{r.w.Name, strconv.FormatInt(r.before, 10)}
		for i, p := range r.removed {
			switch {
			case p != nil:
				cells = append(cells, percentText(p))
			case r.conflictsAfter[i] > 0: // none before, some added
				cells = append(cells, "+"+strconv.FormatInt(r.conflictsAfter[i], 10))
			default:
				cells = append(cells, "none")
			}
		}
		t.Rows = append(t.Rows, cells)
	}
	mean, pooled := []string{"", ""}, []string{"pooled (all conflicts together)", ""}
	for _, m := range methods {
		for _, tot := range cmp.Totals {
			if tot.Function == m.function && tot.Method == m.search {
				mean = append(mean, percentText(tot.MeanRemoved))
				pooled = append(pooled, percentText(tot.PooledRemoved))
				mean[0] = fmt.Sprintf("mean of %d (Table 6)", tot.Averaged)
			}
		}
	}
	t.Rows = append(t.Rows, mean, pooled)
	return t
}

// configTable is the configuration the search chose for each workload
// and method (Table 5's form).
func configTable(rows []*row) study.Table {
	t := study.Table{Title: "the configurations the search chose (Table 5's form)", Columns: []string{"workload", "method", "configuration"}}
	for _, r := range rows {
		for i, m := range methods {
			t.Rows = append(t.Rows, []string{r.w.Name, m.label, r.configs[i]})
		}
	}
	return t
}

// slowdown is the percentage by which the hash cycles alone lengthen r's
// execution under mod N.
func (r *row) slowdown() float64 {
	return 100 * (float64(r.baseHash)/float64(r.base) - 1)
}

// priceTable is the price of the configurable hash's extra cycle: each
// workload under mod N with and without it (000_* §7.1 measures it on
// conflict-free kernels).
func priceTable(rows []*row, s settings) study.Table {
	t := study.Table{
		Title:   fmt.Sprintf("the price of the configurable hash's %d extra cycle(s) on every shared-memory access, under mod %d", s.timing.HashCycles, 1<<s.m),
		Columns: []string{"workload", "conflicts", "cycles", "with hash cycles", "slower"},
	}
	for _, r := range rows {
		t.Rows = append(t.Rows, []string{r.w.Name, strconv.FormatInt(r.before, 10), strconv.FormatInt(r.base, 10),
			strconv.FormatInt(r.baseHash, 10), strconv.FormatFloat(r.slowdown(), 'f', 2, 64) + "%"})
	}
	return t
}

// notes are the run's computed observations.
func notes(rows []*row, s settings) []string {
	var out []string
	g := geomean(rows)
	var parts []string
	for i, m := range methods {
		parts = append(parts, fmt.Sprintf("%s %s×", m.label, speedText(g[i])))
	}
	out = append(out, fmt.Sprintf("geometric-mean speed-up over mod %d, %d workloads: %s", 1<<s.m, len(rows), strings.Join(parts, ", ")))
	var best *row
	bestM := 0
	for _, r := range rows {
		for i, x := range r.speedups {
			if best == nil || x > best.speedups[bestM] {
				best, bestM = r, i
			}
		}
	}
	out = append(out, fmt.Sprintf("largest speed-up: %s×, %s under %s (%d conflicts under mod %d, %d after)",
		speedText(best.speedups[bestM]), best.w.Name, methods[bestM].label, best.before, 1<<s.m, best.conflictsAfter[bestM]))
	var slower []string
	for _, r := range rows {
		for i, x := range r.speedups {
			if x < 1 {
				slower = append(slower, fmt.Sprintf("%s under %s (%s×)", r.w.Name, methods[i].label, speedText(x)))
			}
		}
	}
	if len(slower) > 0 {
		out = append(out, "slower than mod "+strconv.Itoa(1<<s.m)+": "+strings.Join(slower, "; "))
	}
	var free []*row
	for _, r := range rows {
		if r.before == 0 {
			free = append(free, r)
		}
	}
	if len(free) > 0 {
		var sum float64
		worst := free[0]
		for _, r := range free {
			sum += r.slowdown()
			if r.slowdown() > worst.slowdown() {
				worst = r
			}
		}
		what := fmt.Sprintf("the %d conflict-free workloads", len(free))
		if len(free) == 1 {
			what = "the one conflict-free workload"
		}
		out = append(out, fmt.Sprintf("the hash cycles on %s: %.2f%% slower on average, at most %.2f%% (%s)",
			what, sum/float64(len(free)), worst.slowdown(), worst.w.Name))
	}
	out = append(out, fmt.Sprintf("model: %d resident warps, one instruction issued per cycle round-robin, each waiting for the one before; other instructions %d cycles, shared-memory accesses %d cycles + (bank cycles − 1), holding the banks their bank cycles; configurable hashes +%d cycle(s) of latency",
		s.timing.Warps, s.timing.OtherLatency, s.timing.ShmLatency, s.timing.HashCycles))
	return out
}

// chart is Fig. 9 as lines: each method's speed-up against the workload's
// number in the speed-up table.
func chart(rows []*row) plot.LineChart {
	c := plot.LineChart{Title: "Speed-up over mod N per workload (000_* Fig. 9)", XLabel: "workload (row of the speed-up table)", YLabel: "speed-up",
		HLines: []plot.Line{{Value: 1, Label: "mod N"}}}
	for i, m := range methods {
		sr := plot.Series{Name: m.label}
		for j, r := range rows {
			sr.Points = append(sr.Points, plot.Point{X: float64(j + 1), Y: r.speedups[i], Tip: fmt.Sprintf("%s: %s×", r.w.Name, speedText(r.speedups[i]))})
		}
		c.Series = append(c.Series, sr)
	}
	return c
}
