package timing_test

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/timing"
)

// calibPoint is one point of the calibration grid: the wire model's c0
// (CapPerFanout), c1 (AreaCapPerFanout) and x (AreaExponent), the input
// driver size, and the unsized model's FO4 for each of thesisUnits there.
type calibPoint struct {
	c0, c1, x, drv float64
	fo4            []float64
}

// calibAxes is the grid the documented fit searched: c1 in [3, 12], c0 in
// [0.8, 4], x in {0.2 … 0.5}, input drivers 1 to 3. The full grid (steps
// 0.5, 0.2, 0.05 and 0.5: 11,305 points, minutes) runs with
// LSUGEN_CALIB_FULL=1; by default a coarse grid of 288 points that still
// holds the documented parameter set keeps the test to a few seconds.
func calibAxes(full bool) (c0s, c1s, xs, drvs []float64) {
	step := func(lo, hi, d float64) []float64 {
		var v []float64
		for i := 0; lo+float64(i)*d <= hi+1e-9; i++ {
			v = append(v, math.Round((lo+float64(i)*d)*1000)/1000)
		}
		return v
	}
	if full {
		return step(0.8, 4, 0.2), step(3, 12, 0.5), step(0.2, 0.5, 0.05), step(1, 3, 0.5)
	}
	return []float64{0.8, 2, 3, 4}, []float64{3, 5, 6.5, 8, 10, 12}, []float64{0.2, 0.3, 0.4, 0.5}, []float64{1, 2, 3}
}

// calibGrid times every thesis unit, unsized, at every point of the grid.
func calibGrid(t *testing.T, designs []*netlist.Design, full bool) []calibPoint {
	c0s, c1s, xs, drvs := calibAxes(full)
	var pts []calibPoint
	for _, c0 := range c0s {
		for _, c1 := range c1s {
			for _, x := range xs {
				for _, drv := range drvs {
					pts = append(pts, calibPoint{c0: c0, c1: c1, x: x, drv: drv})
				}
			}
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				p := &pts[i]
				opt := timing.DefaultOptions()
				opt.DriverSize = p.drv
				opt.Wire = timing.Wire{CapPerFanout: p.c0, AreaCapPerFanout: p.c1, RefAreaGE: timing.DefaultWire.RefAreaGE, AreaExponent: p.x}
				p.fo4 = make([]float64, len(designs))
				for k, d := range designs {
					r, err := timing.Analyze(d, opt)
					if err != nil {
						mu.Lock()
						firstErr = err
						mu.Unlock()
						continue
					}
					p.fo4[k] = r.FO4
				}
			}
		}()
	}
	for i := range pts {
		next <- i
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		t.Fatal(firstErr)
	}
	return pts
}

// relErr is model/thesis − 1.
func relErr(model, thesis float64) float64 { return model/thesis - 1 }

// bestFit is the grid point with the least maximum relative error on the
// figures fit (ties: least sum of squared relative errors, then grid
// order), and that maximum error.
func bestFit(pts []calibPoint, fit []int) (int, float64) {
	best, bestMax, bestSS := -1, math.Inf(1), math.Inf(1)
	for i, p := range pts {
		mx, ss := 0.0, 0.0
		for _, k := range fit {
			e := relErr(p.fo4[k], thesisUnits[k].fo4)
			mx, ss = max(mx, math.Abs(e)), ss+e*e
		}
		if mx < bestMax-1e-12 || (math.Abs(mx-bestMax) <= 1e-12 && ss < bestSS) {
			best, bestMax, bestSS = i, mx, ss
		}
	}
	return best, bestMax
}

// inCells reports whether a delay takes the thesis's cycle counts at 40,
// 48 and 56 FO4 for unit k; ok is false where the thesis has no table.
func inCells(k int, fo4 float64) (in, ok bool) {
	want := thesisUnits[k].cycles
	if want == nil {
		return false, false
	}
	for i, clock := range []float64{40, 48, 56} {
		if timing.CyclesAt(fo4, clock) != want[i] {
			return false, true
		}
	}
	return true, true
}

