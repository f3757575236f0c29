package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/timing/liberty"
	"github.com/lsugen/lsugen/verify/sta"
)

func cmdCrosscheck(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("crosscheck-timing", flag.ContinueOnError)
	libFile := fs.String("liberty", "", "cell library (liberty, plain or gzipped); required")
	driver := fs.String("driver", "", "cell driving every input (default: the library's smallest inverter)")
	load := fs.Float64("load", sta.DefaultLoadFactor, "load on every output bit, in driver input capacitances")
	target := fs.Float64("target", sta.DefaultTargetPS, "timing-driven delay target in ps (abc -D); the default asks for the fastest netlist")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	asMarkdown := fs.Bool("markdown", false, "print the units as a Markdown table (the README's)")
	work := fs.String("work", "", "work directory for RTL, scripts, netlists and logs (default: a temporary directory, kept only on failure)")
	maxGates := fs.Int("max-gates", 0, "skip units with more lsugen gates than this (0: no limit)")
	jobs := fs.Int("jobs", 1, "units run in parallel")
	timeout := fs.Duration("timeout", 30*time.Minute, "limit on each Yosys or OpenSTA run; a unit that exceeds it is reported as skipped")
	skip := fs.String("skip", "", "comma-separated units not to run (reported as skipped)")
	band := fs.Float64("band", sta.DefaultBandPct, "tolerance in percent of the sized model against the timing-driven flow")
	srcKind := fs.String("source", string(sta.SourceRTL), "what to synthesise: rtl (the readable module NAME) or gates (NAME_gates, the gates lsugen times)")
	progress := fs.Bool("progress", false, "print a line on stderr as each unit finishes")
	fraig := fs.Int("fraig-conflicts", sta.DefaultFraigConflicts, "conflict limit per candidate of ABC's SAT sweeping (&fraig -x -C) in both flows; ABC's default, 1000000, ran past 30 minutes on the 32-lane speculative coalescer")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `Usage: lsugen crosscheck-timing --liberty FILE [--driver CELL] [--json|--markdown] [flags] SPEC...

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
	skipSet := map[string]bool{}
	for _, n := range strings.Split(*skip, ",") {
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
			return errUsage
		}
	}

	dir, keep, err := workDir(*work, "lsugen-crosscheck-")
	if err != nil {
		return err
	}
	fail := func(err error) error {
		fmt.Fprintf(stderr, "lsugen crosscheck-timing: %v\n(work directory kept: %s)\n", err, dir)
		return errReported
	}
	flow, err := sta.New(sta.Config{Liberty: *libFile, Driver: *driver, LoadFactor: *load, WorkDir: dir, TargetPS: *target, FraigConflicts: *fraig, Timeout: *timeout, Source: sta.Source(*srcKind)})
	if err != nil {
		return fail(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fo4, err := flow.MeasureFO4(ctx)
	if err != nil {
		return fail(err)
	}
	ch, err := liberty.Characterize(flow.Lib.Library, liberty.Options{DontUse: []string{}})
	if err != nil {
		return fail(err)
	}
	rep := sta.NewReport(flow, fo4, *band)
	rep.Model = sta.NewModelTech(ch)
	// The characterized model in the flow's environment: the same driver
	// and output load, in reference-inverter caps.
	libOpt := timing.OptionsFor(ch.Tech)
	libOpt.DriverSize = flow.DriverCap * flow.Lib.CapUnitFF / ch.RefCapFF
	libOpt.OutputLoad = flow.OutputLoad * flow.Lib.CapUnitFF / ch.RefCapFF

	// Run the units, up to --jobs at a time; the report keeps spec order.
	type outcome struct {
		res      *sta.UnitResult
		mapped   *sta.Timing
		seconds  float64
		err      error
		timedOut bool
	}
	results := make([]outcome, len(units))
	var todo []int
	for i, u := range units {
		if skipSet[u.design.Name] {
			rep.Skipped = append(rep.Skipped, sta.Skipped{Name: u.design.Name, Gates: len(u.design.Gates), Reason: "--skip"})
			continue
		}
		if *maxGates > 0 && len(u.design.Gates) > *maxGates {
			rep.Skipped = append(rep.Skipped, sta.Skipped{Name: u.design.Name, Gates: len(u.design.Gates),
				Reason: fmt.Sprintf("more than --max-gates %d", *maxGates)})
			continue
		}
		todo = append(todo, i)
	}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		next     int
		firstErr error // the first unit to fail; the others are cancelled
	)
	for w := 0; w < min(*jobs, len(todo)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next >= len(todo) || ctx.Err() != nil {
					mu.Unlock()
					return
				}
				i := todo[next]
				next++
				mu.Unlock()
				u := units[i]
				start := time.Now()
				res, err := flow.Run(ctx, u.design, rtl.Info{Version: "lsugen " + gen.Version, Source: source(u.spec)})
				var mapped *sta.Timing
				if err == nil {
					mapped, err = flow.RunMapped(ctx, u.design, ch)
				}
				results[i] = outcome{res: res, mapped: mapped, seconds: time.Since(start).Seconds(), err: err}
				if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
					// Too slow for --timeout: reported, not fatal.
					results[i].timedOut, err = true, nil
				}
				if *progress {
					mu.Lock()
					if err != nil {
						fmt.Fprintf(stderr, "%-24s failed\n", u.design.Name)
					} else if results[i].timedOut {
						fmt.Fprintf(stderr, "%-24s a tool run exceeded --timeout %v: skipped\n", u.design.Name, *timeout)
					} else {
						fmt.Fprintf(stderr, "%-24s plain %.1f ps, timing-driven %.1f ps, %.1fs\n", u.design.Name, res.Plain.DelayPS, res.TimingDriven.DelayPS, results[i].seconds)
					}
					mu.Unlock()
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("%s: %w", u.design.Name, err)
					}
					mu.Unlock()
					stop() // cancel the units in flight; start no more
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return fail(firstErr)
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	for _, i := range todo {
		u := units[i]
		if results[i].timedOut {
			rep.Skipped = append(rep.Skipped, sta.Skipped{Name: u.design.Name, Gates: len(u.design.Gates),
				Reason: fmt.Sprintf("a Yosys or OpenSTA run exceeded --timeout %v (%.0fs)", *timeout, results[i].seconds)})
			continue
		}
		var lib, textbook [2]*timing.Result
		for i, mode := range []timing.Mode{timing.Unsized, timing.Sized} {
			opt := timing.DefaultOptions()
			opt.Mode = mode
			if textbook[i], err = timing.Analyze(u.design, opt); err != nil {
				return fmt.Errorf("%s: %w", u.design.Name, err)
			}
			libOpt.Mode = mode
			if lib[i], err = timing.Analyze(u.design, libOpt); err != nil {
				return fmt.Errorf("%s: %w", u.design.Name, err)
			}
		}
		rep.Add(results[i].res, results[i].mapped, u.spec.UnitKind(), u.spec.Variant(), len(u.design.Gates), lib, textbook, results[i].seconds)
	}
	if !keep {
		os.RemoveAll(dir)
	}
	if *asJSON {
		b, err := rep.JSON()
		if err != nil {
			return err
		}
		_, err = stdout.Write(b)
		return err
	}
	if *asMarkdown {
		return rep.WriteMarkdown(stdout)
	}
	return rep.WriteText(stdout)
}
