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
// is: the 64-lane speculative coalescer (98,166 gates) from 40 to 47 FO4
// took 199 MB a point (2.0 KB a gate: the peak resident size of two points
// at once, 416 MB, less that of one, 217 MB; 2-core Intel Xeon VM), since
// the pipeliner tries three readable placements at each latency; 3 KB a
// gate leaves a margin. (It was 0.9 KB a gate measured, 2 KB estimated,
// before those placements, and four points at once died of it under a
// 1 GiB address-space limit.)
func PointBytes(gates int) int64 { return int64(gates) * 3072 }
