package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/toolchain"
	"github.com/lsugen/lsugen/verify/formal"
)

// formalFlags are the flags of `lsugen verify --formal`.
type formalFlags struct {
	formal  bool
	timeout time.Duration
	jobs    int
}

// addFormalFlags declares verify's flags for the formal equivalence proof.
func addFormalFlags(fs *flag.FlagSet) *formalFlags {
	f := &formalFlags{}
	fs.BoolVar(&f.formal, "formal", false, "prove with Yosys and ABC that each unit's RTL module and gate-level module are\nequivalent (a miter and SAT; induction over the matched registers for clocked\nunits) instead of simulating; a failed proof prints the counterexample")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Minute, "with --formal: time limit of one unit's proof; an unfinished proof is an error")
	fs.IntVar(&f.jobs, "jobs", min(2, runtime.NumCPU()), "with --formal: units proved at once")
	return f
}

// formalFlagsAllowed are the verify flags that apply with --formal.
var formalFlagsAllowed = map[string]bool{"formal": true, "timeout": true, "jobs": true, "work": true}

// verifyFormal runs `lsugen verify --formal`: every unit's two Verilog
// modules proved equivalent. It prints one line per unit (unit, method,
// result, time) in spec order, a counterexample for each failed proof,
// and returns an error if any unit is not proved equivalent.
func verifyFormal(fs *flag.FlagSet, f *formalFlags, work string, paths []string, stdout, stderr io.Writer) error {
	var bad []string
	fs.Visit(func(fl *flag.Flag) {
		if !formalFlagsAllowed[fl.Name] {
			bad = append(bad, "--"+fl.Name)
		}
	})
	if len(bad) > 0 {
		fmt.Fprintf(stderr, "lsugen verify: %s: not used by --formal, which takes --work, --timeout and --jobs\n", strings.Join(bad, ", "))
		return errUsage
	}
	if f.timeout <= 0 || f.jobs < 1 {
		fmt.Fprintln(stderr, "lsugen verify: --timeout and --jobs must be positive")
		return errUsage
	}
	units, err := loadAndGenerate(paths, stderr)
	if err != nil {
		return err
	}
	dir, keep, err := workDir(work, "lsugen-formal-")
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	type outcome struct {
		res *formal.Result
		err error
	}
	done := make([]chan outcome, len(units))
	for i := range done {
		done[i] = make(chan outcome, 1)
	}
	sem := make(chan struct{}, f.jobs)
	for i, u := range units {
		go func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			res, err := proveUnit(ctx, u, filepath.Join(dir, u.design.Name), f.timeout)
			done[i] <- outcome{res, err}
		}()
	}

	failed := 0
	for i, u := range units {
		o := <-done[i]
		name := u.design.Name
		switch {
		case o.err != nil:
			failed++
			fmt.Fprintf(stdout, "%-24s %-54s %-15s\n", name, "-", "NOT PROVEN")
			fmt.Fprintf(stderr, "lsugen verify: %v\n", o.err) // names the unit
		case !o.res.Equivalent:
			failed++
			fmt.Fprintf(stdout, "%-24s %-54s %-15s %s\n", name, o.res.Method, "NOT EQUIVALENT", o.res.Elapsed.Round(time.Millisecond))
			fmt.Fprintf(stderr, "lsugen verify: %s: %s and %s differ; counterexample:\n%s\n", name, name, rtl.GatesModuleName(u.design), indentLines(o.res.Cex.String(), "  "))
		default:
			fmt.Fprintf(stdout, "%-24s %-54s %-15s %s\n", name, o.res.Method, "equivalent", o.res.Elapsed.Round(time.Millisecond))
		}
	}
	if failed > 0 {
		fmt.Fprintf(stderr, "lsugen verify: %d of %d units not proved equivalent; work directory kept: %s\n", failed, len(units), dir)
		return errReported
	}
	if !keep {
		os.RemoveAll(dir)
	}
	fmt.Fprintf(stdout, "proved %d units: RTL = gates (Yosys %s, ABC)\n", len(units), yosysVersion())
	return nil
}

// proveUnit writes a unit's two Verilog files into udir and proves them
// equivalent there.
func proveUnit(ctx context.Context, u unit, udir string, timeout time.Duration) (*formal.Result, error) {
	set, err := verilogFiles([]unit{u})
	if err != nil {
		return nil, err
	}
	if err := writeAll(udir, set); err != nil {
		return nil, err
	}
	return formal.Prove(ctx, formal.Unit{
		Design: u.design,
		RTL:    filepath.Join(udir, rtl.RTLFileName(u.design)),
		Gates:  filepath.Join(udir, rtl.GatesFileName(u.design)),
	}, formal.Options{Dir: udir, Timeout: timeout})
}

func yosysVersion() string {
	if y, err := toolchain.Find("yosys"); err == nil {
		return y.Version
	}
	return "?"
}

// indentLines prefixes every line of s.
func indentLines(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}
