package verify_test

import (
	"context"
	"testing"

	"github.com/lsugen/lsugen/units"
	"github.com/lsugen/lsugen/verify"
)

// TestSharedMemory_FermiOnNetlist runs the Fermi-like 48 KB shared memory
// of specs/large (32 lanes, 32 banks, every width and atomic: about
// 257,000 gates, past the Icarus and proof engines' limits) in lockstep
// with its model on the netlist simulator.
func TestSharedMemory_FermiOnNetlist(t *testing.T) {
	if testing.Short() {
		t.Skip("a 257,000-gate unit")
	}
	us := load(t, "../specs/large/shared_memory_fermi.hcl")
	var tasks []verify.Task
	for _, u := range us {
		if u.UnitKind() != "shared_memory" {
			continue
		}
		b, diags := units.Build(u)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		sp := verify.DefaultSeqPlan()
		sp.Cycles = 20000
		tasks = append(tasks, verify.Task{Job: job(t, u, b), Plan: verify.DefaultPlan(), SeqPlan: sp, Engines: []verify.Engine{verify.Netlist}})
	}
	if len(tasks) != 1 {
		t.Fatalf("%d shared memories in specs/large, want 1", len(tasks))
	}
	for _, o := range verify.RunTasks(context.Background(), tasks, 1, verify.Hooks{})[0] {
		switch {
		case o.Err != nil:
			t.Errorf("%s: %v", o.Engine, o.Err)
		case o.Check.Mismatch != nil:
			t.Errorf("%s: %s", o.Engine, o.Check.Mismatch)
		case o.Check.Vectors < 20000:
			t.Errorf("%s ran %d cycles, want 20000", o.Engine, o.Check.Vectors)
		}
	}
}

// TestSharedMemory_EveryRowKind runs a shared memory over each kind of
// bank hash the examples leave out (ipoly, bitwise_xor with 8-byte banks,
// add, rap, a configurable bitvector_perm: rows by kept bits, by the bits
// above the bank, by a run-time window) in lockstep with its model on the
// netlist simulator.
func TestSharedMemory_EveryRowKind(t *testing.T) {
	var tasks []verify.Task
	for _, u := range load(t, "testdata/shared_memory_hashes.hcl") {
		if u.UnitKind() != "shared_memory" {
			continue
		}
		b, diags := units.Build(u)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		sp := verify.DefaultSeqPlan()
		sp.Cycles = 30000
		tasks = append(tasks, verify.Task{Job: job(t, u, b), Plan: verify.DefaultPlan(), SeqPlan: sp, Engines: []verify.Engine{verify.Netlist}})
	}
	if len(tasks) != 5 {
		t.Fatalf("%d shared memories, want 5", len(tasks))
	}
	for i, os := range verify.RunTasks(context.Background(), tasks, 2, verify.Hooks{}) {
		for _, o := range os {
			switch {
			case o.Err != nil:
				t.Errorf("%s %s: %v", tasks[i].Job.Design.Name, o.Engine, o.Err)
			case o.Check.Mismatch != nil:
				t.Errorf("%s %s: %s", tasks[i].Job.Design.Name, o.Engine, o.Check.Mismatch)
			case o.Check.Vectors < 30000:
				t.Errorf("%s %s ran %d cycles, want 30000", tasks[i].Job.Design.Name, o.Engine, o.Check.Vectors)
			}
		}
	}
}
