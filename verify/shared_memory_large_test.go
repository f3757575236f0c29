package verify_test

import (
	"context"
	"testing"

	"github.com/lsugen/lsugen/units"
	"github.com/lsugen/lsugen/verify"
)

// netlistLockstep runs every shared memory of path in lockstep with its
// model on the netlist simulator for cycles cycles; want is how many
// shared memories path holds.
func netlistLockstep(t *testing.T, path string, cycles, want int) {
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
		tasks = append(tasks, verify.Task{Job: job(t, u, b), Plan: verify.DefaultPlan(), SeqPlan: sp, Engines: []verify.Engine{verify.Netlist}})
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
			case o.Check.Vectors < cycles:
				t.Errorf("%s %s ran %d cycles, want %d", name, o.Engine, o.Check.Vectors, cycles)
			}
		}
	}
}

// TestSharedMemory_FermiOnNetlist runs the Fermi-like 48 KB shared memory
// of specs/large (32 lanes, 32 banks, every width and atomic: about
// 257,000 gates, past the Icarus and proof engines' limits) in lockstep
// with its model on the netlist simulator.
func TestSharedMemory_FermiOnNetlist(t *testing.T) {
	if testing.Short() {
		t.Skip("a 257,000-gate unit")
	}
	netlistLockstep(t, "../specs/large/shared_memory_fermi.hcl", 20000, 1)
}

// TestSharedMemory_EveryRowKind runs a shared memory over each kind of
// bank hash the examples leave out (ipoly, bitwise_xor with 8-byte banks,
// add, rap, a configurable bitvector_perm: rows by kept bits, by the bits
// above the bank, by a run-time window) in lockstep with its model on the
// netlist simulator.
func TestSharedMemory_EveryRowKind(t *testing.T) {
	netlistLockstep(t, "testdata/shared_memory_hashes.hcl", 30000, 5)
}
