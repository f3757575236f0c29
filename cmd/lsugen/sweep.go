package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lsugen/lsugen/flow"
	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/plot"
	"github.com/lsugen/lsugen/retime/sweep"
	"github.com/lsugen/lsugen/timing"
)

// The clock sweep of lsugen timing (docs/clock-sweep.md), computed by
// package retime/sweep: here only its flags, its three steps as
// subcommands (timing sweep, sweep-point, sweep-merge) and as the older
// flags of timing itself (--sweep-clock, --sweep-point, --sweep-merge),
// and the printing and writing of what the package returns.

// sweepFlags are the sweep's flags: those of timing's older spelling, or
// those a subcommand declares, its positional argument in clock, point or
// merge.
type sweepFlags struct {
	clock, point, merge string
	jobList, outDir     string
	jobCommand          string
	staLiberty          string
	jobs                int
	work                workFlags // of the points computed here (--sweep-clock) and the load's pipelinings
	fs                  *pflag.FlagSet
}

const (
	jobListUsage    = "with a sweep's periods: compute nothing here; write FILE, one shell command per point for GNU parallel or a Slurm array, and the sweep's manifest into --out-dir"
	outDirUsage     = "the directory of a sweep's point results (--job-list, --sweep-point)"
	jobCommandUsage = "with --job-list: the shell words that run lsugen in each job (default: this lsugen's absolute path)"
	staLibertyUsage = "with --sweep-point or --job-list: also time each point's pipeline with Yosys + OpenSTA on this liberty `FILE`, stage by stage (crosscheck-timing's flow, minutes per point)"
)

// addSweepFlags declares the sweep flags of lsugen timing, the older
// spelling of its subcommands.
func addSweepFlags(fs *pflag.FlagSet, s *sweepFlags) {
	fs.StringVar(&s.clock, "sweep-clock", "", "pipeline every combinational unit at the clock periods LO, LO+STEP, ... up to HI FO4 (LO:HI:STEP, e.g. 20:60:4) and report latency, flip-flops, area and worst stage at each (docs/clock-sweep.md; also: lsugen timing sweep)")
	fs.StringVar(&s.jobList, "job-list", "", jobListUsage)
	fs.StringVar(&s.outDir, "out-dir", "", outDirUsage)
	fs.StringVar(&s.jobCommand, "job-command", "", jobCommandUsage)
	fs.StringVar(&s.point, "sweep-point", "", "compute one point UNIT@P of a sweep (unit UNIT at P FO4) and write it as JSON into --out-dir (also: lsugen timing sweep-point)")
	fs.StringVar(&s.merge, "sweep-merge", "", "build a sweep's table (and --svg figure) from the point results in DIR, naming the points missing or malformed (also: lsugen timing sweep-merge)")
	fs.StringVar(&s.staLiberty, "sta-liberty", "", staLibertyUsage)
	addJobsFlag(fs, &s.jobs, 1)
	addWorkFlags(fs, &s.work)
	s.fs = fs
}

// spelling is flag in timing's older spelling, else arg, the
// subcommand's argument, to name a value in a message.
func (s *sweepFlags) spelling(flag, arg string) string {
	if s.fs != nil {
		return flag
	}
	return arg
}

// sweepStepFlags are the flags that make lsugen timing a sweep step.
var sweepStepFlags = []string{"sweep-clock", "sweep-point", "sweep-merge", "job-list", "out-dir", "job-command", "jobs", "sta-liberty"}

// active reports whether the command is a sweep or one of its steps: any
// sweep flag given (runSweep refuses those given without their step).
func (s *sweepFlags) active() bool {
	if s.fs == nil {
		return false
	}
	for _, f := range sweepStepFlags {
		if s.fs.Changed(f) {
			return true
		}
	}
	return false
}

// sweepDoc is lsugen timing --sweep-clock --json (and --sweep-merge --json).
type sweepDoc struct {
	// Version is lsugen's version.
	Version string `json:"version"`
	*sweep.Sweep
}

