package units

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/retime"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/verify"
)

// Pipeline cuts unit u's combinational design d into stages at clocking
// c, as clock_fo4 does (c.Range, when set, locates errors); the command
// line's --clock-fo4 calls it for units whose spec has no clock. tech is
// the library of timing mode "liberty" (nil without one). A unit its
// family composes at a clock (Family.Compose: the speculative coalescer,
// a variable-latency unit) comes back with its composer's measure beside
// the design.
func Pipeline(u specs.Unit, d *netlist.Design, c specs.Clocking, tech *timing.Tech, diags hcl.Diagnostics) (Built, hcl.Diagnostics) {
	if c.TimingMode == "" {
		c.TimingMode = string(timing.Sized)
	}
	if c.Range == (hcl.Range{}) {
		c.Range = u.DeclRange()
	}
	fail := func(summary string, err error) (Built, hcl.Diagnostics) {
		return Built{}, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: err.Error(), Subject: c.Range.Ptr()})
	}
	if d.Clock != "" {
		return fail("Unit already clocked", fmt.Errorf("%s is clocked with its own protocol; clock_fo4 pipelines combinational units only.", u.UnitName()))
	}
	topt, err := timing.PipelineOptionsIn(c.TimingMode, tech)
	if err != nil {
		return fail("Cannot pipeline at this clock", err)
	}
	opt := retime.Options{PeriodFO4: c.ClockFO4, Timing: topt, ModeName: c.TimingMode}
	if c.TimingMode == timing.Liberty {
		opt.Margin = timing.LibertyMargin
	}
	// refused names the shortest period that works, when the period is
	// what fails, as far as the search's work limit reaches.
	refused := func(err error, meets func(retime.Options) bool) (Built, hcl.Diagnostics) {
		if !errors.Is(err, retime.ErrPeriod) {
			return fail("Cannot pipeline at this clock", err)
		}
		s := leastPeriod(opt, meets, probeCost(d, opt))
		limit := fmt.Sprintf("at its work limit (%s of estimated CPU time)", s.spent.Round(time.Second))
		switch {
		case s.found && !s.stopped:
			err = fmt.Errorf("%w. The shortest period it can be pipelined at under the %s model is about %.2f FO4%s", err, c.TimingMode, s.least, inPS(s.least, tech, c.TimingMode))
		case s.found:
			err = fmt.Errorf("%w. It can be pipelined at %.2f FO4%s under the %s model; the search for a shorter period stopped %s", err, s.least, inPS(s.least, tech, c.TimingMode), c.TimingMode, limit)
		case s.stopped:
			err = fmt.Errorf("%w. It cannot be pipelined at up to %.4g FO4 either under the %s model; the search for the shortest period stopped there, %s: try a longer period",
				err, s.failed, c.TimingMode, limit)
		}
		return fail("Cannot pipeline at this clock", err)
	}
	if f, _ := For(u); f != nil && f.Compose != nil {
		b, ok, err := f.Compose(u, opt)
		if err != nil {
			return refused(err, func(o retime.Options) bool { _, _, err := f.Compose(u, o); return err == nil })
		}
		if ok {
			return b, diags
		}
	}
	r, err := pipelineStyle(c)(d, opt)
	if err != nil {
		return refused(err, func(o retime.Options) bool { _, err := retime.Pipeline(d, o); return err == nil })
	}
	return Built{Design: r.Design}, diags
}

// searchLimit is the estimated CPU time leastPeriod may always spend:
// every example unit searches to the end within it, but the 64-lane
// speculative coalescer at 1 GHz in sky130, each of whose tries composes
// several pipelinings (docs/clocks.md).
const searchLimit = 30 * time.Second

// periodSearch is what leastPeriod found.
type periodSearch struct {
	least   float64       // the shortest period met (found)
	found   bool          // a period was met
	failed  float64       // the longest period tried and not met
	stopped bool          // the search reached its work limit first
	spent   time.Duration // the estimated CPU time of its probes
}

