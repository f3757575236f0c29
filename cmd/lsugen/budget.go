package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/lsugen/lsugen/flow"
	"github.com/lsugen/lsugen/specs"
)

// budget is one run's limits and clock override, checked and applied by
// flow.Load (flow/budget.go).
type budget = flow.Options

// defaultBudget is the budget of a command that declares no flags for it.
func defaultBudget(writes bool) budget { return flow.DefaultOptions(writes) }

// addBudgetFlags declares --gate-budget, and with writes --output-budget,
// --unit and the clock override on b (which they set; defaultBudget
// first).
func addBudgetFlags(fs *pflag.FlagSet, b *budget, writes bool) {
	*b = defaultBudget(writes)
	fs.Int64Var(&b.Gates, "gate-budget", flow.DefaultGateBudget,
		"refuse a run whose units are estimated at more gates than this in all, before generating any (0: no limit)")
	if writes {
		fs.Int64Var(&b.Bytes, "output-budget", flow.DefaultOutputBudget,
			"refuse a run whose Verilog is estimated at more bytes than this in all, before generating any (0: no limit)")
	}
	fs.Float64Var(&b.Clock.ClockFO4, "clock-fo4", 0,
		fmt.Sprintf("pipeline every combinational unit whose spec has no clock at this clock period, %d to %d FO4 (as clock_fo4 does)", specs.MinClockFO4, specs.MaxClockFO4))
	if fs.Lookup("clock") == nil {
		fs.Var(periodFlag{&b.Clock.PeriodPS}, "clock",
			"as --clock-fo4, but in time units: 1GHz, 800MHz, 1.25ns, 900ps (converted with the FO4 of --liberty's library, or of the default library)")
	}
	addUnitFlag(fs, b)
	fs.StringVar(&b.Clock.TimingMode, "timing-mode", "", "with --clock-fo4 or --clock: the model that places the registers, sized, unsized or liberty (default: liberty with --liberty, else sized)")
}

// addUnitFlag declares --unit, the units a command that loads specs
// works on (flow.Options.Units): every such command has it.
func addUnitFlag(fs *pflag.FlagSet, b *budget) {
	fs.StringArrayVar(&b.Units, "unit", nil, "only the units whose names match this glob `PATTERN` (repeatable, e.g. 'coalesce_*'; a name that matches none is refused with the nearest)")
}

// periodFlag is a clock period in time units (specs.ParsePeriod), in ps.
type periodFlag struct{ ps *float64 }

func (p periodFlag) String() string {
	if p.ps == nil || *p.ps == 0 {
		return ""
	}
	return fmt.Sprintf("%gps", *p.ps)
}

func (p periodFlag) Set(s string) error {
	ps, err := specs.ParsePeriod(s)
	if err != nil {
		return err
	}
	*p.ps = ps
	return nil
}

func (periodFlag) Type() string { return "period" }
