package specs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func loadUnitsForRef(t *testing.T, src string) []Unit {
	t.Helper()
	file, diags := NewLoader().Parse([]byte(src), "u.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return file.Units
}

const refSpec = `
hash "bank_xor" {
  function  = "fixed_xor"
  addr_bits = 8
  bank_bits = 4
}
hash "lock_xor" {
  function  = "fixed_xor"
  addr_bits = 8
  bank_bits = 3
}
monotonicity_detector "mono" {
  lanes = 4
  addr_bits = 8
}
`

func TestFindUnit_SuggestsAndTakesTheLoneUnit(t *testing.T) {
	us := loadUnitsForRef(t, refSpec)
	for _, c := range []struct {
		name, kind string
		want       string // the unit, or an error's part
		err        bool
	}{
		{"bank_xor", "hash", "bank_xor", false},
		{"bank_xr", "hash", `u.hcl declares no unit "bank_xr". Did you mean "bank_xor"? Its hash units: bank_xor, lock_xor.`, true},
		{"mon", "hash", `Did you mean "mono"?`, true}, // of another kind, still the nearest name
		{"mono", "hash", "mono is a monotonicity_detector unit, not a hash", true},
		{"", "monotonicity_detector", "mono", false},
		{"", "hash", "u.hcl declares 2 hash units (bank_xor, lock_xor): name one, written u.hcl:UNIT", true},
		{"", "shared_memory", "u.hcl declares no shared_memory unit", true},
	} {
		u, err := FindUnit(us, c.name, c.kind, "u.hcl")
		switch {
		case c.err && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("FindUnit(%q, %q) = %v, want an error with %q", c.name, c.kind, err, c.want)
		case !c.err && (err != nil || u.UnitName() != c.want):
			t.Errorf("FindUnit(%q, %q) = %v, %v, want %s", c.name, c.kind, u, err, c.want)
		}
	}
}

func TestSelectUnits_SuggestsTheNearestName(t *testing.T) {
	us := loadUnitsForRef(t, refSpec)
	sel, err := SelectUnits(us, []string{"*_xor"})
	if err != nil || len(sel) != 2 {
		t.Fatalf("*_xor: %d units, %v", len(sel), err)
	}
	for pat, want := range map[string]string{
		"bank_xr":  `no unit "bank_xr" in the specs (units: bank_xor, lock_xor, mono). Did you mean "bank_xor"?`,
		"bnk_xor*": `no unit matches "bnk_xor*" (units: bank_xor, lock_xor, mono). Did you mean "bank_xor"?`,
		"[":        `--unit "[": syntax error`,
	} {
		if _, err := SelectUnits(us, []string{pat}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", pat, err, want)
		}
	}
}

func TestSplitUnitRef_FileWithColon(t *testing.T) {
	dir := t.TempDir()
	odd := filepath.Join(dir, "a:b.hcl")
	if err := os.WriteFile(odd, []byte(refSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	for ref, want := range map[string][2]string{
		"x.hcl:u":       {"x.hcl", "u"},
		"x.hcl":         {"x.hcl", ""},
		odd:             {odd, ""},
		odd + ":mono":   {odd, "mono"},
		"dir/x.hcl:":    {"dir/x.hcl", ""},
		"c:/x.hcl:unit": {"c:/x.hcl", "unit"},
	} {
		if f, n := SplitUnitRef(ref); f != want[0] || n != want[1] {
			t.Errorf("SplitUnitRef(%q) = %q, %q, want %q", ref, f, n, want)
		}
	}
}

func TestLoad_VerilogNamedPlainly(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"unit.v":      "module x(input a); endmodule\n",
		"unit.sv":     "// anything\n",
		"gen.hcl":     "`timescale 1ns / 1ps\n`default_nettype none\nmodule x (a);\n",
		"comment.txt": "// Generated\n/* block */\nmodule hash_x #(parameter W = 1) (input a);\n",
	}
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, diags := NewLoader().Load(p)
		if len(diags) != 1 || !strings.Contains(diags[0].Detail, p+" is Verilog, not an HCL spec: give the .hcl spec it was generated from (or use verify --rtl)") {
			t.Errorf("%s: %v, want one diagnostic saying it is Verilog", name, diags)
		}
	}
	// An HCL block that happens to be called module is not Verilog.
	if isVerilog("m.hcl", []byte("module \"x\" {\n}\n")) || isVerilog("m.hcl", []byte("module x {\n}\n")) {
		t.Error("an HCL module block read as Verilog")
	}
}

// TestEditDistance: a swap of two adjacent characters is one edit, so a
// transposed name is suggested before one two edits away.
func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"unit", "unit", 0}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{"uint", "unit", 1}, {"uint", "quiet", 2}, {"ab", "ba", 1}, {"abc", "ca", 3},
	} {
		if got := EditDistance(c.a, c.b); got != c.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := EditDistance(c.b, c.a); got != c.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d (symmetric)", c.b, c.a, got, c.want)
		}
	}
	if got := Closest("uint", []string{"quiet", "unit"}); got != "unit" {
		t.Errorf("Closest(uint) = %q, want unit", got)
	}
}
