package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/units"
	"github.com/lsugen/lsugen/verify"
	"github.com/lsugen/lsugen/verify/hdl"
)

const verifyLong = `Runs the same vectors through the behavioural model, the netlist simulator
and the RTL and gate-level Verilog under Icarus Verilog and Verilator, and
compares every output with the model. Clocked units run a stream of --cycles
cycles in lockstep with their sequential model, every output compared in
every cycle. --rtl runs other Verilog against a unit's golden vectors;
--formal proves each unit's RTL and gate-level modules equivalent instead
of simulating (docs/verification.md).

--unit PATTERN (repeatable, a glob: 'coalesce_*') checks only the units it
matches, in every mode. The checks (one engine on one unit) run --jobs at a
time; each prints a line as it finishes, then a table sums them up. --json
prints one JSON document instead (the lines go to stderr); --junit FILE
also writes JUnit XML for CI.

Exit status: 0 when every check passed; 1 when one failed (a mismatch, a
failed proof) or could not run (a tool missing, a build failed), having
printed the vector (cycle) and left a VCD of it in the work directory; 2
for bad flags or specs, or for work past verify's limits (vectors, cycles,
and the largest design each engine takes: docs/limits.md), refused before
it starts.`

// The modes of lsugen verify (verifyReport.Mode).
const (
	modeSimulation = "simulation"
	modeRTL        = "rtl"
	modeFormal     = "formal"
)

// verifyFlags are the flags of lsugen verify.
type verifyFlags struct {
	sims    string
	plan    verify.Plan
	seqPlan verify.SeqPlan
	work    string
	units   []string
	jobs    int
	asJSON  bool
	junit   string
	rtl     []string
	top     string
	rtlOpt  rtlOptions
	formal  bool
	timeout time.Duration
	// simTimeout is the wall-clock limit of each simulation run
	// (hdl.WithSimTimeout).
	simTimeout time.Duration
	budget     budget // the run's gates, checked before generating (budget.go)
}

// The flags each mode takes beyond the common ones (unit, jobs, work,
// json, junit, gate-budget, tool-memory).
var verifyModeFlags = map[string][]string{
	modeSimulation: {"sim", "vectors", "icarus-gate-vectors", "icarus-gate-cycles", "seed", "configs", "max-vectors", "cycles", "sim-timeout"},
	modeRTL:        append([]string{"rtl", "top", "sim", "sim-timeout"}, rtlOptionFlags...),
	modeFormal:     {"formal", "timeout"},
}

func newVerifyCmd(a *app) *cobra.Command {
	f := &verifyFlags{plan: verify.DefaultPlan(), seqPlan: verify.DefaultSeqPlan()}
	cmd := &cobra.Command{
		Use:   "verify [--unit PATTERN]... [--jobs N] [--json] [--junit FILE] [--sim LIST | --rtl FILE.v... | --formal] [flags] SPEC...",
		Short: "check model = netlist = Icarus = Verilator; --rtl other Verilog; --formal RTL = gates",
		Long:  verifyLong,
		RunE: func(cmd *cobra.Command, paths []string) error {
			return runVerify(a, cmd.Flags(), f, paths)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.sims, "sim", "netlist,icarus,verilator", "engines to run, comma-separated: netlist, icarus, verilator (with --rtl: icarus, verilator)")
	fs.IntVar(&f.plan.Random, "vectors", f.plan.Random, "random vectors per unit when exhaustive enumeration does not fit\n(default: fewer for large units, about 2^27 gate-vectors, at least 256)")
	fs.IntVar(&f.plan.IcarusGateVectors, "icarus-gate-vectors", f.plan.IcarusGateVectors, "Icarus runs the directed vectors and an even sample of the rest within this many\ngates times vectors (at least 256); 0: Icarus runs every vector")
	fs.IntVar(&f.seqPlan.IcarusGateCycles, "icarus-gate-cycles", f.seqPlan.IcarusGateCycles, "Icarus runs the first max(1000, N / gates) cycles of a clocked unit's stream; 0: all")
	fs.Uint64Var(&f.plan.Seed, "seed", f.plan.Seed, "seed of the random vectors and configurations, and of sequential units' stimulus")
	fs.IntVar(&f.plan.Configs, "configs", f.plan.Configs, "random configurations of a configurable unit")
	fs.IntVar(&f.plan.MaxVectors, "max-vectors", f.plan.MaxVectors, "inputs that number no more than this are enumerated exhaustively")
	fs.IntVar(&f.seqPlan.Cycles, "cycles", f.seqPlan.Cycles, "clock cycles per sequential (clocked) unit")
	addWorkFlag(fs, &f.work)
	addToolMemoryFlag(fs)
	addBudgetFlags(fs, &f.budget, false)
	fs.StringArrayVar(&f.units, "unit", nil, "check only the units matching this glob `PATTERN` (repeatable; with --rtl: the unit whose golden vectors and ports to use, default the only unit)")
	addJobsFlag(fs, &f.jobs, runtime.NumCPU())
	addJSONFlag(fs, &f.asJSON)
	fs.StringVar(&f.junit, "junit", "", "also write the results as JUnit XML to `FILE` (atomically)")
	fs.StringArrayVar(&f.rtl, "rtl", nil, "check this Verilog `FILE`'s module against the golden vectors of --unit\n(repeat for several files) under Icarus and Verilator, as the testbench of\nlsugen gen --tb does; the model, netlist and generated Verilog are not run")
	fs.StringVar(&f.top, "top", "", "with --rtl: the module to check (default: the unit's name)")
	addRTLFlags(fs, &f.rtlOpt)
	fs.BoolVar(&f.formal, "formal", false, "prove with Yosys and ABC that each unit's RTL module and gate-level module are\nequivalent (a miter and SAT; induction over the matched registers for clocked\nunits) instead of simulating; a failed proof prints the counterexample")
	fs.DurationVar(&f.simTimeout, "sim-timeout", hdl.DefaultSimTimeout, "wall-clock limit of each Icarus or Verilator simulation run (builds not included),\nwith or without --rtl; a run past it is killed and its check fails (exit 1).\nA flat bound, since run times differ 100-fold between the simulators; it\nends a run that never finishes, e.g. a module with a zero-delay loop")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Minute, "with --formal: time limit of one unit's proof; an unfinished proof is an error")
	return cmd
}

