package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/tools/conflicts"
	"github.com/lsugen/lsugen/tools/replay"
)

const fermiShmem = "../../specs/large/shared_memory_fermi.hcl"

// replayTraces are the example traces with shared-memory instructions
// (the profile_* traces have none).
var replayTraces = []string{
	"../../specs/traces/accelsim/kernelslist.g",
	"../../specs/traces/accelsim/pipesim_example.traceg",
	"../../specs/traces/fig5a_002.trace",
	"../../specs/traces/fig5b_002.trace",
	"../../specs/traces/fig5c_002.trace",
	"../../specs/traces/transpose.trace",
}

// TestReplay_AgreesWithConflicts replays every example trace with
// shared-memory instructions through the Fermi-like memory on the netlist
// simulator, in lockstep with the model: every instruction takes the
// passes its prediction says, in as many bank cycles, and the prediction
// per instruction group is what `lsugen conflicts` reports under the same
// hash and bank width (accesses + bank conflicts).
func TestReplay_AgreesWithConflicts(t *testing.T) {
	for _, tr := range replayTraces {
		t.Run(filepath.Base(tr), func(t *testing.T) {
			code, out, errOut := lsugen(t, "replay", "--json", fermiShmem+":shmem_fermi", tr)
			if code != 0 {
				t.Fatalf("code %d: %s%s", code, out, errOut)
			}
			var rep replay.Report
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			if !rep.Agree() || rep.Total.Instructions == 0 || rep.Total.Measured != rep.Total.Predicted || rep.Total.Cycles != rep.Total.Measured {
				t.Fatalf("replay disagrees: %+v", rep)
			}
			code, out, errOut = lsugen(t, "conflicts", "--json", "--hash", fermiShmem+":fermi_bank_xor", tr)
			if code != 0 {
				t.Fatalf("conflicts: code %d: %s", code, errOut)
			}
			var crep conflicts.Report
			if err := json.Unmarshal([]byte(out), &crep); err != nil {
				t.Fatal(err)
			}
			want := map[string]int{}
			for _, it := range crep.Inputs[0].Instrs {
				want[it.Instr] += it.Accesses + it.BankConflicts
			}
			if it := crep.Inputs[0].Instrs; len(it) != len(rep.Inputs[0].Instrs) {
				t.Fatalf("%d groups replayed, conflicts has %d", len(rep.Inputs[0].Instrs), len(it))
			}
			for _, r := range rep.Inputs[0].Instrs {
				name := r.Name
				if name == "(unnamed)" {
					name = ""
				}
				if r.Predicted != want[name] || r.Measured != r.Predicted {
					t.Errorf("%s: predicted %d, measured %d; lsugen conflicts: %d", r.Name, r.Predicted, r.Measured, want[name])
				}
			}
		})
	}
}

// TestReplay_Refusals: bad input is refused before any simulation, with
// the reason.
func TestReplay_Refusals(t *testing.T) {
	dir := t.TempDir()
	wide := filepath.Join(dir, "wide.trace")
	if err := os.WriteFile(wide, []byte("@w\n0 1 2 3 4 5 6 7 8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	far := filepath.Join(dir, "far.trace")
	if err := os.WriteFile(far, []byte("@f\n0 128\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	small := "../../specs/shared_memory.hcl:shmem_small"
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{fermiShmem + ":nope", replayTraces[0]}, 2, `declares no unit "nope". Its shared_memory units: shmem_fermi.`},
		{[]string{fermiShmem + ":shmem_frmi", replayTraces[0]}, 2, `Did you mean "shmem_fermi"?`},
		{[]string{fermiShmem + ":fermi_bank_xor", replayTraces[0]}, 2, "is a hash unit, not a shared_memory"},
		{[]string{small, replayTraces[0]}, 2, "lane 31 is active, but shmem_small has 8 lanes"},
		{[]string{small, wide}, 2, "9 lanes, but shmem_small has 8"},
		{[]string{small, far}, 2, "word address 128 is at or past the 128 words of shmem_small"},
		{[]string{small, filepath.Join(dir, "missing.trace")}, 2, "no such file"},
		{[]string{"../../specs/shared_memory.hcl:shmem_wide", replayTraces[0]}, 2, "128-bit accesses: shmem_wide supports [32 64]"},
		{[]string{"../../specs/shared_memory.hcl:shmem_cfg", replayTraces[2]}, 2, "configurable"},
		{[]string{"--sim", "icarus", small, wide}, 2, "want netlist or verilator"},
		{[]string{small}, 2, "want SPEC:UNIT and at least one trace"},
	}
	for _, c := range cases {
		code, out, errOut := lsugen(t, append([]string{"replay"}, c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("replay %v: code %d, want %d with %q\n%s%s", c.args, code, c.code, c.want, out, errOut)
		}
	}
}

// TestReplay_Verilator replays an 8-lane kernel (stores, loads of every
// width, an atomic on one word) through the 8-lane memory on Verilator in
// lockstep with the model: the RTL and gate-level modules both agree.
func TestReplay_Verilator(t *testing.T) {
	// From the checkout's root, as lsugen-bench's replay part runs: the
	// Verilog names its spec by the path given, so both write the same
	// files and the second finds the first's model in lsugen's cache.
	t.Chdir("../..")
	code, out, errOut := lsugen(t, "replay", "--sim", "verilator", "specs/shared_memory.hcl:shmem_small", "tools/replay/testdata/kernel-3.traceg")
	if code != 0 || !strings.Contains(out, "engine: verilator") || !strings.Contains(out, "agree: all 6 instructions") {
		t.Fatalf("code %d\n%s%s", code, out, errOut)
	}
}
