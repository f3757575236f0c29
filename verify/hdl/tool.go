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
	"time"

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
	// unit is set on the commands that run a simulation (vvp, the
	// Verilator model): they run under the wall-clock limit of the
	// context (SimTimeout), and unit names what was simulated in the
	// error of a run past it. Builds are not limited here.
	unit string
}

// DefaultSimTimeout is the wall-clock limit of one simulation run when the
// context sets none (WithSimTimeout; verify's --sim-timeout). It is a flat
// bound rather than one derived from vectors times gates: the run time of
// the same work differs by a factor of 100 between Icarus and Verilator
// and with the machine's load, and a derived bound tight enough to matter
// would kill legitimate runs of large units (the largest accepted
// coalescers take several minutes under Icarus on 2 cores). Its purpose is
// that nothing hangs forever, e.g. a module with a zero-delay
// combinational loop, which never advances simulation time.
const DefaultSimTimeout = 30 * time.Minute

type simTimeoutKey struct{}

// WithSimTimeout returns a context under which every simulation run of
// this package (each vvp or Verilator model process, not the builds) is
// killed, with its process group, after d; d <= 0 means DefaultSimTimeout.
func WithSimTimeout(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, simTimeoutKey{}, d)
}

// SimTimeout is the limit of one simulation run under ctx.
func SimTimeout(ctx context.Context) time.Duration {
	if d, ok := ctx.Value(simTimeoutKey{}).(time.Duration); ok && d > 0 {
		return d
	}
	return DefaultSimTimeout
}

// SimTimeoutError is the error of a simulation killed at its wall-clock
// limit (the Err of a StepError of its run step).
type SimTimeoutError struct {
	Unit   string // the unit (or module) simulated
	Engine Engine
	Limit  time.Duration
}

func (e *SimTimeoutError) Error() string {
	return fmt.Sprintf("simulation of %s under %s exceeded its time limit %v (--sim-timeout)", e.Unit, e.Engine, e.Limit)
}

// simulation marks c as a simulation run of unit (see command.unit).
func (c *command) simulation(unit string) *command {
	c.unit = unit
	return c
}

func newCommand(e Engine, step, dir, path string, args ...string) *command {
	return &command{engine: e, step: step, Cmd: toolchain.Cmd{Path: path, Args: args, Dir: dir}}
}

// run runs c under ctx and returns its combined output (see
// toolchain.Cmd.Run; cancellation kills the whole process group, so that
// make's compilers die with it).
//
// A simulation run (see simulation) is limited to SimTimeout(ctx): past it
// the process group is killed and the error's Err is a *SimTimeoutError.
func (c *command) run(ctx context.Context) ([]byte, error) {
	runCtx := ctx
	var limit time.Duration
	if c.unit != "" {
		limit = SimTimeout(ctx)
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
	}
	res, err := c.Cmd.Run(runCtx)
	if err != nil && c.unit != "" && ctx.Err() == nil && errors.Is(runCtx.Err(), context.DeadlineExceeded) {
		return res.Output, &StepError{Engine: c.engine, Step: c.step, Err: &SimTimeoutError{Unit: c.unit, Engine: c.engine, Limit: limit}}
	}
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
