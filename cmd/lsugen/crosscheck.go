package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/timing/liberty"
	"github.com/lsugen/lsugen/verify/sta"
)

const crosscheckLong = `Cross-validates lsugen's FO4 model against a real timing flow. Each unit's
RTL is synthesised with Yosys to the library twice (plain ABC mapping, and
timing-driven: -D TARGET -constr; both with Yosys's default ABC scripts
but a bounded &fraig) and timed with OpenSTA; lsugen's own
gate netlist, each gate in the library cell the model characterizes for
it, is timed too (mapped). Delays convert to FO4 by the library's FO4 as
lsugen characterize computes it; OpenSTA's measure of it on an FO4
inverter chain is shown beside it. Prints per unit the delays in FO4 beside lsugen's unsized
and sized estimates with the gate table characterized from the library
(lsugen characterize) and with the default textbook table, and the
errors: unsized against mapped and plain, sized against timing-driven.
A pipelined unit (clock_fo4, --clock-fo4) is also timed stage by stage:
OpenSTA's worst arrival plus setup at the D pins of each stage's
registers, clock at the period in the library's FO4, in the mapped and the
timing-driven netlist, beside the model's stage delays (docs/pipelining.md).
Area: the cell area of the mapped netlist (summed from the library), of
the plain and of the timing-driven netlist (Yosys stat -liberty), in the
library's unit and in its NAND2 equivalents, beside lsugen's unsized and
sized GE (characterized and textbook), with the errors: unsized against
mapped (the same gates) and plain, sized against timing-driven
(docs/timing-model.md#area).
Large errors are reported, not failed: the exit status is 1 only when a
run fails, 2 for bad flags or an unreadable library or spec.`

// crosscheckFlags are the flags of lsugen crosscheck-timing.
type crosscheckFlags struct {
	libFile, driver, work, skip, srcKind, doc, flowFrom string
	load, target, band                                  float64
	asJSON, asMarkdown, progress                        bool
	maxGates, jobs, fraig                               int
	timeout                                             time.Duration
	budget                                              budget
	pipeWork                                            workFlags // --work-budget and --quiet of the run's pipelinings
}

func newCrosscheckCmd(a *app) *cobra.Command {
	f := &crosscheckFlags{}
	cmd := &cobra.Command{
		Use:   "crosscheck-timing --liberty FILE [--driver-cell CELL] [--json|--markdown] [--doc FILE] [flags] SPEC...",
		Short: "FO4 model against Yosys + OpenSTA with a real cell library",
		Long:  crosscheckLong,
		RunE: func(cmd *cobra.Command, paths []string) error {
			if f.flowFrom != "" {
				for _, n := range []string{"driver-cell", "load-factor", "target", "source", "fraig-conflicts", "work"} {
					if flagChanged(cmd.Flags(), n) {
						return usagef("--%s sets up the flow, which --flow-from does not run", n)
					}
				}
			}
			return runCrosscheck(a, f, paths)
		},
	}
	fs := cmd.Flags()
	addLibertyFlag(fs, &f.libFile)
	fs.StringVar(&f.driver, "driver-cell", "", "cell driving every input (default: the library's smallest inverter)")
	deprecatedAlias(fs, "driver", "driver-cell")
	fs.Float64Var(&f.load, "load-factor", sta.DefaultLoadFactor, "load on every output bit, in input capacitances of the --driver-cell")
	deprecatedAlias(fs, "load", "load-factor")
	fs.Float64Var(&f.target, "target", sta.DefaultTargetPS, "timing-driven delay target in ps (abc -D); the default asks for the fastest netlist")
	addJSONFlag(fs, &f.asJSON)
	fs.BoolVar(&f.asMarkdown, "markdown", false, "print the units as a Markdown table (as in docs/crosscheck-timing.md)")
	addWorkFlag(fs, &f.work)
	addToolMemoryFlag(fs)
	fs.IntVar(&f.maxGates, "max-gates", 0, "skip units with more lsugen gates than this (0: no limit)")
	addJobsFlag(fs, &f.jobs, 1)
	addBudgetFlags(fs, &f.budget, false)
	addPipeliningWork(a, fs, &f.budget, &f.pipeWork, "lsugen crosscheck-timing")
	fs.DurationVar(&f.timeout, "timeout", 30*time.Minute, "limit on each Yosys or OpenSTA run; a unit that exceeds it is reported as skipped")
	fs.StringVar(&f.skip, "skip", "", "comma-separated units not to run (reported as skipped)")
	fs.Float64Var(&f.band, "band", sta.DefaultBandPct, "tolerance in percent of the sized model against the timing-driven flow")
	fs.StringVar(&f.srcKind, "source", string(sta.SourceRTL), "what to synthesise: rtl (the readable module NAME) or gates (NAME_gates, the gates lsugen times)")
	fs.BoolVar(&f.progress, "progress", false, "print a line on stderr as each unit finishes")
	fs.StringVar(&f.doc, "doc", "", "also write the report as a complete Markdown page (method, table, summary, provenance) to `FILE`")
	fs.StringVar(&f.flowFrom, "flow-from", "", "run no tool: take the flows' figures from `FILE`, a previous run's --json report of the same library, and compute only lsugen's estimates")
	fs.IntVar(&f.fraig, "fraig-conflicts", sta.DefaultFraigConflicts, "conflict limit per candidate of ABC's SAT sweeping (&fraig -x -C) in both flows; ABC's default, 1000000, ran past 30 minutes on the 32-lane speculative coalescer")
	return cmd
}

