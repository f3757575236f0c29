package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnitRefs_SuggestAndLoneUnit: every place a user names a unit
// suggests the nearest name for a typo, and a spec with one unit of the
// kind wanted needs no :UNIT.
func TestUnitRefs_SuggestAndLoneUnit(t *testing.T) {
	dir := t.TempDir()
	lone := filepath.Join(dir, "lone.hcl")
	if err := os.WriteFile(lone, []byte(`hash "only_xor" {
  function  = "fixed_xor"
  addr_bits = 14
  bank_bits = 5
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	small := "../../specs/coalescer_small.hcl"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"verify", "--unit", "coalesce_a2a_9", small}, `no unit "coalesce_a2a_9" in the specs (units: coalesce_a2a_8, coalesce_nbr_8, coalesce_spec_8, monotonic_8_cla4, monotonic_8_ripple, monotonic_8_prefix, monotonic_8_cla). Did you mean "coalesce_a2a_8"?`},
		{[]string{"verify", "--unit", "coalese_*", small}, `no unit matches "coalese_*"`},
		{[]string{"gen", "-o", dir, "--unit", "coalesce_nbr_9", small}, `Did you mean "coalesce_nbr_8"?`},
		{[]string{"timing", "--unit", "coalesce_spec_9", small}, `Did you mean "coalesce_spec_8"?`},
		{[]string{"timing", "sweep", "--unit", "coalesce_spec_9", "20:30:10", small}, `Did you mean "coalesce_spec_8"?`},
		{[]string{"crosscheck-timing", "--liberty", "x.lib", "--unit", "coalesce_spec_9", small}, `Did you mean "coalesce_spec_8"?`},
		{[]string{"timing", "--sweep-point", "coalesce_a2a_8@20", "--out-dir", dir, "--unit", "x", small}, "--unit: --sweep-point names its one unit"},
		{[]string{"conflicts", "--hash", lone + ":only_xr", walkTrace}, `Did you mean "only_xor"?`},
		{[]string{"pipesim", "--unit", "walk_splt", walkStudy, "--synthetic"}, `Did you mean "walk_split"?`},
	} {
		code, _, errOut := lsugen(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
	code, out, errOut := lsugen(t, "conflicts", "--hash", lone, walkTrace)
	if code != 0 || !strings.Contains(out, "banks: hash only_xor") {
		t.Errorf("--hash of a spec with one hash unit: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = lsugen(t, "timing", "--unit", "coalesce_nbr_*", small)
	if code != 0 || !strings.Contains(out, "coalesce_nbr_8") || strings.Contains(out, "coalesce_a2a_8") {
		t.Errorf("timing --unit coalesce_nbr_*: exit %d\n%s%s", code, out, errOut)
	}
}

// TestSpecs_VerilogNamedPlainly: a command that takes specs, given a
// Verilog file, says so once instead of reporting HCL parse errors.
func TestSpecs_VerilogNamedPlainly(t *testing.T) {
	dir := t.TempDir()
	v := filepath.Join(dir, "hash.v")
	if err := os.WriteFile(v, []byte("`timescale 1ns / 1ps\nmodule hash (input [3:0] a, output b);\n  assign b = ^a;\nendmodule\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// content, not only the name: a generated module saved as .hcl
	renamed := filepath.Join(dir, "hash.hcl")
	if err := os.Rename(v, renamed); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(v, []byte("module hash (a); endmodule\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"timing", v}, {"timing", renamed}, {"gen", "-o", dir, v}, {"verify", v}, {"crosscheck-timing", "--liberty", "x.lib", v},
	} {
		code, _, errOut := lsugen(t, args...)
		file := args[len(args)-1]
		if flat := strings.Join(strings.Fields(errOut), " "); code != 2 || !strings.Contains(flat, file+" is Verilog, not an HCL spec: give the .hcl spec it was generated from (or use verify --rtl)") ||
			strings.Count(errOut, "Error:") != 1 {
			t.Errorf("%v: exit %d, want 2 and one error saying it is Verilog:\n%s", args, code, errOut)
		}
	}
}

// TestUnitFlag_EverySpecCommand: every command that loads specs selects
// units with --unit.
func TestUnitFlag_EverySpecCommand(t *testing.T) {
	root := newRootCmd(&app{})
	for _, path := range [][]string{
		{"gen"}, {"timing"}, {"timing", "sweep"}, {"verify"}, {"verify", "sim"}, {"verify", "rtl"}, {"verify", "formal"},
		{"crosscheck-timing"}, {"pipesim"},
	} {
		c, _, err := root.Find(path)
		if err != nil || c.Flags().Lookup("unit") == nil {
			t.Errorf("%s: no --unit (%v)", strings.Join(path, " "), err)
		}
	}
}

// TestTraces_VerilogNamedPlainly: the trace commands, which take pattern
// specs, send a Verilog file to the spec loader too.
func TestTraces_VerilogNamedPlainly(t *testing.T) {
	v := filepath.Join(t.TempDir(), "hash.v")
	if err := os.WriteFile(v, []byte("module hash (a); endmodule\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"conflicts", v}, {"search", "--function", "bitvector_xor", "--addr-bits", "8", "--bank-bits", "3", v},
	} {
		code, _, errOut := lsugen(t, args...)
		if flat := strings.Join(strings.Fields(errOut), " "); code != 2 || !strings.Contains(flat, v+" is Verilog, not an HCL spec") {
			t.Errorf("%v: exit %d, want 2 and that it is Verilog:\n%s", args, code, errOut)
		}
	}
}

// TestUnitNames_SVGUnitAndSkip: the unit names of timing --svg-unit and
// crosscheck-timing --skip suggest the nearest name too.
func TestUnitNames_SVGUnitAndSkip(t *testing.T) {
	small := "../../specs/coalescer_small.hcl"
	code, _, errOut := lsugen(t, "timing", "--svg", filepath.Join(t.TempDir(), "t.svg"), "--svg-unit", "coalesce_nbr_9", small)
	if code != 2 || !strings.Contains(errOut, `--svg-unit coalesce_nbr_9: no unit "coalesce_nbr_9" in the specs (units: coalesce_a2a_8,`) ||
		!strings.Contains(errOut, `Did you mean "coalesce_nbr_8"?`) {
		t.Errorf("--svg-unit coalesce_nbr_9: exit %d, %s", code, errOut)
	}
	units, err := loadAndGenerate([]string{small}, budget{Units: []string{"coalesce_*"}}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for skip, want := range map[string]string{
		"coalesce_a2a_9": `--skip coalesce_a2a_9: no unit "coalesce_a2a_9" in the specs (units: coalesce_a2a_8, coalesce_nbr_8, coalesce_spec_8). Did you mean "coalesce_a2a_8"?`,
		"coalesce_*":     "--skip coalesce_*: a unit name, not a pattern",
	} {
		if _, err := crosscheckUnits(units, skip, 0); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--skip %s: %v, want %q", skip, err, want)
		}
	}
	if cu, err := crosscheckUnits(units, "coalesce_nbr_8", 0); err != nil || cu[1].Skip != "--skip" {
		t.Errorf("--skip coalesce_nbr_8: %v", err)
	}
}
