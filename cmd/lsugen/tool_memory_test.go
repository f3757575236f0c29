package main

import (
	"strings"
	"testing"

	"github.com/lsugen/lsugen/toolchain"
)

// TestToolMemoryFlag: --tool-memory takes sizes with binary suffixes,
// refuses nonsense with status 2, and a run without it is back at the
// standard limit.
func TestToolMemoryFlag(t *testing.T) {
	for in, want := range map[string]uint64{"8GiB": 8 << 30, "512MiB": 512 << 20, "0": 0, "1TiB": 1 << 40, "70000000": 70000000} {
		v := uint64(1)
		if err := (memoryLimitValue{&v}).Set(in); err != nil || v != want {
			t.Errorf("Set(%q) = %d, %v; want %d", in, v, err, want)
		}
	}
	for _, in := range []string{"", "-1", "8GB", "1MiB", "NaN", "99999999TiB", "1.5GiB"} {
		v := uint64(7)
		if err := (memoryLimitValue{&v}).Set(in); err == nil || v != 7 {
			t.Errorf("Set(%q) accepted: %d", in, v)
		}
	}
	code, _, stderr := lsugen(t, "verify", "--tool-memory", "8GB", "../../specs/hash_atomics.hcl")
	if code != 2 || !strings.Contains(stderr, "--tool-memory") {
		t.Errorf("--tool-memory 8GB: exit %d, %s", code, stderr)
	}
	toolchain.DefaultMemoryLimit = 1 << 30
	code, _, stderr = lsugen(t, "verify", "--sim", "netlist", "--unit", "atomic_add_cla", "../../specs/hash_atomics.hcl")
	if code != 0 || toolchain.DefaultMemoryLimit != toolchain.StandardMemoryLimit {
		t.Errorf("a run without --tool-memory: exit %d (%s), limit %d, want the standard %d", code, stderr, toolchain.DefaultMemoryLimit, uint64(toolchain.StandardMemoryLimit))
	}
}