// check refuses bad flags before any unit is loaded.
func (f *crosscheckFlags) check() error {
	if f.libFile == "" {
		return usagef("--liberty is required")
	}
	if !(f.load > 0) || math.IsInf(f.load, 0) || !(f.target > 0) || math.IsInf(f.target, 0) ||
		f.jobs < 1 || f.maxGates < 0 || f.timeout <= 0 || !(f.band >= 0) || f.fraig < 1 {
		return usagef("--load-factor, --target, --jobs, --timeout and --fraig-conflicts must be positive, --max-gates and --band not negative")
	}
	if f.asJSON && f.asMarkdown {
		return usagef("--json and --markdown exclude each other")
	}
	if f.srcKind != string(sta.SourceRTL) && f.srcKind != string(sta.SourceGates) {
		return usagef("--source %q: want rtl or gates", f.srcKind)
	}
	if f.doc != "" {
		if err := checkOutputFile(f.doc); err != nil {
			return usagef("--doc: %v", err)
		}
	}
	return nil
}

func runCrosscheck(a *app, f *crosscheckFlags, paths []string) error {
	if err := f.check(); err != nil {
		return err
	}
	f.budget.LibraryPath = f.libFile
	units, err := loadAndGenerate(paths, f.budget, a.stderr)
	if err != nil {
		return err
	}
	ccUnits, err := crosscheckUnits(units, f.skip, f.maxGates)
	if err != nil {
		return err
	}
	if f.flowFrom != "" {
		return recheck(a, f, ccUnits)
	}
	// The library is read by the flow much later: a missing or unreadable
	// file is bad input now.
	if fh, err := os.Open(f.libFile); err != nil {
		return badInput(err)
	} else {
		fh.Close()
	}
	dir, keep, err := workDir(f.work, "lsugen-crosscheck-")
	if err != nil {
		return err
	}
	ctx := a.context()
	var progressTo func(sta.UnitDone)
	if f.progress {
		progressTo = printProgress(a.stderr, f.timeout)
	}
	start := time.Now()
	rep, err := sta.Crosscheck(ctx, ccUnits, sta.CrosscheckOptions{
		Config: sta.Config{Liberty: f.libFile, Driver: f.driver, LoadFactor: f.load, WorkDir: dir, TargetPS: f.target,
			FraigConflicts: f.fraig, Timeout: f.timeout, Source: sta.Source(f.srcKind)},
		BandPct: f.band, Jobs: f.jobs, TimeoutName: "--timeout",
	}, progressTo)
	if err != nil {
		fmt.Fprintf(a.stderr, "lsugen crosscheck-timing: %v\n(%s)\n", err, workNote(a.context(), dir, f.work == ""))
		return errReported
	}
	rep.Seconds = round2(time.Since(start).Seconds())
	if !keep {
		os.RemoveAll(dir)
	}
	return writeCrosscheck(a, f, rep, f.jobs, runtime.NumCPU())
}

