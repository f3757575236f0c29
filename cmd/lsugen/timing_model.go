package main

import (
	"math"

	"github.com/spf13/pflag"

	"github.com/lsugen/lsugen/timing"
)

// timingModeUsage is the help of --timing-mode in the commands that time.
const timingModeUsage = "the timing model the figures are in: sized (the default: logical-effort buffer trees on every stage), unsized (gates as built, unbuffered fanout) or liberty (--liberty's characterized model, gates as built); with --clock-fo4 it also places the registers"

// libertyMode is the timing mode of --liberty's characterized model with
// gates as built: the model OpenSTA's timing of lsugen's netlist mapped
// cell for cell follows, and the pipeliner's timing_mode "liberty".
const libertyMode = "liberty"

// timingModelFlags are the flags of the timing model: lsugen timing's and
// its sweep subcommands', declared once.
type timingModelFlags struct {
	opt     timing.Options
	liberty string
	noWire  bool
	fs      *pflag.FlagSet
}

// add declares the model's flags on fs: --timing-mode (shared with the
// budget's where fs has it: one model places the registers and times
// them) and its old spelling --mode.
func (m *timingModelFlags) add(fs *pflag.FlagSet) {
	m.opt = timing.DefaultReportOptions()
	m.fs = fs
	fs.Float64Var(&m.opt.DriverSize, "driver-size", m.opt.DriverSize, "size of the inverter driving each primary input, in unit inverters")
	deprecatedAlias(fs, "driver", "driver-size")
	fs.Float64Var(&m.opt.OutputLoad, "load", m.opt.OutputLoad, "load on each output bit, in unit-inverter input capacitances")
	addTimingModeFlag(fs, new(string))
	fs.BoolVar(&m.noWire, "no-wire", false, "free wires: the textbook logical-effort model (FO4 = 5 tau) instead of the wire-load model")
	addLibertyFlag(fs, &m.liberty)
}

// addTimingModeFlag declares --timing-mode on p, unless fs has it already
// (the budget's, which then holds the value), with the help of the
// commands that time, and --mode, its old spelling.
func addTimingModeFlag(fs *pflag.FlagSet, p *string) {
	if fs.Lookup("timing-mode") == nil {
		fs.StringVar(p, "timing-mode", "", timingModeUsage)
	}
	fs.Lookup("timing-mode").Usage = timingModeUsage
	deprecatedAlias(fs, "mode", "timing-mode")
}

// timingMode is the sizing regime of the model --timing-mode (or
// --mode) names on fs, the default when neither was given; liberty, the
// unsized regime in the library, needs one (withLibrary).
func timingMode(fs *pflag.FlagSet, withLibrary bool) (timing.Mode, error) {
	switch v := fs.Lookup("timing-mode").Value.String(); v {
	case "":
		return timing.DefaultReportOptions().Mode, nil
	case string(timing.Sized), string(timing.Unsized):
		return timing.Mode(v), nil
	case libertyMode:
		if !withLibrary {
			return "", usagef("--timing-mode liberty times in a cell library's characterized model: give --liberty FILE")
		}
		return timing.Unsized, nil
	default:
		return "", usagef("--timing-mode %q: want sized, unsized or liberty", v)
	}
}

// options checks the model's flags and returns the model, characterizing
// the --liberty library.
func (m *timingModelFlags) options() (timing.Options, error) {
	opt := m.opt
	mode, err := timingMode(m.fs, m.liberty != "")
	if err != nil {
		return opt, err
	}
	opt.Mode = mode
	if !(opt.DriverSize > 0) || math.IsInf(opt.DriverSize, 0) || !(opt.OutputLoad >= 0) || math.IsInf(opt.OutputLoad, 0) {
		return opt, usagef("--driver-size must be positive and --load not negative, both finite")
	}
	if m.liberty != "" {
		ch, err := characterizeFile(m.liberty)
		if err != nil {
			return opt, badInput(err)
		}
		opt.Tech, opt.Wire = ch.Tech, ch.Tech.Wire
	}
	if m.noWire {
		opt.Wire = timing.Wire{}
	}
	return opt, nil
}