// TestCalibrationHoldOut cross-validates the default wire model's fit: for
// each of the 20 ways to split the six thesis delays into three fitted and
// three held out, it reruns the grid search on the three (least maximum
// relative error) and measures the fitted model's error on the other
// three. It logs the table docs/timing-model.md#calibration quotes.
func TestCalibrationHoldOut(t *testing.T) {
	designs := thesisDesigns(t)
	full := os.Getenv("LSUGEN_CALIB_FULL") != ""
	pts := calibGrid(t, designs, full)
	c0s, c1s, xs, drvs := calibAxes(full)
	t.Logf("grid: c0 %v, c1 %v, x %v, driver %v: %d points", c0s, c1s, xs, drvs, len(pts))

	// The documented parameter set is a point of the grid.
	def := -1
	for i, p := range pts {
		if p.c0 == timing.DefaultWire.CapPerFanout && p.c1 == timing.DefaultWire.AreaCapPerFanout &&
			p.x == timing.DefaultWire.AreaExponent && p.drv == timing.DefaultOptions().DriverSize {
			def = i
		}
	}
	if def < 0 {
		t.Fatalf("the default parameter set %+v, driver %v, is not on the grid", timing.DefaultWire, timing.DefaultOptions().DriverSize)
	}
	all := []int{0, 1, 2, 3, 4, 5}
	bi, bmax := bestFit(pts, all)
	b := pts[bi]
	defMax := 0.0
	for _, k := range all {
		defMax = max(defMax, math.Abs(relErr(pts[def].fo4[k], thesisUnits[k].fo4)))
	}
	t.Logf("default c0=%v c1=%v x=%v driver=%v: max error on the six %.1f%%; grid minimax on the six: c0=%v c1=%v x=%v driver=%v, %.1f%%",
		pts[def].c0, pts[def].c1, pts[def].x, pts[def].drv, 100*defMax, b.c0, b.c1, b.x, b.drv, 100*bmax)

	short := func(k int) string {
		return strings.NewReplacer("coalesce_", "", "monotonic", "det").Replace(thesisUnits[k].unit)
	}
	var splitWorst, allHeld []float64
	perUnit := make([]float64, len(thesisUnits))
	cellsIn, cellsOf := 0, 0
	splits := 0
	var tab strings.Builder
	fmt.Fprintf(&tab, "\n%-22s %-24s %6s  %-44s %6s %s\n", "fitted", "c0 c1 x driver", "fit", "held-out errors", "worst", "cells")
	for a := 0; a < 6; a++ {
		for b := a + 1; b < 6; b++ {
			for c := b + 1; c < 6; c++ {
				splits++
				fit := []int{a, b, c}
				var held []int
				for _, k := range all {
					if !slices.Contains(fit, k) {
						held = append(held, k)
					}
				}
				i, fmax := bestFit(pts, fit)
				p := pts[i]
				worst := 0.0
				var errs []string
				in, of := 0, 0
				for _, k := range held {
					e := relErr(p.fo4[k], thesisUnits[k].fo4)
					worst = max(worst, math.Abs(e))
					allHeld = append(allHeld, math.Abs(e))
					perUnit[k] = max(perUnit[k], math.Abs(e))
					errs = append(errs, fmt.Sprintf("%s %+.1f%%", short(k), 100*e))
					if ok, has := inCells(k, p.fo4[k]); has {
						of++
						if ok {
							in++
						}
					}
				}
				cellsIn, cellsOf = cellsIn+in, cellsOf+of
				splitWorst = append(splitWorst, worst)
				names := []string{short(a), short(b), short(c)}
				fmt.Fprintf(&tab, "%-22s %-24s %5.1f%%  %-44s %5.1f%% %d/%d\n", strings.Join(names, ","),
					fmt.Sprintf("%v %v %v %v", p.c0, p.c1, p.x, p.drv), 100*fmax, strings.Join(errs, ", "), 100*worst, in, of)
			}
		}
	}
	median := func(v []float64) float64 {
		s := slices.Clone(v)
		slices.Sort(s)
		n := len(s)
		return (s[(n-1)/2] + s[n/2]) / 2
	}
	t.Log(tab.String())
	t.Logf("splits %d; worst held-out error per split: median %.1f%%, worst %.1f%%; all %d held-out errors: median %.1f%%; held-out figures in the thesis's cycle cells (40/48/56 FO4): %d of %d",
		splits, 100*median(splitWorst), 100*slices.Max(splitWorst), len(allHeld), 100*median(allHeld), cellsIn, cellsOf)
	for k := range thesisUnits {
		t.Logf("  %s: worst error when held out %.1f%%", thesisUnits[k].unit, 100*perUnit[k])
	}

	if splits != 20 {
		t.Errorf("%d splits, want 20", splits)
	}
	// The measured worst held-out error, as a bound with margin.
	if w := slices.Max(splitWorst); w > calibHeldOutBound {
		t.Errorf("worst held-out error %.1f%% beyond the documented bound %.0f%%", 100*w, 100*calibHeldOutBound)
	}
}

// calibHeldOutBound bounds the worst held-out relative error that
// TestCalibrationHoldOut measures, with margin: 59.9% on the coarse grid,
// 62.7% on the full one (docs/timing-model.md#calibration). It records a
// measurement, not a goal: a model change that moves it is to be
// reported in the docs.
const calibHeldOutBound = 0.75
