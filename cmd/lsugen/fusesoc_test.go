package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/packaging"
)

const fusesocDir = "../../specs/fusesoc"

func readDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// TestFusesocGen_HandWritten drives fusesoc-gen with a GAPI file written
// as FuseSoC writes one (PyYAML's layout: sorted keys, quoted version),
// from the current directory as FuseSoC runs a generator.
func TestFusesocGen_HandWritten(t *testing.T) {
	root, err := filepath.Abs("../../specs")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	gapi := filepath.Join(out, "atomics_input.yml")
	writeSpec(t, out, "atomics_input.yml", `files_root: `+root+`
gapi: '1.0'
parameters:
  spec: hash_atomics.hcl
  unit: atomic_add_cla
vlnv: acme:lsu:atomics-atomic_add:1.2.0
`)
	t.Chdir(out)
	code, stdout, stderr := lsugen(t, "fusesoc-gen", gapi)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := []string{"atomic_add_cla.core", "atomic_add_cla.sdc", "atomic_add_cla.v", "atomic_add_cla.ys", "atomic_add_cla_gates.v", "atomics_input.yml"}
	if got := readDir(t, out); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("files %v, want %v", got, want)
	}
	if !strings.Contains(stdout, "wrote 5 files for 1 units") {
		t.Errorf("stdout %q", stdout)
	}
	core, err := os.ReadFile(filepath.Join(out, "atomic_add_cla.core"))
	if err != nil {
		t.Fatal(err)
	}
	if err := packaging.CheckCore(core); err != nil {
		t.Fatal(err)
	}
	var doc struct{ Name string }
	if err := yaml.Unmarshal(core, &doc); err != nil || doc.Name != "acme:lsu:atomics-atomic_add:1.2.0" {
		t.Errorf("core name %q (%v), want the GAPI vlnv", doc.Name, err)
	}
	v, _ := os.ReadFile(filepath.Join(out, "atomic_add_cla.v"))
	if !strings.Contains(string(v), "module atomic_add_cla") || !strings.Contains(string(v), filepath.Join(root, "hash_atomics.hcl")) {
		t.Errorf("atomic_add_cla.v does not come from the spec under files_root")
	}
}

