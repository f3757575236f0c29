// Command lsugen generates, times and verifies the load/store-unit blocks
// described in HCL spec files.
//
//	lsugen gen     [-o DIR] SPEC...            write NAME.v and NAME_gates.v per unit
//	lsugen timing  [--json] [--paths] SPEC...  FO4 critical path, area, transistors
//	lsugen timing sweep LO:HI:STEP SPEC...     every unit pipelined at each period
//	lsugen verify  [--sim LIST] SPEC...        model = netlist = Icarus = Verilator
//	lsugen help COMMAND                        the flags of a command
//
// The command line is built with cobra (github.com/spf13/cobra) over pflag.
// Cobra was chosen over kong because it generates bash, zsh and fish
// completion scripts itself (`lsugen completion SHELL`; kong has no built-in
// zsh or fish completion), suggests a command for a misspelt one, and
// prints help on standard output; flag suggestions are added here (see
// flagError). Exit status: 0 success; 1 a failure (a verification failed,
// a tool failed, standard output could not be written: see stdoutWriter);
// 2 a usage error or unreadable or invalid input (bad
// flags, missing arguments, a missing file, an invalid spec).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lsugen/lsugen/flow"
	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/specs"
)

func main() {
	heapWithinAddressSpace()
	os.Exit(runInterruptible(os.Args[1:], os.Stdout, os.Stderr))
}

// app is one run of the command line: where it prints. Commands print
// only through it, so that tests run them in-process.
type app struct {
	stdout, stderr io.Writer
	// ctx is the root command's context (cmd.Context()): cancelled by
	// SIGINT, SIGTERM or SIGHUP (signals.go).
	ctx context.Context
	// ran is set when a command's own code started: an error before that
	// is cobra's (an unknown command or flag), a usage error.
	ran bool
}

// exitError is an error with its exit status: 1 for a failure of the run,
// 2 for a usage error or input that cannot be read or is invalid. With a
// nil err the message was printed already.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

var (
	// errUsage: bad flags or arguments, the message printed already.
	errUsage = &exitError{code: 2}
	// errBadInput: an input file is missing, unreadable or invalid (spec
	// diagnostics), the message printed already.
	errBadInput = &exitError{code: 2}
	// errReported: the run failed, the details printed already.
	errReported = &exitError{code: 1}
)

// usagef is a usage error with its message.
func usagef(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

// badInput marks err (a file that cannot be read, an invalid input) as
// exit status 2.
func badInput(err error) error {
	if err == nil {
		return nil
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	return &exitError{code: 2, err: err}
}

// stdoutWriter is the standard output of a run: it remembers the first
// write error (a full disk, a closed pipe, /dev/full) and drops every
// later write, so that run reports a report that was lost, once, for
// every command (exit status 1, unless the command failed already with
// its own status), instead of each command checking each
// print.
type stdoutWriter struct {
	w   io.Writer
	err error
}

func (s *stdoutWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		s.err = err
	}
	return n, err
}

// run executes the command line args and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdout, stderr)
}

// runContext is run under ctx, the context of every command.
func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	out := &stdoutWriter{w: stdout}
	code := execute(ctx, args, out, stderr)
	if out.err != nil && code == 0 {
		// A command that failed has said why already (often this error).
		fmt.Fprintf(stderr, "lsugen: writing standard output: %v\n", out.err)
		code = 1
	}
	return code
}

// execute runs the command line args with stdout already wrapped.
func execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	a := &app{stdout: stdout, stderr: stderr, ctx: ctx}
	root := newRootCmd(a)
	if cmd, _, err := root.Find(args); err == nil && cmd != root {
		args = singleDashLongFlags(cmd, args)
	}
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return 0
	}
	code := 1
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		code = ee.code
		if ee.err == nil {
			return code
		}
		err = ee.err
	case !a.ran:
		code = 2 // cobra's: an unknown command, a misplaced argument
	}
	name := "lsugen"
	if cmd != nil {
		name = cmd.CommandPath()
	}
	// A message may quote a file name or an input's text: escaped here,
	// once for every command.
	fmt.Fprintf(stderr, "%s: %s\n", name, escapeText(strings.TrimRight(err.Error(), "\n")))
	if code == 2 && cmd != nil && !a.ran {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", name)
	}
	return code
}

const rootLong = `lsugen generates, times and verifies load/store-unit hardware blocks
described in HCL spec files (docs/spec-reference.md).

Exit status: 0 success; 1 a failure (a verification failed, a tool failed);
2 a usage error or input that cannot be read or is invalid; after SIGINT,
SIGTERM or SIGHUP, 128 + the signal's number (130, 143, 129), the tools
it ran killed and its temporary work directories removed.`

// newRootCmd builds the command tree of one run.
func newRootCmd(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:           "lsugen",
		Short:         "generate, time and verify load/store-unit hardware blocks",
		Long:          rootLong,
		Version:       gen.ThisBuild().Stamp(),
		SilenceErrors: true,
		SilenceUsage:  true,
		// lsugen alone: the usage on stderr, exit status 2.
		RunE: func(cmd *cobra.Command, args []string) error {
			cmd.SetOut(a.stderr)
			_ = cmd.Usage()
			return errUsage
		},
	}
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetVersionTemplate("lsugen {{.Version}}\n")
	root.SetFlagErrorFunc(flagError)
	root.SetGlobalNormalizationFunc(normalizeFlag)
	root.AddCommand(
		newGenCmd(a),
		newTimingCmd(a),
		newVerifyCmd(a),
		newConflictsCmd(a),
		newReplayCmd(a),
		newSearchCmd(a),
		newRapsimCmd(a),
		newPipesimCmd(a),
		newProfileCmd(a),
		newStudyCmd(a),
		newFusesocGenCmd(a),
		newCrosscheckCmd(a),
		newCharacterizeCmd(a),
		newVersionCmd(a),
	)
	for _, c := range root.Commands() {
		wrapRun(a, c)
	}
	// cobra's completion command; an unknown shell is a usage error.
	root.InitDefaultCompletionCmd()
	if c, _, err := root.Find([]string{"completion"}); err == nil && c != root {
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown shell %q: want bash, zsh, fish or powershell", args[0])
			}
			cmd.SetOut(a.stderr)
			_ = cmd.Usage()
			return errUsage
		}
	}
	return root
}

