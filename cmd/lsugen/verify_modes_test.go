package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/internal/testenv"
	"github.com/lsugen/lsugen/toolchain"
)

// durations are the times in a verify report's lines and table, and the
// spaces that align them.
var durations = regexp.MustCompile(`[0-9.]+(ms|s|m|µs)\b|"seconds": [0-9.e-]+| +`)

// TestVerify_SubcommandsAndOldSpellings: verify sim, verify rtl and verify
// formal print what verify, verify --rtl FILE.v and verify --formal print
// (times aside, on stdout and stderr: --json reports its progress there),
// with the same exit status.
func TestVerify_SubcommandsAndOldSpellings(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "h.hcl", goodSpec)
	out := filepath.Join(dir, "out")
	if code, _, stderr := lsugen(t, "gen", "-o", out, spec); code != 0 {
		t.Fatalf("gen: exit %d\n%s", code, stderr)
	}
	dut := filepath.Join(out, "h.v")
	for _, c := range []struct {
		old, sub []string
		want     string
	}{
		{[]string{"verify", "--sim", "netlist"}, []string{"verify", "sim", "--sim", "netlist"}, "verified 1 units: model = netlist"},
		{[]string{"verify", "--sim", "netlist", "--vectors", "300", "--json"}, []string{"verify", "sim", "--sim", "netlist", "--vectors", "300", "--json"}, `"mode": "simulation"`},
		{[]string{"verify", "--rtl", dut, "--sim", "icarus"}, []string{"verify", "rtl", "--rtl", dut, "--sim", "icarus"}, "1024 vectors of h.vec, module h"},
		// Without the proof cache, or the second run would take the first one's proof.
		{[]string{"verify", "--formal", "--no-cache"}, []string{"verify", "formal", "--no-cache"}, "proved 1 units: RTL = gates"},
	} {
		code1, out1, err1 := lsugen(t, append(c.old, spec)...)
		code2, out2, err2 := lsugen(t, append(c.sub, spec)...)
		if code1 != 0 || !strings.Contains(out1, c.want) {
			t.Errorf("%v: exit %d, stdout lacks %q:\n%s\nstderr:\n%s", c.old, code1, c.want, out1, err1)
		}
		if code1 != code2 || durations.ReplaceAllString(out1, "T") != durations.ReplaceAllString(out2, "T") ||
			durations.ReplaceAllString(err1, "T") != durations.ReplaceAllString(err2, "T") {
			t.Errorf("%v and %v differ: exit %d and %d\nstdout:\n%s\n%s\nstderr:\n%s\n%s", c.old, c.sub, code1, code2, out1, out2, err1, err2)
		}
	}
}

// TestVerify_SubcommandFlags: each subcommand takes its own mode's flags
// only, verify rtl needs --rtl, and each has its own help.
func TestVerify_SubcommandFlags(t *testing.T) {
	spec := writeSpec(t, t.TempDir(), "h.hcl", goodSpec)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"verify", "sim", "--formal", spec}, "unknown flag: --formal"},
		{[]string{"verify", "sim", "--rtl", "x.v", spec}, "unknown flag: --rtl"},
		{[]string{"verify", "formal", "--vectors", "5", spec}, "unknown flag: --vectors"},
		{[]string{"verify", "formal", "--sim", "netlist", spec}, "unknown flag: --sim"},
		{[]string{"verify", "rtl", "--cycles", "5", spec}, "unknown flag: --cycles"},
		{[]string{"verify", "rtl", spec}, "give the Verilog to check: --rtl FILE.v"},
		{[]string{"verify", "--formal", "--rtl", "x.v", spec}, "--formal and --rtl exclude each other"},
		{[]string{"verify", "formal"}, "no spec files given"},
	} {
		code, stdout, stderr := lsugen(t, c.args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, stdout, stderr, c.want)
		}
	}
	for sub, want := range map[string]string{
		"sim":    "lsugen verify sim [--sim LIST]",
		"rtl":    "lsugen verify rtl --rtl FILE.v...",
		"formal": "lsugen verify formal [--timeout D]",
	} {
		code, stdout, _ := lsugen(t, "verify", sub, "--help")
		if code != 0 || !strings.Contains(stdout, want) || !strings.Contains(stdout, "Also spelled verify") {
			t.Errorf("verify %s --help: exit %d, want its own usage %q:\n%s", sub, code, want, stdout)
		}
	}
}

// TestVerifySim_RunCache: a second `verify sim` of the same unit takes
// Icarus's and Verilator's outputs from the run cache, building nothing in
// its work directory, passes the same and says so on each line; with
// --no-cache it builds and runs.
func TestVerifySim_RunCache(t *testing.T) {
	// A cache of its own, Verilator's run-time library from the machine's.
	testenv.NewCache(t, toolchain.CacheDirEnv, toolchain.CacheRoot(), "verilator-rt", "verilator-pch")
	dir := t.TempDir()
	spec := writeSpec(t, dir, "h.hcl", goodSpec)
	products := []string{"h/icarus/sim_icarus.vvp", "h/verilator/obj_verilator"}
	for i, c := range []struct {
		noCache bool
		built   bool
	}{{false, true}, {false, false}, {true, true}} {
		work := filepath.Join(dir, fmt.Sprintf("work%d", i))
		args := []string{"verify", "sim", "--sim", "icarus,verilator", "--vectors", "500", "--work", work, spec}
		if c.noCache {
			args = append(args, "--no-cache")
		}
		code, stdout, stderr := lsugen(t, args...)
		if code != 0 || !strings.Contains(stdout, "verified 1 units: model = icarus = verilator") {
			t.Fatalf("%v: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, stdout, stderr)
		}
		for _, p := range products {
			if _, err := os.Stat(filepath.Join(work, p)); (err == nil) != c.built {
				t.Errorf("run %d (--no-cache %v): %s built %v, want %v", i, c.noCache, p, err == nil, c.built)
			}
		}
		// Each cached check says so on its line.
		if n := strings.Count(stdout, "(outputs from the run cache)"); n != map[bool]int{true: 0, false: 2}[c.built] {
			t.Errorf("run %d (--no-cache %v): %d lines say their outputs came from the run cache:\n%s", i, c.noCache, n, stdout)
		}
	}
}
