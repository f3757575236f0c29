package main

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/lsugen/lsugen/internal/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The helper process: the test binary run again as lsugen's main, with
// its arguments in signalsArgsEnv (one a line).
const signalsArgsEnv = "LSUGEN_SIGNALS_TEST_ARGS"

// TestSignalsHelper is lsugen itself when the test below runs this binary
// again; otherwise it does nothing.
func TestSignalsHelper(t *testing.T) {
	args, ok := os.LookupEnv(signalsArgsEnv)
	if !ok {
		return
	}
	os.Exit(runInterruptible(strings.Split(args, "\n"), os.Stdout, os.Stderr))
}

// TestSignals_NoProcessOrTemporarySurvives (issue 18): lsugen verify is
// interrupted by SIGINT, SIGTERM or SIGHUP, or killed by SIGKILL, while
// its simulator (vvp, in a process group of its own) spins in a zero-delay
// loop. Afterwards no process that lsugen started is alive, nor any
// process of their process groups; after SIGINT, SIGTERM and SIGHUP the
// temporary work directory is gone and the exit status is 128 + the
// signal.
func TestSignals_NoProcessOrTemporarySurvives(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc; Pdeathsig is Linux's")
	}
	for _, tool := range []string{"iverilog", "vvp"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	dir := t.TempDir()
	spec := writeSpec(t, dir, "a.hcl", goodSpec)
	out := filepath.Join(dir, "out")
	if code, _, stderr := lsugen(t, "gen", "-o", out, spec); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, stderr)
	}
	// The unit's own RTL, plus a zero-delay loop: vvp never finishes.
	src, err := os.ReadFile(filepath.Join(out, "h.v"))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.LastIndex(src, []byte("endmodule"))
	if i < 0 {
		t.Fatalf("no endmodule in h.v")
	}
	spin := filepath.Join(dir, "spin.v")
	body := string(src[:i]) + "  initial forever #0;\n" + string(src[i:])
	if err := os.WriteFile(spin, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"verify", "--rtl", spin, "--unit", "h", "--sim", "icarus", spec}

	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			interruptAndCheck(t, args, sig)
		})
	}
}

func interruptAndCheck(t *testing.T, args []string, sig syscall.Signal) {
	tmp := t.TempDir() // lsugen's TMPDIR: its temporary work directory goes here
	cmd := exec.Command(os.Args[0], "-test.run=^TestSignalsHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), signalsArgsEnv+"="+strings.Join(args, "\n"), "TMPDIR="+tmp)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	// Whatever happens, nothing is left running.
	seen := map[int]procInfo{} // lsugen's descendants, by pid
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		for g := range ownGroups(seen) {
			_ = syscall.Kill(-g, syscall.SIGKILL)
		}
	})

	// Wait for vvp running the testbench (not `vvp -V`, the version check),
	// a descendant of lsugen.
	deadline := time.Now().Add(testenv.Limit(2 * time.Minute))
	for {
		found := false
		for _, p := range descendants(pid) {
			seen[p.pid] = p
			found = found || p.comm == "vvp" && simulates(p.pid)
		}
		if found {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("lsugen exited (%v) before vvp started:\n%s", err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("vvp did not start within %v:\n%s", testenv.Limit(2*time.Minute), stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, p := range descendants(pid) { // those that started meanwhile
		seen[p.pid] = p
	}

	if err := syscall.Kill(pid, sig); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-exited:
	case <-time.After(testenv.Limit(time.Minute)):
		t.Fatalf("lsugen still runs a minute after %v:\n%s", sig, stderr.String())
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("lsugen: %v, want an exit status after %v:\n%s", err, sig, stderr.String())
	}
	if sig == syscall.SIGKILL {
		if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Errorf("lsugen: %v, want killed by SIGKILL", err)
		}
	} else if got, want := ee.ExitCode(), 128+int(sig); got != want {
		t.Errorf("exit status %d after %v, want %d:\n%s", got, sig, want, stderr.String())
	}

	// No process of lsugen's survives: none of its descendants, nothing in
	// their process groups. The kernel's SIGKILL (Pdeathsig, the group
	// kill) takes a moment to land.
	var alive []string
	for end := time.Now().Add(testenv.Limit(30 * time.Second)); ; time.Sleep(10 * time.Millisecond) {
		alive = survivors(seen)
		if len(alive) == 0 || time.Now().After(end) {
			break
		}
	}
	if len(alive) > 0 {
		t.Errorf("after %v of lsugen, its processes survive: %s", sig, strings.Join(alive, "; "))
	}
	if sig == syscall.SIGKILL {
		return // nothing can remove a SIGKILLed program's files
	}
	entries, _ := os.ReadDir(tmp)
	for _, e := range entries {
		t.Errorf("after %v, the temporary %s survives:\n%s", sig, filepath.Join(tmp, e.Name()), stderr.String())
	}
}

// procInfo is one process as /proc/PID/stat shows it.
type procInfo struct {
	pid, ppid, pgid int
	comm            string
	state           byte
	start           string // start time since boot, in clock ticks: tells a reused pid
}

// readProc reads /proc/PID/stat; ok is false when the process is gone.
func readProc(pid int) (p procInfo, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return p, false
	}
	s := string(b)
	open, closing := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || closing < open {
		return p, false
	}
	f := strings.Fields(s[closing+1:])
	// f[0] state, f[1] ppid, f[2] pgrp, ..., f[19] starttime (field 22).
	if len(f) < 20 {
		return p, false
	}
	p.pid, p.comm, p.state, p.start = pid, s[open+1:closing], f[0][0], f[19]
	p.ppid, _ = strconv.Atoi(f[1])
	p.pgid, _ = strconv.Atoi(f[2])
	return p, true
}

// simulates reports whether process pid runs a testbench (tb.vvp).
func simulates(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return err == nil && bytes.Contains(b, []byte("tb.vvp"))
}

// allProcs lists every process in /proc.
func allProcs() []procInfo {
	entries, _ := os.ReadDir("/proc")
	var ps []procInfo
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok {
			ps = append(ps, p)
		}
	}
	return ps
}

// descendants are the living processes below root.
func descendants(root int) []procInfo {
	children := map[int][]procInfo{}
	for _, p := range allProcs() {
		children[p.ppid] = append(children[p.ppid], p)
	}
	var out []procInfo
	queue := []int{root}
	for len(queue) > 0 {
		for _, c := range children[queue[0]] {
			out = append(out, c)
			queue = append(queue, c.pid)
		}
		queue = queue[1:]
	}
	return out
}

// survivors are the living (not zombie) processes among seen, and those in
// the process groups of seen.
func survivors(seen map[int]procInfo) []string {
	groups := ownGroups(seen)
	var alive []string
	for _, p := range allProcs() {
		if p.state == 'Z' || p.state == 'X' {
			continue
		}
		if s, ok := seen[p.pid]; (ok && s.start == p.start) || groups[p.pgid] {
			alive = append(alive, fmt.Sprintf("%d %s (group %d)", p.pid, p.comm, p.pgid))
		}
	}
	return alive
}

// ownGroups are the process groups of seen other than ours (lsugen runs in
// the test's group; its tools each in a group of their own).
func ownGroups(seen map[int]procInfo) map[int]bool {
	groups := map[int]bool{}
	for _, p := range seen {
		if p.pgid != syscall.Getpgrp() && p.pgid > 1 {
			groups[p.pgid] = true
		}
	}
	return groups
}
