// Package retime pipelines a combinational unit at a clock period: it
// places registers in the gate netlist so that every stage, with a
// register's clock-to-Q before it and its setup after it, fits the period
// under the timing model, and adds the valid chain and reset that make the
// result a unit with a protocol (see Pipeline).
//
// Cuts are placed one stage boundary at a time. A forward pass finds the
// gates that fit in the stage being filled; a backward pass for the chosen
// latency finds those that must be in it for the later stages to fit. The
// stage takes a set between the two that is closed under fan-in and that
// minimises the nets crossing the boundary: a minimum cut in a flow graph
// in which each net costs one register however many readers it has. The
// built design is then timed again stage by stage; where the model's
// estimates during placement were too low (a register's load is not the
// fanout it replaced), the budget shrinks and placement starts over.
package retime

import (
	"errors"
	"fmt"
	"math"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/timing"
)

// MaxLatency bounds the pipeline depth Pipeline will build.
const MaxLatency = 64

// Options say how to pipeline.
type Options struct {
	// PeriodFO4 is the clock period in FO4 of Timing's model.
	PeriodFO4 float64
	// Timing is the model that sets the cuts (its Mode: unsized or sized).
	Timing timing.Options
	// Margin is the share of the period kept free for the model's error
	// (timing.LibertyMargin under a library's model): stages are cut to
	// fit PeriodFO4·(1−Margin). 0 for the textbook model.
	Margin float64
	// ModeName, when set, is the timing mode the design records
	// (netlist.Pipeline.Mode) instead of Timing.Mode: "liberty" for a
	// library's model (Timing.Tech), whose name it records too.
	ModeName string
}

// Recorded is the timing mode and library a design pipelined under opt
// records: ModeName or the model's mode, and the library's name under a
// library's model.
func (opt Options) Recorded() (mode, library string) {
	mode = opt.ModeName
	if mode == "" {
		mode = string(opt.Timing.Mode)
	}
	if mode == "" {
		mode = string(timing.Unsized)
	}
	if opt.Timing.Tech != nil {
		library = opt.Timing.Tech.Name
	}
	return mode, library
}

// modeWords names the model that placed the registers, for the header:
// "sized timing model", or a library's model with the period in ps.
func (opt Options) modeWords() string {
	mode, lib := opt.Recorded()
	if lib == "" {
		return mode + " timing model"
	}
	return fmt.Sprintf("%s timing model of %s, %.6g ps, stages cut to %g%% of it", mode, lib, opt.PeriodFO4*opt.Timing.FO4PS(), 100*(1-opt.Margin))
}

// Result is a pipelined unit.
type Result struct {
	Design *netlist.Design
	// Latency is L: an input presented in cycle t is on the outputs, with
	// valid_o, in cycle t+L.
	Latency int
	// StageFO4 is each stage's delay under the model: from the primary
	// inputs' drivers (stage 1) or the registers' clock-to-Q, through the
	// logic, to a register's D input, plus the setup time. Each is at most
	// the period.
	StageFO4 []float64
	// Registers counts the flip-flops: data registers between stages,
	// output registers and the valid chain.
	Registers int
	// StageRegisters counts the data registers at each boundary between
	// stages (Latency-1 entries).
	StageRegisters []int

	rank map[int]int         // DFF gate index -> boundary (0-based stage it ends)
	view func() *netlist.RTL // Design's gate-by-gate readable view (build)
	// placed is the design whose gates were placed (Pipeline's input,
	// its wide fanouts buffered under the unsized model), stageOf their
	// stages.
	placed  *netlist.Design
	stageOf []int32
}

// regStage lists each gate's register stage for netlist.Pipeline.
func (r *Result) regStage() []int32 {
	rs := make([]int32, len(r.Design.Gates))
	for i := range rs {
		rs[i] = -1
	}
	for gi, k := range r.rank {
		rs[gi] = int32(k)
	}
	return rs
}

// ErrPeriod is wrapped by the error of a period no pipelining can meet.
var ErrPeriod = errors.New("clock period too short")

