package toolchain

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// MaxOutput bounds what Run keeps of each of a command's output streams:
// a runaway simulation must not fill the memory.
const MaxOutput = 8 << 20

// DefaultMemoryLimit is the address-space limit of every tool run whose
// Cmd sets none: a simulation or proof that outgrows it fails (its
// allocation fails) instead of taking the machine down with it. The CLI's
// --tool-memory sets it. 0: no limit.
var DefaultMemoryLimit uint64 = StandardMemoryLimit

// StandardMemoryLimit is DefaultMemoryLimit's value unless set: above what
// the largest unit verify accepts takes (4.8 GB, docs/limits.md), below
// the memory of a developer's machine.
const StandardMemoryLimit = 16 << 30

// waitDelay is how long Run waits, after the command exits or is killed,
// for whatever still holds its output pipes (a grandchild outside the
// process group) before it closes them.
const waitDelay = 5 * time.Second

// Cmd is one run of an external program.
type Cmd struct {
	Path    string        // the executable, e.g. Tool.Path
	Args    []string      // arguments, without the program
	Dir     string        // working directory; "": ours
	Env     []string      // KEY=value added to the environment
	Timeout time.Duration // limit of this run, on top of ctx's; 0: none

	// MemoryLimit bounds the address space (RLIMIT_AS) of the program and
	// of each child it starts, in bytes; 0: DefaultMemoryLimit. Linux
	// only.
	MemoryLimit uint64

	// SplitStdout keeps stdout apart from stderr: Result.Stdout gets it
	// and Result.Output (and an Error's tail) only stderr. Otherwise both
	// go to Result.Output, interleaved as the program wrote them.
	SplitStdout bool
}

// String is the command line, quoted for a POSIX shell.
func (c *Cmd) String() string {
	var b strings.Builder
	b.WriteString(shellQuote(c.Path))
	for _, a := range c.Args {
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

// Result is what a run left.
type Result struct {
	Output    []byte        // stdout and stderr together (only stderr with SplitStdout), the first MaxOutput bytes
	Stdout    []byte        // with SplitStdout: stdout, the first MaxOutput bytes
	Truncated bool          // some output was dropped at MaxOutput
	Wall      time.Duration // start to exit
	// CPU is user + system time of the program and of the children it
	// waited for (Linux adds those to its resource usage): Yosys's ABC.
	CPU time.Duration
}

// Run runs c under ctx and c.Timeout. It always returns a Result, with
// what output there was. A failure (start, non-zero exit, cancellation,
// timeout) is an *Error with the command line and the output's tail; it
// wraps the context's error when the run was cancelled or timed out, and
// the *exec.ExitError otherwise. The program runs in a process group of
// its own, which is killed as a whole on cancellation, so that make's
// compilers and Yosys's ABC die with it; on Linux the kernel also kills
// the program when lsugen dies, even of SIGKILL, and a reaper kills its
// group then (proc_linux.go). Its address space is limited (MemoryLimit).
// Its TMPDIR is a new directory, removed with whatever is left in it when
// the run ends.
func (c *Cmd) Run(ctx context.Context) (*Result, error) {
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, c.Path, c.Args...)
	cmd.Dir = c.Dir
	env := childEnv()
	// A temporary directory of the run's own, removed when it ends: a
	// tool killed on cancellation (iverilog, Yosys's ABC) cannot remove
	// its temporaries itself.
	if tmp, err := os.MkdirTemp("", "lsugen-tool-"); err == nil {
		defer os.RemoveAll(tmp)
		env = append(env, "TMPDIR="+tmp)
	}
	cmd.Env = append(env, c.Env...)
	var out, stdout capWriter
	cmd.Stdout, cmd.Stderr = &out, &out
	if c.SplitStdout {
		cmd.Stdout = &stdout
	}
	setProcessGroup(cmd)
	cmd.WaitDelay = waitDelay
	start := time.Now()
	memLimit := c.MemoryLimit
	if memLimit == 0 {
		memLimit = DefaultMemoryLimit
	}
	release, err := startCmd(cmd, memLimit)
	if err == nil {
		err = cmd.Wait()
		endGroup(cmd)
		release()
	}
	res := &Result{Output: out.buf.Bytes(), Wall: time.Since(start), Truncated: out.truncated || stdout.truncated}
	if c.SplitStdout {
		res.Stdout = stdout.buf.Bytes()
	}
	if ps := cmd.ProcessState; ps != nil {
		res.CPU = ps.UserTime() + ps.SystemTime()
	}
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			if c.Timeout > 0 && ctxErr == context.DeadlineExceeded {
				err = fmt.Errorf("%w: timed out after %s (%v)", ctxErr, c.Timeout, err)
			} else {
				err = fmt.Errorf("%w (%v)", ctxErr, err)
			}
		}
		if memLimit > 0 && outOfMemory(res.Output) {
			err = fmt.Errorf("%w (out of memory at the address-space limit of %d MiB per process: --tool-memory)", err, memLimit>>20)
		}
		return res, c.Fail(err, res.Output)
	}
	return res, nil
}

// outOfMemory tells whether a tool's output says an allocation failed, as
// C and C++ programs (vvp, Yosys, cc1plus, Verilator's model) report it.
func outOfMemory(out []byte) bool {
	tail := strings.ToLower(Tail(out))
	for _, s := range []string{"bad_alloc", "out of memory", "cannot allocate memory", "memory exhausted", "virtual memory exhausted"} {
		if strings.Contains(tail, s) {
			return true
		}
	}
	return false
}

// Fail is the *Error of c for err with output: for a run that exited 0
// but whose output shows it failed (warnings, an error line).
func (c *Cmd) Fail(err error, output []byte) *Error {
	return &Error{Cmd: c.String(), Err: err, Output: Tail(output)}
}

// Error is the failure of one run: the command line, the error and the
// tail of the output. Callers wrap it with what the run was for.
type Error struct {
	Cmd    string // the command line; "" when no command is to blame
	Err    error
	Output string // Tail of the output
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v", e.Err)
	if e.Cmd != "" {
		fmt.Fprintf(&b, "\n  command: %s", e.Cmd)
	}
	if e.Output != "" {
		b.WriteString("\n  output (tail):")
		for _, l := range strings.Split(strings.TrimRight(e.Output, "\n"), "\n") {
			b.WriteString("\n    ")
			b.WriteString(l)
		}
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Tail returns the last lines of out, at most 60 lines and 8 KiB: enough
// for a compiler's first error, short enough for a terminal. A cut is
// marked with a line "...".
func Tail(out []byte) string {
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

// capWriter keeps the first MaxOutput bytes written to it and drops the
// rest, still reporting success so that the program is not killed by a
// broken pipe.
type capWriter struct {
	buf       bytes.Buffer
	truncated bool
}

func (w *capWriter) Write(p []byte) (int, error) {
	if room := MaxOutput - w.buf.Len(); room < len(p) {
		w.truncated = true
		if room > 0 {
			w.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return w.buf.Write(p)
}

// childEnv is the environment of a run: ours, without the variables
// through which an enclosing make (`make test`) would steer the make that
// Verilator's build runs (its jobserver, its -k or -n).
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
