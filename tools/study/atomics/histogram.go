package atomics

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/lsugen/lsugen/plot"
	"github.com/lsugen/lsugen/tools/study"
)

// Histogram is the study of Figs. 4 and 7: the histogram of a generated
// image with its bins replicated R times in shared memory (plain, padded,
// bin-stretched), the voting time under each scheme and the hashes'
// speed-up over the baseline.
type Histogram struct{}

func (Histogram) Name() string  { return "histogram" }
func (Histogram) Paper() string { return "002" }
func (Histogram) Summary() string {
	return "histogram of a generated 12-bit image, bins 32-4096 x replication 1-256, replication/padding/bin-stretching, XOR and ADD speed-ups (Figs. 4, 7)"
}

func (Histogram) Params() []study.Param {
	return []study.Param{
		{Name: "width", Default: "1536", Help: "image width in pixels, 32..8192 (the paper's images: 1536)"},
		{Name: "height", Default: "1024", Help: "image height in pixels, 1..8192 (the paper's: 1024)"},
		{Name: "seed", Default: "1", Help: "seed of the generated image, 0..2^63"},
		{Name: "bins", Default: "32,64,128,256,512,1024,2048,4096", Help: "bin counts, 1..12288"},
		{Name: "replication", Default: "1,2,4,8,16,32,64,128,256", Help: "replication factors R, 1..12288; a pair (bins, R) that does not fit the 48 KB is left out"},
		{Name: "block", Default: "256", Help: "threads per block, a multiple of 32 in 32..1024: input i goes to thread i mod block, copy (i mod block) mod R"},
		hashParams[0], hashParams[1],
	}
}

