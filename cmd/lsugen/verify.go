package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/units"
	"github.com/lsugen/lsugen/verify"
	"github.com/lsugen/lsugen/verify/formal"
	"github.com/lsugen/lsugen/verify/hdl"
)

const verifyLong = `Runs the same vectors through the behavioural model, the netlist simulator
and the RTL and gate-level Verilog under Icarus Verilog and Verilator, and
compares every output with the model. Clocked units run a stream of --cycles
cycles in lockstep with their sequential model, every output compared in
every cycle. verify rtl (--rtl) runs other Verilog against a unit's golden
vectors; verify formal (--formal) proves each unit's RTL and gate-level
modules equivalent instead of simulating (docs/verification.md). Without a
subcommand, verify simulates (verify sim), or takes the mode from --rtl or
--formal.
` + verifyCommonLong

// verifyCommonLong is the help every mode of verify shares.
const verifyCommonLong = `
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

// The modes of lsugen verify (verifyReport.Mode), each a subcommand.
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
	jobs    int
	asJSON  bool
	junit   string
	rtl     []string
	top     string
	rtlOpt  rtlOptions
	formal  bool
	// proof: NoCache (--no-cache: prove, or simulate, even what the proof
	// or run cache holds) and, with --formal, GatesFile (prove the
	// gate-level file, not the netlist).
	proof   formal.Options
	timeout time.Duration
	// simTimeout is the wall-clock limit of each simulation run
	// (hdl.WithSimTimeout).
	simTimeout time.Duration
	budget     budget    // the run's gates, checked before generating (flow.Options)
	pipeWork   workFlags // --work-budget and --quiet of the run's pipelinings
}

// The flags each mode takes beyond the common ones (unit, jobs, work,
// json, junit, gate-budget, tool-memory).
var verifyModeFlags = map[string][]string{
	modeSimulation: {"sim", "vectors", "icarus-gate-vectors", "icarus-gate-cycles", "seed", "configs", "max-vectors", "cycles", "sim-timeout", "no-cache"},
	modeRTL:        append([]string{"rtl", "top", "sim", "sim-timeout"}, rtlOptionFlags...),
	modeFormal:     {"formal", "timeout", "no-cache", "gates-file"},
}

// The subcommands of verify: verify sim, verify rtl, verify formal.
var verifyModes = []struct {
	name, mode, use, short, long string
}{
	{"sim", modeSimulation, "sim [--sim LIST] [--vectors N] [--cycles N] [flags] SPEC...",
		"check model = netlist = Icarus = Verilator (what verify does without a subcommand)",
		`Runs the same vectors through the behavioural model, the netlist simulator
