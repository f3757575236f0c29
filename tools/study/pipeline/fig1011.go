package pipeline

import (
	"context"
	"fmt"

	"github.com/lsugen/lsugen/plot"
	"github.com/lsugen/lsugen/tools/pipesim"
	"github.com/lsugen/lsugen/tools/study"
)

// Fig1011 is the study of Figs. 10 and 11: the kernels whose CUDA SDK
// code was hand-optimized against bank conflicts (Table 4's starred rows),
// each as the paper ran it (optimization undone: Table 4's conflicts) and
// hand-optimized (every access conflict-free), on the baseline and the
// enhanced GPU. Fig. 10 is the unoptimized kernel on the enhanced GPU
// against the optimized one on the baseline; Fig. 11 the optimized kernel,
// which has no conflicts, on the enhanced GPU against the baseline.
type Fig1011 struct{}

func (Fig1011) Name() string  { return "pipeline-fig10-11" }
func (Fig1011) Paper() string { return "001" }
func (Fig1011) Summary() string {
	return "the hand-optimized kernels: unoptimized code on the elastic pipeline against optimized code on the baseline (Fig. 10), conflict-free code on both (Fig. 11)"
}

func (Fig1011) Params() []study.Param {
	return systemParams("transpose,dct,idct,dct_short,idct_short")
}

// The runs of each kernel: optimized on the baseline, elastic and enhanced
// GPUs, unoptimized on the baseline and enhanced GPUs.
const (
	optBase = iota
	optElastic
	optBoth
	unoptBase
	unoptBoth
)

func (s Fig1011) Run(ctx context.Context, opt study.Options) (*study.Result, error) {
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
	if err := sys.checkWork(kernels, 5); err != nil {
		return nil, err
	}
	n := len(kernels)
	progress := func(done, total int) {
		if opt.Progress != nil {
			opt.Progress(done, 5*n)
		}
	}
	var optWL, unoptWL []*pipesim.Workload
	for _, k := range kernels {
		o, err := sys.Workload(k, true)
		if err != nil {
			return nil, err
		}
		u, err := sys.Workload(k, false)
		if err != nil {
			return nil, err
		}
		optWL, unoptWL = append(optWL, o), append(unoptWL, u)
	}
	optRuns, err := sys.runAll(ctx, optWL, []GPU{Baseline, Elastic, Both}, progress)
	if err != nil {
		return nil, err
	}
	unoptRuns, err := sys.runAll(ctx, unoptWL, []GPU{Baseline, Both}, func(done, _ int) { progress(3*n+done, 0) })
	if err != nil {
		return nil, err
	}
	runs := make([][]pipesim.Run, n)
	for i := range kernels {
		runs[i] = append(optRuns[i], unoptRuns[i]...)
	}

	r := &study.Result{Study: s.Name(), Paper: s.Paper(), Params: opt.Resolved(ps),
		Title: "Hand-optimized against unoptimized kernels on the baseline and the elastic pipeline (Figs. 10, 11)"}
	t10 := study.Table{Title: "Fig. 10: performance relative to the optimized kernel on the baseline GPU (per cent)",
		Columns: []string{"kernel", "opt base cycles", "unopt base", "unopt enhanced"}}
	t11 := study.Table{Title: "Fig. 11: the optimized (conflict-free) kernels, speed-up over the baseline GPU (per cent)",
		Columns: []string{"kernel", "opt base cycles", "elastic", "elastic+mask", "enh bank stalls", "enh masked fails"}}
	s10 := []plot.Series{{Name: "unoptimized, baseline"}, {Name: "unoptimized, enhanced"}}
	s11 := []plot.Series{{Name: "elastic"}, {Name: "elastic+mask"}}
	var onBase, onEnh, el, both []float64
	for i, k := range kernels {
		ru := runs[i]
		ub, ue := speedup(ru[optBase], ru[unoptBase]), speedup(ru[optBase], ru[unoptBoth])
		oe, ob := speedup(ru[optBase], ru[optElastic]), speedup(ru[optBase], ru[optBoth])
		onBase, onEnh, el, both = append(onBase, ub), append(onEnh, ue), append(el, oe), append(both, ob)
		t10.Rows = append(t10.Rows, []string{k.Name, i64(ru[optBase].Cycles), plus(ub), plus(ue)})
		t11.Rows = append(t11.Rows, []string{k.Name, i64(ru[optBase].Cycles), plus(oe), plus(ob),
			i64(ru[optBoth].Stalls.BankConflict), i64(ru[optBoth].SchedFails.Masked)})
		x := float64(i + 1)
		for j, y := range []float64{ub, ue} {
			s10[j].Points = append(s10[j].Points, plot.Point{X: x, Y: 100 * (y - 1), Tip: fmt.Sprintf("%s, %s: %+.1f%%", k.Name, s10[j].Name, 100*(y-1))})
		}
		for j, y := range []float64{oe, ob} {
			s11[j].Points = append(s11[j].Points, plot.Point{X: x, Y: 100 * (y - 1), Tip: fmt.Sprintf("%s, %s: %+.1f%%", k.Name, s11[j].Name, 100*(y-1))})
		}
	}
	t10.Rows = append(t10.Rows, []string{"mean", "", plus(mean(onBase)), plus(mean(onEnh))})
	t11.Rows = append(t11.Rows, []string{"mean", "", plus(mean(el)), plus(mean(both)), "", ""})
	r.Tables = append(r.Tables, t10, t11)
	key := "kernels: " + kernelKey(kernels)
	r.Charts = append(r.Charts,
		plot.LineChart{Title: "Fig. 10: unoptimized kernels against the optimized ones on the baseline GPU", Subtitle: key,
			XLabel: "kernel", YLabel: "performance relative to optimized on baseline (%)", Series: s10, HLines: []plot.Line{{Value: 0, Label: "optimized, baseline"}}},
		plot.LineChart{Title: "Fig. 11: conflict-free kernels on the elastic pipeline", Subtitle: key,
			XLabel: "kernel", YLabel: "speed-up over the baseline (%)", Series: s11, HLines: []plot.Line{{Value: 0, Label: "baseline"}}})
	lo, hi := argmin(onEnh), argmax(onEnh)
	r.Notes = append(r.Notes,
		fmt.Sprintf("Fig. 10: unoptimized kernels on the enhanced GPU run at %+.1f%% of the optimized ones on the baseline on average (%+.1f%% on the baseline GPU); from %+.1f%% (%s) to %+.1f%% (%s)",
			100*(mean(onEnh)-1), 100*(mean(onBase)-1), 100*(onEnh[lo]-1), kernels[lo].Name, 100*(onEnh[hi]-1), kernels[hi].Name),
		fmt.Sprintf("Fig. 11: on conflict-free kernels the elastic pipeline changes performance by %+.1f%% on average (%+.1f%% with the mask), at most %.1f%% either way",
			100*(mean(el)-1), 100*(mean(both)-1), 100*maxAbs(append(append([]float64{}, el...), both...))),
		systemNote(sys))
	return r, nil
}

// argmin is the index of the smallest of xs (the first of equals).
func argmin(xs []float64) int {
	m := 0
	for i, x := range xs {
		if x < xs[m] {
			m = i
		}
	}
	return m
}

// maxAbs is the largest |x-1| of speed-ups xs.
func maxAbs(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m = max(m, x-1, 1-x)
	}
	return m
}
