package hdl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Standalone is a self-checking testbench that needs no lsugen to run (the
// ones `lsugen gen --tb` writes), built with the Verilog of a module under
// test and run. The testbench decides and reports; Run returns what it
// printed and its exit status.
//
// Unlike a Bench, a Standalone is for Verilog that lsugen did not write, so
// the compilers' warnings about the sources are not errors; a warning
// located in the testbench is, since the testbench is lint-clean with the
// module it was written for: such a warning comes from the module under
// test's ports (a width that differs, a port the testbench does not
// connect).
type Standalone struct {
	Dir       string   // work directory for the builds; created if missing
	Testbench string   // the testbench file
	Top       string   // its module name
	Sources   []string // the Verilog (.v) and SystemVerilog (.sv) files of the module under test
	Defines   []string // macros, NAME=VALUE, for the compilers' -D
	// IncludeDirs are the directories searched for `include files: -I DIR
	// for Icarus, -IDIR for Verilator.
	IncludeDirs []string
	// Trace builds Verilator's model with --trace, so that the testbench's
	// $dumpvars writes a VCD (Icarus needs nothing for it).
	Trace bool
	Args  []string // arguments of the simulation, e.g. "+vectors=FILE"
	// Unit names what is simulated in the error of a run past its time
	// limit (SimTimeout); "" for Top.
	Unit string
}

// StandaloneRun is the outcome of one simulation.
type StandaloneRun struct {
	Engine Engine
	Output string // the simulation's stdout and stderr
	// ExitCode is the simulation's exit status: 0, a positive status, or
	// -1 when a signal ended it (Verilator's $fatal aborts: SIGABRT).
	ExitCode int
	Status   string // how it ended, e.g. "exit status 1", "signal: aborted"
	Command  string // the simulation's command line
}

// Failed reports whether the simulation exited with a non-zero status or
// was ended by a signal.
func (r *StandaloneRun) Failed() bool { return r.ExitCode != 0 }

// ErrInterface is the error of a build whose compiler warned about the
// testbench: the module under test's ports differ from the unit's.
var ErrInterface = errors.New("the compiler warns about the testbench's instance of the module under test: its ports differ from the unit's")

// Run builds the testbench and the sources with engine e and runs the
// simulation in Dir. A failed build (an error, or a warning located in the
// testbench) is a *StepError with the compiler's output; a simulation that
// runs to its end, whatever its exit status, is a StandaloneRun.
//
// Icarus compiles with -g2005, or -g2012 when a source ends in .sv, and
// -Wall; Verilator (which reads every file as SystemVerilog) verilates
// with -Wall -Wno-fatal and --timescale 1ns/1ps
// (for sources without a `timescale) with the options of the cross-check
// runner (verilatorFlags: no DFG, split output) and compiles as it does,
// with its run-time library's objects from lsugen's cache.
func (s *Standalone) Run(ctx context.Context, e Engine) (*StandaloneRun, error) {
	if !e.valid() {
		return nil, &StepError{Engine: e, Step: "setup", Err: fmt.Errorf("unknown engine %q (want %q or %q)", e, Icarus, Verilator)}
	}
	if !isIdent(s.Top) {
		return nil, &StepError{Engine: e, Step: "setup", Err: fmt.Errorf("testbench module %q is not a Verilog identifier", s.Top)}
	}
	tb, err := filepath.Abs(s.Testbench)
	if err != nil {
		return nil, &StepError{Engine: e, Step: "setup", Err: err}
	}
	if _, err := os.Stat(tb); err != nil {
		return nil, &StepError{Engine: e, Step: "setup", Err: err}
	}
	var incs []string
	for _, inc := range s.IncludeDirs {
		abs, err := filepath.Abs(inc)
		if err == nil {
			var st os.FileInfo
			if st, err = os.Stat(abs); err == nil && !st.IsDir() {
				err = fmt.Errorf("include directory %s is not a directory", inc)
			}
		}
		if err != nil {
			return nil, &StepError{Engine: e, Step: "setup", Err: err}
		}
		incs = append(incs, abs)
	}
	var srcs []string
	for _, src := range s.Sources {
		abs, err := filepath.Abs(src)
		if err == nil {
			_, err = os.Stat(abs)
		}
		if err != nil {
			return nil, &StepError{Engine: e, Step: "setup", Err: err}
		}
		srcs = append(srcs, abs)
	}
	dir, err := filepath.Abs(filepath.Join(s.Dir, string(e)))
	if err == nil {
		err = os.MkdirAll(dir, 0o777)
	}
	if err != nil {
		return nil, &StepError{Engine: e, Step: "setup", Err: err}
	}
	var sim *command
	switch e {
	case Icarus:
		sim, err = s.buildIcarus(ctx, dir, tb, srcs, incs)
	case Verilator:
		sim, err = s.buildVerilator(ctx, dir, tb, srcs, incs)
	}
	if err != nil {
		return nil, err
	}
	sim.Args = append(sim.Args, s.Args...)
	unit := s.Unit
	if unit == "" {
		unit = s.Top
	}
	sim.simulation(unit)
	out, err := sim.run(ctx)
	run := &StandaloneRun{Engine: e, Output: string(out), Status: "exit status 0", Command: sim.String()}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case ctx.Err() == nil && errors.As(err, &exit):
		run.ExitCode, run.Status = exit.ExitCode(), exit.ProcessState.String()
	default:
		return nil, err
	}
	return run, nil
}

