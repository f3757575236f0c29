package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/verify"
)

// The gate counts of the largest accepted units (specs/limits/*.hcl, as
// lsugen timing reports them; docs/limits.md).
const (
	gatesWarpReadyMask = 3848996 // lim_wrm
	gatesCoalesceSpec  = 988801  // lim_coalesce_spec, 128 lanes x 64 bits
	gatesCoalesceA2A   = 896895  // lim_coalesce_a2a
	gatesArbiterSerial = 441474  // lim_arbiter_serial, 64 lanes
	gatesArbiter       = 217125  // lim_arbiter
	gatesCoalesceNbr   = 136994  // lim_coalesce_nbr
	gatesMonotonic     = 82600   // lim_monotonic
	gatesRAPConfig     = 10275   // lim_rap_cfg, w = 1024
	gatesPipeline      = 8075    // lim_pipeline
)

// TestVerifyLimits_LargestUnits: the largest accepted units are refused
// under the engines that cannot take them (docs/limits.md) and accepted
// under those that can, with their default vector and cycle counts.
func TestVerifyLimits_LargestUnits(t *testing.T) {
	plan, seq := verify.DefaultPlan(), verify.DefaultSeqPlan()
	comb := func(gates int) float64 { // the default plan's random vectors
		return float64(max(min(plan.Random, 256), min(plan.Random, plan.GateVectors/gates)))
	}
	icarusComb := func(gates int) float64 { return min(comb(gates), float64(max(256, plan.IcarusGateVectors/gates))) }
	icarusSeq := func(gates int) float64 {
		return float64(min(seq.Cycles, max(verify.IcarusMinCycles, seq.IcarusGateCycles/gates)))
	}
	cycles := float64(seq.Cycles)
	// The netlist simulator takes the largest clocked unit's default
	// stream (94 s and 2.8 GB measured).
	if n := float64(gatesWarpReadyMask) * cycles; n > maxVerifyGateCycles {
		t.Errorf("lim_wrm: %d cycles of %d gates (%.3g) are over the cycles budget 2^39", seq.Cycles, gatesWarpReadyMask, n)
	}
	for _, c := range []struct {
		name    string
		gates   int
		clocked bool
		refused []string // engines that refuse it
	}{
		{"lim_wrm", gatesWarpReadyMask, true, []string{"icarus", "verilator", "formal"}},
		{"lim_coalesce_spec", gatesCoalesceSpec, false, []string{"icarus", "verilator", "formal"}},
		{"lim_coalesce_a2a", gatesCoalesceA2A, false, []string{"icarus", "verilator", "formal"}},
		{"lim_arbiter_serial", gatesArbiterSerial, true, []string{"icarus", "verilator", "formal"}},
		{"lim_arbiter", gatesArbiter, false, []string{"icarus", "formal"}},
		{"lim_coalesce_nbr", gatesCoalesceNbr, false, []string{"icarus", "formal"}},
		{"coalesce_spec_64", 98166, false, nil}, // the largest example unit (make run proves it)
		{"lim_monotonic", gatesMonotonic, false, nil},
		{"lim_rap_cfg", gatesRAPConfig, false, nil},
		{"lim_pipeline", gatesPipeline, true, nil},
	} {
		for _, e := range []string{"netlist", "icarus", "verilator", "formal"} {
			var n float64
			switch {
			case e == "formal":
			case c.clocked && e == "icarus":
				n = icarusSeq(c.gates)
			case c.clocked:
				n = cycles
			case e == "icarus":
				n = icarusComb(c.gates)
			default:
				n = comb(c.gates)
			}
			err := checkEngineLimit(c.name, e, c.gates, n, c.clocked)
			want := strings.Contains(" "+strings.Join(c.refused, " ")+" ", " "+e+" ")
			switch {
			case want && err == nil:
				t.Errorf("%s (%d gates) under %s: accepted, want refused", c.name, c.gates, e)
			case !want && err != nil:
				t.Errorf("%s (%d gates) under %s: refused (%v), want accepted", c.name, c.gates, e, err)
			case err != nil && (!strings.Contains(err.Error(), c.name) || !strings.Contains(err.Error(), "limit") || !strings.Contains(err.Error(), "docs/limits.md")):
				t.Errorf("%s under %s: %v: want the unit, the limit and docs/limits.md named", c.name, e, err)
			}
		}
	}
}

// TestVerifyLimits_EngineRefusedBeforeWork: verify refuses a unit over an
// engine's limit at once, with exit status 2, naming the unit, the engine
// and the limit, and runs it under the engines whose limits it is within.
// (The limits are lowered here so that a small unit stands for a large
// one.)
func TestVerifyLimits_EngineRefusedBeforeWork(t *testing.T) {
	saved := engineLimits
	t.Cleanup(func() { engineLimits = saved })
	engineLimits = map[string]engineLimit{}
	for e, l := range saved {
		engineLimits[e] = l
	}
	engineLimits["icarus"] = engineLimit{maxGates: 2, maxGateCount: 1 << 33}
	engineLimits["formal"] = engineLimit{maxGates: 2}
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

// TestVerifyLimits_VerilatorWidth: Verilator takes inputs and outputs of
// up to 8192 bits together (a 128 x 64-bit warp's addresses), no more (the
// same warp with its active mask).
func TestVerifyLimits_VerilatorWidth(t *testing.T) {
	design := func(in, out []int) *netlist.Design {
		d := &netlist.Design{Name: "u", Clock: "clk"}
		d.Ports = append(d.Ports, netlist.Port{Name: "clk", Dir: netlist.In, Bits: make(netlist.Bus, 1)})
		for i, w := range in {
			d.Ports = append(d.Ports, netlist.Port{Name: fmt.Sprintf("i%d", i), Dir: netlist.In, Bits: make(netlist.Bus, w)})
		}
		for i, w := range out {
			d.Ports = append(d.Ports, netlist.Port{Name: fmt.Sprintf("o%d", i), Dir: netlist.Out, Bits: make(netlist.Bus, w)})
		}
		return d
	}
	for _, c := range []struct {
		in, out []int
		ok      bool
	}{
		{[]int{128 * 64}, []int{128}, true},
		{[]int{128 * 64, 128}, []int{128}, false}, // lim_coalesce_*, lim_monotonic
		{[]int{1}, []int{128 * 64, 1}, false},     // outputs
		{[]int{4096, 4095}, []int{1}, true},       // the clock is not read
	} {
		err := checkVerilatorWidth(design(c.in, c.out))
		if (err == nil) != c.ok {
			t.Errorf("inputs %v, outputs %v: %v, want accepted %v", c.in, c.out, err, c.ok)
		}
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