// runSweep is a sweep step, from the subcommands or from timing with
// --sweep-clock, --sweep-point or --sweep-merge; opt is the timing
// model (--timing-mode: sized unless given), which places the registers
// at each period and times the stages.
func runSweep(a *app, cmd *cobra.Command, s *sweepFlags, opt timing.Options, specPaths []string, b budget, asJSON bool, svg string) error {
	fl := cmd.Flags()
	b.Clock.TimingMode = "" // the sweep's model, not a pipelining before it
	// The units the specs pipeline themselves (clock_fo4) count against
	// the sweep's --work-budget too; a sweep without them is not refused
	// for having none.
	b.Pipelining = s.work.hook(a, fl, cmd.CommandPath(), false)
	if err := s.check(fl, specPaths, asJSON, svg); err != nil {
		return err
	}
	if svg != "" {
		if err := checkOutputFile(svg); err != nil {
			return badInput(fmt.Errorf("--svg: %w", err))
		}
		if err := checkNotReplacing("--svg", svg, "the input", append(sweepInputs(fl), specPaths...)...); err != nil {
			return err
		}
	}
	switch {
	case s.merge != "":
		return s.runMerge(a, asJSON, svg)
	case s.point != "":
		return s.runPoint(a, opt, specPaths, b, asJSON)
	}
	periods, err := sweep.ParsePeriods(s.clock, minClockFO4, maxClockFO4)
	if err != nil {
		return usagef("%s %v", s.spelling("--sweep-clock", "LO:HI:STEP"), err)
	}
	if s.jobList != "" {
		return s.runJobList(a, fl, opt, periods, specPaths, b)
	}
	us, err := loadAndGenerate(specPaths, b, a.stderr)
	if err != nil {
		return err
	}
	sw, err := s.runHere(a, sweepUnits(us), periods, opt)
	if err != nil {
		return err
	}
	return finishSweep(a, sw, asJSON, svg)
}

// runHere computes the sweep's points in this process, --jobs at a time
// (fewer where their memory would not fit, fitJobs), with a progress
// line, after refusing a sweep estimated over --work-budget.
func (s *sweepFlags) runHere(a *app, us []sweep.Unit, periods []float64, opt timing.Options) (*sweep.Sweep, error) {
	est, err := sweep.EstimateRun(us, periods, opt)
	if err != nil {
		return nil, err
	}
	jobs, err := fitJobs(a, s.jobs, us)
	if err != nil {
		return nil, err
	}
	w := workEstimate{size: fmt.Sprintf("%d points", est.Points), cpu: est.CPU, longest: est.Longest, workers: jobs,
		shrink: "a larger STEP, a narrower LO:HI, or fewer units with --unit"}
	if err := checkWork(s.work.budget, w); err != nil {
		return nil, err
	}
	p := startProgress(a.ctx, a.stderr, s.work.quiet, "lsugen timing sweep", "points", int64(est.Points), w.wall())
	defer p.Stop()
	return sweep.Run(a.ctx, us, periods, opt, jobs, func() { p.Add(1) })
}

// sweepUnits are the units as package sweep takes them.
func sweepUnits(us []unit) []sweep.Unit {
	out := make([]sweep.Unit, len(us))
	for i, u := range us {
		out[i] = sweep.Unit{Design: u.Design, Kind: u.Spec.UnitKind(), Variant: u.Spec.Variant()}
	}
	return out
}

// check refuses the flag combinations a sweep cannot honour, naming the
// flag.
func (s *sweepFlags) check(fl *pflag.FlagSet, specPaths []string, asJSON bool, svg string) error {
	for _, c := range []func() error{
		func() error { return s.checkStep(fl) },
		func() error { return checkNotReport(fl) },
		func() error { return s.checkJobList(fl) },
		func() error { return s.checkDirs(fl, asJSON, svg) },
		func() error { return s.checkMerge(fl, specPaths) },
		func() error { return checkWorkBudgetFlag(s.work.budget) },
	} {
		if err := c(); err != nil {
			return err
		}
	}
	return nil
}

// checkStep refuses an empty sweep flag and wants one step.
func (s *sweepFlags) checkStep(fl *pflag.FlagSet) error {
	var given []string
	for _, f := range sweepStepFlags {
		if !fl.Changed(f) {
			continue
		}
		given = append(given, "--"+f)
		if fl.Lookup(f).Value.String() == "" {
			return usagef("--%s: empty; it needs a value", f)
		}
	}
	n := 0
	for _, v := range []string{s.clock, s.point, s.merge} {
		if v != "" {
			n++
		}
	}
	if n > 1 {
		return usagef("--sweep-clock, --sweep-point and --sweep-merge are three steps: give one")
	}
	if n == 0 {
		return usagef("%s: applies to a clock sweep, with --sweep-clock LO:HI:STEP, --sweep-point or --sweep-merge", strings.Join(given, ", "))
	}
	return nil
}

