package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestJobList_HostileNamesQuoted: a spec named with a quote, $(), ; and a
// space reaches each job as one word, and nothing of its name runs. The
// job command prints its arguments one a line.
func TestJobList_HostileNamesQuoted(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "a'b$(touch INJECTED);c d`touch INJECTED2`.hcl")
	if err := os.WriteFile(name, []byte(hcGoodHash), 0o644); err != nil {
		t.Fatal(err)
	}
	jobs, out := filepath.Join(dir, "jobs.txt"), filepath.Join(dir, "out")
	code, _, stderr := lsugen(t, "timing", "sweep", "--job-list", jobs, "--out-dir", out, "--job-command", `printf '%s\n'`, "20:24:4", name)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	list, err := os.ReadFile(jobs)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(list), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d job lines, want 2:\n%s", len(lines), list)
	}
	for _, line := range lines {
		cmd := exec.Command("sh", "-c", line)
		cmd.Dir = dir
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("sh -c %q: %v\n%s", line, err, b)
		}
		args := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		if got := args[len(args)-1]; got != name {
			t.Errorf("the job's last word is %q, want the spec %q", got, name)
		}
		if args[len(args)-2] != "--" || !strings.HasPrefix(args[1], "--sweep-point=h@") {
			t.Errorf("job words %q", args)
		}
	}
	for _, f := range []string{"INJECTED", "INJECTED2"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("a job ran part of the spec's name: %s exists", f)
		}
	}
}
