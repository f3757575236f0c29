package sweep

import (
	"time"

	"github.com/lsugen/lsugen/retime"
	"github.com/lsugen/lsugen/timing"
)

// Estimate is the expected CPU time of a sweep computed here (Run), known
// before any pipelining, for a work budget to refuse it.
type Estimate struct {
	CPU     time.Duration // every point
	Longest time.Duration // the longest point (the points run in parallel)
	Points  int
}

// EstimateRun estimates Run's CPU time for us at periods under opt. It
// times each combinational unit once (its critical path, which with the
// period gives the stages) and adds retime.EstimateCPU of every point; a clocked
// unit's points cost nothing.
func EstimateRun(us []Unit, periods []float64, opt timing.Options) (Estimate, error) {
	e := Estimate{Points: len(us) * len(periods)}
	for _, u := range us {
		if u.Design.Clock != "" {
			continue
		}
		res, err := timing.Analyze(u.Design, opt)
		if err != nil {
			return Estimate{}, err
		}
		for _, p := range periods {
			t := retime.EstimateCPU(len(u.Design.Gates), res.FO4, p)
			e.CPU += t
			e.Longest = max(e.Longest, t)
		}
	}
	return e, nil
}

// PointBytes estimates the memory one point computed here takes beyond
// the unit itself, for the points run at once to fit the memory there
// is: the 64-lane speculative coalescer (98,166 gates) at 40 FO4 took
// about 90 MB a point (0.9 KB a gate, the difference of one and two points
// at once, 2-core Intel Xeon VM); 2 KB a gate leaves room for the
// garbage collector's slack between collections.
func PointBytes(gates int) int64 { return int64(gates) * 2048 }