// checkNotReport refuses the flags of the timing report and of a
// pipelining at one period.
func checkNotReport(fl *pflag.FlagSet) error {
	for _, f := range []string{"clock", "paths", "svg-unit"} {
		if flagChanged(fl, f) {
			return usagef("--%s is for the timing report, not a sweep (its periods are --sweep-clock LO:HI:STEP)", f)
		}
	}
	if flagChanged(fl, "clock-fo4") {
		return usagef("--clock-fo4 pipelines the units at one period before a sweep could: the sweep pipelines them at each period of --sweep-clock, with the model of --timing-mode")
	}
	return nil
}

// checkJobList checks the flags of a job list and --sta-liberty, which
// it makes absolute: the jobs may run elsewhere.
func (s *sweepFlags) checkJobList(fl *pflag.FlagSet) error {
	if s.jobList != "" && s.clock == "" {
		return usagef("--job-list FILE needs --sweep-clock LO:HI:STEP")
	}
	if s.jobCommand != "" && s.jobList == "" {
		return usagef("--job-command applies to --job-list only")
	}
	if !flagChanged(fl, "sta-liberty") {
		return nil
	}
	if s.jobList == "" && s.point == "" {
		return usagef("--sta-liberty runs OpenSTA on each point, minutes apiece: with --job-list (passed to every job) or --sweep-point")
	}
	abs, err := filepath.Abs(s.staLiberty)
	if err != nil {
		return badInput(err)
	}
	if _, err := os.Stat(abs); err != nil {
		return badInput(fmt.Errorf("--sta-liberty: %w", err))
	}
	return fl.Set("sta-liberty", abs)
}

// checkDirs checks --out-dir, --jobs and the outputs against the step.
func (s *sweepFlags) checkDirs(fl *pflag.FlagSet, asJSON bool, svg string) error {
	needDir := s.jobList != "" || s.point != ""
	switch {
	case needDir && s.outDir == "":
		return usagef("--job-list and --sweep-point need --out-dir DIR, the directory of the point results")
	case !needDir && s.outDir != "":
		return usagef("--out-dir applies to --job-list and --sweep-point only")
	case flagChanged(fl, "jobs") && (s.clock == "" || s.jobList != ""):
		return usagef("--jobs N computes the points of --sweep-clock here: not with --job-list, --sweep-point or --sweep-merge")
	case (flagChanged(fl, "work-budget") || flagChanged(fl, "quiet")) && (s.clock == "" || s.jobList != ""):
		return usagef("--work-budget and --quiet apply to the points --sweep-clock computes here: not with --job-list, --sweep-point or --sweep-merge")
	case s.jobs < 1 || s.jobs > 1024:
		return usagef("--jobs %d: want 1 to 1024", s.jobs)
	case needDir && svg != "":
		return usagef("--svg draws a whole sweep: with --sweep-clock (without --job-list) or --sweep-merge")
	case s.jobList != "" && asJSON:
		return usagef("--json: --job-list computes nothing to report")
	case fl.Changed("unit") && s.point != "":
		return usagef("--unit: --sweep-point names its one unit, UNIT@P")
	case fl.Changed("unit") && s.merge != "":
		return usagef("--unit: --sweep-merge takes the units from the sweep's manifest")
	}
	return nil
}

// checkMerge refuses spec files and model flags with a merge: the
// manifest names the units and the model.
func (s *sweepFlags) checkMerge(fl *pflag.FlagSet, specPaths []string) error {
	if s.merge == "" {
		return nil
	}
	if len(specPaths) > 0 {
		return usagef("--sweep-merge DIR takes no spec files (given %s): the manifest in DIR names the units", strings.Join(specPaths, " "))
	}
	var model []string
	fl.Visit(func(f *pflag.Flag) {
		if passThrough(f) {
			model = append(model, "--"+f.Name)
		}
	})
	if len(model) > 0 {
		return usagef("%s: --sweep-merge takes the model from the sweep's manifest", strings.Join(model, ", "))
	}
	return nil
}