// runVerify checks the flags of the mode, selects the units, runs the
// checks and reports them.
func runVerify(a *app, fs *pflag.FlagSet, f *verifyFlags, paths []string) error {
	mode := modeSimulation
	switch {
	case f.formal && len(f.rtl) > 0:
		return usagef("--formal and --rtl exclude each other")
	case f.formal:
		mode = modeFormal
	case len(f.rtl) > 0:
		mode = modeRTL
	}
	if f.simTimeout <= 0 {
		return usagef("--sim-timeout %v: want a positive duration, e.g. 10m", f.simTimeout)
	}
	if err := checkVerifyFlags(fs, mode); err != nil {
		return err
	}
	if f.junit != "" {
		if err := checkOutputFile(f.junit); err != nil {
			return usagef("--junit: %v", err)
		}
	}
	if f.jobs < 1 || f.timeout <= 0 {
		return usagef("--timeout and --jobs must be positive")
	}
	var engines []verify.Engine
	switch mode {
	case modeSimulation:
		var err error
		if engines, err = verify.ParseEngines(f.sims); err != nil {
			return usagef("%v", err)
		}
		if f.plan.Random < 1 || f.plan.Configs < 1 || f.plan.MaxVectors < 1 || f.seqPlan.Cycles < 1 {
			return usagef("--vectors, --configs, --max-vectors and --cycles must be positive")
		}
		if f.plan.IcarusGateVectors < 0 || f.seqPlan.IcarusGateCycles < 0 {
			return usagef("--icarus-gate-vectors and --icarus-gate-cycles must not be negative")
		}
		if fs.Changed("vectors") {
			f.plan.GateVectors = 0 // an explicit count is taken as given
			if !fs.Changed("icarus-gate-vectors") {
				f.plan.IcarusGateVectors = 0 // on every engine
			}
		}
		f.seqPlan.Seed = f.plan.Seed
	case modeRTL:
		engines = []verify.Engine{verify.Icarus, verify.Verilator}
		if fs.Changed("sim") {
			var err error
			if engines, err = verify.ParseEngines(f.sims); err != nil {
				return usagef("%v", err)
			}
			for _, e := range engines {
				if e == verify.Netlist {
					return usagef("--sim netlist: --rtl runs Verilog files, under icarus or verilator")
				}
			}
		}
		for _, file := range f.rtl {
			st, err := os.Stat(file)
			if err != nil {
				return usagef("--rtl %s: %v", file, errors.Unwrap(err))
			}
			if st.IsDir() {
				return usagef("--rtl %s: a directory, not a Verilog file", file)
			}
		}
		if err := f.rtlOpt.check(fs); err != nil {
			return err
		}
	}

	loaded, err := loadAndGenerate(paths, f.budget, a.stderr)
	if err != nil {
		return err
	}
	sel, err := selectUnits(loaded, f.units)
	if err != nil {
		return err
	}
	if err := checkVerifyBudget(sel, mode, engines, f.plan, f.seqPlan); err != nil {
		return err
	}
	if mode == modeRTL && len(f.units) == 0 && len(sel) > 1 {
		return usagef("the specs declare %d units: choose one with --unit (%s)", len(sel), joinNames(sel))
	}
	if mode == modeRTL && f.top != "" && len(sel) > 1 {
		return usagef("--top names one module: select one unit with --unit (selected: %s)", joinNames(sel))
	}

	dir, keep, err := workDir(f.work, "lsugen-verify-")
	if err != nil {
		return err
	}
	keep = keep || f.rtlOpt.vcd // the waveforms
	ctx := hdl.WithSimTimeout(a.context(), f.simTimeout)

	rep := &verifyReport{Version: gen.Version, Mode: mode, Units: make([]verifyUnit, len(sel))}
	if mode == modeFormal {
		rep.Engines = []string{modeFormal}
	}
	for _, e := range engines {
		rep.Engines = append(rep.Engines, string(e))
	}
	for i, u := range sel {
		vu := verifyUnit{Name: u.design.Name, Source: source(u.spec), Clocked: u.design.Clock != ""}
		if mode == modeRTL {
			vu.Module, vu.vectorFile = cmp.Or(f.top, u.design.Name), verify.VectorFileName(u.design)
		}
		for _, e := range rep.Engines {
			vu.Results = append(vu.Results, verifyResult{Engine: e, Status: statusSkipped, Error: "not run"})
		}
		rep.Units[i] = vu
	}
	lines := a.stdout
	if f.asJSON {
		lines = a.stderr
	}
	p := newVerifyPrinter(rep, lines, a.stderr, isTerminal(a.stderr))
	start := time.Now()
	switch mode {
	case modeSimulation:
		err = verifySimulation(ctx, sel, engines, f, dir, p)
	case modeRTL:
		runChecks(ctx, rtlChecks(sel, engines, f.rtl, f.top, f.rtlOpt, dir), f.jobs, p)
	case modeFormal:
		runChecks(ctx, formalChecks(sel, f.timeout, dir), f.jobs, p)
	}
	p.close()
	if err != nil {
		fmt.Fprintf(a.stderr, "lsugen verify: %v\n(work directory kept: %s)\n", err, dir)
		return errReported
	}
	rep.Seconds = seconds(time.Since(start))
	rep.count()
	if mode == modeRTL {
		rtlVerdict(rep, a.stderr)
	}
	if !rep.Passed || keep {
		rep.Work = dir
	}
	if f.junit != "" {
		if err := rep.writeJUnit(f.junit); err != nil {
			return err
		}
	}
	if f.asJSON {
		if err := printJSON(a.stdout, rep); err != nil {
			return err
		}
	} else {
		rep.writeSummary(lines)
	}
	if !rep.Passed {
		c := rep.Checks
		fmt.Fprintf(a.stderr, "lsugen verify: FAILED; work directory kept: %s (%d failed, %d could not run, %d skipped of %d checks)\n",
			dir, c.Failed, c.Errors, c.Skipped, c.Total)
		return errReported
	}
	if !keep {
		os.RemoveAll(dir)
	}
	switch mode {
	case modeSimulation:
		fmt.Fprintf(lines, "verified %d units: model = %s\n", len(sel), strings.Join(rep.Engines, " = "))
	case modeRTL:
		writeRTLVerdict(lines, rep)
	case modeFormal:
		piped := 0
		for _, u := range sel {
			if u.design.Pipeline != nil && u.variable == nil {
				piped++
			}
		}
		also := ""
		if piped > 0 {
			also = fmt.Sprintf("; %d pipelines = their originals + their register stages", piped)
		}
		fmt.Fprintf(lines, "proved %d units: RTL = gates%s (Yosys %s, ABC)\n", len(sel), also, yosysVersion())
	}
	return nil
}