// leastPeriod searches, for a unit that cannot be pipelined at
// opt.PeriodFO4, the shortest period in FO4 (to about 1 %) at which it
// can (meets): a period 1.25× longer at a time until one is met, then
// bisection. A probe's cost is estimated (cost) before it runs, and the
// search stops before the probes' estimates pass searchLimit or twice the
// estimate of the pipelining at opt.PeriodFO4, whichever is more, so that
// a large unit's refusal stays within a small multiple of what the run's
// work budget admitted (package flow estimates only the pipelining); the
// limit is in estimates, the same on every machine.
func leastPeriod(opt retime.Options, meets func(retime.Options) bool, cost func(float64) time.Duration) periodSearch {
	limit := max(2*cost(opt.PeriodFO4), searchLimit)
	s := periodSearch{failed: opt.PeriodFO4}
	try := func(p float64) (met, ok bool) {
		c := cost(p)
		if s.spent+c > limit {
			s.stopped = true
			return false, false
		}
		s.spent += c
		o := opt
		o.PeriodFO4 = p
		return meets(o), true
	}
	lo, hi := opt.PeriodFO4, 0.0
	for p := lo * 1.25; p <= specs.MaxClockFO4; p *= 1.25 {
		met, ok := try(p)
		if !ok {
			return s
		}
		if met {
			hi = p
			break
		}
		lo, s.failed = p, p
	}
	if hi == 0 {
		return s
	}
	for i := 0; i < 6 && hi/lo > 1.01; i++ {
		mid := (lo + hi) / 2
		met, ok := try(mid)
		if !ok {
			break // hi is met: a period found, if not the shortest
		}
		if met {
			hi = mid
		} else {
			lo = mid
		}
	}
	s.least, s.found = math.Ceil(hi*100)/100, true
	return s
}

// probeCost estimates the CPU time of pipelining design d at a period
// under opt's model (retime.EstimateCPU), for leastPeriod's limit; a
// design the model cannot time costs nothing here (its pipelining fails
// first).
func probeCost(d *netlist.Design, opt retime.Options) func(float64) time.Duration {
	fo4, err := timing.SlowestPath(d, opt.Timing)
	return func(p float64) time.Duration {
		if err != nil {
			return 0
		}
		return retime.EstimateCPU(len(d.Gates), fo4, p)
	}
}

// inPS is a period in FO4 in ps, in words, where the model has a time
// scale (a library's).
func inPS(fo4 float64, tech *timing.Tech, mode string) string {
	if mode != timing.Liberty || tech == nil {
		return ""
	}
	o, err := timing.PipelineOptionsIn(mode, tech)
	if err != nil || o.FO4PS() == 0 {
		return ""
	}
	return fmt.Sprintf(" (%.0f ps, %.3g MHz, in %s)", fo4*o.FO4PS(), 1e6/(fo4*o.FO4PS()), tech.Name)
}

// pipelinedJob is the lockstep check of a pipelined unit: its family's
// combinational model answered Latency cycles later, driven by the
// family's directed vectors and random operations with bubbles and
// resets in flight.
func pipelinedJob(f *Family, u specs.Unit, b Built) (model.Sequential, verify.StimulusFunc, error) {
	d := b.Design
	if v := b.Variable; v != nil {
		c, ok := u.(*specs.Coalescer)
		if !ok {
			return nil, nil, fmt.Errorf("%s: a variable-latency design from a %s unit", d.Name, u.UnitKind())
		}
		seq, err := model.ForSpeculativeClocked(c, v.FastLatency, d.Pipeline.Latency)
		return seq, speculativeClockedStimulus(c), err
	}
	if d.Pipeline.RegStage == nil {
		return nil, nil, fmt.Errorf("%s: a variable-latency design without its composer's measure (units.Build returns both)", d.Name)
	}
	m, err := f.Model(u)
	if err != nil {
		return nil, nil, err
	}
	seq, err := model.Pipelined(m, d.Pipeline.Latency)
	if err != nil {
		return nil, nil, err
	}
	// The function's inputs: the design's after clk, rst and valid_i.
	var ins []*netlist.Port
	for _, p := range d.Inputs() {
		switch p.Name {
		case d.Clock, verify.ResetPort, "valid_i":
		default:
			ins = append(ins, p)
		}
	}
	var directed verify.DirectedFunc
	if f.Directed != nil {
		directed = f.Directed(u)
	}
	return seq, pipelinedStimulus(directed, ins, d.Pipeline.Latency), nil
}
