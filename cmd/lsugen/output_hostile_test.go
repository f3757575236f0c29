package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Issue 18's output-writer findings: every file lsugen writes goes through
// one writer that replaces regular files only, creates no directory but
// the named output directory, refuses colliding output names up front,
// writes all or nothing and removes its temporaries when interrupted.

const hostileTwoUnits = `hash "foo" {
  function    = "rap"
  w           = 4
  permutation = [2, 0, 3, 1]
}

hash "%s" {
  function    = "rap"
  w           = 4
  permutation = [1, 3, 0, 2]
}
`

// dirNames lists dir's entries, hidden temporaries included.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestOutput_RefusesNonRegularTargets: an output onto a symlink, a FIFO or
// a directory is refused with an error naming it; the symlink stays a
// symlink and the file it points to is untouched, the FIFO stays a FIFO
// (never opened: the writer would block on it), the directory keeps its
// contents. A link to /dev/null or /dev/full stands for a device node.
func TestOutput_RefusesNonRegularTargets(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim.txt")
	if err := os.WriteFile(victim, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.svg")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	devLink := filepath.Join(dir, "null.hcl")
	if err := os.Symlink(os.DevNull, devLink); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "trace.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "out.hcl")
	if err := os.MkdirAll(filepath.Join(sub, "inner"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		kind fs.FileMode
		what string
	}{
		{link, fs.ModeSymlink, "symbolic link"},
		{devLink, fs.ModeSymlink, "symbolic link"},
		{fifo, fs.ModeNamedPipe, "FIFO"},
		{sub, fs.ModeDir, "directory"},
	} {
		err := writeFileAtomic(c.path, []byte("new contents"))
		if err == nil {
			t.Errorf("%s: written over a %s", c.path, c.what)
		} else if !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), c.what) {
			t.Errorf("%s: error %q does not name the file and what it is", c.path, err)
		}
		var ee *exitError
		if err != nil && (!errors.As(err, &ee) || ee.code != 2) {
			t.Errorf("%s: error %v is not a refused input (exit status 2)", c.path, err)
		}
		fi, lerr := os.Lstat(c.path)
		if lerr != nil || fi.Mode().Type() != c.kind {
			t.Errorf("%s: no longer a %s (%v, %v)", c.path, c.what, fi.Mode(), lerr)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep me" {
		t.Errorf("the symlink's target was written through: %q", b)
	}
	if _, err := os.Stat(filepath.Join(sub, "inner")); err != nil {
		t.Errorf("the directory target lost its contents: %v", err)
	}
	for _, n := range dirNames(t, dir) {
		if strings.Contains(n, ".tmp-") {
			t.Errorf("temporary %s left behind", n)
		}
	}
}

// TestOutput_SingleFileParentNotCreated: an output file whose directory
// does not exist is an error, and no directory is created (search -o
// /nonexist/dir/x.hcl, timing --svg /nonexist/x.svg created them).
func TestOutput_SingleFileParentNotCreated(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nonexist")
	err := writeFileAtomic(filepath.Join(missing, "dir", "x.hcl"), []byte("x"))
	if err == nil || !strings.Contains(err.Error(), filepath.Join(missing, "dir")) {
		t.Errorf("writing into a missing directory: error %v, want one naming it", err)
	}
	if _, err := os.Lstat(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s was created (%v)", missing, err)
	}

	// Through a command: timing --svg.
	spec := writeSpec(t, dir, "units.hcl", strings.Replace(hostileTwoUnits, "%s", "bar", 1))
	code, _, stderr := lsugen(t, "timing", "--svg", filepath.Join(missing, "x.svg"), spec)
	if code != 2 || !strings.Contains(stderr, missing) {
		t.Errorf("timing --svg into a missing directory: exit %d, stderr %q; want 2 naming %s", code, stderr, missing)
	}
	if _, err := os.Lstat(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("timing --svg created %s (%v)", missing, err)
	}
	// and onto a FIFO, which a plain open would block on.
	fifo := filepath.Join(dir, "fig.svg")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = lsugen(t, "timing", "--svg", fifo, spec)
	if fi, err := os.Lstat(fifo); code != 2 || err != nil || fi.Mode().Type() != fs.ModeNamedPipe {
		t.Errorf("timing --svg onto a FIFO: exit %d, stderr %q, the FIFO now %v (%v)", code, stderr, fi.Mode(), err)
	}
}

// TestGen_NonRegularTargetReplacesNothing: gen over an earlier tree where
// one output name is a non-empty directory refuses before writing, and
// every earlier file is kept (it replaced all the others, then failed).
func TestGen_NonRegularTargetReplacesNothing(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "units.hcl", strings.Replace(hostileTwoUnits, "%s", "bar", 1))
	out := filepath.Join(dir, "out")
	if code, _, stderr := lsugen(t, "gen", "-o", out, spec); code != 0 {
		t.Fatalf("gen: exit %d: %s", code, stderr)
	}
	names := dirNames(t, out)
	if len(names) != 4 {
		t.Fatalf("gen wrote %v, want 4 files", names)
	}
	// The earlier tree: every file but the last (in the writer's order) an
	// earlier output, the last a non-empty directory.
	last := names[len(names)-1]
	for _, n := range names[:len(names)-1] {
		if err := os.WriteFile(filepath.Join(out, n), []byte("earlier "+n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(out, last)
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(p, "keep"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := lsugen(t, "gen", "-o", out, spec)
	if code != 2 || !strings.Contains(stderr, p) || !strings.Contains(stderr, "directory") {
		t.Errorf("gen over a directory: exit %d, stderr %q; want 2 naming %s", code, stderr, p)
	}
	for _, n := range names[:len(names)-1] {
		if b, _ := os.ReadFile(filepath.Join(out, n)); string(b) != "earlier "+n {
			t.Errorf("%s was replaced although the run failed", n)
		}
	}
	if _, err := os.Stat(filepath.Join(p, "keep")); err != nil {
		t.Errorf("the directory %s lost its contents: %v", p, err)
	}
	if got := dirNames(t, out); len(got) != len(names) {
		t.Errorf("after the refused run the tree holds %v, want %v", got, names)
	}
}

// TestGen_OutputNameCollisions: units foo and foo_gates (foo's gate
// netlist and foo_gates's RTL are both foo_gates.v), foo and foo_synth
// with --fusesoc (foo's Yosys script writes foo_synth.v), foo and foo_tb
// with --tb: refused before anything is written, exit 2, the error naming
// the file and both units.
func TestGen_OutputNameCollisions(t *testing.T) {
	for _, c := range []struct {
		other, file string
		flags       []string
	}{
		{"foo_gates", "foo_gates.v", nil},
		{"foo_synth", "foo_synth.v", []string{"--fusesoc"}},
		{"foo_tb", "foo_tb.v", []string{"--tb"}},
	} {
		dir := t.TempDir()
		spec := writeSpec(t, dir, "units.hcl", strings.Replace(hostileTwoUnits, "%s", c.other, 1))
		out := filepath.Join(dir, "out")
		args := append(append([]string{"gen", "-o", out}, c.flags...), spec)
		code, _, stderr := lsugen(t, args...)
		if code != 2 {
			t.Errorf("gen %v with units foo and %s: exit %d, want 2 (stderr %q)", c.flags, c.other, code, stderr)
		}
		for _, want := range []string{c.file, "unit foo (" + spec + ":1)", "unit " + c.other + " (" + spec + ":7)"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("gen %v with units foo and %s: stderr %q does not name %q", c.flags, c.other, stderr, want)
			}
		}
		if _, err := os.Lstat(out); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("gen %v with units foo and %s: %s was created (%v)", c.flags, c.other, out, err)
		}
	}
}

// cancelAfter is a context whose Err reports cancellation from its n-th
// call on, as if SIGINT or SIGTERM arrived while the writer runs.
type cancelAfter struct {
	context.Context
	calls, n int
}

func (c *cancelAfter) Err() error {
	c.calls++
	if c.calls >= c.n {
		return context.Canceled
	}
	return nil
}

// TestOutput_CancelledContextRemovesTemporaries: a run interrupted while
// it writes a large (12 MB) unit stops within a chunk, removes its
// temporary files (gen left hidden .NAME.v.tmp-* files) and leaves the
// earlier outputs as they were; so does one cancelled before the renames.
func TestOutput_CancelledContextRemovesTemporaries(t *testing.T) {
	big := bytes.Repeat([]byte("assign x = y;\n"), 12<<20/14)
	for _, n := range []int{1, 2, 3, 5, 8} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "a.v"), []byte("earlier"), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx := &cancelAfter{Context: context.Background(), n: n}
		err := writeAllContext(ctx, dir, map[string][]byte{"a.v": []byte("new"), "big.v": big, "c.v": []byte("new")})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled at check %d: error %v, want context.Canceled", n, err)
		}
		if got := dirNames(t, dir); len(got) != 1 || got[0] != "a.v" {
			t.Errorf("cancelled at check %d: the directory holds %v, want only the earlier a.v", n, got)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "a.v")); string(b) != "earlier" {
			t.Errorf("cancelled at check %d: a.v replaced", n)
		}
	}
	// Cancelled once every file is written, just before the renames.
	dir := t.TempDir()
	ctx := &cancelAfter{Context: context.Background(), n: 1 << 30}
	if err := writeAllContext(ctx, dir, map[string][]byte{"big.v": big}); err != nil {
		t.Fatal(err)
	}
	checks := ctx.calls
	dir = t.TempDir()
	ctx = &cancelAfter{Context: context.Background(), n: checks}
	if err := writeAllContext(ctx, dir, map[string][]byte{"big.v": big}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before the renames: error %v", err)
	}
	if got := dirNames(t, dir); len(got) != 0 {
		t.Errorf("cancelled before the renames: the directory holds %v", got)
	}
}
