// Package hdl runs lsugen's generated Verilog through external simulators
// (Icarus Verilog and Verilator).
//
// The simulators are found and run by package toolchain, the one place
// where lsugen locates and runs external programs.
//
// A Bench is a cross-check: one generated testbench instantiates several
// modules with the same ports (say the readable RTL and the gate-level
// netlist of one unit), applies each input vector to all of them and writes
// every module's outputs, which Run parses and returns for comparison with
// the behavioural model. A clocked Bench drives the modules' clock, applies
// a reset cycle and then one vector per clock cycle.
package hdl

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/lsugen/lsugen/toolchain"
)

// StepError is the error of one step of a simulation: which engine, which
// step (build, run, parse, ...) and what went wrong. A step that ran a
// command has a *toolchain.Error as Err, with the command line and the
// tail of its output.
type StepError struct {
	Engine Engine
	Step   string
	Err    error
}

func (e *StepError) Error() string {
	return fmt.Sprintf("hdl: %s %s: %v", e.Engine, e.Step, e.Err)
}

func (e *StepError) Unwrap() error { return e.Err }

// command is one external command of a step: a toolchain.Cmd whose
// failures are StepErrors of the engine and step.
type command struct {
	engine Engine
	step   string
	toolchain.Cmd
}

func newCommand(e Engine, step, dir, path string, args ...string) *command {
	return &command{engine: e, step: step, Cmd: toolchain.Cmd{Path: path, Args: args, Dir: dir}}
}

// run runs c under ctx and returns its combined output (see
// toolchain.Cmd.Run; cancellation kills the whole process group, so that
// make's compilers die with it).
func (c *command) run(ctx context.Context) ([]byte, error) {
	res, err := c.Cmd.Run(ctx)
	if err != nil {
		return res.Output, &StepError{Engine: c.engine, Step: c.step, Err: err}
	}
	return res.Output, nil
}

// fail is the StepError of a run of c that exited 0 but whose output shows
// it failed.
func (c *command) fail(err error, output []byte) error {
	return &StepError{Engine: c.engine, Step: c.step, Err: c.Cmd.Fail(err, output)}
}

// warningLines returns the lines of out that report a warning.
func warningLines(out []byte) []string {
	var w []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(strings.ToLower(l), "warning") {
			w = append(w, l)
		}
	}
	return w
}

var errWarnings = errors.New("warnings (the generated Verilog must compile without warnings)")

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}
