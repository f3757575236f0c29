package verify_test

import (
	"context"
	"testing"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/units"
	"github.com/lsugen/lsugen/verify"
)

// lockstep runs every shared memory of path in lockstep with its model on
// engines for cycles cycles (Icarus for its first ones, as lsugen verify
// runs it); want is how many shared memories path holds. With rtlOnly
// the HDL simulators run the RTL module alone, not the gate-level one.
func lockstep(t *testing.T, path string, engines []verify.Engine, cycles, want int, rtlOnly bool) {
	t.Helper()
	var tasks []verify.Task
	for _, u := range load(t, path) {
		if u.UnitKind() != "shared_memory" {
			continue
		}
		b, diags := units.Build(u)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		sp := verify.DefaultSeqPlan()
		sp.Cycles = cycles
		// What lsugen verify checks first: the unit is within every engine's limits.
		if err := verify.DefaultLimits().CheckSimulation([]*netlist.Design{b.Design}, engines, verify.DefaultPlan(), sp); err != nil {
			t.Fatal(err)
		}
		j := job(t, u, b)
		if rtlOnly {
			m := rtlAlone(j)
			j.Sources, j.Modules = m.Sources, m.Modules
		}
		tasks = append(tasks, verify.Task{Job: j, Plan: verify.DefaultPlan(), SeqPlan: sp, Engines: engines})
	}
	if len(tasks) != want {
		t.Fatalf("%s: %d shared memories, want %d", path, len(tasks), want)
	}
	for i, os := range verify.RunTasks(context.Background(), tasks, 2, verify.Hooks{}) {
		name := tasks[i].Job.Design.Name
		for _, o := range os {
			switch {
			case o.Err != nil:
				t.Errorf("%s %s: %v", name, o.Engine, o.Err)
			case o.Check.Mismatch != nil:
				t.Errorf("%s %s: %s", name, o.Engine, o.Check.Mismatch)
			case o.Check.Vectors < min(cycles, verify.IcarusMinCycles):
				t.Errorf("%s %s ran %d cycles, want %d", name, o.Engine, o.Check.Vectors, cycles)
			case o.Engine != verify.Icarus && o.Check.Vectors < cycles:
				t.Errorf("%s %s ran %d cycles, want %d", name, o.Engine, o.Check.Vectors, cycles)
			}
		}
	}
}

// TestSharedMemory_FermiOnEveryEngine runs the Fermi-like 48 KB shared
// memory of specs/large (32 lanes, 32 banks, every width and atomic:
// 256,551 gates, the largest clocked unit the Icarus engine takes) in
// lockstep with its model on the netlist simulator and Verilator for
// 20,000 cycles and on Icarus for the first 1,000.
//
// The gate netlist runs on the netlist simulator, and Icarus and
// Verilator run the RTL module: its proof RTL = gates is in verify/formal
// (BenchmarkProve_FermiSharedMemory, make bench), and the gate writer's shared-memory
// Verilog runs on both simulators with every example memory
// (TestSpecs_ModelNetlistIcarusVerilator). The gate-level file is 12
// minutes of CPU on the two simulators (Icarus 11.0 looks up each signal
// a process reads by a linear search of the module's 500,000 signals:
// 3 min 50 s to compile it, against 0.7 s for the RTL; Verilator about
// 7 min); lsugen verify runs it as always.
func TestSharedMemory_FermiOnEveryEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("a 256,551-gate unit: a Verilator build of minutes")
	}
	lockstep(t, "../specs/large/shared_memory_fermi.hcl", []verify.Engine{verify.Netlist, verify.Icarus, verify.Verilator}, 20000, 1, true)
}

// TestSharedMemory_EveryRowKind runs a shared memory over each kind of
// bank hash the examples leave out (ipoly, bitwise_xor with 8-byte banks,
// add, rap, a configurable bitvector_perm: rows by kept bits, by the bits
// above the bank, by a run-time window) in lockstep with its model on the
// netlist simulator.
func TestSharedMemory_EveryRowKind(t *testing.T) {
	lockstep(t, "testdata/shared_memory_hashes.hcl", []verify.Engine{verify.Netlist}, 30000, 5, false)
}

// TestSharedMemory_GateLevelOnEveryEngine runs a small generated shared
// memory, RTL and gate-level modules, in lockstep with its model on every
// engine: the example memories run their gate-level modules on the
// netlist simulator and Icarus only (verilatorGateLimit), so this is
// where the gate writer's Verilog of a shared memory (bank macros,
// crossbars, atomics) is built by Verilator.
func TestSharedMemory_GateLevelOnEveryEngine(t *testing.T) {
	lockstep(t, "testdata/shared_memory_gates.hcl", verify.AllEngines, 5000, 1, false)
}

// TestSharedMemory_FrontEnd runs shared memories with the pipelined front
// end of clock_fo4 (two instruction buffers served in turn, lane words
// hashed as they are taken) over every kind of row and bank, the
// Fermi-like memory among them, in lockstep with their model on the
// netlist simulator. specs/shared_memory.hcl's shmem_mod17_fe is on every
// engine and proved with the other examples.
func TestSharedMemory_FrontEnd(t *testing.T) {
	lockstep(t, "testdata/shared_memory_front.hcl", []verify.Engine{verify.Netlist}, 20000, 9, false)
}