// TestFusesocGen_ExampleCore derives the GAPI file from
// specs/fusesoc/lsugen_example.core the way FuseSoC does (files_root the
// core's directory, vlnv vendor:library:name-INSTANCE:version, the
// instance's parameters) and runs the generator on it. Its spec lies in
// the core's directory (fusesoc-gen reads nothing outside files_root) and
// holds the unit atomic_add_cla of specs/hash_atomics.hcl unchanged.
func TestFusesocGen_ExampleCore(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(fusesocDir, "lsugen_example.core"))
	if err != nil {
		t.Fatal(err)
	}
	if err := packaging.CheckCore(src); err != nil {
		t.Fatalf("lsugen_example.core: %v", err)
	}
	var ex struct {
		Name     string
		Generate map[string]struct {
			Generator  string
			Parameters map[string]any
		}
	}
	if err := yaml.Unmarshal(src, &ex); err != nil {
		t.Fatal(err)
	}
	inst, ok := ex.Generate["atomic_add"]
	if !ok || inst.Generator != "lsugen" {
		t.Fatalf("lsugen_example.core: generate %+v", ex.Generate)
	}
	specName, _ := inst.Parameters["spec"].(string)
	exSpec, err := os.ReadFile(filepath.Join(fusesocDir, specName))
	if err != nil {
		t.Fatalf("lsugen_example.core's spec: %v", err)
	}
	atomics, err := os.ReadFile("../../specs/hash_atomics.hcl")
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(exSpec), `hash "atomic_add_cla"`)
	if i < 0 || !strings.Contains(string(atomics), string(exSpec[i:])) {
		t.Errorf("%s: its unit is not atomic_add_cla of specs/hash_atomics.hcl", specName)
	}
	v, l, n, ver, err := packaging.SplitVLNV(ex.Name)
	if err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.Abs(fusesocDir)
	doc := map[string]any{"gapi": "1.0", "files_root": root, "vlnv": v + ":" + l + ":" + n + "-atomic_add:" + ver, "parameters": inst.Parameters}
	b, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	writeSpec(t, out, "in.yml", string(b))
	code, _, stderr := lsugen(t, "fusesoc-gen", "-o", out, filepath.Join(out, "in.yml"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	core, err := os.ReadFile(filepath.Join(out, "atomic_add_cla.core"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(core), "name: lsugen:examples:atomics-atomic_add:"+gen.Version+"\n") {
		t.Errorf("generated core:\n%s", core)
	}
	if !strings.Contains(string(src), "lsugen:examples:atomics-atomic_add:"+gen.Version) {
		t.Error("lsugen_example.core's comment names another generated core")
	}
}

// TestFusesocGen_SeveralUnits: without unit, every unit of the spec, each
// core named vendor:library:name-UNIT:version.
func TestFusesocGen_SeveralUnits(t *testing.T) {
	dir := t.TempDir()
	writeSpec(t, dir, "two.hcl", goodSpec+strings.Replace(goodSpec, `"h"`, `"h2"`, 1))
	writeSpec(t, dir, "in.yml", "gapi: '1.0'\nfiles_root: "+dir+"\nvlnv: v:l:n:3\nparameters:\n  spec: [two.hcl]\n")
	out := filepath.Join(dir, "out")
	if code, _, stderr := lsugen(t, "fusesoc-gen", "-o", out, filepath.Join(dir, "in.yml")); code != 0 {
		t.Fatal(stderr)
	}
	for _, u := range []string{"h", "h2"} {
		core, err := os.ReadFile(filepath.Join(out, u+".core"))
		if err != nil || !strings.Contains(string(core), "name: v:l:n-"+u+":3\n") {
			t.Errorf("%s.core (%v):\n%s", u, err, core)
		}
	}
}

// TestFusesocGen_BadInput: a clear message, exit status 2 (bad input or
// usage), and nothing written.
func TestFusesocGen_BadInput(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "a.hcl", goodSpec)
	writeSpec(t, dir, "bad.hcl", strings.Replace(goodSpec, "bank_bits = 5", "bank_bits = 6", 1))
	head := "gapi: '1.0'\nfiles_root: " + dir + "\nparameters:\n"
	for _, c := range []struct {
		name, gapi string
		code       int
		want       string
	}{
		{"not yaml", "gapi: [1.0\n", 2, "not a YAML mapping"},
		{"wrong version", "gapi: '2.0'\nparameters:\n  spec: a.hcl\n", 2, `gapi: version "2.0"; lsugen reads version 1.0`},
		{"no spec", "gapi: '1.0'\nparameters:\n  unit: h\n", 2, "parameters: spec is missing"},
		{"no parameters", "gapi: '1.0'\n", 2, "parameters: spec is missing"},
		{"spec not a name", "gapi: '1.0'\nparameters:\n  spec: {a: 1}\n", 2, "spec: want a file name or a list of them"},
		{"unknown parameter", head + "  spec: a.hcl\n  units: h\n", 2, "parameters: unknown units (lsugen reads spec, unit and tb)"},
		{"tb quoted", head + "  spec: a.hcl\n  tb: 'true'\n", 2, `parameters: tb: want true or false, unquoted; got the string "true"`},
		{"tb a number", head + "  spec: a.hcl\n  tb: 1\n", 2, "parameters: tb: want true or false, got 1"},
		{"unknown unit", head + "  spec: a.hcl\n  unit: nope\n", 2, `parameters: unit: ` + spec + ` declares no unit "nope". Its units: h.`},
		{"misspelt unit", head + "  spec: a.hcl\n  unit: hh\n", 2, `declares no unit "hh". Did you mean "h"?`},
		{"missing spec file", head + "  spec: gone.hcl\n", 2, "gone.hcl"},
		{"spec error", head + "  spec: bad.hcl\n", 2, "bad.hcl:"},
		{"missing files_root", "gapi: '1.0'\nfiles_root: " + filepath.Join(dir, "none") + "\nparameters:\n  spec: a.hcl\n", 2, "files_root"},
		{"bad vlnv", "gapi: '1.0'\nvlnv: x\nparameters:\n  spec: a.hcl\n", 2, `vlnv: "x" is not vendor:library:name:version`},
	} {
		gapi := writeSpec(t, dir, "in.yml", c.gapi)
		out := filepath.Join(dir, "out-"+strings.ReplaceAll(c.name, " ", "_"))
		code, _, stderr := lsugen(t, "fusesoc-gen", "-o", out, gapi)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", c.name, code, stderr, c.code, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: the output directory was created", c.name)
		}
	}
	if code, _, stderr := lsugen(t, "fusesoc-gen"); code != 2 || !strings.Contains(stderr, "want one argument, the GAPI file") {
		t.Errorf("no argument: exit %d, %q", code, stderr)
	}
	if code, _, stderr := lsugen(t, "fusesoc-gen", filepath.Join(dir, "none.yml")); code != 2 || !strings.Contains(stderr, "none.yml") {
		t.Errorf("missing GAPI file: exit %d, %q", code, stderr)
	}
}