// Pipeline cuts the combinational design d into stages of opt.PeriodFO4.
// The result's ports are clk, rst, valid_i, d's inputs, d's outputs and
// valid_o. It accepts an input every cycle; an input presented in cycle t
// with valid_i appears on the outputs with valid_o in cycle t+L. Outputs
// come from registers and are 0 when valid_o is 0; rst (synchronous,
// active high) drops the inputs in flight, those of its own cycle too.
func Pipeline(d *netlist.Design, opt Options) (*Result, error) {
	if d == nil {
		return nil, errors.New("retime: nil design")
	}
	if len(d.Memories) > 0 {
		return nil, fmt.Errorf("retime: %s has memory macros: pipelining a design with memories is not supported", d.Name)
	}
	if d.Clock != "" {
		return nil, fmt.Errorf("retime: %s is already clocked", d.Name)
	}
	setup := opt.Timing.SetupFO4()
	if !(opt.PeriodFO4 > setup) || math.IsInf(opt.PeriodFO4, 0) {
		return nil, fmt.Errorf("retime: %s: period %.4g FO4 must be finite and above the setup time %v FO4: %w", d.Name, opt.PeriodFO4, setup, ErrPeriod)
	}
	for _, p := range d.Ports {
		switch p.Name {
		case "clk", "rst", "valid_i", "valid_o":
			return nil, fmt.Errorf("retime: %s already has a port %s", d.Name, p.Name)
		}
	}
	if opt.Timing.Mode != timing.Sized {
		d = bufferFanout(d)
	}
	nt, err := timing.Times(d, opt.Timing)
	if err != nil {
		return nil, err
	}
	s := newScheduler(d, nt, opt.Timing)
	target := opt.PeriodFO4 * (1 - opt.Margin)
	if !(opt.Margin >= 0 && opt.Margin < 0.5) || !(target > setup) {
		return nil, fmt.Errorf("retime: %s: period %.4g FO4 less the margin %g leaves nothing above the setup time %.4g FO4: %w", d.Name, opt.PeriodFO4, opt.Margin, setup, ErrPeriod)
	}
	budget := (target - setup) * nt.TauPerFO4
	const tries = 12
	worst := 0.0
	for try := 0; try < tries; try++ {
		stageOf, L, err := s.schedule(budget)
		if err != nil && try > 0 {
			return nil, fmt.Errorf("retime: %s at %.4g FO4: the last placement had a stage of %.2f FO4 once its registers loaded the nets; with the budget cut to match: %w", d.Name, opt.PeriodFO4, worst, err)
		}
		if err != nil {
			return nil, fmt.Errorf("retime: %s at %.4g FO4: %w", d.Name, opt.PeriodFO4, err)
		}
		r, err := build(d, stageOf, L, opt.Timing.Mode != timing.Sized)
		if err != nil {
			return nil, err
		}
		r.placed, r.stageOf = d, stageOf
		mode, lib := opt.Recorded()
		r.Design.Pipeline = &netlist.Pipeline{PeriodFO4: opt.PeriodFO4, Mode: mode, Library: lib, Latency: L, RegStage: r.regStage()}
		worst, err = r.measure(opt.Timing)
		if err != nil {
			return nil, err
		}
		if worst <= target+1e-9 {
			r.Design.RTL = r.view()
			r.Design.Header = append(r.Design.Header, describe(opt.PeriodFO4, opt.modeWords(), r.Latency, r.StageFO4)...)
			return r, nil
		}
		// The registers load nets differently from the fanout they replace:
		// shrink the budget by the excess and place again.
		budget -= max(worst-target+0.05, 0.02*target) * nt.TauPerFO4
	}
	return nil, fmt.Errorf("retime: %s: no placement met %v FO4 in %d tries", d.Name, opt.PeriodFO4, tries)
}

// measure times the built design's stages under opt and returns the
// worst.
func (r *Result) measure(opt timing.Options) (float64, error) {
	st, err := timing.StageDelays(r.Design, opt)
	if err != nil {
		return 0, err
	}
	r.StageFO4 = st
	worst := 0.0
	for _, t := range st {
		worst = max(worst, t)
	}
	return worst, nil
}
