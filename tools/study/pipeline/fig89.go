package pipeline

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/lsugen/lsugen/plot"
	"github.com/lsugen/lsugen/tools/pipesim"
	"github.com/lsugen/lsugen/tools/study"
)

// Fig89 is the study of Figs. 8 and 9 and Table 4's theoretic speed-up:
// each Table 4 kernel on the baseline GPU, the ready mask alone, the
// elastic pipeline alone, both (the enhanced GPU) and §5.2's scheduling
// variant; stalls by kind and speed-ups over the baseline.
type Fig89 struct{}

func (Fig89) Name() string  { return "pipeline-fig8-9" }
func (Fig89) Paper() string { return "001" }
func (Fig89) Summary() string {
	return "Table 4's kernels on the baseline, ready mask, elastic, elastic+mask and §5.2 variant GPUs: stalls by kind, speed-ups, theoretic speed-up (Figs. 8, 9, Table 4)"
}

func (Fig89) Params() []study.Param { return systemParams(strings.Join(pipesim.PresetNames(), ",")) }

// fig89GPUs are the runs of each kernel, the baseline first.
var fig89GPUs = []GPU{Baseline, MaskOnly, Elastic, Both, Variant52}

func (s Fig89) Run(ctx context.Context, opt study.Options) (*study.Result, error) {
	ps := s.Params()
	if err := opt.CheckSet(ps); err != nil {
		return nil, err
	}
	if err := opt.NoInputs(); err != nil {
		return nil, err
	}
	kernels, sys, err := parseSystem(opt, ps)
	if err != nil {
		return nil, err
	}
	if err := sys.checkWork(kernels, len(fig89GPUs)); err != nil {
		return nil, err
	}
	wls := make([]*pipesim.Workload, len(kernels))
	for i, k := range kernels {
		if wls[i], err = sys.Workload(k, false); err != nil {
			return nil, err
		}
	}
	runs, err := sys.runAll(ctx, wls, fig89GPUs, opt.Progress)
	if err != nil {
		return nil, err
	}
	r := &study.Result{Study: s.Name(), Paper: s.Paper(), Params: opt.Resolved(ps),
		Title: "Elastic pipeline and bank-conflict aware scheduling on Table 4's kernels (Figs. 8, 9, Table 4)"}
	r.Tables = append(r.Tables, workloadTable(kernels, wls))
	fig8(r, kernels, runs)
	fig9(r, kernels, wls, runs)
	r.Notes = append(r.Notes, systemNote(sys))
	return r, nil
}

// workloadTable is Table 4 as generated: the inputs taken from the row
// and what the workload holds, with the theoretic speed-up computed from
// it.
func workloadTable(kernels []pipesim.Preset, wls []*pipesim.Workload) study.Table {
	t := study.Table{Title: "Table 4 as generated: shared-memory intensity, mean conflict degree, theoretic speed-up 1 + f(d-1)",
		Columns: []string{"kernel", "warps", "warp instr", "shmem %", "mem %", "mean degree", "irregular", "theoretic"}}
	for i, k := range kernels {
		st := wls[i].Stats()
		t.Rows = append(t.Rows, []string{k.Name, strconv.Itoa(st.Warps), strconv.Itoa(st.WarpInstructions),
			pct(st.ShmemIntensity), pct(st.MemIntensity), fmt.Sprintf("%.2f", st.MeanDegree),
			strconv.FormatBool(k.Irregular), fmt.Sprintf("%.3f", Theoretic(st))})
	}
	return t
}

// fig8 adds Fig. 8's table, chart and notes: the stall reduction of each
// kernel, the enhanced GPU against the baseline.
func fig8(r *study.Result, kernels []pipesim.Preset, runs [][]pipesim.Run) {
	t := study.Table{Title: "Fig. 8: pipeline stalls (cycles) by kind, baseline and enhanced (elastic+mask) GPU",
		Columns: []string{"kernel", "base fails", "base bank", "base other", "base total", "enh fails", "enh bank", "enh other", "enh total", "enh/base %", "reduction %"}}
	red := make([]float64, len(kernels))
	series := plot.Series{Name: "stall reduction"}
	for i, k := range kernels {
		b, e := StallsOf(runs[i][0]), StallsOf(runs[i][3])
		norm := 0.0
		if b.Total() > 0 {
			norm = float64(e.Total()) / float64(b.Total())
		}
		red[i] = 1 - norm
		t.Rows = append(t.Rows, []string{k.Name, i64(b.Fails), i64(b.Bank), i64(b.Other), i64(b.Total()),
			i64(e.Fails), i64(e.Bank), i64(e.Other), i64(e.Total()), pct(norm), pct(red[i])})
		series.Points = append(series.Points, plot.Point{X: float64(i + 1), Y: 100 * red[i],
			Tip: fmt.Sprintf("%s: %d stalls on the baseline, %d enhanced: %.1f%% fewer", k.Name, b.Total(), e.Total(), 100*red[i])})
	}
	m := argmax(red)
	t.Rows = append(t.Rows, []string{"mean", "", "", "", "", "", "", "", "", "", pct(mean(red))})
	r.Tables = append(r.Tables, t)
	r.Charts = append(r.Charts, plot.LineChart{Title: "Fig. 8: pipeline stall reduction, elastic+mask against the baseline",
		Subtitle: "kernels: " + kernelKey(kernels), XLabel: "kernel", YLabel: "stall reduction (%)", Series: []plot.Series{series}})
	r.Notes = append(r.Notes, fmt.Sprintf("Fig. 8: the enhanced GPU has %.1f%% fewer pipeline stalls than the baseline on average, %.1f%% at most (%s)",
		100*mean(red), 100*red[m], kernels[m].Name))
}

