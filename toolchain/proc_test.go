package toolchain

import (
	"context"
	"github.com/lsugen/lsugen/internal/testenv"
	"os"
	"strings"
	"testing"
	"time"
)

// TestRun_TmpdirRemovedOnTimeout: a run has a TMPDIR of its own, not
// ours, removed with what the program left in it when the run is killed
// (iverilog's and ABC's temporaries after an interrupt).
func TestRun_TmpdirRemovedOnTimeout(t *testing.T) {
	c := &Cmd{Path: shell(t), Args: []string{"-c", `echo "$TMPDIR"; touch "$TMPDIR/left"; exec sleep 600`},
		Timeout: testenv.Limit(2 * time.Second), SplitStdout: true} // time for the shell to start on a busy machine
	res, err := c.Run(context.Background())
	if err == nil {
		t.Fatal("no error from a run killed at its timeout")
	}
	dir := strings.TrimSpace(string(res.Stdout))
	if dir == "" || dir == strings.TrimRight(os.TempDir(), "/") {
		t.Fatalf("TMPDIR of the run = %q, want a directory of its own", dir)
	}
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Errorf("the run's TMPDIR %s survives the run (%v)", dir, err)
	}
}