// maxPointErrors is how many points not computed a sweep names on
// standard error; the report names them all.
const maxPointErrors = 20

// finishSweep prints a sweep (a table or JSON), writes its figure, and
// fails (exit status 1) when a point failed or, from a merge, is missing
// or malformed, after reporting everything else.
func finishSweep(a *app, sw *sweep.Sweep, asJSON bool, svg string) error {
	if svg != "" {
		b, err := sw.SVG()
		if errors.Is(err, plot.ErrValue) {
			return badInput(fmt.Errorf("--svg: %w", err)) // a point file's value
		}
		if err != nil {
			return fmt.Errorf("--svg: %w", err)
		}
		if err := writeFileAtomic(svg, b); err != nil {
			return err
		}
	}
	if asJSON {
		if err := printJSON(a.stdout, sweepDoc{Version: gen.Version, Sweep: sw}); err != nil {
			return err
		}
	} else {
		if err := sw.WriteTable(a.stdout); err != nil {
			return err
		}
		if svg != "" {
			fmt.Fprintf(a.stdout, "\nwrote %s\n", svg)
		}
	}
	bad, err := sw.Unfinished()
	for i, p := range bad {
		if i == maxPointErrors {
			fmt.Fprintf(a.stderr, "lsugen timing: ... and %d more points not computed (the report lists them all)\n", len(bad)-i)
			break
		}
		fmt.Fprintf(a.stderr, "lsugen timing: %s %s: %s\n", sweep.PointName(p.Unit, p.PeriodFO4), p.Status, sweep.OneLine(p.Reason))
	}
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	return nil
}

// runPoint computes one point and writes its result file.
func (s *sweepFlags) runPoint(a *app, opt timing.Options, specPaths []string, b budget, asJSON bool) error {
	name, p, err := sweep.ParsePointName(s.point, minClockFO4, maxClockFO4)
	if err != nil {
		return usagef("%s %v", s.spelling("--sweep-point", "UNIT@P"), err)
	}
	u, err := loadUnit(specPaths, name, b, a.stderr)
	if err != nil {
		return err
	}
	res := sweep.Compute(a.context(), gen.Version, *u, p, opt, s.staLiberty)
	data, err := marshalJSON(res)
	if err != nil {
		return err
	}
	point := sweep.PointName(name, p)
	if err := writeAllContext(a.ctx, s.outDir, map[string][]byte{point + ".json": data}); err != nil {
		return err
	}
	if asJSON {
		if _, err := a.stdout.Write(data); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(a.stdout, "%s: %s; wrote %s\n", point, res.Words(), filepath.Join(s.outDir, point+".json"))
	}
	if res.Status == sweep.Failed {
		return &exitError{code: 1, err: fmt.Errorf("%s: %s", point, res.Reason)}
	}
	return nil
}

// loadUnit is loadAndGenerate for the one unit a sweep point needs: the
// specs are loaded whole, only that unit is generated.
func loadUnit(paths []string, name string, b budget, stderr io.Writer) (*sweep.Unit, error) {
	b.Unit = name
	us, err := loadAndGenerate(paths, b, stderr)
	if nu := (*flow.NoUnitError)(nil); errors.As(err, &nu) {
		return nil, usagef("--sweep-point: no unit %s in the specs (units: %s)", name, strings.Join(nu.Units, ", "))
	}
	if err != nil {
		return nil, err
	}
	u := us[0]
	return &sweep.Unit{Design: u.Design, Kind: u.Spec.UnitKind(), Variant: u.Spec.Variant()}, nil
}

// sweepOwnFlags are the flags of the sweep and of the timing report's
// outputs: a job line never passes them on.
var sweepOwnFlags = map[string]bool{
	"sweep-clock": true, "sweep-point": true, "sweep-merge": true, "job-list": true, "out-dir": true,
	"job-command": true, "jobs": true, "work-budget": true, "quiet": true, "svg": true, "svg-unit": true, "json": true, "paths": true, "clock": true, "help": true,
	"unit": true, // a job's point names its unit
}

// passThrough reports whether a job line passes f on: a flag of the model
// or the budget.
func passThrough(f *pflag.Flag) bool { return !sweepOwnFlags[f.Name] }

