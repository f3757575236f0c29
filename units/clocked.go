package units

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/retime"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/verify"
)

// pipelined cuts a unit's combinational design d into stages of its
// clock_fo4 under its timing_mode model (the default textbook model,
// sized or unsized). An error points at clock_fo4.
func pipelined(u specs.Pipelinable, d *netlist.Design, diags hcl.Diagnostics) (Built, hcl.Diagnostics) {
	return Pipeline(u, d, u.Clock(), diags)
}

// Pipeline cuts unit u's combinational design d into stages at clocking
// c, as clock_fo4 does (c.Range, when set, locates errors); the command
// line's --clock-fo4 calls it for units whose spec has no clock. A unit
// its family composes at a clock (Family.Compose: the speculative
// coalescer, a variable-latency unit) comes back with its composer's
// measure beside the design.
func Pipeline(u specs.Unit, d *netlist.Design, c specs.Clocking, diags hcl.Diagnostics) (Built, hcl.Diagnostics) {
	if c.TimingMode == "" {
		c.TimingMode = string(timing.Sized)
	}
	if c.Range == (hcl.Range{}) {
		c.Range = u.DeclRange()
	}
	if d.Clock != "" {
		return Built{}, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unit already clocked",
			Detail:  fmt.Sprintf("%s is clocked with its own protocol; clock_fo4 pipelines combinational units only.", u.UnitName()),
			Subject: c.Range.Ptr()})
	}
	opt := retime.Options{PeriodFO4: c.ClockFO4, Timing: timing.PipelineOptions(c.TimingMode)}
	if f, _ := For(u); f != nil && f.Compose != nil {
		b, ok, err := f.Compose(u, opt)
		if err != nil {
			return Built{}, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot pipeline at this clock",
				Detail: err.Error(), Subject: c.Range.Ptr()})
		}
		if ok {
			return b, diags
		}
	}
	r, err := pipelineStyle(c)(d, opt)
	if err != nil {
		return Built{}, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot pipeline at this clock",
			Detail: err.Error(), Subject: c.Range.Ptr()})
	}
	return Built{Design: r.Design}, diags
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
