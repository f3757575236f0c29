package sta

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// maxOutput bounds the output kept from one command.
const maxOutput = 8 << 20

type capWriter struct{ buf bytes.Buffer }

func (w *capWriter) Write(p []byte) (int, error) {
	if room := maxOutput - w.buf.Len(); room < len(p) {
		if room > 0 {
			w.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return w.buf.Write(p)
}

// StepError is the failure of one tool run: the step, the command line,
// the error and the tail of the tool's output.
type StepError struct {
	Step   string // e.g. "synth plain coalesce_a2a_8"
	Cmd    string
	Err    error
	Output string
}

func (e *StepError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sta: %s: %v", e.Step, e.Err)
	if e.Cmd != "" {
		fmt.Fprintf(&b, "\n  command: %s", e.Cmd)
	}
	if e.Output != "" {
		b.WriteString("\n  output (tail):")
		for _, l := range strings.Split(e.Output, "\n") {
			b.WriteString("\n    ")
			b.WriteString(l)
		}
	}
	return b.String()
}

func (e *StepError) Unwrap() error { return e.Err }

// run runs path with args in dir under ctx and a timeout, and returns its
// combined output. The tool's whole process group is killed on
// cancellation (Yosys runs ABC as a child process). TMPDIR is dir, so that
// the temporary directories Yosys makes for ABC, which a killed run leaves
// behind, stay in the work directory.
func run(ctx context.Context, timeout time.Duration, step, dir, path string, args ...string) ([]byte, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+dir)
	var out capWriter
	cmd.Stdout, cmd.Stderr = &out, &out
	setProcessGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			err = fmt.Errorf("%w (%v)", ctxErr, err)
		}
		return out.buf.Bytes(), &StepError{Step: step, Cmd: cmdLine(path, args), Err: err, Output: tail(out.buf.Bytes())}
	}
	return out.buf.Bytes(), nil
}

func cmdLine(path string, args []string) string {
	return strings.Join(append([]string{path}, args...), " ")
}

// tail returns the last 40 lines of out, at most 6 KiB.
func tail(out []byte) string {
	const maxLines, maxBytes = 40, 6 << 10
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
