package toolchain

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/lsugen/lsugen/internal/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// shell returns the path of sh; the runner tests drive it.
func shell(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("needs a POSIX shell")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skipf("no sh: %v", err)
	}
	return sh
}

func TestFind_Tools(t *testing.T) {
	for _, name := range []string{"iverilog", "vvp", "verilator", "yosys", "make", "cc", "g++", "sta"} {
		tool, err := Find(name)
		if err != nil {
			t.Fatalf("Find(%q): %v", name, err)
		}
		if tool.Name != name || !filepath.IsAbs(tool.Path) || tool.Version == "" {
			t.Errorf("Find(%q) = %+v", name, *tool)
		}
		again, _ := Find(name)
		if again != tool {
			t.Errorf("Find(%q) not cached", name)
		}
		t.Logf("%s", tool)
	}
}

func TestFind_EnvOverrideMissing(t *testing.T) {
	t.Setenv("LSUGEN_IVERILOG", "/nonexistent")
	_, err := Find("iverilog")
	if err == nil {
		t.Fatal("Find(iverilog) with LSUGEN_IVERILOG=/nonexistent succeeded")
	}
	mentions(t, err, "iverilog", "LSUGEN_IVERILOG=/nonexistent", "apt-get install iverilog", "make deps")
}

// A tool missing from $PATH is named with its Debian package (opensta for
// sta) and its override variable. probe, not Find: Find's cache is keyed
// by the override, not by $PATH.
func TestFind_MissingFromPath(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := probe("sta", specs["sta"], EnvVar("sta"), "")
	if err == nil {
		t.Fatal("sta found in an empty $PATH")
	}
	mentions(t, err, "sta not found in $PATH", "apt-get install opensta", "LSUGEN_STA")
}

func TestFind_EnvOverridePath(t *testing.T) {
	real, err := Find("verilator")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("LSUGEN_VERILATOR", real.Path)
	got, err := Find("verilator")
	if err != nil || got.Path != real.Path || got.Version != real.Version {
		t.Fatalf("Find(verilator) with LSUGEN_VERILATOR=%s: %+v, %v", real.Path, got, err)
	}
}

// mentions fails t unless err's message contains every one of want.
func mentions(t *testing.T, err error, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
}

// fakeTool writes a shell script that prints text and exits with code.
func fakeTool(t *testing.T, sh, text string, code int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fake")
	script := fmt.Sprintf("#!%s\necho '%s'\nexit %d\n", sh, text, code)
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFind_VersionTooOld(t *testing.T) {
	t.Setenv("LSUGEN_VERILATOR", fakeTool(t, shell(t), "Verilator 4.228 2023-01-01", 0))
	_, err := Find("verilator")
	if err == nil {
		t.Fatal("Verilator 4.228 accepted")
	}
	mentions(t, err, "version 4.228", "need 5.0 or newer", "--main and --timing", "apt-get install verilator")
}

func TestFind_VersionQueryFails(t *testing.T) {
	t.Setenv("LSUGEN_YOSYS", fakeTool(t, shell(t), "libfoo.so: cannot open shared object", 127))
	_, err := Find("yosys")
	if err == nil {
		t.Fatal("a yosys that exits 127 accepted")
	}
	mentions(t, err, "does not run", "exit status 127", "libfoo.so", "apt-get install yosys")
}

func TestFind_Unknown(t *testing.T) {
	if _, err := Find("modelsim"); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Fatalf("Find(modelsim): %v", err)
	}
	if got := EnvVar("g++"); got != "LSUGEN_GXX" {
		t.Errorf("EnvVar(g++) = %s", got)
	}
	if got := EnvVar("yosys-abc"); got != "LSUGEN_YOSYS_ABC" {
		t.Errorf("EnvVar(yosys-abc) = %s", got)
	}
}