func (s *Standalone) defineArgs() []string {
	var a []string
	for _, d := range s.Defines {
		a = append(a, "-D"+d)
	}
	return a
}

func (s *Standalone) buildIcarus(ctx context.Context, dir, tb string, srcs, incs []string) (*command, error) {
	iverilog, vvp, err := icarusTools()
	if err != nil {
		return nil, err
	}
	gen := "-g2005"
	for _, src := range srcs {
		if strings.HasSuffix(src, ".sv") {
			gen = "-g2012"
		}
	}
	const vvpFile = "tb.vvp"
	os.Remove(filepath.Join(dir, vvpFile))
	args := append([]string{gen, "-Wall", "-s", s.Top, "-o", vvpFile}, s.defineArgs()...)
	for _, inc := range incs {
		args = append(args, "-I", inc)
	}
	args = append(append(args, tb), srcs...)
	build := newCommand(Icarus, "build (iverilog)", dir, iverilog.Path, args...)
	out, err := build.run(ctx)
	if err != nil {
		return nil, err
	}
	if w := warningsAt(out, tb); len(w) > 0 {
		return nil, build.fail(ErrInterface, []byte(strings.Join(w, "\n")))
	}
	return newCommand(Icarus, "run (vvp)", dir, vvp.Path, "-n", vvpFile), nil
}

func (s *Standalone) buildVerilator(ctx context.Context, dir, tb string, srcs, incs []string) (*command, error) {
	verilator, mk, cxx, err := verilatorTools()
	if err != nil {
		return nil, err
	}
	mdir := filepath.Join(dir, "obj_dir")
	if err := os.RemoveAll(mdir); err != nil {
		return nil, &StepError{Engine: Verilator, Step: "setup", Err: err}
	}
	args := []string{
		"--cc", "--exe", "--main", "--timing",
		"-Wall", "-Wno-fatal",
		"--timescale", "1ns/1ps",
		"--top-module", s.Top,
		// One C++ prefix for every testbench: the makefile, and so the
		// key of the run-time objects' cache, does not name the unit.
		"--prefix", standalonePrefix,
		"-Mdir", mdir,
		"-o", "sim",
	}
	args = append(args, verilatorFlags...)
	if s.Trace {
		args = append(args, "--trace", "--trace-underscore")
	}
	args = append(args, s.defineArgs()...)
	for _, inc := range incs {
		args = append(args, "-I"+inc)
	}
	args = append(append(args, tb), srcs...)
	verilate := newCommand(Verilator, "build (verilate)", dir, verilator.Path, args...)
	out, err := verilate.run(ctx)
	if err != nil {
		return nil, err
	}
	if w := warningsAt(out, tb); len(w) > 0 {
		return nil, verilate.fail(ErrInterface, []byte(strings.Join(w, "\n")))
	}
	prefix := standalonePrefix
	mkCmd := verilatorMake(mdir, prefix, mk, cxx)
	if err := compileVerilated(ctx, mkCmd, mdir, prefix, verilator, cxx); err != nil {
		return nil, err
	}
	return newCommand(Verilator, "run (sim)", dir, filepath.Join(mdir, "sim")), nil
}

// standalonePrefix is the C++ prefix of Verilator's model of a
// standalone testbench.
const standalonePrefix = "Vtb"

// warningsAt returns the warning lines of a compiler's output that are
// located in file (Icarus: "FILE:LINE: warning: ...", Verilator:
// "%Warning-CODE: FILE:LINE:COL: ..."), each with the lines that follow it
// up to the next message.
func warningsAt(out []byte, file string) []string {
	var w []string
	in := false
	for _, l := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasPrefix(l, file+":") && strings.Contains(l, "warning"),
			strings.HasPrefix(l, "%Warning") && strings.Contains(l, " "+file+":"):
			w = append(w, l)
			in = true
		case strings.HasPrefix(l, "%") || strings.Contains(l, ": warning") || strings.Contains(l, ": error"):
			in = false
		case in && strings.TrimSpace(l) != "":
			w = append(w, l)
		}
	}
	return w
}
