package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestVerifyFormal_ProvesUnits: `lsugen verify --formal` proves a
// combinational hash by a miter and a clocked pipeline by induction, one
// line per unit, and keeps the scripts and graphs in --work. Run again,
// it takes both proofs from the proof cache, unless --no-cache.
func TestVerifyFormal_ProvesUnits(t *testing.T) {
	t.Setenv("LSUGEN_CACHE_DIR", t.TempDir())
	dir := t.TempDir()
	spec := writeSpec(t, dir, "a.hcl", goodSpec)
	work := filepath.Join(dir, "work")
	code, stdout, stderr := lsugen(t, "verify", "--formal", "--work", work, spec, "../../specs/pipeline_figure4.hcl")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, re := range []string{
		`(?m)^h +formal +PASS +[0-9.]+m?s  miter, SAT \(ABC &fraig -y -C 1000; dc2; iprove\): equivalent$`,
		`(?m)^figure4_pipeline +formal +PASS +[0-9.]+m?s  induction, 40 register pairs, cut at [0-9]+ equivalence points( \([^)]*\))?, SAT \(ABC &fraig -y -C 1000; dc2; iprove\): equivalent$`,
		`(?m)^proved 2 units: RTL = gates \(Yosys [0-9.]+, ABC\)$`,
	} {
		if !regexp.MustCompile(re).MatchString(stdout) {
			t.Errorf("stdout does not match %s:\n%s", re, stdout)
		}
	}
	for _, f := range []string{"h/h.v", "h/h_gates.v", "h/h_rtl.ys", "h/h_miter.aig", "figure4_pipeline/figure4_pipeline_cut_rtl.json", "figure4_pipeline/figure4_pipeline_cut_rtl.sel"} {
		if _, err := os.Stat(filepath.Join(work, f)); err != nil {
			t.Errorf("--work: %v", err)
		}
	}
	// --gates-file: Yosys reads the gate-level files too, cut at the same
	// equivalence points.
	code, stdout, stderr = lsugen(t, "verify", "formal", "--gates-file", "--work", work, "../../specs/pipeline_figure4.hcl")
	re := `(?m)^figure4_pipeline +formal +PASS +[0-9.]+m?s  induction, 40 register pairs, cut at [0-9]+ equivalence points( \([^)]*\))?, SAT \(ABC &fraig -y -C 1000; dc2; iprove\): equivalent$`
	if code != 0 || !regexp.MustCompile(re).MatchString(stdout) {
		t.Errorf("--gates-file: exit %d; stdout does not match %s:\n%s\nstderr:\n%s", code, re, stdout, stderr)
	}
	for _, f := range []string{"figure4_pipeline/figure4_pipeline_cut_gates.json", "figure4_pipeline/figure4_pipeline_cut_gates.sel"} {
		if _, err := os.Stat(filepath.Join(work, f)); err != nil {
			t.Errorf("--gates-file --work: %v", err)
		}
	}
	cached := regexp.MustCompile(`(?m)^(h|figure4_pipeline) +formal +PASS +[0-9.]+m?s  .*, from the proof cache: equivalent$`)
	for _, noCache := range []bool{false, true} {
		args := []string{"verify", "--formal", spec, "../../specs/pipeline_figure4.hcl"}
		if noCache {
			args = append(args, "--no-cache")
		}
		code, stdout, stderr = lsugen(t, args...)
		if n := len(cached.FindAllString(stdout, -1)); code != 0 || (noCache && n != 0) || (!noCache && n != 2) {
			t.Errorf("--no-cache %v: exit %d, %d proofs from the cache\nstdout:\n%s\nstderr:\n%s", noCache, code, n, stdout, stderr)
		}
	}
}

// TestVerifyFormal_RejectsSimulationFlags: the simulation flags do not
// apply to a proof; giving one is a usage error.
func TestVerifyFormal_RejectsSimulationFlags(t *testing.T) {
	spec := writeSpec(t, t.TempDir(), "a.hcl", goodSpec)
	code, _, stderr := lsugen(t, "verify", "--formal", "--sim", "netlist", "--cycles", "5", spec)
	if code != 2 || !strings.Contains(stderr, "--cycles, --sim: not used by --formal, which takes --timeout") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = lsugen(t, "verify", "--formal", "--jobs", "0", spec)
	if code != 2 || !strings.Contains(stderr, "--timeout and --jobs must be positive") {
		t.Fatalf("--jobs 0: exit %d, stderr %q", code, stderr)
	}
}

// TestVerifyFormal_MissingYosys: without Yosys no unit is proved; the
// error names the install command and the exit status is 1.
func TestVerifyFormal_MissingYosys(t *testing.T) {
	t.Setenv("LSUGEN_YOSYS", "/nonexistent/yosys")
	spec := writeSpec(t, t.TempDir(), "a.hcl", goodSpec)
	code, stdout, stderr := lsugen(t, "verify", "--formal", spec)
	if code != 1 || !regexp.MustCompile(`(?m)^h +formal +ERROR `).MatchString(stdout) || !strings.Contains(stderr, "apt-get install yosys") {
		t.Fatalf("exit %d\nstdout %q\nstderr %q", code, stdout, stderr)
	}
}

// TestVerifyFormal_ProvesPipelineAgainstOriginal: a unit pipelined by
// --clock-fo4 is proved RTL = gates by its register pairs and, besides,
// equal to its combinational original followed by its L register stages.
func TestVerifyFormal_ProvesPipelineAgainstOriginal(t *testing.T) {
	t.Setenv("LSUGEN_CACHE_DIR", t.TempDir())
	dir := t.TempDir()
	spec := writeSpec(t, dir, "a.hcl", `monotonicity_detector "m" {
  lanes     = 4
  addr_bits = 8
  adder     = "ripple"
  clock_fo4 = 8
}
`)
	code, stdout, stderr := lsugen(t, "verify", "--formal", "--work", filepath.Join(dir, "work"), spec)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	re := `(?m)^m +formal +PASS +[0-9.]+m?s  induction, [0-9]+ register pairs, (cut at [0-9]+ equivalence points( \([^)]*\))?, )?SAT \(ABC &fraig -y -C 1000; dc2; iprove\); pipeline = original \+ [2-9] register stages: latency [2-9]: .*equivalent$`
	if !regexp.MustCompile(re).MatchString(stdout) {
		t.Errorf("stdout does not match %s:\n%s", re, stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "work", "m", "original", "m_gates.v")); err != nil {
		t.Errorf("the original's gates: %v", err)
	}
}

// TestVerifyFormal_VariableLatencyUnit: the speculative coalescer at a
// clock is a variable-latency unit, which the selection of units must
// carry as such: it is proved RTL = gates and not held against an
// original followed by a fixed number of register stages (make run
// failed so when --unit's selection dropped it).
func TestVerifyFormal_VariableLatencyUnit(t *testing.T) {
	t.Setenv("LSUGEN_CACHE_DIR", "off") // both runs prove
	dir := t.TempDir()
	spec := writeSpec(t, dir, "a.hcl", `coalescer "spec" {
  lanes      = 4
  addr_bits  = 8
  block_bits = 2
  structure  = "speculative"
  clock_fo4  = 20
}
`)
	for _, args := range [][]string{{"verify", "--formal", spec}, {"verify", "formal", "--unit", "sp*", spec}} {
		code, stdout, stderr := lsugen(t, append(args, "--work", filepath.Join(dir, "work"))...)
		if code != 0 || !strings.Contains(stdout, "proved 1 units: RTL = gates (") {
			t.Errorf("%q: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, stdout, stderr)
		}
	}
}