and the RTL and gate-level Verilog under Icarus Verilog and Verilator, and
compares every output with the model. Clocked units run a stream of --cycles
cycles in lockstep with their sequential model, every output compared in
every cycle. Also spelled verify [--sim LIST] SPEC...
`},
	{"rtl", modeRTL, "rtl --rtl FILE.v... [--unit NAME] [--top MODULE] [-I DIR] [-D NAME[=VALUE]] [flags] SPEC...",
		"check other Verilog against a unit's golden vectors under Icarus and Verilator",
		`Runs the module in the Verilog files of --rtl (the unit's name, or --top)
against the unit's golden vectors and standalone testbench, exactly as
lsugen gen --tb writes them, under Icarus and Verilator (--sim): the model,
netlist and generated Verilog are not run. Also spelled verify --rtl FILE.v.
`},
	{"formal", modeFormal, "formal [--timeout D] [--no-cache] [--gates-file] [flags] SPEC...",
		"prove each unit's RTL = gates with Yosys and ABC",
		`Proves with Yosys and ABC that each unit's RTL module is equivalent to its
gate netlist (a miter and SAT; induction over the matched registers for
clocked units; a pipeline is also proved against its original) instead of
simulating; a failed proof prints the counterexample. Yosys reads the RTL
file; the gate side is the netlist that timing, area and the gate-level file
come from. --gates-file has Yosys read the gate-level file instead, which also
proves the gate writer and takes several times longer on large units.
Also spelled verify --formal.
`},
}

func newVerifyCmd(a *app) *cobra.Command {
	f := newVerifyFlags()
	cmd := &cobra.Command{
		Use:   "verify [sim | rtl | formal] [--unit PATTERN]... [--jobs N] [--json] [--junit FILE] [--sim LIST | --rtl FILE.v... | --formal] [flags] SPEC...",
		Short: "check model = netlist = Icarus = Verilator; verify rtl: other Verilog; verify formal: RTL = gates",
		Long:  verifyLong,
		RunE: func(cmd *cobra.Command, paths []string) error {
			mode := modeSimulation
			switch {
			case f.formal && len(f.rtl) > 0:
				return usagef("--formal and --rtl exclude each other")
			case f.formal:
				mode = modeFormal
			case len(f.rtl) > 0:
				mode = modeRTL
			}
			return runVerify(a, cmd.Flags(), f, paths, mode)
		},
	}
	fs := cmd.Flags()
	f.addCommonFlags(a, fs, "lsugen verify")
	f.addSimFlags(fs)
	f.addRTLFlags(fs)
	f.addFormalFlags(fs)
	f.addNoCacheFlag(fs)
	fs.BoolVar(&f.formal, "formal", false, "prove with Yosys and ABC that each unit's RTL module and gate-level module are\nequivalent (a miter and SAT; induction over the matched registers for clocked\nunits) instead of simulating; a failed proof prints the counterexample")
	for _, m := range verifyModes {
		sub := newVerifyFlags()
		c := &cobra.Command{
			Use:   m.use,
			Short: m.short,
			Long:  m.long + verifyCommonLong,
			RunE: func(cmd *cobra.Command, paths []string) error {
				return runVerify(a, cmd.Flags(), sub, paths, m.mode)
			},
		}
		sub.addCommonFlags(a, c.Flags(), "lsugen verify "+m.name)
		switch m.mode {
		case modeSimulation:
			sub.addSimFlags(c.Flags())
			sub.addNoCacheFlag(c.Flags())
		case modeRTL:
			sub.addEngineFlags(c.Flags())
			sub.addRTLFlags(c.Flags())
		case modeFormal:
			sub.addFormalFlags(c.Flags())
			sub.addNoCacheFlag(c.Flags())
		}
		cmd.AddCommand(c)
	}
	return cmd
}

// newVerifyFlags are verify's flags at their defaults.
func newVerifyFlags() *verifyFlags {
	return &verifyFlags{plan: verify.DefaultPlan(), seqPlan: verify.DefaultSeqPlan(), simTimeout: hdl.DefaultSimTimeout, timeout: 10 * time.Minute}
}

// addRTLFlags declares the RTL mode's flags but --sim and --sim-timeout.
func (f *verifyFlags) addRTLFlags(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.rtl, "rtl", nil, "check this Verilog `FILE`'s module against the golden vectors of --unit\n(repeat for several files) under Icarus and Verilator, as the testbench of\nlsugen gen --tb does; the model, netlist and generated Verilog are not run")
	fs.StringVar(&f.top, "top", "", "with --rtl: the module to check (default: the unit's name)")
	addRTLFlags(fs, &f.rtlOpt)
}

// addFormalFlags declares the formal mode's flags.
func (f *verifyFlags) addFormalFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&f.proof.GatesFile, "gates-file", false, "with --formal: prove the gate-level Verilog file as Yosys reads it, not the gate netlist\nit is written from (also proves the gate writer; slower on large units)")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Minute, "with --formal: time limit of one unit's proof; an unfinished proof is an error")
}

// addNoCacheFlag declares --no-cache, of the simulation and formal modes.
func (f *verifyFlags) addNoCacheFlag(fs *pflag.FlagSet) {
	fs.BoolVar(&f.proof.NoCache, "no-cache", false, "prove every unit (formal), or run every simulation (sim), even when the cache\n($LSUGEN_CACHE_DIR or the user cache: formal-proof/, sim-run/) holds the result\nof the same proof or run, and store nothing")
}

// addCommonFlags declares the flags of every mode.
func (f *verifyFlags) addCommonFlags(a *app, fs *pflag.FlagSet, name string) {
	addWorkFlag(fs, &f.work)
	addToolMemoryFlag(fs)
	addBudgetFlags(fs, &f.budget, false)
	addPipeliningWork(a, fs, &f.budget, &f.pipeWork, name)
	addLibertyFlag(fs, &f.budget.LibraryPath)
	fs.Lookup("unit").Usage = "check only the units matching this glob `PATTERN` (repeatable; with --rtl: the unit whose golden vectors and ports to use, default the only unit)"
	addJobsFlag(fs, &f.jobs, runtime.NumCPU())
	addJSONFlag(fs, &f.asJSON)
	fs.StringVar(&f.junit, "junit", "", "also write the results as JUnit XML to `FILE` (atomically)")
}

// addEngineFlags declares the simulators' flags, --sim and --sim-timeout.
func (f *verifyFlags) addEngineFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.sims, "sim", "netlist,icarus,verilator", simUsage)
	fs.DurationVar(&f.simTimeout, "sim-timeout", hdl.DefaultSimTimeout, "wall-clock limit of each Icarus or Verilator simulation run (builds not included),\nwith or without --rtl; a run past it is killed and its check fails (exit 1).\nA flat bound, since run times differ 100-fold between the simulators; it\nends a run that never finishes, e.g. a module with a zero-delay loop")
}

// addSimFlags declares the simulation mode's flags.
func (f *verifyFlags) addSimFlags(fs *pflag.FlagSet) {
	f.addEngineFlags(fs)
	fs.IntVar(&f.plan.Random, "vectors", f.plan.Random, "random vectors per unit when exhaustive enumeration does not fit\n(default: fewer for large units, about 2^27 gate-vectors, at least 256)")
	fs.IntVar(&f.plan.IcarusGateVectors, "icarus-gate-vectors", f.plan.IcarusGateVectors, fmt.Sprintf("Icarus runs the directed vectors and an even sample of the rest within this many\ngates times vectors (at least %d); 0: Icarus runs every vector", verify.IcarusMinVectors))
	fs.IntVar(&f.seqPlan.IcarusGateCycles, "icarus-gate-cycles", f.seqPlan.IcarusGateCycles, "Icarus runs the first max(1000, N / gates) cycles of a clocked unit's stream; 0: all")
	fs.Uint64Var(&f.plan.Seed, "seed", f.plan.Seed, "seed of the random vectors and configurations, and of sequential units' stimulus")
	fs.IntVar(&f.plan.Configs, "configs", f.plan.Configs, "random configurations of a configurable unit")
	fs.IntVar(&f.plan.MaxVectors, "max-vectors", f.plan.MaxVectors, "inputs that number no more than this are enumerated exhaustively")
	fs.IntVar(&f.seqPlan.Cycles, "cycles", f.seqPlan.Cycles, "clock cycles per sequential (clocked) unit")
}

// runVerify checks the flags of the mode, selects the units, runs the
// checks and reports them.
func runVerify(a *app, fs *pflag.FlagSet, f *verifyFlags, paths []string, mode string) error {
	engines, err := f.check(fs, mode)
	if err != nil {
		return err
	}
	sel, err := f.load(paths, mode, engines, a.stderr)
	if err != nil {
		return err
	}
	dir, keep, err := workDir(f.work, "lsugen-verify-")
	if err != nil {
		return err
	}
	keep = keep || f.rtlOpt.vcd // the waveforms
	rep := newVerifyReport(mode, sel, engines, f.top)
	lines := a.stdout
	if f.asJSON {
		lines = a.stderr
	}
	p := newVerifyPrinter(rep, lines, a.stderr, isTerminal(a.stderr))
	start := time.Now()
	err = f.runChecks(hdl.WithSimTimeout(a.context(), f.simTimeout), mode, sel, engines, dir, p)
	p.close()
	if err != nil {
		fmt.Fprintf(a.stderr, "lsugen verify: %v\n(%s)\n", err, workNote(a.context(), dir, f.work == ""))
		return errReported
	}
	rep.Seconds = seconds(time.Since(start))
	rep.count()
	if mode == modeRTL {
		rtlVerdict(rep, a.stderr)
	}
	if (!rep.Passed || keep) && !(f.work == "" && a.context().Err() != nil) { // an interrupt removes a temporary one
		rep.Work = dir
	}
	if err := f.writeReport(a, rep, lines); err != nil {
		return err
	}
	if !rep.Passed {
		c := rep.Checks
		fmt.Fprintf(a.stderr, "lsugen verify: FAILED; %s (%d failed, %d could not run, %d skipped of %d checks)\n",
			workNote(a.context(), dir, f.work == ""), c.Failed, c.Errors, c.Skipped, c.Total)
		return errReported
	}
	if !keep {
		os.RemoveAll(dir)
	}
	writeVerdict(lines, mode, rep, sel)
	return nil
}

// check refuses flags that mode does not use or that are out of range,
// before any unit is loaded, and returns the engines to run.
func (f *verifyFlags) check(fs *pflag.FlagSet, mode string) ([]verify.Engine, error) {
	if f.simTimeout <= 0 {
		return nil, usagef("--sim-timeout %v: want a positive duration, e.g. 10m", f.simTimeout)
	}
	if err := checkVerifyFlags(fs, mode); err != nil {
		return nil, err
	}
	if f.junit != "" {
		if err := checkOutputFile(f.junit); err != nil {
			return nil, usagef("--junit: %v", err)
		}
	}
	if f.jobs < 1 || f.timeout <= 0 {
		return nil, usagef("--timeout and --jobs must be positive")
	}
	switch mode {
	case modeSimulation:
		return f.checkSim(fs)
	case modeRTL:
		return f.checkRTL(fs)
	}
	return nil, nil
}

// checkSim checks the simulation mode's flags and returns its engines.
func (f *verifyFlags) checkSim(fs *pflag.FlagSet) ([]verify.Engine, error) {
	engines, err := verify.ParseEngines(f.sims)
	if err != nil {
		return nil, usagef("%v", err)
	}
	if f.plan.Random < 1 || f.plan.Configs < 1 || f.plan.MaxVectors < 1 || f.seqPlan.Cycles < 1 {
		return nil, usagef("--vectors, --configs, --max-vectors and --cycles must be positive")
	}
	if f.plan.IcarusGateVectors < 0 || f.seqPlan.IcarusGateCycles < 0 {
		return nil, usagef("--icarus-gate-vectors and --icarus-gate-cycles must not be negative")
	}
	if fs.Changed("vectors") {
		f.plan.GateVectors = 0 // an explicit count is taken as given
		if !fs.Changed("icarus-gate-vectors") {
			f.plan.IcarusGateVectors = 0 // on every engine
		}
	}
	f.seqPlan.Seed = f.plan.Seed
	return engines, nil
}

// checkRTL checks the RTL mode's flags and files and returns its engines.
func (f *verifyFlags) checkRTL(fs *pflag.FlagSet) ([]verify.Engine, error) {
	if len(f.rtl) == 0 {
		return nil, usagef("give the Verilog to check: --rtl FILE.v (repeatable)")
	}
	engines := []verify.Engine{verify.Icarus, verify.Verilator}
	if fs.Changed("sim") {
		var err error
		if engines, err = verify.ParseEngines(f.sims); err != nil {
			return nil, usagef("%v", err)
		}
		if slices.Contains(engines, verify.Netlist) {
			return nil, usagef("--sim netlist: --rtl runs Verilog files, under icarus or verilator")
		}
	}
	for _, file := range f.rtl {
		st, err := os.Stat(file)
		if err != nil {
			return nil, usagef("--rtl %s: %v", file, errors.Unwrap(err))
		}
		if st.IsDir() {
			return nil, usagef("--rtl %s: a directory, not a Verilog file", file)
		}
	}
	return engines, f.rtlOpt.check(fs)
}

// load runs the session, selects the units of --unit and refuses work
// past verify's limits, before any check starts.
func (f *verifyFlags) load(paths []string, mode string, engines []verify.Engine, stderr io.Writer) ([]unit, error) {
	sel, err := loadAndGenerate(paths, f.budget, stderr)
	if err != nil {
		return nil, err
	}
	if err := checkVerifyLimits(sel, mode, engines, f.plan, f.seqPlan); err != nil {
		return nil, badInput(err)
	}
	if mode == modeRTL && len(f.budget.Units) == 0 && len(sel) > 1 {
		return nil, usagef("the specs declare %d units: choose one with --unit (%s)", len(sel), joinNames(sel))
	}
	if mode == modeRTL && f.top != "" && len(sel) > 1 {
		return nil, usagef("--top names one module: select one unit with --unit (selected: %s)", joinNames(sel))
	}
	return sel, nil
}

// verifyLimits are the engines' limits (a variable, so that tests can
// lower them).
var verifyLimits = verify.DefaultLimits()

// checkVerifyLimits refuses, before any work, a run past verify's budget
// of vectors and cycles or past an engine's limits (docs/limits.md); the
// RTL mode runs fixed golden vectors and is not checked.
func checkVerifyLimits(sel []unit, mode string, engines []verify.Engine, plan verify.Plan, seq verify.SeqPlan) error {
	ds := make([]*netlist.Design, len(sel))
	for i, u := range sel {
		ds[i] = u.Design
	}
	switch mode {
	case modeFormal:
		return verifyLimits.CheckProofs(ds)
	case modeSimulation:
		return verifyLimits.CheckSimulation(ds, engines, plan, seq)
	}
	return nil
}

// newVerifyReport is the report of a run before any check: every check
// of every unit skipped, "not run".
func newVerifyReport(mode string, sel []unit, engines []verify.Engine, top string) *verifyReport {
	rep := &verifyReport{Version: gen.Version, Mode: mode, Units: make([]verifyUnit, len(sel))}
	if mode == modeFormal {
		rep.Engines = []string{modeFormal}
	}
	for _, e := range engines {
		rep.Engines = append(rep.Engines, string(e))
	}
	for i, u := range sel {
		vu := verifyUnit{Name: u.Design.Name, Source: source(u.Spec), Clocked: u.Design.Clock != ""}
		if mode == modeRTL {
			vu.Module, vu.vectorFile = cmp.Or(top, u.Design.Name), verify.VectorFileName(u.Design)
		}
		for _, e := range rep.Engines {
			vu.Results = append(vu.Results, verifyResult{Engine: e, Status: statusSkipped, Error: "not run"})
		}
		rep.Units[i] = vu
	}
	return rep
}

// runChecks runs the mode's checks; an error means a unit could not be
// set up.
func (f *verifyFlags) runChecks(ctx context.Context, mode string, sel []unit, engines []verify.Engine, dir string, p *verifyPrinter) error {
	switch mode {
	case modeSimulation:
		return verifySimulation(ctx, sel, engines, f, dir, p)
	case modeRTL:
		runChecks(ctx, rtlChecks(sel, engines, f.rtl, f.top, f.rtlOpt, dir), f.jobs, p)
	case modeFormal:
		runChecks(ctx, formalChecks(sel, f.timeout, f.proof, dir), f.jobs, p)
	}
	return nil
}

// writeReport writes the JUnit file and prints the report: the JSON
// document, or the summary table.
func (f *verifyFlags) writeReport(a *app, rep *verifyReport, lines io.Writer) error {
	if f.junit != "" {
		if err := rep.writeJUnit(f.junit); err != nil {
			return err
		}
	}
	if f.asJSON {
		return printJSON(a.stdout, rep)
	}
	rep.writeSummary(lines)
	return nil
}

// writeVerdict prints the last line of a run that passed.
func writeVerdict(w io.Writer, mode string, rep *verifyReport, sel []unit) {
	switch mode {
	case modeSimulation:
		fmt.Fprintf(w, "verified %d units: model = %s\n", len(sel), strings.Join(rep.Engines, " = "))
	case modeRTL:
		writeRTLVerdict(w, rep)
	case modeFormal:
		piped := 0
		for _, u := range sel {
			if u.Design.Pipeline != nil && u.Variable == nil {
				piped++
			}
		}
		also := ""
		if piped > 0 {
			also = fmt.Sprintf("; %d pipelines = their originals + their register stages", piped)
		}
		fmt.Fprintf(w, "proved %d units: RTL = gates%s (Yosys %s, ABC)\n", len(sel), also, yosysVersion())
	}
}

// checkVerifyFlags refuses flags that the mode does not use.
func checkVerifyFlags(fs *pflag.FlagSet, mode string) error {
	allowed := map[string]bool{"unit": true, "jobs": true, "work": true, "json": true, "junit": true, "gate-budget": true, "tool-memory": true,
		"clock-fo4": true, "clock": true, "timing-mode": true, "liberty": true, "work-budget": true, "quiet": true}
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
		return usagef("%s: not used by --formal, which takes --timeout, --no-cache and --gates-file besides --unit, --jobs, --work, --json, --junit and --clock-fo4", list)
	case mode == modeRTL:
		return usagef("%s: not with --rtl (it checks the fixed golden vectors; flags: --rtl, --unit, --top, --sim, --sim-timeout, -I, -D, --vcd, --vcd-from, --jobs, --work, --json, --junit)", list)
	case other[0] == "--top" || slices.Contains(rtlOptionFlags, other[0][2:]):
		return usagef("%s needs --rtl FILE.v", other[0])
	}
	return usagef("%s: applies to --formal only", list)
}

// verifySimulation runs every engine on every unit through verify.RunTasks:
// combinational units run vectors, clocked units a stream of cycles in
// lockstep with their sequential model. An error means a unit could not be
// set up (its Verilog not written).
func verifySimulation(ctx context.Context, sel []unit, engines []verify.Engine, f *verifyFlags, dir string, p *verifyPrinter) error {
	tasks := make([]verify.Task, len(sel))
	for i, u := range sel {
		job, err := units.Job(u.Spec, u.Built)
		if err != nil {
			return err
		}
		udir := filepath.Join(dir, u.Design.Name)
		set, err := verilogFiles([]unit{u})
		if err != nil {
			return err
		}
		if err := writeAll(udir, set); err != nil {
			return err
		}
		rtlFiles, gateFiles := rtl.Sources(u.Design)
		job.Sources = joinAll(udir, append(rtlFiles, gateFiles...))
		job.Modules = []string{u.Design.Name, rtl.GatesModuleName(u.Design)}
		job.Dir = udir
		job.Rerun = f.proof.NoCache
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
		if o.Check.Cached {
			res.Method = runCacheMethod
		}
		if m := o.Check.Mismatch; m != nil {
			res.Status, res.Mismatch, res.Failure = statusFail, mismatchJSON(m), m.String()
		}
	}
	return res, ""
}

// runCacheMethod is the method of a simulation whose outputs came from
// the run cache (an identical earlier run's, compared with the model as
// always).
const runCacheMethod = "outputs from the run cache"

// simUsage is --sim's one meaning, in verify and replay: the simulation
// engines.
const simUsage = "engines to run, comma-separated: netlist, icarus, verilator (verify --rtl: icarus, verilator; replay: one of netlist, verilator)"
