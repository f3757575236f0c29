package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/units"
)

// largestReadyMask is the largest warp_ready_mask the loader accepts
// (every size at its limit): 3.8 M gates, 31.5 s and 2.7 GB in gen alone
// on the 2-core VM.
func largestReadyMask(name string) string {
	return fmt.Sprintf(`warp_ready_mask %q {
  warp_contexts = %d
  history_sets  = %d
  history_ways  = %d
  pc_bits       = %d
  warp_size     = %d
  simd_width    = 64
}
`, name, specs.MaxWarpContexts, specs.MaxHistorySets, specs.MaxHistoryWays, specs.MaxPCBits, specs.MaxPipeWarpSize)
}

// TestBudget_ThreeLargestReadyMasksRefused: issue 18's finding, three of
// the largest warp_ready_mask units in a spec under 1 KB (92.6 s and
// 4.87 GB in gen), is refused by every command that generates, before
// any unit is generated: exit status 2 (a generated unit would have
// given 0), the message naming the total, the budget, the largest units
// and the flag, and nothing written.
func TestBudget_ThreeLargestReadyMasksRefused(t *testing.T) {
	dir := t.TempDir()
	src := largestReadyMask("wrm_a") + largestReadyMask("wrm_b") + largestReadyMask("wrm_c")
	if len(src) > 1024 {
		t.Fatalf("the spec is %d bytes, want at most 1 KB", len(src))
	}
	spec := writeSpec(t, dir, "wrm3.hcl", src)
	out := filepath.Join(dir, "out")
	for _, args := range [][]string{
		{"gen", "-o", out, spec},
		{"timing", spec},
		{"verify", "--sim", "netlist", spec},
		{"crosscheck-timing", "--liberty", filepath.Join(dir, "lib.lib"), spec},
	} {
		code, _, stderr := lsugen(t, args...)
		if code != 2 {
			t.Fatalf("%s: exit %d, want 2 (refused); stderr:\n%s", args[0], code, stderr)
		}
		for _, want := range []string{"over the budget of 6.0 M gates", "--gate-budget", "wrm_a", "wrm_b", "wrm_c", "warp_ready_mask", "wrm3.hcl:1", "Nothing was generated"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", args[0], want, stderr)
			}
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("gen created %s (err %v), want nothing written", out, err)
	}
}

// TestBudget_Boundary: a run estimated at exactly --gate-budget (or
// --output-budget) is accepted, one gate (byte) less refused; 0 is no
// limit; a negative limit is a usage error.
func TestBudget_Boundary(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "c.hcl", `coalescer "c" {
  structure = "all_to_all"
  lanes     = 8
  addr_bits = 12
}
`)
	file, diags := specs.NewLoader().Load(spec)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	est, diags := units.Estimate(file.Units[0])
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"gen", "-o", out, "--gate-budget", fmt.Sprint(est.Gates), spec}, 0, ""},
		{[]string{"gen", "-o", out, "--gate-budget", fmt.Sprint(est.Gates - 1), spec}, 2, "--gate-budget " + fmt.Sprint(est.Gates) + " or more"},
		{[]string{"gen", "-o", out, "--output-budget", fmt.Sprint(est.Bytes), spec}, 0, ""},
		{[]string{"gen", "-o", out, "--output-budget", fmt.Sprint(est.Bytes - 1), spec}, 2, "--output-budget " + fmt.Sprint(est.Bytes) + " or more"},
		{[]string{"gen", "-o", out, "--gate-budget", "0", "--output-budget", "0", spec}, 0, ""},
		{[]string{"timing", "--gate-budget", fmt.Sprint(est.Gates), spec}, 0, ""},
		{[]string{"timing", "--gate-budget", fmt.Sprint(est.Gates - 1), spec}, 2, "over the budget"},
		{[]string{"verify", "--sim", "netlist", "--gate-budget", fmt.Sprint(est.Gates - 1), spec}, 2, "over the budget"},
		{[]string{"gen", "-o", out, "--gate-budget", "-1", spec}, 2, "--gate-budget -1: want 0 (no limit) or more"},
		{[]string{"timing", "--output-budget", "1", spec}, 2, "unknown flag: --output-budget"},
	} {
		code, _, stderr := lsugen(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("lsugen %s: exit %d, want %d with %q; stderr:\n%s", strings.Join(tc.args, " "), code, tc.code, tc.want, stderr)
		}
	}
}
