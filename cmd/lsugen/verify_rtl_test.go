package main

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/units"
	"github.com/lsugen/lsugen/verify"
)

// TestGenTB_WritesTestbenchesAndGoldenVectors: --tb adds NAME_tb.v and
// NAME.vec per unit, the ones verify.Golden renders (what `verify --rtl`
// runs), byte for byte the same on a second run.
func TestGenTB_WritesTestbenchesAndGoldenVectors(t *testing.T) {
	dir := t.TempDir()
	a := writeSpec(t, dir, "a.hcl", goodSpec)
	b := writeSpec(t, dir, "b.hcl", seqSpec)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := lsugen(t, "gen", "--tb", "-o", out, a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "wrote 8 files for 2 units") {
		t.Errorf("stdout = %q", stdout)
	}
	var got []string
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		got = append(got, e.Name())
	}
	sort.Strings(got)
	want := "h.v h.vec h_gates.v h_tb.v p.v p.vec p_gates.v p_tb.v"
	if strings.Join(got, " ") != want {
		t.Errorf("files %v, want %s (no temporaries)", got, want)
	}

	file, diags := specs.NewLoader().Load(a, b)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, su := range file.Units {
		d, gd := units.Generate(su)
		if gd.HasErrors() {
			t.Fatal(gd)
		}
		g, err := units.Golden(su, d)
		if err != nil {
			t.Fatal(err)
		}
		info := rtl.Info{Version: "lsugen " + gen.Version, Source: source(su)}
		for name, b := range map[string][]byte{verify.TestbenchFileName(d): g.Testbench(info), verify.VectorFileName(d): g.VectorFile(info)} {
			f, _ := os.ReadFile(filepath.Join(out, name))
			if string(f) != string(b) {
				t.Errorf("%s differs from verify.Golden's", name)
			}
		}
	}
	vec, _ := os.ReadFile(filepath.Join(out, "p.vec"))
	if !strings.Contains(string(vec), "# Clocked: the clock clk is no column.") || !strings.Contains(string(vec), "\n# 4096 cycles: ") {
		t.Errorf("p.vec header:\n%.1200s", vec)
	}

	out2 := filepath.Join(dir, "out2")
	if code, _, stderr := lsugen(t, "gen", "--tb", "-o", out2, a, b); code != 0 {
		t.Fatal(stderr)
	}
	for _, name := range got {
		x, _ := os.ReadFile(filepath.Join(out, name))
		y, _ := os.ReadFile(filepath.Join(out2, name))
		if string(x) != string(y) {
			t.Errorf("%s differs between two runs", name)
		}
	}
}

// TestGenTB_NameClash: a unit named like another unit's testbench is an
// error, and nothing is written.
func TestGenTB_NameClash(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "a.hcl", goodSpec+strings.Replace(goodSpec, `hash "h"`, `hash "h_tb"`, 1))
	out := filepath.Join(dir, "out")
	code, _, stderr := lsugen(t, "gen", "--tb", "-o", out, spec)
	if code != 2 || !strings.Contains(stderr, "two generated files are named h_tb.v") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		if entries, _ := os.ReadDir(out); len(entries) > 0 {
			t.Errorf("%d files written", len(entries))
		}
	}
}