// wrapRun marks the start of a command's own code (see app.ran) and warns
// of deprecated flag spellings.
func wrapRun(a *app, c *cobra.Command) {
	for _, sub := range c.Commands() {
		wrapRun(a, sub)
	}
	if c.RunE == nil {
		return
	}
	runE := c.RunE
	c.RunE = func(cmd *cobra.Command, args []string) error {
		a.ran = true
		cmd.Flags().Visit(func(f *pflag.Flag) {
			if to, ok := f.Annotations[deprecatedFor]; ok {
				fmt.Fprintf(a.stderr, "%s: --%s is deprecated: use --%s\n", cmd.CommandPath(), f.Name, to[0])
			}
		})
		return runE(cmd, args)
	}
}

// unit is one generated unit with where it came from: the session's unit.
type unit = flow.Unit

// withSubunits returns units followed by every unit they instantiate
// (flow.WithSubunits).
func withSubunits(us []unit) []unit { return flow.WithSubunits(us) }

// source is "file:line" of a unit's declaration.
func source(u specs.Unit) string { return flow.Source(u) }

// workDir is the directory a run works in: given (the --work flag; created
// if need be, and kept) or, when that is empty, a new temporary one named
// after prefix, which the caller removes unless the run failed, and which
// is removed when lsugen is interrupted (temporaries, signals.go).
func workDir(given, prefix string) (dir string, keep bool, err error) {
	if given == "" {
		dir, err = os.MkdirTemp("", prefix)
		if err == nil {
			temporaries.add(dir)
		}
		return dir, false, err
	}
	return given, true, os.MkdirAll(given, 0o755)
}

// workNote says what became of a failed run's work directory: kept,
// unless it is a temporary one (workDir without a name given) and the run
// was interrupted, when runInterruptible removes it before lsugen exits.
func workNote(ctx context.Context, dir string, temporary bool) string {
	if temporary && ctx.Err() != nil {
		return fmt.Sprintf("work directory %s removed (interrupted)", dir)
	}
	return "work directory kept: " + dir
}

// loadAndGenerate runs the session (flow.Load) and prints its
// diagnostics, once; on any error nothing is returned, so no command
// starts work on a partly valid input. No spec files is a usage error; a
// spec that cannot be read or is invalid, or that a generator refuses, is
// bad input (exit status 2), as is a run whose units are estimated past
// budget b, which is checked before any unit is generated.
func loadAndGenerate(paths []string, b budget, stderr io.Writer) ([]unit, error) {
	s, err := loadSession(paths, b, stderr)
	if err != nil {
		return nil, err
	}
	return s.Units, nil
}

// loadSession is loadAndGenerate's session, with its library.
func loadSession(paths []string, b budget, stderr io.Writer) (*flow.Session, error) {
	s, err := flow.Load(paths, b)
	if s != nil && len(s.Diags) > 0 {
		printDiagnostics(stderr, s.Loader, s.Diags)
	}
	switch {
	case errors.Is(err, flow.ErrInvalid):
		return nil, errBadInput
	case err != nil:
		return nil, badInput(err)
	}
	return s, nil
}

// printDiagnostics prints diags with their source snippets, everything
// they echo escaped and bounded; see writeDiagnostics.
func printDiagnostics(w io.Writer, loader *specs.Loader, diags hcl.Diagnostics) {
	writeDiagnostics(w, loader, diags)
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// joinNames lists the units' names (flow.Names).
func joinNames(us []unit) string { return flow.Names(us) }

// loadUnitRef loads the unit of kind that ref, a unit reference typed
// after flag ("" for an argument), names: SPEC:UNIT, or SPEC alone when
// SPEC declares one unit of kind (specs.SplitUnitRef, specs.FindUnit). An
// invalid spec is bad input; a unit that is not there, or not of kind, a
// usage error with the nearest name. Warnings are printed only with warn
// (a caller that generates the unit prints them then).
func loadUnitRef(flag, ref, kind string, warn bool, stderr io.Writer) (specs.Unit, error) {
	what := strings.TrimSpace(flag + " " + ref)
	path, name := specs.SplitUnitRef(ref)
	if path == "" {
		return nil, usagef("%s: want SPEC:UNIT", what)
	}
	loader := specs.NewLoader()
	file, diags := loader.Load(path)
	if len(diags) > 0 && (warn || diags.HasErrors()) {
		printDiagnostics(stderr, loader, diags)
	}
	if diags.HasErrors() {
		return nil, errBadInput
	}
	u, err := specs.FindUnit(file.Units, name, kind, path)
	if err != nil {
		return nil, usagef("%s: %v", what, err)
	}
	return u, nil
}

// unknownUnit is the error of a unit name, typed after flag, that none of
// names is: the units and the nearest name (specs.MatchNames).
func unknownUnit(flag, name string, names []string) error {
	_, err := specs.MatchNames(names, []string{name})
	if err == nil || strings.ContainsAny(name, `*?[\`) {
		return fmt.Errorf("%s %s: a unit name, not a pattern (units: %s)", flag, name, strings.Join(names, ", "))
	}
	return fmt.Errorf("%s %s: %v", flag, name, err)
}