// TestFusesocGen_GeneratorCore: the generator core passes the CAPI2 check,
// carries lsugen's version, names the wrapper script that exists beside
// it, and the wrapper runs `$LSUGEN fusesoc-gen GAPI` as FuseSoC would
// call it: sh DIR/COMMAND GAPI, in the output directory.
func TestFusesocGen_GeneratorCore(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(fusesocDir, "lsugen_generators.core"))
	if err != nil {
		t.Fatal(err)
	}
	if err := packaging.CheckCore(src); err != nil {
		t.Fatalf("lsugen_generators.core: %v", err)
	}
	var doc struct {
		Name       string
		Generators map[string]struct{ Interpreter, Command string }
	}
	if err := yaml.Unmarshal(src, &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(doc.Name, ":"+gen.Version) {
		t.Errorf("generator core %s: version is not lsugen's %s", doc.Name, gen.Version)
	}
	g, ok := doc.Generators["lsugen"]
	if !ok || g.Interpreter != "sh" {
		t.Fatalf("generators: %+v", doc.Generators)
	}
	script, err := filepath.Abs(filepath.Join(fusesocDir, g.Command))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("the generator command: %v", err)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	// lsugen is this test binary (childCommand), behind a script, as the
	// wrapper runs a program.
	bin := filepath.Join(t.TempDir(), "lsugen")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nexec "+childCommand(t)+` "$@"`+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.Abs("../../specs")
	work := t.TempDir()
	writeSpec(t, work, "x_input.yml", "files_root: "+root+"\ngapi: '1.0'\nparameters:\n  spec: hash_atomics.hcl\n  unit: atomic_xor\nvlnv: a:b:c-x:1\n")
	cmd := exec.Command(sh, script, filepath.Join(work, "x_input.yml"))
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "LSUGEN="+bin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sh %s: %v\n%s", g.Command, err, out)
	}
	if _, err := os.Stat(filepath.Join(work, "atomic_xor.core")); err != nil {
		t.Error(err)
	}
}

// simCore checks a core written with the testbench: it passes the CAPI2
// check, lists only files written beside it, and runs the testbench from
// the fileset tb in the targets sim (RTL) and sim_gates (DUT=NAME_gates).
func simCore(t *testing.T, dir, name string) {
	t.Helper()
	core, err := os.ReadFile(filepath.Join(dir, name+".core"))
	if err != nil {
		t.Fatal(err)
	}
	if err := packaging.CheckCore(core); err != nil {
		t.Fatalf("%s.core: %v", name, err)
	}
	var doc struct {
		Filesets map[string]struct{ Files []any }
		Targets  map[string]struct {
			Filesets   []string
			Parameters []string
			Toplevel   string
		}
	}
	if err := yaml.Unmarshal(core, &doc); err != nil {
		t.Fatal(err)
	}
	tb := doc.Filesets["tb"].Files
	if len(tb) != 2 || tb[0] != name+"_tb.v" {
		t.Fatalf("%s.core: tb fileset %v", name, tb)
	}
	for _, f := range []string{name + "_tb.v", name + ".vec"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the core lists %s: %v", f, err)
		}
	}
	sim, gates := doc.Targets["sim"], doc.Targets["sim_gates"]
	if strings.Join(sim.Filesets, " ") != "rtl tb" || sim.Parameters != nil || sim.Toplevel != name+"_tb" ||
		strings.Join(gates.Filesets, " ") != "gates tb" || strings.Join(gates.Parameters, " ") != "DUT="+name+"_gates" || gates.Toplevel != name+"_tb" {
		t.Errorf("%s.core: targets sim %+v, sim_gates %+v", name, sim, gates)
	}
}

