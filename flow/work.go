package flow

import (
	"cmp"
	"slices"
	"time"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/retime"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
)

// A run's pipelinings (clock_fo4, clock, --clock-fo4, --clock) can be its
// longest work: the largest accepted coalescer takes 24 s to generate and
// more than a minute to pipeline at 40 FO4, longer at shorter periods.
// Load estimates every pipelining of the run before the first
// (retime.EstimateCPU, from the unit's gates and its critical path under
// the model that places its registers) and hands the estimate to
// Options.Pipelining, which may refuse the run (a work budget) and count
// each pipelining as it ends (a progress line).

// PipelineWork is the estimate of a run's pipelinings, known before the
// first.
type PipelineWork struct {
	Pipelinings int
	CPU         time.Duration // all of them (they run one after another)
	// Largest are the costliest pipelinings, up to three, costliest
	// first.
	Largest []PipelineCost
}

// PipelineCost is one pipelining's estimate and what it comes from.
type PipelineCost struct {
	Unit                string
	Gates               int
	DelayFO4, PeriodFO4 float64 // the critical path, under the model that cuts it
	CPU                 time.Duration
}

// pipelining is one unit of a run to pipeline, with its estimate.
type pipelining struct {
	index int // in the run's generated units
	clock specs.Clocking
	cpu   time.Duration
}

// estimatePipelinings fills in each pipelining's estimate and sums them.
// A unit its model cannot time counts nothing here: Pipeline reports it.
func estimatePipelinings(ps []pipelining, designs []*netlist.Design, names []string, tech *timing.Tech) PipelineWork {
	w := PipelineWork{Pipelinings: len(ps)}
	var costs []PipelineCost
	for i := range ps {
		p := &ps[i]
		d := designs[p.index]
		mode := p.clock.TimingMode
		if mode == "" {
			mode = string(timing.Sized)
		}
		opt, err := timing.PipelineOptionsIn(mode, tech)
		if err != nil {
			continue
		}
		fo4, err := timing.SlowestPath(d, opt)
		if err != nil {
			continue
		}
		p.cpu = retime.EstimateCPU(len(d.Gates), fo4, p.clock.ClockFO4)
		w.CPU += p.cpu
		costs = append(costs, PipelineCost{Unit: names[p.index], Gates: len(d.Gates), DelayFO4: fo4, PeriodFO4: p.clock.ClockFO4, CPU: p.cpu})
	}
	slices.SortStableFunc(costs, func(a, b PipelineCost) int { return cmp.Compare(b.CPU, a.CPU) })
	w.Largest = costs[:min(3, len(costs))]
	return w
}
