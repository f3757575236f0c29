package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lsugen/lsugen/flow"
	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/tools/accelsim"
	"github.com/lsugen/lsugen/tools/profile"
	"github.com/lsugen/lsugen/tools/profile/coalescers"
	"github.com/lsugen/lsugen/units"
)

const profileLong = `The coalescing profile of the global loads and stores (LDG, STG) of
Accel-Sim traces (a kernelslist.g or kernel-N.traceg[.xz]), per PC and
per kernel: the fraction of warp accesses whose active lanes' addresses
are monotonic (non-decreasing or non-increasing, 003_*'s statistic), the
histogram of unique blocks of --block-bytes per access, and the cycles the
all-to-all and speculative coalescers take at each --clock period (FO4): the
speculative coalescer answers a monotonic access on its fast path
(detector and neighbor comparator) and the others on its slow path. The
cycles are the latencies of the units lsugen generates at each clock (as
clock_fo4 builds them: pipelined, the speculative coalescer a
variable-latency unit), so a clock is 4 to 10000 FO4; with --spec-timing
separate they are 003_*'s ⌈delay / clock⌉ of the combinational units. The
neighbor comparator alone is exact only where each block's active lanes
are contiguous. The coalescers are the 32-lane all_to_all, neighbor and
speculative units of --coalescers SPEC (the first of each), timed as
lsugen timing times them; by default the thesis's units of
specs/coalescer_thesis.hcl, in the model of --timing-mode (sized by
default, as in every command that times; unsized is the thesis's). With
--liberty the units are timed in that library and every delay and clock
is also in ps, at its FO4 delay. ATOMG/RED, generic LD/ST and other
spaces are counted, not profiled. See docs/coalescing-profile.md.`

// Limits checked before any work.
const maxProfileTraces = 1024

// profileDoc is `lsugen profile --json`.
type profileDoc struct {
	// Version is lsugen's version.
	Version string `json:"version"`
	*profile.Report
}

// profileFlags are the flags of lsugen profile.
type profileFlags struct {
	asJSON     bool
	blockBytes int
	clocks     string
	spec, mode string
	specTiming string
	liberty    string
	fs         *pflag.FlagSet
}

func newProfileCmd(a *app) *cobra.Command {
	f := &profileFlags{}
	cmd := &cobra.Command{
		Use:   "profile [--json] [--block-bytes N] [--clock FO4,...] [--timing-mode sized|unsized|liberty] [--liberty FILE] [--spec-timing combined|separate] [--coalescers SPEC] TRACE...",
		Short: "coalescing profile of a kernel's global loads and stores: monotonic fraction, unique blocks, coalescer cycles",
		Long:  profileLong,
		RunE: func(cmd *cobra.Command, traces []string) error {
			return runProfile(a, f, traces)
		},
	}
	fs := cmd.Flags()
	addJSONFlag(fs, &f.asJSON)
	fs.IntVar(&f.blockBytes, "block-bytes", 128, "block size in bytes (a power of two): unique blocks per access, and the neighbor comparator's blocks")
	fs.StringVar(&f.clocks, "clock", "40", clocksUsage)
	addTimingModeFlag(fs, &f.mode)
	addLibertyFlag(fs, &f.liberty)
	f.fs = fs
	fs.StringVar(&f.specTiming, "spec-timing", coalescers.Combined, "how the speculative coalescer's fast and slow paths are timed: combined (inside the generated speculative unit) or separate (003_*'s method: the detector, neighbor and all-to-all units each alone)")
	fs.StringVar(&f.spec, "coalescers", "", "spec file whose first 32-lane all_to_all, neighbor and speculative coalescers are timed (default: the 32-lane units of specs/coalescer_thesis.hcl, built in)")
	return cmd
}

