package main

import (
	"math"

	"github.com/spf13/pflag"

	"github.com/lsugen/lsugen/timing"
)

// timingModelFlags are the flags of the timing model: lsugen timing's and
// its sweep subcommands', declared once.
type timingModelFlags struct {
	opt           timing.Options
	mode, liberty string
	noWire        bool
}

// add declares the model's flags on fs, --mode defaulting to mode.
func (m *timingModelFlags) add(fs *pflag.FlagSet, mode timing.Mode) {
	m.opt = timing.DefaultOptions()
	fs.Float64Var(&m.opt.DriverSize, "driver-size", m.opt.DriverSize, "size of the inverter driving each primary input, in unit inverters")
	deprecatedAlias(fs, "driver", "driver-size")
	fs.Float64Var(&m.opt.OutputLoad, "load", m.opt.OutputLoad, "load on each output bit, in unit-inverter input capacitances")
	fs.StringVar(&m.mode, "mode", string(mode), "unsized: gates as built, unbuffered fanout; sized: logical-effort buffer trees on every stage")
	fs.BoolVar(&m.noWire, "no-wire", false, "free wires: the textbook logical-effort model (FO4 = 5 tau) instead of the wire-load model")
	addLibertyFlag(fs, &m.liberty)
}

// options checks the model's flags and returns the model, characterizing
// the --liberty library.
func (m *timingModelFlags) options() (timing.Options, error) {
	opt := m.opt
	opt.Mode = timing.Mode(m.mode)
	if opt.Mode != timing.Unsized && opt.Mode != timing.Sized {
		return opt, usagef("--mode %q: want unsized or sized", m.mode)
	}
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
