package timing

import (
	"errors"
	"fmt"

	"github.com/lsugen/lsugen/netlist"
)

// NetTimes is the analysis's forward pass, every net's arrival time and
// load, for the pipeliner (package retime), which places registers by
// them and then checks every stage of what it built.
type NetTimes struct {
	// TauPerFO4 converts τ to FO4 under the options.
	TauPerFO4 float64
	// Arrival is each net's arrival time in τ: from the primary-input
	// drivers and from DFF outputs (clock to Q); constants arrive at 0.
	Arrival []float64
	// Load is each net's capacitance in unit-inverter input caps, wire
	// included.
	Load []float64
	// GateDelay is each gate's stage delay in τ from its slowest input
	// pin (a DFF's: clock to Q), with its output's load.
	GateDelay []float64
	// AreaGE is the design's gate area, which sets the wire model's area
	// term.
	AreaGE float64
}

// Times runs the forward pass of Analyze on d under opt.
func Times(d *netlist.Design, opt Options) (*NetTimes, error) {
	if d == nil {
		return nil, errors.New("timing: nil design")
	}
	if err := opt.check(); err != nil {
		return nil, err
	}
	if err := d.Check(); err != nil {
		return nil, fmt.Errorf("timing: design %s: %w", d.Name, err)
	}
	nt, err := propagate(d, opt)
	if err != nil {
		return nil, err
	}
	gd := make([]float64, len(d.Gates))
	for gi, g := range d.Gates {
		for pin := range g.In {
			dl, _, _ := opt.stage(&nt.cells[g.Kind], pin, nt.load[g.Out])
			gd[gi] = max(gd[gi], dl)
		}
	}
	return &NetTimes{TauPerFO4: nt.tauPerFO4, Arrival: nt.arr, Load: nt.load, GateDelay: gd, AreaGE: gateArea(d, nt.cells)}, nil
}

// CellDelay is the stage delay in τ of a cell of kind k from input pin
// when its output carries load, under the options' gate table and sizing
// regime.
func (o Options) CellDelay(k netlist.Kind, pin int, load float64) float64 {
	dl, _, _ := o.stage(&o.cells()[k], pin, load)
	return dl
}

// InputCap is the capacitance of input pin of a cell of kind k, in
// unit-inverter input caps.
func (o Options) InputCap(k netlist.Kind, pin int) float64 { return o.cells()[k].Cin[pin] }

// PinLoad is the load of a net that drives one input pin of a cell of
// kind k, wire included, in a design of the given area.
func (o Options) PinLoad(k netlist.Kind, pin int, areaGE float64) float64 {
	return o.cells()[k].Cin[pin] + o.Wire.netCap(1, areaGE)
}

// SetupFO4 is the setup time charged at a register's D input when a
// pipelined unit's stages are timed, in FO4. The critical-path analysis
// adds none; a static transmission-gate master-slave flip-flop (the DFF
// row of Cells) needs its master latch's input stage settled before the
// clock edge, about one inverter stage with its feedback: 1 FO4.
const SetupFO4 = 1.0

// StageDelays times each stage of a pipelined design (d.Pipeline set): the
// worst arrival at the D inputs of the registers that end it, plus the
// setup time, in FO4 rounded to 4 decimals. A stage starts at the primary
// inputs' drivers (the first) or at its registers' clock-to-Q.
func StageDelays(d *netlist.Design, opt Options) ([]float64, error) {
	if d == nil || d.Pipeline == nil {
		return nil, errors.New("timing: not a pipelined design")
	}
	nt, err := Times(d, opt)
	if err != nil {
		return nil, err
	}
	p := d.Pipeline
	if len(p.RegStage) != len(d.Gates) || p.Latency < 1 {
		return nil, fmt.Errorf("timing: design %s: pipeline description does not match its gates", d.Name)
	}
	st := make([]float64, p.Latency)
	for gi, g := range d.Gates {
		k := p.RegStage[gi]
		if g.Kind != netlist.DFF || k < 0 {
			continue
		}
		if int(k) >= len(st) {
			return nil, fmt.Errorf("timing: design %s: register g%d ends stage %d of %d", d.Name, gi, k+1, len(st))
		}
		st[k] = max(st[k], round4(nt.Arrival[g.In[0]]/nt.TauPerFO4+opt.SetupFO4()))
	}
	return st, nil
}

// PipelineOptions are the options a unit's stages are cut and timed
// under: the default model in the given mode ("sized" or "unsized").
func PipelineOptions(mode string) Options {
	o := DefaultOptions()
	o.Mode = Mode(mode)
	return o
}

// Liberty is the timing mode that cuts and times stages with a library's
// characterized model (PipelineOptionsIn).
const Liberty = "liberty"

// LibertyMargin is the share of the period that timing mode liberty
// keeps free for the characterized model's error: on sky130 its stages
// came out up to 3.7 % shorter than OpenSTA's timing of the same gates
// mapped to the library's cells (the example units of up to 1,500
// gates, pipelined at 1 GHz and 500 MHz; docs/pipelining.md), so the
// stages are cut to fit 96 % of the period.
const LibertyMargin = 0.04

// PipelineOptionsIn are PipelineOptions for any timing mode: "liberty" is
// technology tech's characterized model with gates as built (Unsized), as
// OpenSTA times lsugen's netlist mapped cell for cell, with the library's
// flip-flop clock-to-Q and setup (Options.SetupFO4); the other modes are
// the textbook model's. It refuses "liberty" without a technology.
func PipelineOptionsIn(mode string, tech *Tech) (Options, error) {
	switch mode {
	case Liberty:
		if tech == nil {
			return Options{}, errors.New("timing mode liberty needs a cell library (--liberty FILE)")
		}
		return OptionsFor(tech), nil
	case string(Sized), string(Unsized), "":
		return PipelineOptions(mode), nil
	}
	return Options{}, fmt.Errorf("unknown timing mode %q", mode)
}

// SlowestPath is the slowest register-to-register path of a clocked
// design in FO4, the period it needs: the worst arrival, plus the setup
// time, at a DFF's D input (SetupFO4) or a memory macro's input (the
// macro's stated setup), or the worst arrival at an output port bit
// (which leaves the user's logic nothing); rounded to 4 decimals. Paths
// start at the primary inputs' drivers (arriving at 0), at DFF outputs
// (clock to Q) and at memory read data (the macro's access time).
func SlowestPath(d *netlist.Design, opt Options) (float64, error) {
	nt, err := Times(d, opt)
	if err != nil {
		return 0, err
	}
	if err := checkMemFigures(d); err != nil {
		return 0, err
	}
	tau := nt.TauPerFO4
	worst := 0.0
	for _, g := range d.Gates {
		if g.Kind == netlist.DFF {
			worst = max(worst, nt.Arrival[g.In[0]]/tau+opt.SetupFO4())
		}
	}
	for mi := range d.Memories {
		m := &d.Memories[mi]
		for _, p := range memInputs(m) {
			for _, b := range p.bus {
				worst = max(worst, nt.Arrival[b]/tau+m.SetupFO4)
			}
		}
	}
	for _, p := range d.Outputs() {
		for _, b := range p.Bits {
			worst = max(worst, nt.Arrival[b]/tau)
		}
	}
	return round4(worst), nil
}
