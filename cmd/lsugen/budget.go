package main

import (
	"fmt"
	"strings"
	"time"

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

// workFlags are --work-budget and --quiet: the CPU time a run may be
// estimated at, and no progress line.
type workFlags struct {
	budget time.Duration
	quiet  bool
}

// addWorkFlags declares --work-budget and --quiet on fs into w, unless fs
// has them already (timing's sweep flags declare them first: one value
// for the sweep's points and the load's pipelinings).
func addWorkFlags(fs *pflag.FlagSet, w *workFlags) {
	if fs.Lookup("work-budget") == nil {
		addWorkBudgetFlag(fs, &w.budget)
		addQuietFlag(fs, &w.quiet)
	}
}

// addPipeliningWork gives the session of budget b a work budget and a
// progress line for its pipelinings (clock_fo4, clock, --clock-fo4,
// --clock): --work-budget and --quiet, into w (addWorkFlags), refused
// when the run pipelines nothing. name is the progress line's ("lsugen
// gen").
func addPipeliningWork(a *app, fs *pflag.FlagSet, b *budget, w *workFlags, name string) {
	addWorkFlags(fs, w)
	b.Pipelining = w.hook(a, fs, name, true)
}

// hook is flow.Options.Pipelining under the flags w of fs: pipelining,
// and with refuseUnused a refusal of --work-budget or --quiet given to a
// run that pipelines nothing (a command whose flags apply to other work
// too, a sweep's points or timing's --clock cells, passes false).
func (w *workFlags) hook(a *app, fs *pflag.FlagSet, name string, refuseUnused bool) func(flow.PipelineWork) (func(), error) {
	return func(pw flow.PipelineWork) (func(), error) {
		if pw.Pipelinings == 0 && refuseUnused && (flagChanged(fs, "work-budget") || flagChanged(fs, "quiet")) {
			return nil, usagef("--work-budget and --quiet apply to the pipelining of units at a clock (clock_fo4 or clock in a spec, --clock-fo4 or --clock): these units have none")
		}
		return w.pipelining(a, name, pw)
	}
}

// pipelining refuses pipelinings pw estimated over --work-budget, and
// otherwise starts their progress line and returns the function that
// counts each as it ends, stopping the line after the last (none for no
// pipelinings).
func (w *workFlags) pipelining(a *app, name string, pw flow.PipelineWork) (func(), error) {
	if err := checkWorkBudgetFlag(w.budget); err != nil {
		return nil, err
	}
	if pw.Pipelinings == 0 {
		return nil, nil
	}
	noun := "pipelinings"
	if pw.Pipelinings == 1 {
		noun = "pipelining"
	}
	var costliest []string
	for _, c := range pw.Largest {
		costliest = append(costliest, fmt.Sprintf("%s (%d gates, %.4g FO4 at %.4g FO4: %s)", c.Unit, c.Gates, c.DelayFO4, c.PeriodFO4, formatDuration(c.CPU)))
	}
	e := workEstimate{size: fmt.Sprintf("%d %s; the costliest: %s", pw.Pipelinings, noun, strings.Join(costliest, ", ")),
		cpu: pw.CPU, longest: pw.CPU, shrink: "a longer clock period, or fewer units with --unit"}
	if err := checkWork(w.budget, e); err != nil {
		return nil, err
	}
	p := startProgress(a.context(), a.stderr, w.quiet, name, "pipelinings", int64(pw.Pipelinings), pw.CPU)
	var done int
	return func() {
		p.Add(1)
		if done++; done == pw.Pipelinings {
			p.Stop()
		}
	}, nil
}
