package units

import (
	"errors"
	"fmt"
	"math"

	"github.com/hashicorp/hcl/v2"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/retime"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/verify"
)

// pipelined cuts a unit's combinational design d into stages of its
// clock under its timing_mode model (the textbook model, sized or
// unsized, or library tech's under "liberty"). An error points at the
// clock.
func pipelined(u specs.Pipelinable, d *netlist.Design, tech *timing.Tech, diags hcl.Diagnostics) (Built, hcl.Diagnostics) {
	return Pipeline(u, d, u.Clock(), tech, diags)
}

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
	// what fails.
	refused := func(err error, meets func(retime.Options) bool) (Built, hcl.Diagnostics) {
		if errors.Is(err, retime.ErrPeriod) {
			if least, ok := leastPeriod(opt, meets); ok {
				err = fmt.Errorf("%w. The shortest period it can be pipelined at under the %s model is about %.2f FO4%s", err, c.TimingMode, least, inPS(least, tech, c.TimingMode))
			}
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

// leastPeriod searches, for a unit that cannot be pipelined at
// opt.PeriodFO4, the shortest period in FO4 (to about 1 %) at which it
// can (meets): a period 1.25× longer at a time until one is met, then
// bisection. ok is false when none up to MaxClockFO4 is met.
func leastPeriod(opt retime.Options, meets func(retime.Options) bool) (float64, bool) {
	try := func(p float64) bool {
		o := opt
		o.PeriodFO4 = p
		return meets(o)
	}
	lo, hi := opt.PeriodFO4, 0.0
	for p := lo * 1.25; p <= specs.MaxClockFO4; p *= 1.25 {
		if try(p) {
			hi = p
			break
		}
		lo = p
	}
	if hi == 0 {
		return 0, false
	}
	for i := 0; i < 6 && hi/lo > 1.01; i++ {
		if mid := (lo + hi) / 2; try(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return math.Ceil(hi*100) / 100, true
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
