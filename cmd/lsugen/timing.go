package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lsugen/lsugen/flow"
	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
)

const timingLong = `Static timing by logical effort with a wire-load model: critical path in
FO4, area in NAND2 equivalents and transistor count of every unit, in the
model of --timing-mode (sized by default, as clock_fo4, profile and the
sweep). A pipelined unit's critical path is its worst stage, with the
setup time; its stages are listed under the table. With --liberty the
gate table, wire load and time scale are the library's (characterized as
lsugen characterize prints it) and every delay and period is also in ps,
at the library's FO4 delay.
--svg draws FO4 against lanes (clock lines at the --clock periods, else
40, 48 and 56 FO4) and one unit's critical path; the file is written
atomically. The model is described in docs/timing-model.md.`

func newTimingCmd(a *app) *cobra.Command {
	var (
		asJSON, paths bool
		clocks, svg   string
		svgUnit       string
		b             budget
		m             timingModelFlags
		sw            sweepFlags
	)
	cmd := &cobra.Command{
		Use:   "timing [--json] [--paths] [--driver-size X] [--load C] [--timing-mode sized|unsized|liberty] [--no-wire] [--liberty FILE] [--clock FO4,...] [--svg FILE [--svg-unit NAME]] SPEC...",
		Short: "critical path in FO4, area in NAND2 equivalents, transistors",
		Long:  timingLong,
		RunE: func(cmd *cobra.Command, specPaths []string) error {
			opt, err := m.options()
			if err != nil {
				return err
			}
			periods, err := parseClocks(clocks, fo4PSOf(opt))
			if err != nil {
				return usagef("%v", err)
			}
			if svgUnit != "" && svg == "" {
				return usagef("--svg-unit needs --svg FILE")
			}
			// --timing-mode is the budget's too: without --clock-fo4 it
			// chooses only the model of the figures and of the units
			// built at the --clock periods.
			mode := b.Clock.TimingMode
			if b.Clock.ClockFO4 == 0 {
				b.Clock.TimingMode = ""
			}
			if sw.active() {
				return runSweep(a, cmd, &sw, opt, specPaths, b, asJSON, svg)
			}
			// --work-budget and --quiet: the load's pipelinings, then the
			// --clock cells'.
			b.Pipelining = sw.work.hook(a, cmd.Flags(), "lsugen timing", len(periods) == 0)
			b.LibraryPath = m.liberty
			s, err := loadSession(specPaths, b, a.stderr)
			if err != nil {
				return err
			}
			units := s.Units
			rep, err := timingReport(units, opt)
			if err != nil {
				return err
			}
			step, err := sw.work.pipelining(a, "lsugen timing --clock", flow.LatencyWork(units, periods, mode, s.Library))
			if err != nil {
				return err
			}
			flow.AddLatencies(rep, units, periods, mode, s.Library, step)
			if svg != "" {
				b, err := timingSVG(units, rep, opt, periods, svgUnit)
				if err != nil {
					return usagef("%v", err)
				}
				if err := writeFileAtomic(svg, b); err != nil {
					return err
				}
			}
			if asJSON {
				return printJSON(a.stdout, timingDoc{Version: gen.Version, Report: rep})
			}
			if err := rep.WriteTable(a.stdout); err != nil {
				return err
			}
			if paths {
				for _, u := range rep.Units {
					fmt.Fprintf(a.stdout, "\n%s", u.Result)
				}
			}
			if svg != "" {
				fmt.Fprintf(a.stdout, "\nwrote %s\n", svg)
			}
			return nil
		},
	}
	fs := cmd.Flags()
	addJSONFlag(fs, &asJSON)
	fs.BoolVar(&paths, "paths", false, "print each unit's critical path gate by gate")
	fs.StringVar(&clocks, "clock", "", clocksUsage)
	fs.StringVar(&svg, "svg", "", "also write an SVG figure: FO4 against lanes of the coalescers and detectors with the clock periods, and the critical path of one unit gate by gate")
	fs.StringVar(&svgUnit, "svg-unit", "", "the unit whose critical path the SVG draws (default: the slowest)")
	// The budget's flags before the model's, whose --timing-mode is the
	// budget's: one model places the registers (--clock-fo4) and times.
	addBudgetFlags(fs, &b, false)
	m.add(fs)
	addSweepFlags(fs, &sw)
	addWorkFlags(fs, &sw.work) // declared by the sweep's flags: one value for both
	cmd.AddCommand(newSweepCmds(a)...)
	return cmd
}

// The clock periods --clock accepts (timing and profile), in FO4: a
// period below a tenth of an FO4 delay or above a million is no clock, and
// keeps every cycle count (FO4 / period) far inside an int.
const (
	minClockFO4 = 0.1
	maxClockFO4 = 1e6
)

// clocksUsage is the help of timing's and profile's --clock.
const clocksUsage = "comma-separated clock periods, in FO4 or in time units (1GHz, 1.25ns: converted with --liberty's FO4, or the default library's): report the cycles each unit takes at each, as the unit clock_fo4 builds there"

// fo4PSOf is the FO4 in ps that converts periods in time units under opt:
// its library's, or the default library's.
func fo4PSOf(opt timing.Options) float64 {
	if ps := opt.FO4PS(); ps > 0 {
		return ps
	}
	return flow.DefaultLibraryFO4PS
}

// parseClocks reads "40,48,56" or "1GHz,800MHz" into clock periods in
// FO4, each a finite number from minClockFO4 to maxClockFO4; a period in
// time units is converted with fo4PS, the library's FO4 in ps (the
// default library's without one).
func parseClocks(s string, fo4PS float64) ([]float64, error) {
	if s == "" {
		return nil, nil
	}
	var out []float64
	for _, f := range strings.Split(s, ",") {
		p, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			if ps, perr := specs.ParsePeriod(f); perr == nil {
				p, err = ps/fo4PS, nil
			}
		}
		if err != nil || !(p > 0) || math.IsInf(p, 0) {
			return nil, fmt.Errorf("--clock: %q is not a positive number of FO4 or a period in time units such as 1GHz or 1.25ns (want %g to %g FO4)", f, minClockFO4, maxClockFO4)
		}
		if p < minClockFO4 || p > maxClockFO4 {
			return nil, fmt.Errorf("--clock: %q: want a period of at least %g and at most %g FO4", f, minClockFO4, maxClockFO4)
		}
		out = append(out, p)
	}
	return out, nil
}

// timingReport times every unit under opt, as lsugen timing reports
// them.
func timingReport(units []unit, opt timing.Options) (*timing.Report, error) {
	rep := &timing.Report{}
	for _, u := range units {
		ur, err := timing.NewUnitReport(u.Design.Name, u.Spec.UnitKind(), u.Spec.Variant(), u.Design, u.Variable.Report(), opt)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", u.Design.Name, err)
		}
		rep.Units = append(rep.Units, ur)
	}
	return rep, nil
}