// shellQuote quotes s for a POSIX shell, leaving plain words alone.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./_-", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// runJobList writes the manifest into --out-dir and the job list: one
// line per point of a unit without a clock, each a shell command that
// computes that point. Every word of a line is checked (no control
// character: a newline would end the job and start another command) and
// quoted before anything is generated.
func (s *sweepFlags) runJobList(a *app, fl *pflag.FlagSet, opt timing.Options, periods []float64, specPaths []string, b budget) error {
	if err := checkOutputFile(s.jobList); err != nil {
		return badInput(fmt.Errorf("--job-list: %w", err))
	}
	dir, err := filepath.Abs(s.outDir)
	if err != nil {
		return badInput(fmt.Errorf("--out-dir %s: %w", s.outDir, err))
	}
	manifest := filepath.Join(dir, sweep.ManifestFile)
	if err := checkNotReplacing("--job-list", s.jobList, "the sweep's manifest", manifest); err != nil {
		return err
	}
	if err := checkNotReplacing("--job-list", s.jobList, "the input", append(sweepInputs(fl), specPaths...)...); err != nil {
		return err
	}
	exe, err := s.jobExe()
	if err != nil {
		return err
	}
	tail, err := jobTail(fl, opt, dir, specPaths)
	if err != nil {
		return err
	}
	us, err := loadAndGenerate(specPaths, b, a.stderr)
	if err != nil {
		return err
	}
	man := sweep.NewManifest(gen.Version, opt, periods, sweepUnits(us))
	if err := man.CheckSize(); err != nil {
		return usagef("%v", err)
	}
	if err := checkNotReplacing("--job-list", s.jobList, "the result file of a point,", man.PointFiles(dir)...); err != nil {
		return err
	}
	list, jobs := man.Jobs(func(point string) string {
		return fmt.Sprintf("%s timing --sweep-point=%s %s", exe, shellQuote(point), tail)
	})
	data, err := marshalJSON(man)
	if err != nil {
		return err
	}
	if err := writeAllContext(a.ctx, s.outDir, map[string][]byte{sweep.ManifestFile: data}); err != nil {
		return err
	}
	if err := writeFileAtomic(s.jobList, list); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "wrote %s: %s, one per line; results go to %s\nrun them with: parallel < %s   (or a Slurm array: docs/clock-sweep.md)\nthen: lsugen timing --sweep-merge %s\n",
		s.jobList, plot.Plural(jobs, "job"), dir, shellQuote(s.jobList), shellQuote(dir))
	return nil
}

// sweepInputs are the files a sweep step reads besides its specs: the
// cell libraries of --liberty and --sta-liberty.
func sweepInputs(fl *pflag.FlagSet) []string {
	var in []string
	for _, name := range []string{"liberty", "sta-liberty"} {
		if f := fl.Lookup(name); f != nil && f.Changed {
			in = append(in, f.Value.String())
		}
	}
	return in
}

// jobWord is s as one quoted shell word of a job line, what naming it in
// the error that refuses a control character: a job list is read a line
// at a time (GNU parallel, sed -n Np | sh), so a newline inside a quoted
// word would end the job and run the rest as a command of its own.
func jobWord(what, s string) (string, error) {
	if err := checkJobText(what, s); err != nil {
		return "", err
	}
	return shellQuote(s), nil
}

// checkJobText refuses text of a job line that holds a control character.
func checkJobText(what, s string) error {
	if i := strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }); i >= 0 {
		return badInput(fmt.Errorf("--job-list: %s %s holds the control character %s: a job is one line of shell, which it would end or alter; rename it (nothing written)",
			what, strconv.Quote(s), strconv.QuoteRune(rune(s[i]))))
	}
	return nil
}

// jobExe is the shell words that run lsugen in a job.
func (s *sweepFlags) jobExe() (string, error) {
	if s.jobCommand != "" {
		return s.jobCommand, checkJobText("--job-command", s.jobCommand)
	}
	p, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("--job-list: finding lsugen's own path (give --job-command): %w", err)
	}
	return jobWord("lsugen's own path (give --job-command)", p)
}

