package packaging_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/packaging"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/verify/hdl"
)

// Two small units: a combinational hash and a clocked pipeline.
const testSpec = `hash "h_add" {
  function  = "add"
  addr_bits = 10
  bank_bits = 5
  adder     = "cla"
}

elastic_pipeline "p_el" {
  mem_stages  = 2
  warp_size   = 8
  simd_width  = 4
  shmem_ports = 2
  tag_bits    = 2
  variant     = "elastic"
}
`

type generated struct {
	unit  *packaging.Unit
	files map[string][]byte // Verilog and packaging files
}

// generate loads testSpec and renders every file of every unit.
func generate(t *testing.T) []generated {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "t.hcl")
	if err := os.WriteFile(path, []byte(testSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	file, diags := specs.NewLoader().Load(path)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var out []generated
	for _, su := range file.Units {
		d, gd := gen.Generate(su)
		if gd.HasErrors() {
			t.Fatal(gd)
		}
		opt := timing.DefaultOptions()
		opt.Mode = timing.Sized
		res, err := timing.Analyze(d, opt)
		if err != nil {
			t.Fatal(err)
		}
		r := su.DeclRange()
		u := packaging.NewUnit(d, su.UnitKind(), su.Variant(), "t.hcl:"+strconv.Itoa(r.Start.Line), gen.Version,
			packaging.Estimate{FO4: res.FO4, Depth: res.Depth, Endpoint: res.Endpoint})
		files, err := rtl.Files(d, rtl.Info{Version: "lsugen " + gen.Version, Source: "t.hcl"})
		if err != nil {
			t.Fatal(err)
		}
		for n, b := range packaging.Files(u) {
			files[n] = b
		}
		out = append(out, generated{u, files})
	}
	if len(out) != 2 {
		t.Fatalf("%d units, want 2", len(out))
	}
	return out
}

func writeFiles(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCoreFile_Schema: the core file starts with CAPI=2:, passes the CAPI2
// check, names the unit lsugen:units:NAME:VERSION and lists the files
// lsugen writes beside it, and its targets are the documented ones.
func TestCoreFile_Schema(t *testing.T) {
	for _, g := range generate(t) {
		name := g.unit.Name
		core := g.files[name+".core"]
		if !bytes.HasPrefix(core, []byte("CAPI=2:\n")) {
			t.Fatalf("%s.core does not start with CAPI=2:", name)
		}
		if err := packaging.CheckCore(core); err != nil {
			t.Fatalf("%s.core: %v\n%s", name, err, core)
		}
		var doc struct {
			Name     string
			Filesets map[string]struct {
				Files    []string
				FileType string `yaml:"file_type"`
			}
			Targets map[string]struct {
				DefaultTool string `yaml:"default_tool"`
				Filesets    []string
				Toplevel    string
				Tools       map[string]map[string]any
			}
		}
		if err := yaml.Unmarshal(core, &doc); err != nil {
			t.Fatal(err)
		}
		if want := "lsugen:units:" + name + ":" + gen.Version; doc.Name != want {
			t.Errorf("name %q, want %q", doc.Name, want)
		}
		for fs, f := range doc.Filesets {
			for _, file := range f.Files {
				if g.files[file] == nil {
					t.Errorf("fileset %s lists %s, which lsugen does not write", fs, file)
				}
			}
		}
		if f := doc.Filesets["rtl"]; len(f.Files) != 1 || f.Files[0] != name+".v" || f.FileType != "verilogSource" {
			t.Errorf("rtl fileset %+v", f)
		}
		if f := doc.Filesets["gates"]; len(f.Files) != 1 || f.Files[0] != name+"_gates.v" || f.FileType != "verilogSource" {
			t.Errorf("gates fileset %+v", f)
		}
		want := map[string][3]string{ // target: tool, fileset, toplevel
			"default":    {"", "rtl", name},
			"lint":       {"verilator", "rtl", name},
			"lint_gates": {"verilator", "gates", name + "_gates"},
			"synth":      {"yosys", "rtl", name},
		}
		if len(doc.Targets) != len(want) {
			t.Errorf("targets %v, want %v", doc.Targets, want)
		}
		for tn, w := range want {
			tg := doc.Targets[tn]
			if tg.DefaultTool != w[0] || len(tg.Filesets) != 1 || tg.Filesets[0] != w[1] || tg.Toplevel != w[2] {
				t.Errorf("target %s = %+v, want tool %q, fileset %q, toplevel %q", tn, tg, w[0], w[1], w[2])
			}
		}
		if doc.Targets["lint"].Tools["verilator"]["mode"] != "lint-only" {
			t.Errorf("lint target tools %v", doc.Targets["lint"].Tools)
		}
		if doc.Targets["synth"].Tools["yosys"]["arch"] == nil {
			t.Error("synth target has no yosys arch, which Edalize requires")
		}
	}
}

// TestCoreFile_PyYAML: PyYAML, the parser FuseSoC uses, reads the core
// file to the same document as yaml.v3.
func TestCoreFile_PyYAML(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	if err := exec.Command(py, "-c", "import yaml").Run(); err != nil {
		t.Skip("python3 has no yaml module (PyYAML)")
	}
	dir := t.TempDir()
	for _, g := range generate(t) {
		p := filepath.Join(dir, g.unit.Name+".core")
		writeFiles(t, dir, map[string][]byte{g.unit.Name + ".core": g.files[g.unit.Name+".core"]})
		out, err := exec.Command(py, "-c", "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1])), sort_keys=True))", p).CombinedOutput()
		if err != nil {
			t.Fatalf("PyYAML: %v\n%s", err, out)
		}
		var fromPy, fromGo any
		if err := yaml.Unmarshal(out, &fromPy); err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(g.files[g.unit.Name+".core"], &fromGo); err != nil {
			t.Fatal(err)
		}
		a, _ := yaml.Marshal(fromPy)
		b, _ := yaml.Marshal(fromGo)
		if !bytes.Equal(a, b) {
			t.Errorf("%s.core: PyYAML reads\n%s\nyaml.v3 reads\n%s", g.unit.Name, a, b)
		}
	}
}

// TestCheckCore_Rejects: the schema check catches what FuseSoC refuses.
func TestCheckCore_Rejects(t *testing.T) {
	good := "CAPI=2:\nname: a:b:c:1.0\nfilesets:\n  rtl:\n    files:\n      - c.v\n    file_type: verilogSource\ntargets:\n  default:\n    filesets:\n      - rtl\n    toplevel: c\n"
	if err := packaging.CheckCore([]byte(good)); err != nil {
		t.Fatalf("good core refused: %v", err)
	}
	for _, c := range []struct{ name, core, want string }{
		{"comment first", "# x\n" + good, `first line is "# x"`},
		{"no name", strings.Replace(good, "name: a:b:c:1.0\n", "", 1), "name: want a VLNV"},
		{"bad vlnv", strings.Replace(good, "a:b:c:1.0", "c", 1), "not vendor:library:name:version"},
		{"unknown top key", good + "toplevel: c\n", `unknown top-level key "toplevel"`},
		{"unknown fileset key", strings.Replace(good, "    file_type", "    type", 1), `filesets.rtl: unknown key "type"`},
		{"empty files", strings.Replace(good, "    files:\n      - c.v\n", "    files: []\n", 1), "non-empty list of files"},
		{"undeclared fileset", strings.Replace(good, "      - rtl\n    toplevel", "      - tb\n    toplevel", 1), `no fileset "tb"`},
		{"no default target", strings.Replace(good, "  default:", "  sim:", 1), "no default target"},
		{"unknown target key", good + "    tool: icarus\n", `targets.default: unknown key "tool"`},
		{"generator without command", "CAPI=2:\nname: a:b:g:1\ngenerators:\n  g:\n    interpreter: sh\n", "generators.g: command is required"},
		{"parameter without paramtype", good + "parameters:\n  p:\n    datatype: int\n", "parameters.p: paramtype is required"},
		{"not yaml", "CAPI=2:\nname: [a\n", "not YAML"},
	} {
		err := packaging.CheckCore([]byte(c.core))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// TestParseGAPI covers the GAPI file FuseSoC writes and bad ones.
func TestParseGAPI(t *testing.T) {
	g, err := packaging.ParseGAPI([]byte("files_root: /src/core\ngapi: '1.0'\nparameters:\n  spec: a.hcl\n  unit: u\nvlnv: v:l:n-inst:1.2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if g.FilesRoot != "/src/core" || g.VLNV != "v:l:n-inst:1.2" || g.Parameters["spec"] != "a.hcl" || g.Parameters["unit"] != "u" {
		t.Errorf("parsed %+v", g)
	}
	if g, err := packaging.ParseGAPI([]byte("gapi: 1.0\n")); err != nil || len(g.Parameters) != 0 {
		t.Errorf("unquoted version or no parameters: %+v, %v", g, err)
	}
	for _, c := range []struct{ in, want string }{
		{"", "empty"},
		{"- a\n", "not a YAML mapping"},
		{"files_root: x\n", "gapi: missing"},
		{"gapi: '2.0'\n", `version "2.0"`},
		{"gapi: '1.0'\nparameters: [spec]\n", "parameters: want a mapping, got a list"},
		{"gapi: '1.0'\nvlnv: name\n", "vlnv: \"name\" is not vendor:library:name:version"},
		{"gapi: '1.0'\nfiles_root: 3\n", "files_root: want a string"},
	} {
		_, err := packaging.ParseGAPI([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.in, err, c.want)
		}
	}
}

// TestSDC: a clock on clk for the pipeline, a virtual clock and
// set_max_delay for the hash; the period is the sized estimate rounded up.
func TestSDC(t *testing.T) {
	for _, g := range generate(t) {
		sdc := string(g.files[g.unit.Name+".sdc"])
		seq := g.unit.Clock != ""
		for _, want := range []string{"set FO4_DELAY 1.0", "set_input_delay", "set_output_delay", "lsugen timing --mode sized"} {
			if !strings.Contains(sdc, want) {
				t.Errorf("%s.sdc lacks %q", g.unit.Name, want)
			}
		}
		if seq {
			if g.unit.Clock != "clk" || !strings.Contains(sdc, "create_clock -name clk -period $CLK_PERIOD [get_ports clk]") ||
				!strings.Contains(sdc, "{rst ") || strings.Contains(sdc, "set_max_delay") {
				t.Errorf("sequential %s.sdc:\n%s", g.unit.Name, sdc)
			}
		} else if !strings.Contains(sdc, "create_clock -name vclk -period $MAX_DELAY\n") ||
			!strings.Contains(sdc, "set_max_delay $MAX_DELAY -from [all_inputs] -to [all_outputs]") ||
			!strings.Contains(sdc, "[get_ports {addr_i[*]}]") {
			t.Errorf("combinational %s.sdc:\n%s", g.unit.Name, sdc)
		}
		if g.unit.FO4 <= 0 || !strings.Contains(sdc, "[expr {") {
			t.Errorf("%s: estimate %v", g.unit.Name, g.unit.FO4)
		}
	}
}

// TestYosysScript runs `yosys NAME.ys` in a directory holding the
// generated files: it must succeed, print the statistics and write
// NAME_synth.v with module NAME.
func TestYosysScript(t *testing.T) {
	y, err := hdl.Find("yosys")
	if err != nil {
		t.Skip(err)
	}
	for _, g := range generate(t) {
		dir := t.TempDir()
		writeFiles(t, dir, g.files)
		out := runIn(t, dir, y.Path, g.unit.Name+".ys")
		if !strings.Contains(out, "Number of cells") {
			t.Errorf("%s: no statistics in the Yosys log", g.unit.Name)
		}
		b, err := os.ReadFile(filepath.Join(dir, g.unit.Name+"_synth.v"))
		if err != nil || !bytes.Contains(b, []byte("module "+g.unit.Name+"(")) {
			t.Errorf("%s_synth.v: %v", g.unit.Name, err)
		}
	}
}

// TestLibertyFlow_OpenSTA uncomments the Liberty mapping of NAME.ys with a
// made-up library, then has OpenSTA read the mapped netlist and NAME.sdc:
// the SDC must read without errors or warnings and constrain the paths
// (a sequential unit's clock group, a combinational unit's max_delay).
func TestLibertyFlow_OpenSTA(t *testing.T) {
	y, err := hdl.Find("yosys")
	if err != nil {
		t.Skip(err)
	}
	sta, err := hdl.Find("sta") // OpenSTA, Debian package opensta
	if err != nil {
		t.Skip(err)
	}
	lib, err := filepath.Abs("testdata/tiny.lib")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range generate(t) {
		name := g.unit.Name
		dir := t.TempDir()
		writeFiles(t, dir, g.files)
		ys := string(g.files[name+".ys"])
		mapped := strings.NewReplacer("#   read_liberty", "read_liberty", "#   dfflibmap", "dfflibmap", "#   abc", "abc",
			"#   opt_clean", "opt_clean", "#   stat -liberty", "stat -liberty", "cells.lib", lib).Replace(ys)
		if mapped == ys || !strings.Contains(mapped, "\nabc -liberty ") || (g.unit.Clock != "") != strings.Contains(mapped, "\ndfflibmap -liberty ") {
			t.Fatalf("%s.ys: the Liberty lines are not where expected:\n%s", name, ys)
		}
		writeFiles(t, dir, map[string][]byte{"mapped.ys": []byte(mapped)})
		runIn(t, dir, y.Path, "mapped.ys")
		script := "read_liberty " + lib + "\nread_verilog " + name + "_synth.v\nlink_design " + name + "\nread_sdc " + name + ".sdc\nreport_checks -path_delay max\n"
		writeFiles(t, dir, map[string][]byte{"sta.tcl": []byte(script)})
		out := runIn(t, dir, sta.Path, "-no_splash", "-exit", "sta.tcl")
		if strings.Contains(out, "Error") || strings.Contains(out, "Warning") || !strings.Contains(out, "slack (MET)") {
			t.Errorf("%s: OpenSTA:\n%s", name, out)
		}
		want := "max_delay"
		if g.unit.Clock != "" {
			want = "Path Group: clk"
		}
		if !strings.Contains(out, want) {
			t.Errorf("%s: OpenSTA report lacks %q:\n%s", name, want, out)
		}
	}
}

func runIn(t *testing.T, dir, prog string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", prog, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestFiles_Deterministic: the same unit renders the same bytes.
func TestFiles_Deterministic(t *testing.T) {
	a, b := generate(t), generate(t)
	for i := range a {
		for n, x := range a[i].files {
			if !bytes.Equal(x, b[i].files[n]) {
				t.Errorf("%s differs between two runs", n)
			}
		}
	}
}