// checkVerifyFlags refuses flags that the mode does not use.
func checkVerifyFlags(fs *pflag.FlagSet, mode string) error {
	allowed := map[string]bool{"unit": true, "jobs": true, "work": true, "json": true, "junit": true, "gate-budget": true, "tool-memory": true,
		"clock-fo4": true, "timing-mode": true}
	for _, n := range verifyModeFlags[mode] {
		allowed[n] = true
	}
	var other []string
	fs.Visit(func(fl *pflag.Flag) {
		if !allowed[fl.Name] {
			other = append(other, "--"+fl.Name)
		}
	})
	if len(other) == 0 {
		return nil
	}
	list := strings.Join(other, ", ")
	switch {
	case mode == modeFormal:
		return usagef("%s: not used by --formal, which takes --timeout besides --unit, --jobs, --work, --json, --junit and --clock-fo4", list)
	case mode == modeRTL:
		return usagef("%s: not with --rtl (it checks the fixed golden vectors; flags: --rtl, --unit, --top, --sim, --sim-timeout, -I, -D, --vcd, --vcd-from, --jobs, --work, --json, --junit)", list)
	case other[0] == "--top" || slices.Contains(rtlOptionFlags, other[0][2:]):
		return usagef("%s needs --rtl FILE.v", other[0])
	}
	return usagef("%s: applies to --formal only", list)
}