// recheck is --flow-from: the flows of a previous run's report beside
// lsugen's estimates computed now.
func recheck(a *app, f *crosscheckFlags, units []sta.CrosscheckUnit) error {
	b, err := os.ReadFile(f.flowFrom)
	if err != nil {
		return badInput(err)
	}
	var prev sta.Report
	if err := json.Unmarshal(b, &prev); err != nil {
		return badInput(fmt.Errorf("--flow-from %s: %w", f.flowFrom, err))
	}
	if prev.Library == "" || !(prev.FO4.PS > 0) {
		return badInput(fmt.Errorf("--flow-from %s: not a crosscheck-timing --json report (no library or FO4)", f.flowFrom))
	}
	lib, err := liberty.Load(f.libFile)
	if err != nil {
		return badInput(err)
	}
	rep, err := sta.Recompute(units, &prev, lib, f.band)
	if err != nil {
		return badInput(fmt.Errorf("--flow-from %s: %w", f.flowFrom, err))
	}
	// The page's provenance is the flow run's: its parallelism is not in
	// the report, so it is left out.
	return writeCrosscheck(a, f, rep, 0, 0)
}

// writeCrosscheck writes the --doc page and prints the report as asked.
func writeCrosscheck(a *app, f *crosscheckFlags, rep *sta.Report, jobs, cpus int) error {
	if f.doc != "" {
		var b bytes.Buffer
		if err := rep.WritePage(&b, sta.PageInfo{Version: gen.GeneratedBy(), Jobs: jobs, CPUs: cpus, Seconds: rep.Seconds}); err != nil {
			return err
		}
		if err := writeFileAtomic(f.doc, b.Bytes()); err != nil {
			return err
		}
	}
	switch {
	case f.asJSON:
		return printJSON(a.stdout, crosscheckDoc{Version: gen.Version, Report: rep})
	case f.asMarkdown:
		if err := rep.WriteMarkdown(a.stdout); err != nil {
			return err
		}
		// The areas and a pipelined unit's stages, in tables of their own.
		for _, table := range []func(io.Writer) error{rep.WriteAreaMarkdown, rep.WriteStagesMarkdown} {
			var b bytes.Buffer
			if err := table(&b); err != nil {
				return err
			}
			if b.Len() > 0 {
				fmt.Fprintln(a.stdout)
				if _, err := a.stdout.Write(b.Bytes()); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return rep.WriteText(a.stdout)
}

// crosscheckUnits are the units for sta.Crosscheck, those named in
// --skip (comma-separated) or larger than --max-gates marked skipped.
func crosscheckUnits(units []unit, skip string, maxGates int) ([]sta.CrosscheckUnit, error) {
	skipSet := map[string]bool{}
	for _, n := range strings.Split(skip, ",") {
		if n = strings.TrimSpace(n); n != "" {
			skipSet[n] = true
		}
	}
	names := make([]string, len(units))
	for i, u := range units {
		names[i] = u.Design.Name
	}
	for n := range skipSet {
		if !slices.Contains(names, n) {
			return nil, usagef("%v", unknownUnit("--skip", n, names))
		}
	}
	out := make([]sta.CrosscheckUnit, len(units))
	for i, u := range units {
		cu := sta.CrosscheckUnit{Design: u.Design, Kind: u.Spec.UnitKind(), Variant: u.Spec.Variant(),
			Info: rtl.Info{Version: gen.GeneratedBy(), Source: source(u.Spec)}}
		switch {
		case skipSet[u.Design.Name]:
			cu.Skip = "--skip"
		case maxGates > 0 && len(u.Design.Gates) > maxGates:
			cu.Skip = fmt.Sprintf("more than --max-gates %d", maxGates)
		}
		out[i] = cu
	}
	return out, nil
}

// printProgress is --progress: a line on stderr as each unit finishes.
func printProgress(stderr io.Writer, timeout time.Duration) func(sta.UnitDone) {
	return func(d sta.UnitDone) {
		switch {
		case d.Err != nil:
			fmt.Fprintf(stderr, "%-24s failed\n", d.Name)
		case d.TimedOut:
			fmt.Fprintf(stderr, "%-24s a tool run exceeded --timeout %v: skipped\n", d.Name, timeout)
		default:
			fmt.Fprintf(stderr, "%-24s plain %.1f ps, timing-driven %.1f ps, %.1fs\n", d.Name, d.Result.Plain.DelayPS, d.Result.TimingDriven.DelayPS, d.Seconds)
		}
	}
}

// round2 rounds to hundredths.
func round2(x float64) float64 { return math.Round(x*100) / 100 }