// fig9 adds Fig. 9's table, chart and notes.
func fig9(r *study.Result, kernels []pipesim.Preset, wls []*pipesim.Workload, runs [][]pipesim.Run) {
	cols := []string{"kernel", "base cycles"}
	for _, g := range fig89GPUs[1:] {
		cols = append(cols, g.Name+" %")
	}
	cols = append(cols, "theoretic %")
	t := study.Table{Title: "Fig. 9: speed-up over the baseline GPU (per cent)", Columns: cols}
	names := append(gpuNames(fig89GPUs[1:]), "theoretic")
	series := make([]plot.Series, len(names))
	for j, n := range names {
		series[j].Name = n
	}
	per := make([][]float64, len(names)) // per[j][i]: speed-up of column j on kernel i
	for i, k := range kernels {
		row := []string{k.Name, i64(runs[i][0].Cycles)}
		for j := range names {
			var x float64
			if j < len(fig89GPUs)-1 {
				x = speedup(runs[i][0], runs[i][j+1])
			} else {
				x = Theoretic(wls[i].Stats())
			}
			per[j] = append(per[j], x)
			row = append(row, plus(x))
			series[j].Points = append(series[j].Points, plot.Point{X: float64(i + 1), Y: 100 * (x - 1),
				Tip: fmt.Sprintf("%s, %s: %+.1f%%", k.Name, names[j], 100*(x-1))})
		}
		t.Rows = append(t.Rows, row)
	}
	meanRow := []string{"mean", ""}
	for j := range names {
		meanRow = append(meanRow, plus(mean(per[j])))
	}
	t.Rows = append(t.Rows, meanRow)
	r.Tables = append(r.Tables, t)
	r.Charts = append(r.Charts, plot.LineChart{Title: "Fig. 9: speed-up over the baseline GPU",
		Subtitle: "kernels: " + kernelKey(kernels), XLabel: "kernel", YLabel: "speed-up (%)", Series: series,
		HLines: []plot.Line{{Value: 0, Label: "baseline"}}})

	const el, mk, both, v52, th = 1, 0, 2, 3, 4 // columns of per
	m := argmax(per[both])
	r.Notes = append(r.Notes,
		fmt.Sprintf("Fig. 9: elastic+mask speeds the kernels up by %+.1f%% on average, %+.1f%% at most (%s); the elastic pipeline alone by %+.1f%%, the ready mask alone by %+.1f%%",
			100*(mean(per[both])-1), 100*(per[both][m]-1), kernels[m].Name, 100*(mean(per[el])-1), 100*(mean(per[mk])-1)))
	var over, under []string
	for i, k := range kernels {
		if per[both][i] > per[th][i] {
			over = append(over, k.Name)
		} else {
			under = append(under, fmt.Sprintf("%s %.0f%%", k.Name, 100*(per[both][i]-1)/max(per[th][i]-1, 1e-9)))
		}
	}
	r.Notes = append(r.Notes, fmt.Sprintf("Table 4's theoretic speed-up: exceeded by elastic+mask on %s; reached in part on %s (share of the theoretic gain)",
		listOr(over), listOr(under)))
	for i, k := range kernels {
		if k.Name == "idct" {
			r.Notes = append(r.Notes, fmt.Sprintf("§5.2 variant on idct: %+.1f%% over the original bank-conflict aware scheduling (elastic+mask)",
				100*(per[v52][i]/per[both][i]-1)))
		}
	}
	var masked, bank [2]int64 // elastic+mask, §5.2 variant: over all kernels
	for i := range kernels {
		for j, run := range []int{3, 4} {
			masked[j] += runs[i][run].SchedFails.Masked
			bank[j] += runs[i][run].Stalls.Total
		}
	}
	r.Notes = append(r.Notes, fmt.Sprintf("§5.2 variant: %+.1f%% on average over the original scheduling; over all kernels it turns %d fails to schedule under the mask into %d, and %d bank-conflict stalls into %d",
		100*(mean(per[v52])/mean(per[both])-1), masked[0], masked[1], bank[0], bank[1]))
}

func gpuNames(gs []GPU) []string {
	var n []string
	for _, g := range gs {
		n = append(n, g.Name)
	}
	return n
}

// kernelKey says which kernel each x of a chart is.
func kernelKey(kernels []pipesim.Preset) string {
	var s []string
	for i, k := range kernels {
		s = append(s, fmt.Sprintf("%d %s", i+1, k.Name))
	}
	return strings.Join(s, ", ")
}

func listOr(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func i64(x int64) string { return strconv.FormatInt(x, 10) }