// A timed-out run is killed with its children: the shell's background
// sleep, which holds the output pipe, dies too, so Run returns at once
// instead of after the sleep or waitDelay (then the child would still be
// alive when Run returns, which the end of the test catches). The limit
// leaves the shell time to start its child on a busy machine.
func TestRun_TimeoutKillsChildren(t *testing.T) {
	sh := shell(t)
	dir := t.TempDir()
	limit := testenv.Limit(2 * time.Second).Round(time.Millisecond)
	c := &Cmd{Path: sh, Args: []string{"-c", "sleep 600 & echo $! > child.pid; echo started; wait"}, Dir: dir, Timeout: limit}
	res, err := c.Run(context.Background())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a deadline", err)
	}
	if !strings.Contains(err.Error(), "timed out after "+limit.String()) || !strings.Contains(err.Error(), "started") {
		t.Errorf("error does not say timed out, or lacks the output:\n%v", err)
	}
	if string(res.Output) != "started\n" {
		t.Errorf("output %q", res.Output)
	}
	pid := childPID(t, dir)
	if runtime.GOOS != "linux" {
		return
	}
	waitGone(t, pid, "the shell's child")
}

// childPID is the pid a test's shell wrote to dir/child.pid.
func childPID(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "child.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// waitGone fails unless process pid ends (or is a zombie: a killed child
// may linger until init reaps it) within a limit scaled for the machine;
// it kills the process before failing.
func waitGone(t *testing.T, pid int, what string) {
	t.Helper()
	for deadline := time.Now().Add(testenv.Limit(5 * time.Second)); ; time.Sleep(50 * time.Millisecond) {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || bytes.Contains(stat, []byte(") Z ")) {
			return
		}
		if time.Now().After(deadline) {
			if p, err := os.FindProcess(pid); err == nil {
				p.Kill()
			}
			t.Fatalf("%s %d still runs: %s", what, pid, stat)
		}
	}
}

// A run that ends normally takes what it left running in its process
// group with it: a background child (as a simulated design's
// $system("sleep 600 &") makes) does not outlive the run.
func TestRun_EndKillsBackgroundChildren(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	dir := t.TempDir()
	c := &Cmd{Path: shell(t), Args: []string{"-c", "sleep 600 >/dev/null 2>&1 & echo $! > child.pid"}, Dir: dir}
	if _, err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitGone(t, childPID(t, dir), "the shell's background child, which outlived the run,")
}

// A child that leaves the tool's process group and session (setsid, as
// a simulated design's $system("setsid sleep 600 &") makes), directly or
// through a parent that has ended, does not outlive the run either:
// lsugen is the subreaper of its tools' orphans and ends them.
func TestRun_EndKillsSetsidChildren(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc; a child subreaper is Linux's")
	}
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	for name, script := range map[string]string{
		"direct":     "setsid sleep 600 >/dev/null 2>&1 & echo $! > child.pid",
		"grandchild": "setsid sh -c 'sleep 600 >/dev/null 2>&1 & echo $! > child.pid' & wait; while [ ! -s child.pid ]; do sleep 0.05; done",
		"daemonised": "setsid sh -c 'setsid sleep 600 >/dev/null 2>&1 & echo $! > child.pid; sleep 600' >/dev/null 2>&1 & while [ ! -s child.pid ]; do sleep 0.05; done",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			c := &Cmd{Path: shell(t), Args: []string{"-c", script}, Dir: dir}
			if _, err := c.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			waitGone(t, childPID(t, dir), "a child that left the run's session")
		})
	}
}

func TestRun_Cancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := (&Cmd{Path: shell(t), Args: []string{"-c", "sleep 60"}}).Run(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestRun_OutputLimited(t *testing.T) {
	// MaxOutput+1 MiB of 'y' lines on stdout, then a marker on stderr.
	script := fmt.Sprintf("yes | head -c %d; echo end >&2", MaxOutput+1<<20)
	res, err := (&Cmd{Path: shell(t), Args: []string{"-c", script}}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Output) != MaxOutput || !res.Truncated {
		t.Errorf("kept %d bytes, truncated %v; want %d, true", len(res.Output), res.Truncated, MaxOutput)
	}
	if bytes.Contains(res.Output, []byte("end")) {
		t.Error("output past the limit kept")
	}
}

func TestRun_FailureNamesCommandAndTail(t *testing.T) {
	sh := shell(t)
	script := "for i in $(seq 1 100); do echo line $i; done; echo 'fatal: it broke' >&2; exit 3"
	c := &Cmd{Path: sh, Args: []string{"-c", script}}
	res, err := c.Run(context.Background())
	var te *Error
	if !errors.As(err, &te) {
		t.Fatalf("err = %v, want an *Error", err)
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("err = %v, want exit status 3", err)
	}
	if te.Cmd != c.String() || !strings.HasPrefix(te.Cmd, sh+" -c 'for i in $(seq 1 100);") {
		t.Errorf("command line %q", te.Cmd)
	}
	msg := err.Error()
	for _, want := range []string{"exit status 3", "command: " + sh, "output (tail):", "    fatal: it broke", "    line 100"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not contain %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "line 1\n") {
		t.Errorf("error has the whole output, not its tail:\n%s", msg)
	}
	if !bytes.HasPrefix(res.Output, []byte("line 1\n")) {
		t.Errorf("Result.Output lost the head: %.20q", res.Output)
	}
}

func TestRun_StartFailure(t *testing.T) {
	_, err := (&Cmd{Path: filepath.Join(t.TempDir(), "nothere")}).Run(context.Background())
	var te *Error
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "nothere") {
		t.Fatalf("err = %v, want an *Error naming the program", err)
	}
}

