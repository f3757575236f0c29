package timing

import "github.com/lsugen/lsugen/netlist"

// Tech is a gate table with the wire-load model and time scale that go
// with it: a real cell library's figures in the terms of the model. The
// textbook table Cells with DefaultWire is the default technology;
// package timing/liberty characterizes a Tech from a liberty file.
type Tech struct {
	// Name names the technology, e.g. the liberty's library name.
	Name string `json:"name"`
	// Cells is the gate table: per kind, the logical effort, input
	// capacitance and parasitic delay of each pin (in units of τ and of
	// the reference inverter's input capacitance), area in NAND2
	// equivalents and transistor count.
	Cells [netlist.NumKinds]Cell `json:"-"`
	// Wire is the technology's wire-load model in the same capacitance
	// unit.
	Wire Wire `json:"wire"`
	// TauPS is τ in ps: the delay per unit of electrical effort of the
	// reference inverter.
	TauPS float64 `json:"tau_ps"`
	// RefCapFF is the reference inverter's input capacitance in fF, the
	// unit of every capacitance of the table.
	RefCapFF float64 `json:"ref_cap_ff"`
	// InputP is the parasitic delay, in τ, of the inverters that drive
	// the primary inputs, whose own inputs switch instantly (as a static
	// timing tool's set_driving_cell has them); 0 means the inverter's P.
	InputP float64 `json:"input_p"`
	// SlewTau is the reference transition, in τ, at which G and P were
	// fitted: that of a stage in a chain of FO4 inverters. Cells with a
	// SlewModel correct their delays for any other input transition.
	SlewTau float64 `json:"slew_tau,omitempty"`
	// SetupPS is the flip-flop's setup time in ps at the reference
	// transition (its setup_rising constraint); 0 when the library gives
	// none, and SetupFO4 applies.
	SetupPS float64 `json:"setup_ps,omitempty"`
}

// The default library: a clock given in time units without a library is
// converted with the FO4 delay of sky130_fd_sc_hd at tt, 25 °C, 1.8 V
// (the library of the shared cross-checks), as `lsugen characterize`
// computes it; a test (package flow) keeps the figure equal to the
// characterization of that file.
const (
	DefaultLibraryName  = "sky130_fd_sc_hd__tt_025C_1v80"
	DefaultLibraryFO4PS = 86.0949
)

// OptionsFor is DefaultOptions in technology t: its gate table and its
// wire-load model.
func OptionsFor(t *Tech) Options {
	o := DefaultOptions()
	o.Tech = t
	o.Wire = t.Wire
	return o
}

// FO4PS is the FO4 delay in ps that the options predict: TauPerFO4 in τ
// times the technology's τ; 0 for the textbook table, which has no time
// scale.
func (o Options) FO4PS() float64 {
	if o.Tech == nil {
		return 0
	}
	return o.TauPerFO4() * o.Tech.TauPS
}

// SetupFO4 is the setup time charged at a register's D input when stages
// are cut and timed, in FO4 of the options' model: the technology's
// flip-flop setup (Tech.SetupPS) where it has one, else the textbook
// figure SetupFO4.
func (o Options) SetupFO4() float64 {
	if o.Tech != nil && o.Tech.SetupPS > 0 {
		if fo4 := o.FO4PS(); fo4 > 0 {
			return o.Tech.SetupPS / fo4
		}
	}
	return SetupFO4
}