// jobTail is what follows a job line's point: the model's and budget's
// flags as given (the model always, a library by its absolute path), the
// result directory and the spec files, absolute, each a quoted word.
func jobTail(fl *pflag.FlagSet, opt timing.Options, dir string, specPaths []string) (string, error) {
	var common []string
	add := func(what, word string) error {
		q, err := jobWord(what, word)
		common = append(common, q)
		return err
	}
	if err := add("--timing-mode", "--timing-mode="+string(opt.Mode)); err != nil {
		return "", err
	}
	var ferr error
	fl.VisitAll(func(f *pflag.Flag) {
		name := f.Name
		if to, ok := f.Annotations[deprecatedFor]; ok {
			name = to[0]
		}
		if ferr != nil || !f.Changed || !passThrough(f) || name == "timing-mode" {
			return
		}
		v := f.Value.String()
		if name == "liberty" {
			if abs, err := filepath.Abs(v); err == nil {
				v = abs
			}
		}
		ferr = add("the value of --"+name, "--"+name+"="+v)
	})
	if ferr != nil {
		return "", ferr
	}
	if err := add("the --out-dir", "--out-dir="+dir); err != nil {
		return "", err
	}
	common = append(common, "--")
	for _, p := range specPaths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", badInput(fmt.Errorf("%s: %w", p, err))
		}
		if err := add("the spec file name", abs); err != nil {
			return "", err
		}
	}
	return strings.Join(common, " "), nil
}

// runMerge builds the sweep from the manifest and point results in
// --sweep-merge DIR.
func (s *sweepFlags) runMerge(a *app, asJSON bool, svg string) error {
	man, err := sweep.ReadManifest(s.merge)
	if errors.Is(err, fs.ErrNotExist) {
		return badInput(fmt.Errorf("--sweep-merge %s: no %s: not the --out-dir of lsugen timing --sweep-clock ... --job-list", s.merge, sweep.ManifestFile))
	}
	if err != nil {
		return badInput(fmt.Errorf("--sweep-merge: %w", err))
	}
	if svg != "" {
		if err := checkNotReplacing("--svg", svg, "the sweep's manifest", filepath.Join(s.merge, sweep.ManifestFile)); err != nil {
			return err
		}
		if err := checkNotReplacing("--svg", svg, "the result file of a point,", man.PointFiles(s.merge)...); err != nil {
			return err
		}
	}
	return finishSweep(a, man.Merge(s.merge), asJSON, svg)
}

// newSweepCmds are the sweep's steps as subcommands of lsugen timing, each
// with its own flags and help; timing's --sweep-clock, --sweep-point and
// --sweep-merge are the same steps.
func newSweepCmds(a *app) []*cobra.Command {
	return []*cobra.Command{newSweepClockCmd(a), newSweepPointCmd(a), newSweepMergeCmd(a)}
}

const sweepLong = `Pipelines every combinational unit of the specs at each clock period
LO, LO+STEP, ... up to HI FO4 (package retime, with the model of
--timing-mode, sized by default as in every command that times) and
reports per point the latency in cycles, the flip-flops, the area and the
worst stage; a unit with a clock already is marked, not swept. --jobs N
computes N points at once; a sweep estimated at more CPU time than
--work-budget is refused before any point, and a long one keeps a
progress line on standard error (--quiet: none). With --job-list
FILE --out-dir DIR it computes nothing: it writes one shell command per
point (lsugen timing sweep-point, in its older spelling --sweep-point) for
GNU parallel or a Slurm array, and the sweep's manifest into DIR; then
lsugen timing sweep-merge DIR builds the table. Also spelled lsugen timing
--sweep-clock LO:HI:STEP. See docs/clock-sweep.md.`