// selectUnits are the units that match any of the glob patterns (path.Match),
// in spec order; all units when there are no patterns. A pattern that
// matches no unit is a usage error that names the units.
func selectUnits(loaded []unit, patterns []string) ([]unit, error) {
	if len(patterns) == 0 {
		return loaded, nil
	}
	picked := make([]bool, len(loaded))
	for _, pat := range patterns {
		if _, err := path.Match(pat, ""); err != nil {
			return nil, usagef("--unit %q: %v", pat, err)
		}
		found := false
		for i, u := range loaded {
			if ok, _ := path.Match(pat, u.design.Name); ok {
				picked[i], found = true, true
			}
		}
		if !found {
			if strings.ContainsAny(pat, `*?[\`) {
				return nil, usagef("no unit matches %q (units: %s)", pat, joinNames(loaded))
			}
			return nil, usagef("no unit %q in the specs (units: %s)", pat, joinNames(loaded))
		}
	}
	var sel []unit
	for i, u := range loaded {
		if picked[i] {
			sel = append(sel, u)
		}
	}
	return sel, nil
}

// verifySimulation runs every engine on every unit through verify.RunTasks:
// combinational units run vectors, clocked units a stream of cycles in
// lockstep with their sequential model. An error means a unit could not be
// set up (its Verilog not written).
func verifySimulation(ctx context.Context, sel []unit, engines []verify.Engine, f *verifyFlags, dir string, p *verifyPrinter) error {
	tasks := make([]verify.Task, len(sel))
	for i, u := range sel {
		job, err := units.Job(u.spec, u.built())
		if err != nil {
			return err
		}
		udir := filepath.Join(dir, u.design.Name)
		set, err := verilogFiles([]unit{u})
		if err != nil {
			return err
		}
		if err := writeAll(udir, set); err != nil {
			return err
		}
		rtlFiles, gateFiles := rtl.Sources(u.design)
		job.Sources = joinAll(udir, append(rtlFiles, gateFiles...))
		job.Modules = []string{u.design.Name, rtl.GatesModuleName(u.design)}
		job.Dir = udir
		tasks[i] = verify.Task{Job: job, Plan: f.plan, SeqPlan: f.seqPlan, Engines: engines}
	}
	verify.RunTasks(ctx, tasks, f.jobs, verify.Hooks{
		Started: func(task int, e verify.Engine) { p.started(task, string(e)) },
		Finished: func(o verify.Outcome) {
			res, detail := simResult(o, ctx.Err() != nil)
			p.finished(o.Task, res, o.Coverage, detail)
		},
	})
	return nil
}

// joinAll joins dir to every name.
func joinAll(dir string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = filepath.Join(dir, n)
	}
	return out
}

// simResult is the result of one engine's check of one unit, and the
// detail to print on stderr; interrupted tells that the run was
// cancelled, so that a check that could not finish is skipped.
func simResult(o verify.Outcome, interrupted bool) (verifyResult, string) {
	res := verifyResult{Engine: string(o.Engine), Vectors: o.Vectors}
	switch {
	case o.Err != nil && interrupted:
		res.Status, res.Error = statusSkipped, "interrupted"
	case o.Err != nil:
		res.Status, res.Error = statusError, o.Err.Error()
		return res, o.Err.Error()
	default:
		res.Vectors, res.Seconds = o.Check.Vectors, seconds(o.Check.Elapsed)
		res.Status = statusPass
		if m := o.Check.Mismatch; m != nil {
			res.Status, res.Mismatch, res.Failure = statusFail, mismatchJSON(m), m.String()
		}
	}
	return res, ""
}
