package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/tools/conflicts"
)

const accelSimList = "../../specs/traces/accelsim/kernelslist.g"

// TestConflicts_AccelSimList runs the example Accel-Sim traces (a version-4
// kernel with line numbers, a version-3 xz kernel) and checks the
// hand-computed conflicts per instruction and kernel: a column read at
// stride 128 bytes is 32-way, a 128-bit access by 8 lanes at stride 256
// bytes 8-way, a 64-bit access two conflict-free half-warps, an atomic
// of 32 lanes on one word 32-way (atomics have no broadcast: the banks
// apply the lanes one at a time).
func TestConflicts_AccelSimList(t *testing.T) {
	code, out, errOut := lsugen(t, "conflicts", "--json", "--lock-bits", "4", accelSimList)
	if code != 0 {
		t.Fatalf("code %d: %s", code, errOut)
	}
	var rep conflicts.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	in := rep.Inputs[0]
	want := map[string][3]int{ // accesses, bank conflicts, max degree
		"k1 _Z9transposePfS_ STS 0x0010":     {1, 0, 1},
		"k1 _Z9transposePfS_ LDS 0x0020":     {2, 31, 32},
		"k1 _Z9transposePfS_ LDS.64 0x0030":  {2, 0, 1},
		"k1 _Z9transposePfS_ LDS.128 0x0040": {1, 7, 8},
		"k2 _Z6reducePi LDS.U.32 0x0010":     {1, 1, 2},
		"k2 _Z6reducePi ATOMS.ADD 0x0020":    {1, 31, 32},
		"k2 _Z6reducePi ATOMS.ADD 0x0030":    {1, 7, 8},
	}
	if len(in.Instrs) != len(want) {
		t.Fatalf("%d instructions, want %d: %+v", len(in.Instrs), len(want), in.Instrs)
	}
	for _, it := range in.Instrs {
		w, ok := want[it.Instr]
		if !ok || [3]int{it.Accesses, it.BankConflicts, it.MaxBankDegree} != w {
			t.Errorf("%q: %+v, want %v", it.Instr, it.Totals, w)
		}
	}
	// Kernel 2's atomics under 16 locks (bits 3:0): 32 lanes on one word
	// (31 position conflicts); 16 lanes on words 16i (one lock, 16-way).
	k2 := in.Kernels[1]
	if len(in.Kernels) != 2 || k2.Kernel != "k2 _Z6reducePi" || k2.Atomics != 2 || k2.LockConflicts != 15 ||
		k2.MaxLockDegree != 16 || k2.PositionConflicts != 31 || in.Kernels[0].BankConflicts != 38 {
		t.Errorf("kernels %+v", in.Kernels)
	}
	if in.SkippedNotShared != 1 || rep.Total.Accesses != 9 || rep.Total.BankConflicts != 77 || rep.BankBytes != 4 {
		t.Errorf("report %+v", rep)
	}
	// 8-byte banks: the column read is 16-way, the 128-bit access 8-way
	// in one phase, the strided atomics 4-way, the one-word atomic 32-way.
	code, out, errOut = lsugen(t, "conflicts", "--bank-bytes", "8", accelSimList)
	if code != 0 || !strings.Contains(out, "banks: mod 32 (32 banks) of 8 bytes") ||
		!strings.Contains(out, "total: 8 accesses, 56 bank conflicts (max 32-way)") {
		t.Fatalf("code %d\n%s%s", code, out, errOut)
	}
	// 17 banks (not a power of two): a single kernel file, xz-compressed.
	code, out, errOut = lsugen(t, "conflicts", "--banks", "17", "../../specs/traces/accelsim/kernel-2.traceg.xz")
	if code != 0 || !strings.Contains(out, "banks: mod 17 (17 banks)") {
		t.Fatalf("code %d\n%s%s", code, out, errOut)
	}
}

// TestConflicts_AccelSimErrors checks located errors from a malformed
// kernel file named by a list.
func TestConflicts_AccelSimErrors(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "kernelslist.g"), []byte("kernel-1.traceg\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "kernel-1.traceg"), []byte("-accelsim tracer version = 4\n#BEGIN_TB\nwarp = 0\ninsts = 1\n0010 0000000f 1 R1 LDS 1 R2 4 0 0x0 0x4 0\n#END_TB\n"), 0o644)
	code, _, errOut := lsugen(t, "conflicts", filepath.Join(dir, "kernelslist.g"))
	if code != 2 || !strings.Contains(errOut, "kernel-1.traceg:5: line ends before the address of active lane 4 of 4") {
		t.Errorf("code %d, stderr %q", code, errOut)
	}
}

// TestLoadTracesWith_AccelSim loads the example list for search: one
// trace, its accesses named per kernel and PC, 64-bit accesses in phases.
func TestLoadTracesWith_AccelSim(t *testing.T) {
	traces, err := loadTracesWith([]string{accelSimList}, inputOptions{}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	acc := traces[0].Accesses
	if len(traces) != 1 || len(acc) != 9 || acc[0].Kernel != "k1 _Z9transposePfS_" || acc[8].Kernel != "k2 _Z6reducePi" {
		t.Fatalf("%d accesses: %+v", len(acc), acc)
	}
	// The LDS.64 at 0x0030: lanes 0-15 words 0..31, lanes 16-31 words 32..63.
	if acc[2].Instr != "k1 _Z9transposePfS_ LDS.64 0x0030" || len(acc[2].Addrs) != 32 || acc[2].Addrs[31] != 31 || acc[3].Addrs[0] != 32 {
		t.Errorf("phases: %+v %+v", acc[2], acc[3])
	}
}
