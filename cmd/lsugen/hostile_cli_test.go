package main

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
)

// Hostile inputs of issue 18: wrong results, exit codes and diagnostics.

// fullWriter fails every write, as /dev/full does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestHostile_StdoutWriteErrorFails: a report that cannot be written is a
// failure (exit status 1) with a message, for every command, never exit 0.
func TestHostile_StdoutWriteErrorFails(t *testing.T) {
	for _, args := range [][]string{
		{"version"},
		{"timing", "--help"},
		{"search", "--count", "--addr-bits", "8", "--bank-bits", "2"},
		{"timing", "../../specs/hash_atomics.hcl"},
	} {
		var e bytes.Buffer
		code := run(args, fullWriter{}, &e)
		if code != 1 || !strings.Contains(e.String(), "no space left on device") {
			t.Errorf("lsugen %s > /dev/full: exit %d, stderr %q; want 1 naming the write error", strings.Join(args, " "), code, e.String())
		}
	}
}

// TestHostile_DashDashPositional: every argument after -- is an argument,
// even one that looks like a flag.
func TestHostile_DashDashPositional(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "-weird-name.trace")
	if err := os.WriteFile(tr, []byte("0x10\n0x20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	code, stdout, stderr := lsugen(t, "conflicts", "--", "-weird-name.trace")
	if code != 0 || !strings.Contains(stdout, "2 accesses") {
		t.Errorf("conflicts -- -weird-name.trace: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	for _, name := range []string{"-h", "--help", "--version", "-o"} {
		code, _, stderr := lsugen(t, "conflicts", "--", name)
		if code != 2 || !strings.Contains(stderr, "open "+name) {
			t.Errorf("conflicts -- %s: exit %d, stderr %q; want the file %s refused as missing", name, code, stderr, name)
		}
	}
}

// TestHostile_ClockPeriods: --clock refuses NaN, infinities, non-positive
// and absurd periods with exit status 2, in timing and profile alike, and
// CyclesAt never wraps.
func TestHostile_ClockPeriods(t *testing.T) {
	for _, cmd := range []string{"timing", "profile"} {
		for _, c := range []string{"NaN", "nan", "1e-19", "0.05", "-1", "Inf", "-Inf", "1e7", "40,NaN"} {
			code, stdout, stderr := lsugen(t, cmd, "--clock", c, "../../specs/hash_atomics.hcl")
			if code != 2 || !strings.Contains(stderr, "--clock") || !strings.Contains(stderr, "1e+06") || stdout != "" {
				t.Errorf("%s --clock %s: exit %d, stderr %q, stdout %q; want 2 stating the range", cmd, c, code, stderr, stdout)
			}
		}
	}
	code, stdout, stderr := lsugen(t, "timing", "--clock", "0.1", "../../specs/hash_atomics.hcl")
	if code != 0 || !strings.Contains(stdout, "@0.1 FO4") {
		t.Errorf("timing --clock 0.1: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, c := range []struct{ fo4, clock float64 }{{1e300, 1e-300}, {math.NaN(), 40}, {40, math.NaN()}, {math.Inf(1), 40}} {
		if got := timing.CyclesAt(c.fo4, c.clock); got != 1<<53 {
			t.Errorf("CyclesAt(%v, %v) = %d, want 2^53 (clamped, never wrapped)", c.fo4, c.clock, got)
		}
	}
}

// TestHostile_CountMagnitude: the count of all functions, 10^(m·2^n·log10 2),
// keeps its exponent past int64 (n = 64); the expected exponents are
// floor(m·2^n·log10 2), computed to 80 digits elsewhere.
func TestHostile_CountMagnitude(t *testing.T) {
	for _, c := range []struct{ n, m, want string }{
		{"64", "16", "3.1e88848372616373714116"},
		{"64", "1", "1.9e5553023288523357132"},
		{"40", "3", "5.2e992957941625"},
	} {
		code, stdout, stderr := lsugen(t, "search", "--count", "--addr-bits", c.n, "--bank-bits", c.m)
		if code != 0 || !strings.Contains(stdout, "(2^m)^(2^n)              "+c.want+"\n") {
			t.Errorf("search --count n=%s m=%s: exit %d, want all functions %s\n%s%s", c.n, c.m, code, c.want, stdout, stderr)
		}
	}
}

// TestHostile_SearchName: search -o --name refuses, before work and with
// exit status 2, every name the loader would refuse as a unit name, and
// writes nothing; a name it accepts gives a file the loader reads.
func TestHostile_SearchName(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "h.hcl")
	args := func(name string) []string {
		return []string{"search", "--function", "bitvector_perm", "--addr-bits", "8", "--bank-bits", "2", "--stride", "1", "-o", out, "--name", name}
	}
	for _, name := range []string{"module", "wire", "always_ff", "a$b", "", "9x", strings.Repeat("n", 65)} {
		code, _, stderr := lsugen(t, args(name)...)
		if code != 2 || !strings.Contains(stderr, "--name") {
			t.Errorf("search --name %q: exit %d, stderr %q; want 2 naming --name", name, code, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("search --name %q wrote %s", name, out)
		}
	}
	if code, _, stderr := lsugen(t, args("my_hash")...); code != 0 {
		t.Fatalf("search --name my_hash: exit %d\n%s", code, stderr)
	}
	if _, diags := specs.NewLoader().Load(out); diags.HasErrors() {
		t.Errorf("the loader refuses what search -o wrote: %v", diags)
	}
}

// TestHostile_VerifyVectorBudget: a vector count past the budget (from
// --vectors, --configs or --max-vectors) is refused before work, with exit
// status 2 and the limit named, instead of running out of memory.
func TestHostile_VerifyVectorBudget(t *testing.T) {
	thesis := "../../specs/coalescer_thesis.hcl"
	wide := writeSpec(t, t.TempDir(), "wide.hcl", "hash \"wide\" {\n  function  = \"bitwise_xor\"\n  addr_bits = 48\n  bank_bits = 2\n  bits      = [[0, 47], [1, 46]]\n}\n")
	for _, args := range [][]string{
		{"--vectors", "1000000000000", "--unit", "coalesce_spec_32", thesis},
		{"--vectors", "100000000", "--unit", "coalesce_spec_32", thesis},
		{"--configs", "1000000000000", "../../specs/hash_configurable.hcl"},
		// 2^48 exhaustive vectors of a 48-bit input.
		{"--max-vectors", "4611686018427387904", wide},
	} {
		code, stdout, stderr := lsugen(t, append([]string{"verify", "--sim", "netlist"}, args...)...)
		if code != 2 || !strings.Contains(stderr, "verify budget") || !strings.Contains(stderr, "GiB") || stdout != "" {
			t.Errorf("verify --sim netlist %s: exit %d\nstdout %s\nstderr %s\nwant 2 naming the budget", strings.Join(args, " "), code, stdout, stderr)
		}
	}
	// Within the budget: the plan runs.
	if code, stdout, stderr := lsugen(t, "verify", "--sim", "netlist", "--vectors", "1000", "--unit", "coalesce_nbr_32", thesis); code != 0 {
		t.Errorf("verify --vectors 1000: exit %d\n%s%s", code, stdout, stderr)
	}
}