// exampleRTL writes the generated RTL of the example spec's unit into a
// fresh directory (as `lsugen gen` does) and returns its path; with old
// and new given, the copy is hand-broken: old replaced by new, once.
func exampleRTL(t *testing.T, spec, unit, old, new string) string {
	t.Helper()
	dir := t.TempDir()
	if code, _, stderr := lsugen(t, "gen", "-o", dir, spec); code != 0 {
		t.Fatal(stderr)
	}
	path := filepath.Join(dir, unit+".v")
	if old == "" {
		return path
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(text), old) != 1 {
		t.Fatalf("%s has %d copies of %q, want 1", path, strings.Count(string(text), old), old)
	}
	broken := filepath.Join(t.TempDir(), unit+".v")
	if err := os.WriteFile(broken, []byte(strings.Replace(string(text), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return broken
}

var verifyFailRE = regexp.MustCompile(`module (\w+) \((icarus|verilator)\): (vector|cycle) (\d+) \(\S+ line \d+\): (\w+) expected`)

// TestVerifyRTL_BrokenUnitFailsBothSimulators: a hand-broken copy of a
// generated combinational and clocked unit fails `lsugen verify --rtl`
// under Icarus and Verilator, exit 1, both naming the same first failing
// vector (cycle); the unbroken RTL passes both, exit 0.
func TestVerifyRTL_BrokenUnitFailsBothSimulators(t *testing.T) {
	for _, c := range []struct {
		spec, unit, old, new, what string
		n                          int
	}{
		{"../../specs/hash_atomics.hcl", "atomic_xor", "addr_i[4:0] ^ addr_i[9:5];", "addr_i[4:0] | addr_i[9:5];", "vectors", 16384},
		{"../../specs/pipeline.hcl", "ep_elastic_m4", "mem1_tag <= mem0_tag;", "mem1_tag <= ~mem0_tag;", "cycles", 4096},
	} {
		t.Run(c.unit, func(t *testing.T) {
			good := exampleRTL(t, c.spec, c.unit, "", "")
			code, stdout, stderr := lsugen(t, "verify", "--rtl", good, "--unit", c.unit, c.spec)
			words := strings.Join(strings.Fields(stdout), " ")
			if code != 0 {
				t.Fatalf("unbroken: exit %d:\n%s%s", code, stdout, stderr)
			}
			for _, want := range []string{
				c.unit + " icarus PASS ",
				strconv.Itoa(c.n) + " " + c.what + " of " + c.unit + ".vec, module " + c.unit,
				c.unit + " verilator PASS ",
				"module " + c.unit + " matches the " + strconv.Itoa(c.n) + " golden " + c.what + " of " + c.unit + " under icarus and verilator",
			} {
				if !strings.Contains(words, want) {
					t.Errorf("unbroken: stdout has no %q:\n%s", want, stdout)
				}
			}

			bad := exampleRTL(t, c.spec, c.unit, c.old, c.new)
			code, stdout, stderr = lsugen(t, "verify", "--rtl", bad, "--unit", c.unit, c.spec)
			if code != 1 {
				t.Errorf("broken: exit %d, want 1:\n%s%s", code, stdout, stderr)
			}
			// The two simulators run at once: their failures come in
			// either order.
			ms := verifyFailRE.FindAllStringSubmatch(stderr, -1)
			sort.Slice(ms, func(i, j int) bool { return ms[i][2] < ms[j][2] })
			if len(ms) != 2 || ms[0][2] != "icarus" || ms[1][2] != "verilator" {
				t.Fatalf("broken: want a failure from icarus and from verilator:\n%s", stderr)
			}
			if ms[0][3] != c.what[:len(c.what)-1] || ms[0][4] != ms[1][4] {
				t.Errorf("broken: icarus fails at %s %s, verilator at %s %s", ms[0][3], ms[0][4], ms[1][3], ms[1][4])
			}
			if c.unit == "atomic_xor" && ms[0][4] != "33" {
				t.Errorf("broken: first failing vector %s, want 33 (address 0x21)", ms[0][4])
			}
			if !strings.Contains(stdout, "FAIL") || !strings.Contains(stderr, "FAILED; work directory kept") {
				t.Errorf("broken: stdout %q, stderr %q", stdout, stderr)
			}
		})
	}
}

// TestVerifyRTL_SeveralFilesAndTop: a module of another name, split over
// two files, is checked with --rtl twice and --top.
func TestVerifyRTL_SeveralFilesAndTop(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "a.hcl", goodSpec) // h: fixed_xor, 10-bit addresses, 5 bank bits
	top := writeSpec(t, dir, "top.v", "module my_hash (input wire [9:0] addr_i, output wire [4:0] bank_o);\n"+
		"    xor5 x (.a(addr_i[4:0]), .b(addr_i[9:5]), .y(bank_o));\nendmodule\n")
	sub := writeSpec(t, dir, "sub.v", "module xor5 (input wire [4:0] a, input wire [4:0] b, output wire [4:0] y);\n"+
		"    assign y = a ^ b;\nendmodule\n")
	code, stdout, stderr := lsugen(t, "verify", "--sim", "icarus", "--rtl", top, "--rtl", sub, "--top", "my_hash", spec)
	if code != 0 || !strings.Contains(stdout, "module my_hash matches the 1024 golden vectors of h under icarus") {
		t.Errorf("exit %d:\n%s%s", code, stdout, stderr)
	}
}

// TestVerifyRTL_Errors: bad arguments exit 2 with a message; a module
// with other ports exits 1 with the compiler's words.
func TestVerifyRTL_Errors(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "a.hcl", goodSpec+strings.Replace(goodSpec, `hash "h"`, `hash "g"`, 1))
	good := writeSpec(t, dir, "h.v", "module h (input wire [9:0] addr_i, output wire [4:0] bank_o);\n"+
		"    assign bank_o = addr_i[4:0] ^ addr_i[9:5];\nendmodule\n")
	narrow := writeSpec(t, dir, "narrow.v", "module h (input wire [8:0] addr_i, output wire [4:0] bank_o);\n"+
		"    assign bank_o = addr_i[4:0] ^ {1'b0, addr_i[8:5]};\nendmodule\n")
	missing := filepath.Join(dir, "missing.v")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--rtl", good, "--unit", "nope", spec}, 2, `no unit "nope" in the specs (units: h, g)`},
		{[]string{"--rtl", good, spec}, 2, "the specs declare 2 units: choose one with --unit (h, g)"},
		{[]string{"--rtl", missing, "--unit", "h", spec}, 2, "--rtl " + missing + ": no such file or directory"},
		{[]string{"--rtl", dir, "--unit", "h", spec}, 2, "a directory, not a Verilog file"},
		{[]string{"--top", "h", spec}, 2, "--top needs --rtl FILE.v"},
		{[]string{"--rtl", good, "--unit", "*", "--top", "h", spec}, 2, "--top names one module: select one unit with --unit (selected: h, g)"},
		{[]string{"--rtl", good, "--unit", "h", "--seed", "2", spec}, 2, "--seed: not with --rtl"},
		{[]string{"--rtl", good, "--unit", "h", "--sim", "netlist", spec}, 2, "--sim netlist: --rtl runs Verilog files"},
		{[]string{"--rtl", narrow, "--unit", "h", "--sim", "icarus", spec}, 1, "its ports differ from the unit's"},
		{[]string{"--rtl", good, "--unit", "h", "--top", "hh", "--sim", "icarus", spec}, 1, "Unknown module type: hh"},
	} {
		code, stdout, stderr := lsugen(t, append([]string{"verify"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want %d and %q:\n%s%s", c.args, code, c.code, c.want, stdout, stderr)
		}
	}
}
