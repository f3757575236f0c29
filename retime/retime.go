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

// DefaultSetupFO4 is the setup time charged at every register's D input,
// in FO4. The timing model itself adds none; a static transmission-gate
// master-slave flip-flop (the DFF row of timing.Cells) needs its master
// latch's input stage settled before the clock edge, about one inverter
// stage with its feedback: taken as 1 FO4.
const DefaultSetupFO4 = 1.0

// MaxLatency bounds the pipeline depth Pipeline will build.
const MaxLatency = 64

// Options say how to pipeline.
type Options struct {
	// PeriodFO4 is the clock period in FO4 of Timing's model.
	PeriodFO4 float64
	// Timing is the model that sets the cuts (its Mode: unsized or sized).
	Timing timing.Options
	// SetupFO4 is the register setup time; 0 means DefaultSetupFO4.
	SetupFO4 float64
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

	rank map[int]int // DFF gate index -> boundary (0-based stage it ends)
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
	if d.Clock != "" {
		return nil, fmt.Errorf("retime: %s is already clocked", d.Name)
	}
	setup := opt.SetupFO4
	if setup == 0 {
		setup = DefaultSetupFO4
	}
	if !(opt.PeriodFO4 > setup) || math.IsInf(opt.PeriodFO4, 0) || !(setup > 0) {
		return nil, fmt.Errorf("retime: %s: period %v FO4 must be finite and above the setup time %v FO4: %w", d.Name, opt.PeriodFO4, setup, ErrPeriod)
	}
	for _, p := range d.Ports {
		switch p.Name {
		case "clk", "rst", "valid_i", "valid_o":
			return nil, fmt.Errorf("retime: %s already has a port %s", d.Name, p.Name)
		}
	}
	nt, err := timing.Times(d, opt.Timing)
	if err != nil {
		return nil, err
	}
	s := newScheduler(d, nt, opt.Timing)
	budget := (opt.PeriodFO4 - setup) * nt.TauPerFO4
	const tries = 12
	for try := 0; try < tries; try++ {
		stageOf, L, err := s.schedule(budget)
		if err != nil {
			return nil, fmt.Errorf("retime: %s at %v FO4: %w", d.Name, opt.PeriodFO4, err)
		}
		r, err := build(d, stageOf, L, opt.Timing.Mode != timing.Sized)
		if err != nil {
			return nil, err
		}
		worst, err := r.measure(opt.Timing, setup)
		if err != nil {
			return nil, err
		}
		if worst <= opt.PeriodFO4+1e-9 {
			mode := string(opt.Timing.Mode)
			if mode == "" {
				mode = string(timing.Unsized)
			}
			r.Design.Header = append(r.Design.Header, describe(opt.PeriodFO4, mode, r.Latency, r.StageFO4)...)
			return r, nil
		}
		// The registers load nets differently from the fanout they replace:
		// shrink the budget by the excess and place again.
		budget -= max(worst-opt.PeriodFO4+0.05, 0.02*opt.PeriodFO4) * nt.TauPerFO4
	}
	return nil, fmt.Errorf("retime: %s: no placement met %v FO4 in %d tries", d.Name, opt.PeriodFO4, tries)
}

// measure times the built design and fills StageFO4; it returns the worst.
func (r *Result) measure(opt timing.Options, setup float64) (float64, error) {
	nt, err := timing.Times(r.Design, opt)
	if err != nil {
		return 0, err
	}
	r.StageFO4 = make([]float64, r.Latency)
	for i := range r.StageFO4 {
		r.StageFO4[i] = 0
	}
	for gi, g := range r.Design.Gates {
		if g.Kind != netlist.DFF {
			continue
		}
		k := r.rank[gi]
		t := nt.Arrival[g.In[0]]/nt.TauPerFO4 + setup
		r.StageFO4[k] = max(r.StageFO4[k], math.Round(t*1e4)/1e4)
	}
	worst := 0.0
	for _, t := range r.StageFO4 {
		worst = max(worst, t)
	}
	return worst, nil
}
