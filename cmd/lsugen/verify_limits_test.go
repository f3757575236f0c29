package main

import (
	"strings"
	"testing"

	"github.com/lsugen/lsugen/verify"
)

// TestVerifyLimits_EngineRefusedBeforeWork: verify refuses a unit over an
// engine's limit at once, with exit status 2, naming the unit, the engine
// and the limit, and runs it under the engines whose limits it is within.
// (The limits are lowered here so that a small unit stands for a large
// one.)
func TestVerifyLimits_EngineRefusedBeforeWork(t *testing.T) {
	saved := verifyLimits
	t.Cleanup(func() { verifyLimits = saved })
	verifyLimits = verify.DefaultLimits()
	verifyLimits["icarus"] = verify.EngineLimit{MaxGates: 2, MaxGateCount: 1 << 33}
	verifyLimits["formal"] = verify.EngineLimit{MaxGates: 2}
	dir := t.TempDir()
	spec := writeSpec(t, dir, "p.hcl", verifySeqSpec)
	for _, args := range [][]string{
		{"--sim", "netlist,icarus", "--unit", "h"},
		{"--formal", "--unit", "ep"},
	} {
		code, stdout, stderr := lsugen(t, append(append([]string{"verify"}, args...), spec)...)
		engine := "icarus"
		if args[0] == "--formal" {
			engine = "verify --formal"
		}
		if code != 2 || stdout != "" || !strings.Contains(stderr, engine) || !strings.Contains(stderr, "over the limit") || !strings.Contains(stderr, "2 gates") {
			t.Errorf("verify %s: exit %d\nstdout %s\nstderr %s\nwant 2 naming the engine and its limit, nothing run", strings.Join(args, " "), code, stdout, stderr)
		}
	}
	if code, stdout, stderr := lsugen(t, "verify", "--sim", "netlist", "--unit", "h", spec); code != 0 {
		t.Errorf("verify --sim netlist: exit %d\n%s%s", code, stdout, stderr)
	}
	// Inputs wider than Verilator's testbench reads (its build failed,
	// exit 1, after seconds): refused under Verilator at once.
	wide := writeSpec(t, dir, "w.hcl", "hash \"wide_cfg\" {\n  function     = \"rap\"\n  w            = 1024\n  configurable = true\n}\n")
	code, stdout, stderr := lsugen(t, "verify", "--sim", "netlist,verilator", wide)
	if code != 2 || stdout != "" || !strings.Contains(stderr, "wide_cfg: its inputs are 10260 bits") || !strings.Contains(stderr, "limit of 8192 bits") {
		t.Errorf("verify --sim netlist,verilator (10,260 input bits): exit %d\nstdout %s\nstderr %s\nwant 2 naming Verilator's width limit", code, stdout, stderr)
	}
}

// TestVerifyLimits_CyclesBudget: a clocked unit's --cycles is checked
// against the budget before work, as a combinational unit's vectors are:
// --cycles 1e12 ran out of memory, 1e8 held GBs of stimulus.
func TestVerifyLimits_CyclesBudget(t *testing.T) {
	spec := writeSpec(t, t.TempDir(), "p.hcl", verifySeqSpec)
	for _, n := range []string{"1000000000000", "100000000"} {
		code, stdout, stderr := lsugen(t, "verify", "--sim", "netlist", "--unit", "ep", "--cycles", n, spec)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "ep: ") || !strings.Contains(stderr, "verify budget") || !strings.Contains(stderr, "--cycles") {
			t.Errorf("--cycles %s: exit %d\nstdout %s\nstderr %s\nwant 2 naming the budget and --cycles", n, code, stdout, stderr)
		}
	}
	if code, stdout, stderr := lsugen(t, "verify", "--sim", "netlist", "--unit", "ep", "--cycles", "2000", spec); code != 0 {
		t.Errorf("--cycles 2000: exit %d\n%s%s", code, stdout, stderr)
	}
}
