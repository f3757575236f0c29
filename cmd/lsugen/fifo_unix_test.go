//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO named as a trace or a spec is refused at once: opening it to
// read would wait for a writer that never comes.
func TestInputs_FIFORefusedNotWaitedOn(t *testing.T) {
	dir := t.TempDir()
	fifo := func(name string) string {
		p := filepath.Join(dir, name)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skipf("no FIFOs here: %v", err)
		}
		return p
	}
	tr, spec := fifo("f.trace"), fifo("f.hcl")
	for _, args := range [][]string{
		{"conflicts", tr},
		{"search", "--function", "bitvector_xor", "--addr-bits", "10", "--bank-bits", "5", tr},
		{"pipesim", "../../specs/pipeline_figure4.hcl", "--trace", tr},
		{"timing", spec},
		{"gen", "-o", filepath.Join(dir, "out"), spec},
		{"study", "hash-speedup", "--set", "examples=none", tr},
	} {
		code, _, stderr := lsugen(t, args...)
		if code == 0 || !strings.Contains(stderr, "FIFO") {
			t.Errorf("%v: exit %d, %q; want a refusal naming the FIFO", args, code, stderr)
		}
	}
}