// runProfile checks the flags and traces, times the coalescers and
// streams the traces through the profiler.
func runProfile(a *app, f *profileFlags, traces []string) error {
	if len(traces) == 0 {
		return usagef("no trace files given (a kernelslist.g or kernel-N.traceg[.xz])")
	}
	if len(traces) > maxProfileTraces {
		return usagef("%d trace files: at most %d", len(traces), maxProfileTraces)
	}
	var tech *timing.Tech
	fo4PS := flow.DefaultLibraryFO4PS
	if f.liberty != "" {
		ch, err := characterizeFile(f.liberty)
		if err != nil {
			return badInput(err)
		}
		tech, fo4PS = ch.Tech, timing.OptionsFor(ch.Tech).FO4PS()
	}
	periods, err := f.check(fo4PS)
	if err != nil {
		return err
	}
	mode, err := timingMode(f.fs, f.liberty != "")
	if err != nil {
		return err
	}
	if err := checkProfileTraces(traces); err != nil {
		return err
	}
	tm, err := coalescerTiming(f.spec, periods, mode, tech, f.specTiming, a.stderr)
	if err != nil {
		return err
	}
	p, err := profile.New(profile.Options{BlockBytes: uint64(f.blockBytes), Timing: tm})
	if err != nil {
		return usagef("%v", err)
	}
	budget := accelsim.NewBudget() // one for the run's traces
	for _, t := range traces {
		if err := profileTrace(p, t, budget); err != nil {
			return badInput(err)
		}
	}
	rep := p.Report()
	if f.asJSON {
		return printJSON(a.stdout, profileDoc{Version: gen.Version, Report: rep})
	}
	return rep.WriteTable(a.stdout)
}

// check refuses bad flags and returns the clock periods.
func (f *profileFlags) check(fo4PS float64) ([]float64, error) {
	if f.blockBytes < 1 || f.blockBytes > profile.MaxBlockBytes || f.blockBytes&(f.blockBytes-1) != 0 {
		return nil, usagef("--block-bytes %d: want a power of two from 1 to %d", f.blockBytes, profile.MaxBlockBytes)
	}
	periods, err := parseClocks(f.clocks, fo4PS)
	if err != nil {
		return nil, usagef("%v", err)
	}
	if len(periods) == 0 || len(periods) > profile.MaxClocks {
		return nil, usagef("--clock %q: want 1 to %d clock periods", f.clocks, profile.MaxClocks)
	}
	for _, p := range periods {
		if !(p >= specs.MinClockFO4 && p <= specs.MaxClockFO4) {
			return nil, usagef("--clock %v FO4: want %d to %d FO4 (the coalescers are generated at each clock, as clock_fo4 takes it)", p, specs.MinClockFO4, specs.MaxClockFO4)
		}
	}
	if f.specTiming != coalescers.Combined && f.specTiming != coalescers.Separate {
		return nil, usagef("--spec-timing %q: want %s or %s", f.specTiming, coalescers.Combined, coalescers.Separate)
	}
	return periods, nil
}

// checkProfileTraces wants Accel-Sim traces, each once, that exist.
func checkProfileTraces(traces []string) error {
	seen := map[string]bool{}
	for _, t := range traces {
		if seen[filepath.Clean(t)] {
			return usagef("%s given twice: its kernels would count twice", t)
		}
		seen[filepath.Clean(t)] = true
		if !accelsim.IsTracePath(t) {
			return usagef("%s: not an Accel-Sim trace (want a kernelslist.g, or a kernel trace that starts with its \"-kernel name\" header, plain or xz)", t)
		}
		if _, err := os.Stat(t); err != nil {
			return badInput(err)
		}
	}
	return nil
}

// profileTrace streams one trace argument through p, its text taken from
// the run's budget.
func profileTrace(p *profile.Profiler, path string, budget *accelsim.Budget) (err error) {
	r, err := accelsim.OpenBudget(path, budget)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := r.Close(); err == nil {
			err = cerr
		}
	}()
	for {
		acc, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := p.Add(path, acc); err != nil {
			return err
		}
	}
}

// coalescerTiming loads the coalescers (the built-in thesis units when
// path is "") and times them with package coalescers. Spec diagnostics
// are printed to stderr.
func coalescerTiming(path string, clocks []float64, mode timing.Mode, tech *timing.Tech, specTiming string, stderr io.Writer) (profile.Timing, error) {
	loader := specs.NewLoader()
	var (
		file  *specs.File
		diags hcl.Diagnostics
		name  = path
	)
	if path == "" {
		name = coalescers.BuiltinName
		file, diags = loader.Parse([]byte(coalescers.Builtin), "coalescer_thesis.hcl")
	} else {
		file, diags = loader.Load(path)
	}
	if diags.HasErrors() {
		printDiagnostics(stderr, loader, diags)
		return profile.Timing{}, errBadInput
	}
	tm, gd, err := coalescers.Time(file.Units, coalescers.Options{ClocksFO4: clocks, Mode: mode, Tech: tech, SpecTiming: specTiming, Spec: name,
		Generate: units.Generate, Clock: units.ClockedAt(tech)})
	var se *coalescers.SpecError
	switch {
	case gd.HasErrors():
		printDiagnostics(stderr, loader, gd)
		return profile.Timing{}, errBadInput
	case errors.As(err, &se):
		return profile.Timing{}, badInput(err)
	}
	return tm, err
}
