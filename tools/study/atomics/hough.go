package atomics

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/lsugen/lsugen/plot"
	"github.com/lsugen/lsugen/tools/study"
)

// Hough is the study of Fig. 8: the voting step of the polar Hough
// transform of a generated edge map. A thread block votes for one angle
// θ: its threads loop over the edge pixels (pixel i to thread i mod
// block) and add one to bin ⌊ρ⌋ + ρmax, ρ = x cos θ + y sin θ with x and y
// from the image's centre and ρmax half its diagonal (2ρmax bins, 800 for
// 640×480), of a copy of the ρ histogram in shared memory, copies laid
// out by replication or bin-stretching.
type Hough struct{}

func (Hough) Name() string  { return "hough" }
func (Hough) Paper() string { return "002" }
func (Hough) Summary() string {
	return "voting step of the polar Hough transform of a generated 640x480 edge map, replication 1-8, XOR and ADD speed-ups (Fig. 8)"
}

func (Hough) Params() []study.Param {
	return []study.Param{
		{Name: "width", Default: "640", Help: "edge map width, 16..4096"},
		{Name: "height", Default: "480", Help: "edge map height, 16..4096"},
		{Name: "seed", Default: "1", Help: "seed of the generated edge map, 0..2^63"},
		{Name: "angles", Default: "180", Help: "angles θ in [0, π), one thread block each, 1..3600"},
		{Name: "replication", Default: "1,2,3,4,5,6,7,8", Help: "replication factors R, 1..64; an R whose copies do not fit the 48 KB is left out"},
		{Name: "block", Default: "256", Help: "threads per block, a multiple of 32 in 32..1024"},
		hashParams[0], hashParams[1],
	}
}

func (s Hough) Run(ctx context.Context, opt study.Options) (*study.Result, error) {
	ps := s.Params()
	if err := opt.CheckSet(ps); err != nil {
		return nil, err
	}
	if err := opt.NoInputs(); err != nil {
		return nil, err
	}
	var v [4]int64
	for i, p := range []struct {
		name   string
		lo, hi int64
	}{{"width", 16, 4096}, {"height", 16, 4096}, {"seed", 0, math.MaxInt64}, {"angles", 1, 3600}} {
		var err error
		if v[i], err = opt.Int(ps, p.name, p.lo, p.hi); err != nil {
			return nil, err
		}
	}
	w, h, seed, angles := int(v[0]), int(v[1]), uint64(v[2]), int(v[3])
	block, err := blockParam(opt, ps)
	if err != nil {
		return nil, err
	}
	rList, err := opt.Ints(ps, "replication", 1, 64, 16)
	if err != nil {
		return nil, err
	}
	schemes, err := runSchemes(opt, ps)
	if err != nil {
		return nil, err
	}
	rhoMax := int(math.Ceil(math.Hypot(float64(w), float64(h)) / 2))
	n := 2 * rhoMax
	layouts := []Layout{Replication, Stretching}
	var cfgs []config
	for _, l := range layouts {
		for _, r := range rList {
			if l.Words(n, r) > Words {
				continue
			}
			for sc := range schemes {
				cfgs = append(cfgs, config{layout: l, copies: r, scheme: sc})
			}
		}
	}
	if len(cfgs) == 0 {
		return nil, study.Paramf("no replication factor fits: %d copies of %d bins need more than %d words", rList[0], n, Words)
	}
	edges := Edges(w, h, seed)
	if len(edges) == 0 {
		return nil, fmt.Errorf("the generated edge map has no edge pixels")
	}
	if err := checkWork(angles*len(edges), len(edges), len(cfgs), "angles, width, height or replication"); err != nil {
		return nil, err
	}
	vt := votes{bins: make([]int32, 0, angles*len(edges)), segLen: len(edges), n: n}
	for a := range angles {
		th := math.Pi * float64(a) / float64(angles)
		c, sn := math.Cos(th), math.Sin(th)
		for _, e := range edges {
			x, y := float64(e[0])-float64(w)/2, float64(e[1])-float64(h)/2
			b := min(n-1, max(0, int(math.Floor(x*c+y*sn))+rhoMax))
			vt.bins = append(vt.bins, int32(b))
		}
	}
	done := 0
	cycles, err := sweep(ctx, vt, block, schemes, cfgs, func() {
		done++
		if opt.Progress != nil {
			opt.Progress(done, len(cfgs))
		}
	})
	if err != nil {
		return nil, err
	}
	r := &study.Result{Study: s.Name(), Paper: s.Paper(), Params: opt.Resolved(ps),
		Title: fmt.Sprintf("Hough transform (polar) of a generated %dx%d edge map, %d edge pixels, %d angles, %d ρ bins: voting cycles and speed-ups (Fig. 8)",
			w, h, len(edges), angles, n)}
	for _, l := range layouts {
		t := study.Table{Title: string(l) + ": voting cycles (millions) of the baseline, speed-up of each hash over it",
			Columns: append([]string{"R", "baseline Mcyc"}, names(schemes[1:])...)}
		var series []plot.Series
		for _, sc := range schemes {
			series = append(series, plot.Series{Name: sc.Name})
		}
		bestSp, bestR := 0.0, 0
		for i := 0; i < len(cfgs); i += len(schemes) {
			if cfgs[i].layout != l {
				continue
			}
			rr := cfgs[i].copies
			row := []string{strconv.Itoa(rr), fmt.Sprintf("%.3f", float64(cycles[i])/1e6)}
			for sc := range schemes {
				series[sc].Points = append(series[sc].Points, plot.Point{X: float64(rr), Y: float64(cycles[i+sc]) / 1e6})
				if sc == 0 {
					continue
				}
				sp := float64(cycles[i]) / float64(cycles[i+sc])
				row = append(row, fmt.Sprintf("%.2f", sp))
				if sp > bestSp {
					bestSp, bestR = sp, rr
				}
			}
			t.Rows = append(t.Rows, row)
		}
		r.Tables = append(r.Tables, t)
		r.Notes = append(r.Notes, fmt.Sprintf("%s: largest speed-up of a hash %.2fx at R = %d", l, bestSp, bestR))
		r.Charts = append(r.Charts, plot.LineChart{Title: "Hough voting, " + string(l) + " (Fig. 8)",
			Subtitle: "voting cycles against the replication factor", XLabel: "replication R", YLabel: "Mcycles", Series: series})
	}
	return r, nil
}
