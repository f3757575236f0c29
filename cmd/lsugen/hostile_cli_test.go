package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Hostile inputs of issue 18: wrong results, exit codes and diagnostics.

// fullWriter fails every write, as /dev/full does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestHostile_StdoutWriteErrorFails: a report that cannot be written is a
// failure (exit status 1) with a message, for every command, never exit 0.
func TestHostile_StdoutWriteErrorFails(t *testing.T) {
	for _, args := range [][]string{
		{"version"},
		{"timing", "--help"},
		{"search", "--count", "--addr-bits", "8", "--bank-bits", "2"},
		{"timing", "../../specs/hash_atomics.hcl"},
	} {
		var e bytes.Buffer
		code := run(args, fullWriter{}, &e)
		if code != 1 || !strings.Contains(e.String(), "no space left on device") {
			t.Errorf("lsugen %s > /dev/full: exit %d, stderr %q; want 1 naming the write error", strings.Join(args, " "), code, e.String())
		}
	}
}

// TestHostile_DashDashPositional: every argument after -- is an argument,
// even one that looks like a flag.
func TestHostile_DashDashPositional(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "-weird-name.trace")
	if err := os.WriteFile(tr, []byte("0x10\n0x20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	code, stdout, stderr := lsugen(t, "conflicts", "--", "-weird-name.trace")
	if code != 0 || !strings.Contains(stdout, "2 accesses") {
		t.Errorf("conflicts -- -weird-name.trace: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	for _, name := range []string{"-h", "--help", "--version", "-o"} {
		code, _, stderr := lsugen(t, "conflicts", "--", name)
		if code != 2 || !strings.Contains(stderr, "open "+name) {
			t.Errorf("conflicts -- %s: exit %d, stderr %q; want the file %s refused as missing", name, code, stderr, name)
		}
	}
}
