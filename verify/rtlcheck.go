package verify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/verify/hdl"
)

// RTLCheck is a check of Verilog that lsugen need not have written (a
// hand-edited unit, another generator's block) against a unit's golden
// vectors: the unit's standalone testbench and vector file, exactly as
// `lsugen gen --tb` writes them, built with the given sources under each
// simulator.
type RTLCheck struct {
	Golden  *GoldenSet
	Info    rtl.Info // provenance for the testbench's and the vector file's headers
	Sources []string // Verilog files that define Top (and what it instantiates)
	Top     string   // the module to check; "" for the unit's name
	Dir     string   // work directory: the testbench, the vector file, the builds
}

// RTLResult is the verdict of one simulator.
type RTLResult struct {
	Engine  Engine
	Passed  bool
	Count   int    // vectors (cycles) that passed
	Failure string // the testbench's FAIL line, when it failed
	Elapsed time.Duration
	Output  string // everything the simulation printed
}

var (
	passLine = regexp.MustCompile(`(?m)^PASS (\d+) (vectors|cycles)\s*$`)
	failLine = regexp.MustCompile(`(?m)^FAIL .*$`)
)

// Run writes the testbench and the vector file into c.Dir and runs them
// with each engine (icarus, verilator). A module that fails a vector is a
// result with Passed false; an error means a check could not run (a
// missing tool, a compile error, a module whose ports differ, a testbench
// that did not finish), and says so with the tool's output.
func (c RTLCheck) Run(ctx context.Context, engines []Engine) ([]RTLResult, error) {
	g := c.Golden
	d := g.Design
	top := c.Top
	if top == "" {
		top = d.Name
	}
	if !isIdentifier(top) {
		return nil, fmt.Errorf("module %q is not a Verilog identifier", top)
	}
	if top == TestbenchModule(d) {
		return nil, fmt.Errorf("module %s is the testbench's name", top)
	}
	if len(c.Sources) == 0 {
		return nil, errors.New("no Verilog files to check")
	}
	for _, e := range engines {
		if e != Icarus && e != Verilator {
			return nil, fmt.Errorf("simulator %q cannot run Verilog files: use icarus or verilator", e)
		}
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return nil, err
	}
	tb := filepath.Join(c.Dir, TestbenchFileName(d))
	vec, err := filepath.Abs(filepath.Join(c.Dir, VectorFileName(d)))
	if err != nil {
		return nil, err
	}
	if len(vec) >= 1024 {
		return nil, fmt.Errorf("work directory path too long for the testbench's file name register: %s", vec)
	}
	for _, src := range c.Sources {
		if a, _ := filepath.Abs(src); a == vec || a == mustAbs(tb) {
			return nil, fmt.Errorf("%s is a file the check writes; give the sources from another directory", src)
		}
	}
	if err := os.WriteFile(tb, g.Testbench(c.Info), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(vec, g.VectorFile(c.Info), 0o644); err != nil {
		return nil, err
	}
	sa := hdl.Standalone{
		Dir:       c.Dir,
		Testbench: tb,
		Top:       TestbenchModule(d),
		Sources:   c.Sources,
		Defines:   []string{DUTMacro + "=" + top},
		Args:      []string{"+vectors=" + vec},
	}
	var results []RTLResult
	for _, e := range engines {
		start := time.Now()
		run, err := sa.Run(ctx, hdl.Engine(e))
		if err != nil {
			return results, err
		}
		r := RTLResult{Engine: e, Elapsed: time.Since(start), Output: run.Output}
		pass := passLine.FindStringSubmatch(run.Output)
		fail := failLine.FindString(run.Output)
		switch {
		case fail != "":
			r.Failure = strings.TrimPrefix(fail, "FAIL ")
			if !run.Failed() {
				return results, fmt.Errorf("%s: the testbench printed a failure but exited with status 0:\n%s", e, outputTail(run.Output))
			}
		case pass != nil && !run.Failed():
			r.Count, _ = strconv.Atoi(pass[1])
			if r.Count != g.Len() {
				return results, fmt.Errorf("%s: the testbench passed %d lines of the %d in %s", e, r.Count, g.Len(), vec)
			}
			r.Passed = true
		default:
			return results, fmt.Errorf("%s: the testbench did not finish (%s; command: %s):\n%s", e, run.Status, run.Command, outputTail(run.Output))
		}
		results = append(results, r)
	}
	return results, nil
}

// isIdentifier reports whether s is a simple Verilog identifier (escaped
// identifiers cannot be given as a macro on a command line).
func isIdentifier(s string) bool {
	for i, c := range s {
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case (c >= '0' && c <= '9' || c == '$') && i > 0:
		default:
			return false
		}
	}
	return s != ""
}

func mustAbs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}

// outputTail is the last lines of a simulation's output.
func outputTail(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) > 20 {
		lines = append([]string{"..."}, lines[len(lines)-20:]...)
	}
	return "    " + strings.Join(lines, "\n    ")
}