func (s Histogram) Run(ctx context.Context, opt study.Options) (*study.Result, error) {
	ps := s.Params()
	if err := opt.CheckSet(ps); err != nil {
		return nil, err
	}
	if err := opt.NoInputs(); err != nil {
		return nil, err
	}
	w, err := opt.Int(ps, "width", 32, 8192)
	if err != nil {
		return nil, err
	}
	h, err := opt.Int(ps, "height", 1, 8192)
	if err != nil {
		return nil, err
	}
	seed, err := opt.Int(ps, "seed", 0, math.MaxInt64)
	if err != nil {
		return nil, err
	}
	block, err := blockParam(opt, ps)
	if err != nil {
		return nil, err
	}
	binList, err := opt.Ints(ps, "bins", 1, Words, 16)
	if err != nil {
		return nil, err
	}
	rList, err := opt.Ints(ps, "replication", 1, Words, 16)
	if err != nil {
		return nil, err
	}
	schemes, err := runSchemes(opt, ps)
	if err != nil {
		return nil, err
	}
	type point struct{ bins, r int }
	var cfgs []config
	var pts []point
	for _, l := range Layouts {
		for _, n := range binList {
			for _, r := range rList {
				if l.Words(n, r) > Words {
					continue
				}
				for sc := range schemes {
					cfgs = append(cfgs, config{layout: l, copies: r, scheme: sc})
					pts = append(pts, point{n, r})
				}
			}
		}
	}
	if len(cfgs) == 0 {
		return nil, study.Paramf("no (bins, replication) pair fits the %d words of shared memory", Words)
	}
	if err := checkWork(int(w*h), int(w*h), len(cfgs), "width, height, bins or replication"); err != nil {
		return nil, err
	}
	im := NewImage(int(w), int(h), uint64(seed))
	total, done := len(cfgs), 0
	tick := func() {
		done++
		if opt.Progress != nil {
			opt.Progress(done, total)
		}
	}
	// One sweep per bin count: the image's bins are computed once for it.
	cycles := make([]int64, len(cfgs))
	for _, n := range binList {
		var idx []int
		var sub []config
		for i, c := range cfgs {
			if pts[i].bins == n {
				idx, sub = append(idx, i), append(sub, c)
			}
		}
		if len(sub) == 0 {
			continue
		}
		v := votes{bins: make([]int32, len(im.Pixels)), segLen: len(im.Pixels), n: n}
		for i, p := range im.Pixels {
			v.bins[i] = int32(int(p) * n / Levels)
		}
		got, err := sweep(ctx, v, block, schemes, sub, tick)
		if err != nil {
			return nil, err
		}
		for k, i := range idx {
			cycles[i] = got[k]
		}
	}
	r := &study.Result{Study: s.Name(), Paper: s.Paper(), Params: opt.Resolved(ps),
		Title: fmt.Sprintf("Histogram of a generated %dx%d 12-bit image: voting cycles and the hashes' speed-ups (Figs. 4, 7)", w, h)}
	// Rows: one per (layout, bins, R), its schemes side by side.
	best := map[string]string{}
	bestV := map[string]float64{}
	worst32 := map[string]float64{}
	fig4 := plot.Series{Name: "baseline, 64 bins"}
	optR, optC := 0, int64(0)
	charts := map[Layout][]plot.Series{}
	for _, l := range Layouts {
		t := study.Table{Title: string(l) + ": voting cycles (millions) of the baseline, speed-up of each hash over it",
			Columns: append([]string{"bins", "R", "baseline Mcyc"}, names(schemes[1:])...)}
		series := map[string]*plot.Series{}
		var order []string
		for i := 0; i < len(cfgs); i += len(schemes) {
			if cfgs[i].layout != l {
				continue
			}
			p := pts[i]
			base := cycles[i]
			row := []string{strconv.Itoa(p.bins), strconv.Itoa(p.r), fmt.Sprintf("%.3f", float64(base)/1e6)}
			for sc := 1; sc < len(schemes); sc++ {
				sp := float64(base) / float64(cycles[i+sc])
				row = append(row, fmt.Sprintf("%.2f", sp))
				key := string(l) + " " + schemes[sc].Name
				if sp > bestV[key] {
					bestV[key], best[key] = sp, fmt.Sprintf("%.2fx at %d bins, R = %d", sp, p.bins, p.r)
				}
				if p.bins == Banks {
					if v, ok := worst32[key]; !ok || sp < v {
						worst32[key] = sp
					}
				}
				if sc == 1 {
					name := fmt.Sprintf("%d bins", p.bins)
					if series[name] == nil {
						series[name] = &plot.Series{Name: name}
						order = append(order, name)
					}
					series[name].Points = append(series[name].Points, plot.Point{X: float64(p.r), Y: sp,
						Tip: fmt.Sprintf("%d bins, R = %d: xor %.2fx", p.bins, p.r, sp)})
				}
			}
			if l == Replication && p.bins == 64 {
				fig4.Points = append(fig4.Points, plot.Point{X: float64(p.r), Y: float64(base) / 1e6})
				if optR == 0 || base < optC {
					optR, optC = p.r, base
				}
			}
			t.Rows = append(t.Rows, row)
		}
		for _, name := range order {
			charts[l] = append(charts[l], *series[name])
		}
		r.Tables = append(r.Tables, t)
	}
	if optR > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("Fig. 4: the 64-bin baseline (replication) is fastest at R = %d (%.3f Mcycles)", optR, float64(optC)/1e6))
		r.Charts = append(r.Charts, plot.LineChart{Title: "64-bin histogram, baseline (Fig. 4)", Subtitle: "voting cycles against the replication factor",
			XLabel: "replication R", YLabel: "Mcycles", LogX: true, Series: []plot.Series{fig4}})
	}
	for _, l := range Layouts {
		for sc := 1; sc < len(schemes); sc++ {
			key := string(l) + " " + schemes[sc].Name
			if best[key] != "" {
				r.Notes = append(r.Notes, fmt.Sprintf("%s, %s hash: largest speed-up %s", l, schemes[sc].Name, best[key]))
			}
			if v, ok := worst32[key]; ok {
				r.Notes = append(r.Notes, fmt.Sprintf("%s, %s hash, 32 bins: lowest speed-up %.2fx%s", l, schemes[sc].Name, v, slower(v)))
			}
		}
		if len(charts[l]) > 0 {
			r.Charts = append(r.Charts, plot.LineChart{Title: "XOR hash over the baseline, " + string(l) + " (Fig. 7)",
				Subtitle: "speed-up against the replication factor, one line per bin count",
				XLabel:   "replication R", YLabel: "speed-up", LogX: true, Series: charts[l],
				HLines: []plot.Line{{Value: 1, Label: "baseline"}}})
		}
	}
	return r, nil
}

func slower(sp float64) string {
	if sp < 1 {
		return fmt.Sprintf(" (a slow-down of %.1f %%)", (1/sp-1)*100)
	}
	return ""
}