func TestRun_SplitStdout(t *testing.T) {
	c := &Cmd{Path: shell(t), Args: []string{"-c", "echo out; echo err >&2"}, SplitStdout: true}
	res, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Stdout) != "out\n" || string(res.Output) != "err\n" {
		t.Errorf("stdout %q, output %q", res.Stdout, res.Output)
	}
}

// The environment: ours plus Env, without an enclosing make's variables.
func TestRun_Environment(t *testing.T) {
	t.Setenv("MAKEFLAGS", "-k -j8")
	t.Setenv("LSUGEN_TEST_KEPT", "kept")
	c := &Cmd{Path: shell(t), Args: []string{"-c", `echo "${MAKEFLAGS-unset} $LSUGEN_TEST_KEPT $ADDED"; pwd`},
		Dir: t.TempDir(), Env: []string{"ADDED=added"}}
	res, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(res.Output)), "\n")
	if len(lines) != 2 || lines[0] != "unset kept added" {
		t.Fatalf("output %q", res.Output)
	}
	if got, _ := filepath.EvalSymlinks(lines[1]); got != mustEval(t, c.Dir) {
		t.Errorf("ran in %s, want %s", lines[1], c.Dir)
	}
}

func mustEval(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// CPU counts the children the program waited for, as Yosys waits for ABC.
func TestRun_CPUCountsChildren(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("children's CPU time is Linux's")
	}
	// The same busy loop run directly and as a grandchild: the outer
	// shell only waits, so the nested run's CPU time is the grandchild's.
	// CPU time, unlike wall time, does not grow when the machine is busy.
	const loop = `i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done`
	direct, err := (&Cmd{Path: shell(t), Args: []string{"-c", loop}}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	nested, err := (&Cmd{Path: shell(t), Args: []string{"-c", "sh -c '" + loop + "'"}}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if direct.CPU == 0 || nested.CPU < direct.CPU/2 {
		t.Errorf("CPU %s for the loop as a grandchild, %s run directly: the children's time is not counted", nested.CPU, direct.CPU)
	}
}

func TestTail(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	got := strings.Split(Tail([]byte(b.String())), "\n")
	if len(got) != 61 || got[0] != "..." || got[1] != "line 41" || got[60] != "line 100" {
		t.Errorf("Tail of 100 lines: %d lines, %q ... %q", len(got), got[:2], got[len(got)-1])
	}
	if s := Tail([]byte("a\nb\n")); s != "a\nb" {
		t.Errorf("Tail of a short output: %q", s)
	}
	long := Tail(bytes.Repeat([]byte("0123456789abcdef\n"), 1000))
	if len(long) > 8<<10+4 || !strings.HasPrefix(long, "...\n0123456789abcdef\n") {
		t.Errorf("Tail of 17000 bytes: %d bytes, starts %.30q", len(long), long)
	}
}

func TestCmd_StringQuotes(t *testing.T) {
	c := &Cmd{Path: "/usr/bin/yosys", Args: []string{"-p", "read_verilog a.v; synth", "it's", "", "x=1"}}
	want := `/usr/bin/yosys -p 'read_verilog a.v; synth' 'it'\''s' '' x=1`
	if got := c.String(); got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
}
