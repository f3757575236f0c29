package verify

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/netlist"
)

// The gate counts of the largest accepted units (specs/limits/*.hcl, as
// lsugen timing reports them; docs/limits.md).
const (
	gatesWarpReadyMask = 3848996 // lim_wrm
	gatesCoalesceSpec  = 988801  // lim_coalesce_spec, 128 lanes x 64 bits
	gatesCoalesceA2A   = 896895  // lim_coalesce_a2a
	gatesArbiterSerial = 441474  // lim_arbiter_serial, 64 lanes
	gatesSharedMemory  = 256551  // shmem_fermi (specs/large), clocked
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
	plan, seq := DefaultPlan(), DefaultSeqPlan()
	comb := func(gates int) float64 { // the default plan's random vectors
		return float64(max(min(plan.Random, 256), min(plan.Random, plan.GateVectors/gates)))
	}
	icarusComb := func(gates int) float64 {
		return min(comb(gates), float64(max(IcarusMinVectors, plan.IcarusGateVectors/gates)))
	}
	icarusSeq := func(gates int) float64 {
		return float64(min(seq.Cycles, max(IcarusMinCycles, seq.IcarusGateCycles/gates)))
	}
	cycles := float64(seq.Cycles)
	// The netlist simulator takes the largest clocked unit's default
	// stream (94 s and 2.8 GB measured).
	if n := float64(gatesWarpReadyMask) * cycles; n > maxGateCycles {
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
		{"shmem_fermi", gatesSharedMemory, true, nil}, // the largest clocked example: every engine
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
			err := DefaultLimits().Check(c.name, e, c.gates, n, c.clocked)
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
		err := CheckVerilatorWidth(design(c.in, c.out))
		if (err == nil) != c.ok {
			t.Errorf("inputs %v, outputs %v: %v, want accepted %v", c.in, c.out, err, c.ok)
		}
	}
}
