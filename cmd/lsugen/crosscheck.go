package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"time"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/verify/hdl"
	"github.com/lsugen/lsugen/verify/sta"
)

func cmdCrosscheck(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("crosscheck-timing", flag.ContinueOnError)
	libFile := fs.String("liberty", "", "cell library (liberty, plain or gzipped); required")
	driver := fs.String("driver", "", "cell driving every input (default: the library's smallest inverter)")
	load := fs.Float64("load", sta.DefaultLoadFactor, "load on every output bit, in driver input capacitances")
	target := fs.Float64("target", sta.DefaultTargetPS, "timing-driven delay target in ps (abc -D); the default asks for the fastest netlist")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	asMarkdown := fs.Bool("markdown", false, "print the units as a Markdown table (as in docs/crosscheck-timing.md)")
	work := fs.String("work", "", "work directory for RTL, scripts, netlists and logs (default: a temporary directory, kept only on failure)")
	maxGates := fs.Int("max-gates", 0, "skip units with more lsugen gates than this (0: no limit)")
	jobs := fs.Int("jobs", 1, "units run in parallel")
	timeout := fs.Duration("timeout", 30*time.Minute, "limit on each Yosys or OpenSTA run; a unit that exceeds it is reported as skipped")
	skip := fs.String("skip", "", "comma-separated units not to run (reported as skipped)")
	band := fs.Float64("band", sta.DefaultBandPct, "tolerance in percent of the sized model against the timing-driven flow")
	srcKind := fs.String("source", string(sta.SourceRTL), "what to synthesise: rtl (the readable module NAME) or gates (NAME_gates, the gates lsugen times)")
	progress := fs.Bool("progress", false, "print a line on stderr as each unit finishes")
	doc := fs.String("doc", "", "also write the report as a complete Markdown page (method, table, summary, provenance) to `FILE`")
	fraig := fs.Int("fraig-conflicts", sta.DefaultFraigConflicts, "conflict limit per candidate of ABC's SAT sweeping (&fraig -x -C) in both flows; ABC's default, 1000000, ran past 30 minutes on the 32-lane speculative coalescer")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `Usage: lsugen crosscheck-timing --liberty FILE [--driver CELL] [--json|--markdown] [--doc FILE] [flags] SPEC...

Cross-validates lsugen's FO4 model against a real timing flow. Each unit's
RTL is synthesised with Yosys to the library twice (plain ABC mapping, and
timing-driven: -D TARGET -constr; both with Yosys's default ABC scripts
but a bounded &fraig) and timed with OpenSTA; lsugen's own
gate netlist, each gate in the library cell the model characterizes for
it, is timed too (mapped); the library's FO4 is measured with OpenSTA on an
inverter chain. Prints per unit the delays in FO4 beside lsugen's unsized
and sized estimates with the gate table characterized from the library
(lsugen characterize) and with the default textbook table, and the
errors: unsized against mapped and plain, sized against timing-driven.
Large errors are reported, not failed: the exit status is 1 only on
errors.`)
		fs.PrintDefaults()
	}
	paths, err := parseFlags(fs, args, stderr)
	if err != nil {
		return err
	}
	if *libFile == "" {
		fmt.Fprintln(stderr, "lsugen crosscheck-timing: --liberty is required")
		return errUsage
	}
	if !(*load > 0) || math.IsInf(*load, 0) || !(*target > 0) || math.IsInf(*target, 0) ||
		*jobs < 1 || *maxGates < 0 || *timeout <= 0 || !(*band >= 0) || *fraig < 1 {
		fmt.Fprintln(stderr, "lsugen crosscheck-timing: --load, --target, --jobs, --timeout and --fraig-conflicts must be positive, --max-gates and --band not negative")
		return errUsage
	}
	if *asJSON && *asMarkdown {
		fmt.Fprintln(stderr, "lsugen crosscheck-timing: --json and --markdown exclude each other")
		return errUsage
	}
	if *srcKind != string(sta.SourceRTL) && *srcKind != string(sta.SourceGates) {
		fmt.Fprintf(stderr, "lsugen crosscheck-timing: --source %q: want rtl or gates\n", *srcKind)
		return errUsage
	}
	units, err := loadAndGenerate(paths, stderr)
	if err != nil {
		return err
	}
	ccUnits, err := crosscheckUnits(units, *skip, *maxGates, stderr)
	if err != nil {
		return err
	}
	dir, keep, err := workDir(*work, "lsugen-crosscheck-")
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var progressTo func(sta.UnitDone)
	if *progress {
		progressTo = printProgress(stderr, *timeout)
	}
	start := time.Now()
	rep, err := sta.Crosscheck(ctx, ccUnits, sta.CrosscheckOptions{
		Config: sta.Config{Liberty: *libFile, Driver: *driver, LoadFactor: *load, WorkDir: dir, TargetPS: *target,
			FraigConflicts: *fraig, Timeout: *timeout, Source: sta.Source(*srcKind)},
		BandPct: *band, Jobs: *jobs, TimeoutName: "--timeout",
	}, progressTo)
	if err != nil {
		fmt.Fprintf(stderr, "lsugen crosscheck-timing: %v\n(work directory kept: %s)\n", err, dir)
		return errReported
	}
	seconds := time.Since(start).Seconds()
	if !keep {
		os.RemoveAll(dir)
	}
	if *doc != "" {
		var b bytes.Buffer
		if err := rep.WritePage(&b, sta.PageInfo{Version: "lsugen " + gen.Version, Jobs: *jobs, CPUs: runtime.NumCPU(), Seconds: seconds}); err != nil {
			return err
		}
		if err := hdl.WriteFileAtomic(*doc, b.Bytes()); err != nil {
			return err
		}
	}
	switch {
	case *asJSON:
		b, err := rep.JSON()
		if err != nil {
			return err
		}
		_, err = stdout.Write(b)
		return err
	case *asMarkdown:
		return rep.WriteMarkdown(stdout)
	}
	return rep.WriteText(stdout)
}

// crosscheckUnits are the units for sta.Crosscheck, those named in
// --skip (comma-separated) or larger than --max-gates marked skipped.
func crosscheckUnits(units []unit, skip string, maxGates int, stderr io.Writer) ([]sta.CrosscheckUnit, error) {
	skipSet := map[string]bool{}
	for _, n := range strings.Split(skip, ",") {
		if n = strings.TrimSpace(n); n != "" {
			skipSet[n] = true
		}
	}
	for n := range skipSet {
		found := false
		for _, u := range units {
			found = found || u.design.Name == n
		}
		if !found {
			fmt.Fprintf(stderr, "lsugen crosscheck-timing: --skip %s: no such unit\n", n)
			return nil, errUsage
		}
	}
	out := make([]sta.CrosscheckUnit, len(units))
	for i, u := range units {
		cu := sta.CrosscheckUnit{Design: u.design, Kind: u.spec.UnitKind(), Variant: u.spec.Variant(),
			Info: rtl.Info{Version: "lsugen " + gen.Version, Source: source(u.spec)}}
		switch {
		case skipSet[u.design.Name]:
			cu.Skip = "--skip"
		case maxGates > 0 && len(u.design.Gates) > maxGates:
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
