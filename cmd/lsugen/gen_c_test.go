package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/csource"
	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/specs"
)

// cSpec has a configurable hash, a constant rap and a mod, to go with
// goodSpec's constant fixed_xor and seqSpec's pipeline.
const cSpec = `hash "cfg" {
  function     = "bitvector_perm"
  addr_bits    = 10
  bank_bits    = 5
  configurable = true
}
hash "rap4" {
  function    = "rap"
  w           = 4
  permutation = [2, 0, 3, 1]
}
hash "mod5" {
  function  = "mod"
  addr_bits = 8
  banks     = 5
}
`

// TestGenC_WritesHeaders: gen --c adds NAME.h for every constant hash
// unit (h, rap4 and mod5), the header csource writes for the unit with its
// spec's file:line; it names the configurable unit it skipped on stderr,
// lists the headers in --json, and writes the same bytes again.
func TestGenC_WritesHeaders(t *testing.T) {
	dir := t.TempDir()
	a := writeSpec(t, dir, "a.hcl", goodSpec)
	b := writeSpec(t, dir, "b.hcl", cSpec)
	p := writeSpec(t, dir, "p.hcl", seqSpec)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := lsugen(t, "gen", "--c", "--json", "-o", out, a, b, p)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "--c wrote no header for the configurable hash units cfg:") {
		t.Errorf("stderr does not name the skipped unit: %q", stderr)
	}
	var rep genReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	wantUnitFiles := map[string][]string{
		"h":    {"h.h", "h.v", "h_gates.v"},
		"cfg":  {"cfg.v", "cfg_gates.v"},
		"rap4": {"rap4.h", "rap4.v", "rap4_gates.v"},
		"mod5": {"mod5.h", "mod5.v", "mod5_gates.v"},
		"p":    {"p.v", "p_gates.v"},
	}
	for _, u := range rep.Units {
		var names []string
		for _, f := range u.Files {
			names = append(names, filepath.Base(f))
		}
		if strings.Join(names, " ") != strings.Join(wantUnitFiles[u.Name], " ") {
			t.Errorf("unit %s: files %v, want %v", u.Name, names, wantUnitFiles[u.Name])
		}
	}
	var all []string
	for _, files := range wantUnitFiles {
		all = append(all, files...)
	}
	sort.Strings(all)
	var got []string
	for _, f := range rep.Files {
		got = append(got, filepath.Base(f))
	}
	if strings.Join(got, " ") != strings.Join(all, " ") {
		t.Errorf("report files %v, want %v", got, all)
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != len(all) {
		t.Errorf("%d files in %s, want %d", len(entries), out, len(all))
	}

	file, diags := specs.NewLoader().Load(a)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	want, err := csource.Header(file.Units[0].(*specs.Hash), csource.Info{Version: gen.GeneratedBy(), Source: a + ":1"})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := os.ReadFile(filepath.Join(out, "h.h"))
	if string(h) != string(want) {
		t.Errorf("h.h is not csource's header for h:\n%s", h)
	}
	if r, _ := os.ReadFile(filepath.Join(out, "rap4.h")); !strings.Contains(string(r), "static inline LSUGEN_HD uint64_t rap4_addr(uint64_t addr)") {
		t.Errorf("rap4.h has no rap4_addr:\n%s", r)
	}
	if m, _ := os.ReadFile(filepath.Join(out, "mod5.h")); !strings.Contains(string(m), "static inline LSUGEN_HD uint64_t mod5_index(uint64_t addr)\n{\n\taddr &= UINT64_C(0xff);\n\treturn addr / 5u;\n}") {
		t.Errorf("mod5.h has no mod5_index:\n%s", m)
	}

	out2 := filepath.Join(dir, "out2")
	if code, _, stderr := lsugen(t, "gen", "-c", "-o", out2, a, b, p); code != 0 {
		t.Fatalf("again: exit %d: %s", code, stderr)
	}
	for _, n := range []string{"h.h", "rap4.h", "mod5.h"} {
		x, _ := os.ReadFile(filepath.Join(out, n))
		y, _ := os.ReadFile(filepath.Join(out2, n))
		if string(x) != string(y) {
			t.Errorf("%s differs between two runs", n)
		}
	}
}

// TestGenC_NoConstantHash: --c over specs without a constant hash unit is
// bad input and writes nothing, not even the Verilog.
func TestGenC_NoConstantHash(t *testing.T) {
	dir := t.TempDir()
	p := writeSpec(t, dir, "p.hcl", seqSpec)
	cfg := writeSpec(t, dir, "cfg.hcl", cSpec[:strings.Index(cSpec, `hash "rap4"`)])
	out := filepath.Join(dir, "out")
	code, _, stderr := lsugen(t, "gen", "--c", "-o", out, p, cfg)
	if code != 2 || !strings.Contains(stderr, "--c writes a C header per constant hash unit, and the specs declare none") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s was created (%v)", out, err)
	}
}
