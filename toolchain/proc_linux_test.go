//go:build linux

package toolchain

import (
	"context"
	"github.com/lsugen/lsugen/internal/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRun_MemoryLimit: a tool and the children it starts run under the
// address-space limit (issue 18: every simulation gets a memory bound).
func TestRun_MemoryLimit(t *testing.T) {
	c := &Cmd{Path: shell(t), Args: []string{"-c", `sleep 0.1; ulimit -v; sh -c 'ulimit -v'`}, MemoryLimit: 1 << 30, SplitStdout: true}
	res, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(res.Stdout)); len(got) != 2 || got[0] != "1048576" || got[1] != "1048576" {
		t.Errorf("ulimit -v of the tool and its child: %q, want 1048576 KiB twice", got)
	}
}

// TestRun_OutOfMemoryNamed: a tool that fails to allocate under the limit
// fails with the limit named.
func TestRun_OutOfMemoryNamed(t *testing.T) {
	c := &Cmd{Path: shell(t), Args: []string{"-c", `sleep 0.1; echo "std::bad_alloc" >&2; exit 134`}, MemoryLimit: 1 << 30}
	_, err := c.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "address-space limit of 1024 MiB") {
		t.Errorf("error %v, want the limit named", err)
	}
}

const reaperHelperEnv = "LSUGEN_REAPER_TEST"

// TestReaperHelper is a stand-in for lsugen when the test below runs this
// binary again: it starts a tool whose own child (a grandchild, which
// Pdeathsig does not reach) sleeps, writes the grandchild's pid to the
// file the variable names and waits.
func TestReaperHelper(t *testing.T) {
	pidFile := os.Getenv(reaperHelperEnv)
	if pidFile == "" {
		return
	}
	c := &Cmd{Path: "/bin/sh", Args: []string{"-c", `sleep 60 & echo $! > "$0.tmp" && mv "$0.tmp" "$0"; wait`, pidFile}}
	_, _ = c.Run(context.Background())
	os.Exit(0)
}

// TestReaper_KillsGrandchildrenOfKilledLsugen (issue 18): after SIGKILL of
// lsugen, nothing it started survives, not even a tool's own children,
// which are in the tool's process group but out of Pdeathsig's reach.
func TestReaper_KillsGrandchildrenOfKilledLsugen(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := exec.Command(os.Args[0], "-test.run=^TestReaperHelper$", "-test.count=1")
	// The helper's tool directory (Cmd.Run's TMPDIR) is left behind by
	// the SIGKILL, so it goes in the test's own.
	cmd.Env = append(os.Environ(), reaperHelperEnv+"="+pidFile, "TMPDIR="+t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	var pid int
	for end := time.Now().Add(testenv.Limit(time.Minute)); ; time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err = strconv.Atoi(strings.TrimSpace(string(b))); err != nil {
				t.Fatalf("helper wrote %q", b)
			}
			break
		}
		if time.Now().After(end) {
			t.Fatal("the helper's tool did not start its child")
		}
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	if !alive(pid) {
		t.Fatalf("the grandchild %d is not running", pid)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(testenv.Limit(30 * time.Second)); alive(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the tool's child %d survives SIGKILL of lsugen", pid)
		}
	}
}

// alive tells whether pid runs (a zombie has ended).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] != 'Z'
}
