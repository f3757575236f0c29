package atomics

import (
	"context"
	"fmt"
	"strconv"

	"github.com/lsugen/lsugen/plot"
	"github.com/lsugen/lsugen/tools/study"
)

// Eq1 is the warp access pattern of the paper's Eq. 1: lane id updates
// word id*stride when id < conflicts, else word id.
func Eq1(lanes, stride, conflicts int) []uint64 {
	a := make([]uint64, lanes)
	for id := range a {
		if id < conflicts {
			a[id] = uint64(id * stride)
		} else {
			a[id] = uint64(id)
		}
	}
	return a
}

// Fig5 is the study of Fig. 5: one warp's atomic add on Eq. 1's pattern,
// cycles against the conflicts, for strides 0 (position conflicts), 32
// (bank conflicts) and 256 (bank conflicts, a lock conflict every four),
// under each scheme.
type Fig5 struct{}

func (Fig5) Name() string  { return "atomics-fig5" }
func (Fig5) Paper() string { return "002" }
func (Fig5) Summary() string {
	return "cycles of one warp's atomic add against conflicts, Eq. 1 strides 0/32/256, baseline vs XOR/ADD hashes (Fig. 5)"
}

func (Fig5) Params() []study.Param {
	return []study.Param{
		{Name: "strides", Default: "0,32,256", Help: "Eq. 1 strides, comma-separated, 0..1024"},
		hashParams[0], hashParams[1],
	}
}

func (s Fig5) Run(ctx context.Context, opt study.Options) (*study.Result, error) {
	ps := s.Params()
	if err := opt.CheckSet(ps); err != nil {
		return nil, err
	}
	if err := opt.NoInputs(); err != nil {
		return nil, err
	}
	strides, err := opt.Ints(ps, "strides", 0, 1024, 8)
	if err != nil {
		return nil, err
	}
	schemes, err := runSchemes(opt, ps)
	if err != nil {
		return nil, err
	}
	mems := make([]*Memory, len(schemes))
	for i, sc := range schemes {
		if mems[i], err = sc.Memory(Fermi); err != nil {
			return nil, err
		}
	}
	r := &study.Result{Study: s.Name(), Paper: s.Paper(), Params: opt.Resolved(ps),
		Title: "One warp's atomic add on Eq. 1's pattern: cycles against conflicts (Fig. 5)"}
	cols := []string{"conflicts"}
	for _, st := range strides {
		for _, sc := range schemes {
			cols = append(cols, fmt.Sprintf("s%d %s", st, sc.Name))
		}
	}
	t := study.Table{Title: fmt.Sprintf("cycles (Read %d, Write %d per bank-conflict level; Update %d; Branch %d)",
		Fermi.Read, Fermi.Write, Fermi.Update, Fermi.Branch), Columns: cols}
	series := make([][]plot.Series, len(strides))
	for i := range strides {
		for _, sc := range schemes {
			series[i] = append(series[i], plot.Series{Name: sc.Name})
		}
	}
	for c := 1; c <= 32; c++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		row := []string{strconv.Itoa(c)}
		for i, st := range strides {
			addrs := Eq1(32, st, c)
			for j, m := range mems {
				res := m.Atomic(addrs)
				row = append(row, strconv.Itoa(res.Cycles))
				series[i][j].Points = append(series[i][j].Points, plot.Point{X: float64(c), Y: float64(res.Cycles),
					Tip: fmt.Sprintf("%d conflicts: %d cycles, %d iterations", c, res.Cycles, res.Iterations)})
			}
		}
		t.Rows = append(t.Rows, row)
	}
	r.Tables = append(r.Tables, t)
	for i, st := range strides {
		r.Charts = append(r.Charts, plot.LineChart{
			Title:    fmt.Sprintf("Eq. 1, stride %d", st),
			Subtitle: "one warp's atomic add, 002_* Fig. 5",
			XLabel:   "conflicts", YLabel: "cycles", Series: series[i],
		})
	}
	for i, st := range strides {
		base := series[i][0].Points
		for j := 1; j < len(schemes); j++ {
			removed := 0
			for k, p := range series[i][j].Points {
				if p.Y < base[k].Y {
					removed++
				}
			}
			r.Notes = append(r.Notes, fmt.Sprintf("stride %d: %s is faster than the baseline at %d of 32 conflict counts; at 32 conflicts %.0f against %.0f cycles",
				st, schemes[j].Name, removed, series[i][j].Points[31].Y, base[31].Y))
		}
	}
	return r, nil
}
