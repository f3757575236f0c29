package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/tools/conflicts"
)

const conflictTrace = `@st
0 256 512 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
`

const xorSpec = `hash "x" {
  function  = "fixed_xor"
  addr_bits = 14
  bank_bits = 5
}
hash "cfg" {
  function     = "bitvector_xor"
  addr_bits    = 14
  bank_bits    = 5
  configurable = true
}
`

// TestConflicts_TextModuloAndHash checks the text table under mod 32 (3-way)
// and under the fixed XOR hash named by --hash (2-way).
func TestConflicts_TextModuloAndHash(t *testing.T) {
	dir := t.TempDir()
	tr := writeSpec(t, dir, "a.trace", conflictTrace)
	spec := writeSpec(t, dir, "h.hcl", xorSpec)
	code, out, errOut := lsugen(t, "conflicts", tr)
	if code != 0 || !strings.Contains(out, "total: 1 accesses, 2 bank conflicts (max 3-way)") {
		t.Fatalf("code %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = lsugen(t, "conflicts", "--hash", spec+":x", "--lock-bits", "10", "--accesses", tr)
	if code != 0 || !strings.Contains(out, "banks: hash x (32 banks); locks: bits 9:0 (1024 locks)") ||
		!strings.Contains(out, "total: 1 accesses, 1 bank conflicts (max 2-way), 0 lock conflicts (max 1-way), 0 position conflicts") {
		t.Fatalf("code %d\n%s%s", code, out, errOut)
	}
}

// TestConflicts_JSONFromPatterns expands the example spec's pattern blocks
// and checks the JSON schema and the transpose store's 8-way conflicts.
func TestConflicts_JSONFromPatterns(t *testing.T) {
	code, out, errOut := lsugen(t, "conflicts", "--json", "../../specs/patterns_000.hcl")
	if code != 0 {
		t.Fatalf("code %d: %s", code, errOut)
	}
	var rep conflicts.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.NumBanks != 32 || len(rep.Inputs) != 1 {
		t.Fatalf("%+v", rep)
	}
	for _, it := range rep.Inputs[0].Instrs {
		if it.Instr == "transpose_store" && (it.MaxBankDegree != 8 || it.BankConflicts != 8*7) {
			t.Errorf("transpose_store %+v, want 8 warps of 8-way", it)
		}
	}
}

func TestConflicts_Errors(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "h.hcl", xorSpec)
	bad := writeSpec(t, dir, "bad.trace", "1 2\n0xzz\n")
	units := writeSpec(t, dir, "u.hcl", xorSpec)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"conflicts"}, 2, "no trace or spec files"},
		{[]string{"conflicts", "--banks", "0", bad}, 2, "--banks: 0 banks: want 1 to"},
		{[]string{"conflicts", "--bank-bytes", "16", bad}, 2, "--bank-bytes 16: want 4 or 8"},
		{[]string{"conflicts", "--lock-bits", "40", bad}, 2, "--lock-bits"},
		{[]string{"conflicts", "--lock-bits", "10", "--lock-hash", spec + ":x", bad}, 2, "--lock-bits and --lock-hash"},
		{[]string{"conflicts", "--lock-hash", spec, bad}, 2, "--lock-hash " + spec + ": " + spec + " declares 2 hash units (x, cfg): name one, written " + spec + ":UNIT"},
		{[]string{"conflicts", "--lock-hash", "", bad}, 2, "want SPEC:UNIT"},
		{[]string{"conflicts", "--lock-hash", spec + ":nope", bad}, 2, `declares no unit "nope"`},
		{[]string{"conflicts", "--lock-hash", spec + ":cfg", bad}, 2, "--lock-hash " + spec + ":cfg: hash \"cfg\" is configurable"},
		{[]string{"conflicts", "--lock-hash", "../../specs/pipeline_figure4.hcl:figure4_pipeline", bad}, 2, "is an elastic_pipeline unit, not a hash"},
		{[]string{"conflicts", "--lock-hash", "../../specs/pipeline_figure4.hcl", bad}, 2, "pipeline_figure4.hcl declares no hash unit"},
		{[]string{"conflicts", "--lock-hash", spec + ":xx", bad}, 2, `declares no unit "xx". Did you mean "x"? Its hash units: x, cfg.`},
		{[]string{"conflicts", "--hash", spec + ":cfgx", bad}, 2, `Did you mean "cfg"?`},
		{[]string{"conflicts", "--lock-hash", dir + "/missing.hcl:x", bad}, 2, "missing.hcl"},
		{[]string{"conflicts", bad}, 2, "bad.trace:2: address 1"},
		{[]string{"conflicts", "--hash", spec, bad}, 2, "name one, written " + spec + ":UNIT"},
		{[]string{"conflicts", "--hash", spec + ":nope", bad}, 2, `declares no unit "nope"`},
		{[]string{"conflicts", "--hash", spec + ":cfg", bad}, 2, "configurable"},
		{[]string{"conflicts", units}, 2, "declares no pattern blocks"},
		{[]string{"conflicts", dir + "/missing.trace"}, 2, "missing.trace"},
	} {
		code, _, errOut := lsugen(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: code %d, stderr %q; want %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}

// TestConflicts_LockBitsOutOfRange is issue 18: --lock-bits 63, 64, 65 and
// 1000 overflowed 1<<n past the range check and panicked in Degree; a
// negative value was taken silently as "no locks". All are usage errors.
func TestConflicts_LockBitsOutOfRange(t *testing.T) {
	tr := writeSpec(t, t.TempDir(), "a.trace", conflictTrace)
	for _, n := range []string{"63", "64", "65", "1000", "25", "-1", "-5", "-9223372036854775808", "9223372036854775807"} {
		code, out, errOut := lsugen(t, "conflicts", "--lock-bits", n, tr)
		if code != 2 || out != "" || !strings.Contains(errOut, "--lock-bits: "+n+" lock bits: want 0 to 24") {
			t.Errorf("--lock-bits %s: code %d, stdout %q, stderr %q; want 2 and a range message", n, code, out, errOut)
		}
	}
	for _, n := range []string{"0", "10", "24"} {
		if code, _, errOut := lsugen(t, "conflicts", "--lock-bits", n, tr); code != 0 {
			t.Errorf("--lock-bits %s: code %d: %s", n, code, errOut)
		}
	}
}

// TestConflicts_Figure5LockHash runs Fig. 5c of 002_* (stride 256) under
// the conventional mapping and under the paper's hashed banks and locks:
// the report names the lock mapping, and the hash removes every lock
// conflict (112, at most 8-way, to none) but not every bank conflict (496
// to 124). The per-access degrees are tools/conflicts' TestFigure5_Paper002.
func TestConflicts_Figure5LockHash(t *testing.T) {
	const (
		fig5c = "../../specs/traces/fig5c_002.trace"
		bank  = "../../specs/hash_atomics.hcl:atomic_xor"
		lock  = "../../specs/locks_002.hcl:lock_xor"
	)
	code, out, errOut := lsugen(t, "conflicts", "--lock-bits", "10", fig5c)
	if code != 0 || !strings.HasPrefix(out, "banks: mod 32 (32 banks); locks: bits 9:0 (1024 locks)\n") ||
		!strings.Contains(out, "total: 32 accesses, 496 bank conflicts (max 32-way), 112 lock conflicts (max 8-way), 0 position conflicts") {
		t.Fatalf("code %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = lsugen(t, "conflicts", "--hash", bank, "--lock-hash", lock, fig5c)
	if code != 0 || !strings.HasPrefix(out, "banks: hash atomic_xor (32 banks); locks: hash lock_xor (1024 locks)\n") ||
		!strings.Contains(out, "total: 32 accesses, 124 bank conflicts (max 8-way), 0 lock conflicts (max 1-way), 0 position conflicts") {
		t.Fatalf("code %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = lsugen(t, "conflicts", "--json", "--lock-hash", lock, fig5c)
	if code != 0 {
		t.Fatalf("code %d: %s", code, errOut)
	}
	var rep conflicts.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Banks != "mod 32" || rep.Locks != "hash lock_xor" || rep.NumLocks != 1024 ||
		rep.Total.LockConflicts != 0 || rep.Total.MaxLockDegree != 1 || rep.Total.BankConflicts != 496 {
		t.Errorf("banks %q, locks %q (%d), total %+v", rep.Banks, rep.Locks, rep.NumLocks, rep.Total)
	}
}
