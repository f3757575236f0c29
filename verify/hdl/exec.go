package hdl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// StepError is the error of one external command: which engine, which step
// (build, run, parse, ...), the command line and the tail of its combined
// output.
type StepError struct {
	Engine Engine
	Step   string
	Cmd    string // the command line, "" when the step ran no command
	Err    error
	Output string // tail of stdout and stderr together
}

func (e *StepError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "hdl: %s %s: %v", e.Engine, e.Step, e.Err)
	if e.Cmd != "" {
		fmt.Fprintf(&b, "\n  command: %s", e.Cmd)
	}
	if e.Output != "" {
		b.WriteString("\n  output (tail):\n")
		for _, l := range strings.Split(strings.TrimRight(e.Output, "\n"), "\n") {
			b.WriteString("    ")
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func (e *StepError) Unwrap() error { return e.Err }

// maxOutput bounds the output kept from one command.
const maxOutput = 4 << 20

// capWriter keeps the first maxOutput bytes written to it.
type capWriter struct {
	buf       bytes.Buffer
	truncated bool
}

func (w *capWriter) Write(p []byte) (int, error) {
	if room := maxOutput - w.buf.Len(); room < len(p) {
		w.truncated = true
		if room > 0 {
			w.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return w.buf.Write(p)
}

// command is one external command of a step.
type command struct {
	engine Engine
	step   string
	dir    string // working directory
	path   string
	args   []string
	env    []string // added to the environment
}

func (c *command) String() string {
	var b strings.Builder
	b.WriteString(shellQuote(c.path))
	for _, a := range c.args {
		b.WriteByte(' ')
		b.WriteString(shellQuote(a))
	}
	return b.String()
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=+:,@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// run runs c under ctx and returns its combined output. A failure (start,
// non-zero exit, cancellation) is a *StepError with the output's tail. The
// whole process group is killed on cancellation, so that make's compilers
// die with it.
func (c *command) run(ctx context.Context) ([]byte, error) {
	cmd := exec.CommandContext(ctx, c.path, c.args...)
	cmd.Dir = c.dir
	cmd.Env = append(childEnv(), c.env...)
	var out capWriter
	cmd.Stdout, cmd.Stderr = &out, &out
	setProcessGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			err = fmt.Errorf("%w (%v)", ctxErr, err)
		}
		return out.buf.Bytes(), c.fail(err, out.buf.Bytes())
	}
	return out.buf.Bytes(), nil
}

func (c *command) fail(err error, output []byte) error {
	return &StepError{Engine: c.engine, Step: c.step, Cmd: c.String(), Err: err, Output: tail(output)}
}

// childEnv is the environment for external commands: ours, without the
// variables through which an enclosing make would steer the make that
// Verilator's build runs.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "GNUMAKEFLAGS":
			continue
		}
		env = append(env, kv)
	}
	return env
}

// tail returns the last lines of out, at most 60 lines and 8 KiB.
func tail(out []byte) string {
	const maxLines, maxBytes = 60, 8 << 10
	s := strings.TrimRight(string(out), "\n")
	cut := false
	if len(s) > maxBytes {
		s = s[len(s)-maxBytes:]
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
		cut = true
	}
	lines := strings.Split(s, "\n")
	if len(lines) > maxLines {
		lines = lines[len(lines)-maxLines:]
		cut = true
	}
	if cut {
		lines = append([]string{"..."}, lines...)
	}
	return strings.Join(lines, "\n")
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