// TestGen_FusesocTB: gen --fusesoc --tb writes per unit the Verilog, the
// packaging files and the testbench with its vectors, and the core runs
// them (targets sim, sim_gates); the testbench and vectors are those of
// gen --tb alone. Without --tb the core has no fileset tb, no parameters
// and no sim targets.
func TestGen_FusesocTB(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "a.hcl", goodSpec)
	both, tbOnly, plain := filepath.Join(dir, "both"), filepath.Join(dir, "tb"), filepath.Join(dir, "plain")
	for _, c := range []struct {
		out  string
		args []string
	}{{both, []string{"--fusesoc", "--tb"}}, {tbOnly, []string{"--tb"}}, {plain, []string{"--fusesoc"}}} {
		if code, _, stderr := lsugen(t, append(append([]string{"gen", "-o", c.out}, c.args...), spec)...); code != 0 {
			t.Fatalf("gen %v: exit %d: %s", c.args, code, stderr)
		}
	}
	want := "h.core h.sdc h.v h.vec h.ys h_gates.v h_tb.v"
	if got := strings.Join(readDir(t, both), " "); got != want {
		t.Errorf("gen --fusesoc --tb wrote %s, want %s", got, want)
	}
	simCore(t, both, "h")
	for _, f := range []string{"h_tb.v", "h.vec"} {
		a, _ := os.ReadFile(filepath.Join(both, f))
		b, err := os.ReadFile(filepath.Join(tbOnly, f))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between gen --fusesoc --tb and gen --tb (%v)", f, err)
		}
	}
	core, err := os.ReadFile(filepath.Join(plain, "h.core"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"\n  tb:", "\nparameters:", "\n  sim:", "\n  sim_gates:", "_tb"} {
		if strings.Contains(string(core), s) {
			t.Errorf("gen --fusesoc without --tb: the core has %q:\n%s", s, core)
		}
	}
}

// TestFusesocGen_TB: the GAPI parameter tb: true adds the testbench, its
// vectors and the sim targets to what fusesoc-gen writes; tb: false
// writes what no tb does.
func TestFusesocGen_TB(t *testing.T) {
	dir := t.TempDir()
	writeSpec(t, dir, "a.hcl", goodSpec)
	for _, c := range []struct {
		tb, files string
	}{
		{"true", "h.core h.sdc h.v h.vec h.ys h_gates.v h_tb.v"},
		{"false", "h.core h.sdc h.v h.ys h_gates.v"},
	} {
		out := filepath.Join(dir, "out-"+c.tb)
		gapi := writeSpec(t, dir, "in-"+c.tb+".yml", "gapi: '1.0'\nfiles_root: "+dir+"\nvlnv: v:l:n:1\nparameters:\n  spec: a.hcl\n  tb: "+c.tb+"\n")
		code, stdout, stderr := lsugen(t, "fusesoc-gen", "-o", out, gapi)
		if code != 0 {
			t.Fatalf("tb: %s: exit %d: %s", c.tb, code, stderr)
		}
		if got := strings.Join(readDir(t, out), " "); got != c.files {
			t.Errorf("tb: %s: wrote %s, want %s", c.tb, got, c.files)
		}
		if n := len(strings.Fields(c.files)); !strings.Contains(stdout, fmt.Sprintf("wrote %d files for 1 units", n)) {
			t.Errorf("tb: %s: stdout %q", c.tb, stdout)
		}
		if c.tb == "true" {
			simCore(t, out, "h")
		}
	}
}