func newSweepClockCmd(a *app) *cobra.Command {
	var (
		s      sweepFlags
		m      timingModelFlags
		b      budget
		asJSON bool
		svg    string
	)
	cmd := &cobra.Command{
		Use:   "sweep [--jobs N] [--json] [--svg FILE] [--job-list FILE --out-dir DIR [--job-command WORDS] [--sta-liberty FILE]] LO:HI:STEP SPEC...",
		Short: "every combinational unit pipelined at each clock period: latency, flip-flops, area, worst stage",
		Long:  sweepLong,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 || args[0] == "" {
				return usagef("want the periods LO:HI:STEP in FO4, then the spec files")
			}
			s.clock = args[0]
			opt, err := m.options()
			if err != nil {
				return err
			}
			return runSweep(a, cmd, &s, opt, args[1:], b, asJSON, svg)
		},
	}
	fs := cmd.Flags()
	addJSONFlag(fs, &asJSON)
	fs.StringVar(&svg, "svg", "", "also write an SVG figure: area and flip-flops of each unit against the clock period")
	fs.StringVar(&s.jobList, "job-list", "", jobListUsage)
	fs.StringVar(&s.outDir, "out-dir", "", outDirUsage)
	fs.StringVar(&s.jobCommand, "job-command", "", jobCommandUsage)
	fs.StringVar(&s.staLiberty, "sta-liberty", "", staLibertyUsage)
	addJobsFlag(fs, &s.jobs, 1)
	addWorkFlags(fs, &s.work)
	m.add(fs)
	addGateBudgetFlag(fs, &b)
	addUnitFlag(fs, &b)
	return cmd
}

const sweepPointLong = `Computes one point of a clock sweep, the unit UNIT pipelined at P FO4,
and writes it as JSON (docs/schema/timing-sweep-point.json) into --out-dir
DIR, atomically, as UNIT@P.json: a line of a job list that lsugen timing
sweep --job-list writes. Only UNIT is generated. With --sta-liberty the
point's pipeline is also timed by Yosys + OpenSTA (minutes). Also spelled
lsugen timing --sweep-point UNIT@P. See docs/clock-sweep.md.`

func newSweepPointCmd(a *app) *cobra.Command {
	var (
		s      sweepFlags
		m      timingModelFlags
		b      budget
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "sweep-point --out-dir DIR [--json] [--sta-liberty FILE] UNIT@P SPEC...",
		Short: "one point of a clock sweep, written as JSON into --out-dir",
		Long:  sweepPointLong,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 || args[0] == "" {
				return usagef("want the point UNIT@P, then the spec files")
			}
			s.point = args[0]
			opt, err := m.options()
			if err != nil {
				return err
			}
			return runSweep(a, cmd, &s, opt, args[1:], b, asJSON, "")
		},
	}
	fs := cmd.Flags()
	addJSONFlag(fs, &asJSON)
	fs.StringVar(&s.outDir, "out-dir", "", outDirUsage)
	fs.StringVar(&s.staLiberty, "sta-liberty", "", staLibertyUsage)
	m.add(fs)
	addGateBudgetFlag(fs, &b)
	s.jobs = 1
	return cmd
}

// addGateBudgetFlag declares the budget's --gate-budget alone: a sweep
// pipelines at its own periods, so --clock-fo4, which timing refuses with
// a sweep, is not the subcommands' flag (their --timing-mode is the
// sweep's model).
func addGateBudgetFlag(fs *pflag.FlagSet, b *budget) {
	all := pflag.NewFlagSet("budget", pflag.ContinueOnError)
	addBudgetFlags(all, b, false)
	fs.AddFlag(all.Lookup("gate-budget"))
}

const sweepMergeLong = `Builds a clock sweep's table (or --json document, and --svg figure) from
the manifest and point results in DIR, the --out-dir of lsugen timing sweep
--job-list. A point whose result is absent or not this sweep's (another
unit, period, model, netlist or lsugen version) is named, and the merge
fails (exit status 1) after printing everything else. Also spelled lsugen
timing --sweep-merge DIR. See docs/clock-sweep.md.`

func newSweepMergeCmd(a *app) *cobra.Command {
	var (
		s      sweepFlags
		asJSON bool
		svg    string
	)
	cmd := &cobra.Command{
		Use:   "sweep-merge [--json] [--svg FILE] DIR",
		Short: "a clock sweep's table from the point results of its job list",
		Long:  sweepMergeLong,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || args[0] == "" {
				return usagef("want one DIR, the --out-dir of the sweep's job list; got %d arguments", len(args))
			}
			s.merge, s.jobs = args[0], 1
			return runSweep(a, cmd, &s, timing.Options{}, nil, budget{}, asJSON, svg)
		},
	}
	fs := cmd.Flags()
	addJSONFlag(fs, &asJSON)
	fs.StringVar(&svg, "svg", "", "also write an SVG figure: area and flip-flops of each unit against the clock period")
	return cmd
}
