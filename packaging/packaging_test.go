package packaging_test

import (
	"bytes"
	"context"
	"errors"
	"github.com/lsugen/lsugen/internal/testenv"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
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
	"github.com/lsugen/lsugen/toolchain"
	"github.com/lsugen/lsugen/units"
	"github.com/lsugen/lsugen/verify"
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
	return generateWith(t, false)
}

// generateWith is generate, with tb also each unit's testbench and golden
// vectors (the files of lsugen gen --tb) and the core's simulation targets.
func generateWith(t *testing.T, tb bool) []generated {
	t.Helper()
	return generateFor(t, tb, nil)
}

// generateFor is generateWith for cell library lib (nil: generic files),
// the estimate computed as the documentation tells callers to: under
// packaging.EstimateOptions(lib).
func generateFor(t *testing.T, tb bool, lib *packaging.Library) []generated {
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
		b, gd := units.Build(su)
		if gd.HasErrors() {
			t.Fatal(gd)
		}
		d := b.Design
		opt := packaging.EstimateOptions(lib)
		res, err := timing.Analyze(d, opt)
		if err != nil {
			t.Fatal(err)
		}
		r := su.DeclRange()
		u := packaging.NewUnit(d, su.UnitKind(), su.Variant(), "t.hcl:"+strconv.Itoa(r.Start.Line), gen.Version,
			packaging.EstimateOf(res, opt))
		u.Library = lib
		files, err := rtl.Files(d, rtl.Info{Version: "lsugen " + gen.Version, Source: "t.hcl"})
		if err != nil {
			t.Fatal(err)
		}
		if tb {
			u.Testbench = &packaging.Testbench{File: verify.TestbenchFileName(d), Module: verify.TestbenchModule(d),
				Vectors: verify.VectorFileName(d), DUTMacro: verify.DUTMacro}
			g, err := units.Golden(su, b)
			if err != nil {
				t.Fatal(err)
			}
			info := rtl.Info{Version: "lsugen " + gen.Version, Source: "t.hcl"}
			files[u.Testbench.File] = g.Testbench(info)
			files[u.Testbench.Vectors] = g.VectorFile(info)
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
	// Every core, with and without the testbench, through one python3 run:
	// a JSON list of what PyYAML reads.
	dir := t.TempDir()
	gs := append(generate(t), generateWith(t, true)...)
	args := []string{"-c", "import json, sys, yaml; print(json.dumps([yaml.safe_load(open(p)) for p in sys.argv[1:]], sort_keys=True))"}
	for i, g := range gs {
		name := strconv.Itoa(i) + ".core"
		writeFiles(t, dir, map[string][]byte{name: g.files[g.unit.Name+".core"]})
		args = append(args, filepath.Join(dir, name))
	}
	out, err := exec.Command(py, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("PyYAML: %v\n%s", err, out)
	}
	var fromPy []any
	if err := yaml.Unmarshal(out, &fromPy); err != nil || len(fromPy) != len(gs) {
		t.Fatalf("PyYAML's output (%v):\n%s", err, out)
	}
	for i, g := range gs {
		var fromGo any
		if err := yaml.Unmarshal(g.files[g.unit.Name+".core"], &fromGo); err != nil {
			t.Fatal(err)
		}
		a, _ := yaml.Marshal(fromPy[i])
		b, _ := yaml.Marshal(fromGo)
		if !bytes.Equal(a, b) {
			t.Errorf("%s.core (testbench %v): PyYAML reads\n%s\nyaml.v3 reads\n%s", g.unit.Name, g.unit.Testbench != nil, a, b)
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
// Without a library the defaults are generic: FO4_DELAY 1.0, no driving
// cell, INV_CAP 0, each kept when set before read_sdc; set_driving_cell
// names the data inputs and set_load the outputs.
func TestSDC(t *testing.T) {
	for _, g := range generate(t) {
		sdc := string(g.files[g.unit.Name+".sdc"])
		seq := g.unit.Clock != ""
		for _, want := range []string{
			"if {![info exists FO4_DELAY]} { set FO4_DELAY 1.0 }\n",
			`if {![info exists DRIVING_CELL]} { set DRIVING_CELL "" }` + "\n",
			`if {![info exists DRIVING_PIN]}  { set DRIVING_PIN "" }` + "\n",
			"if {![info exists INV_CAP]}      { set INV_CAP 0.0 }\n",
			"set_driving_cell -lib_cell $DRIVING_CELL -pin $DRIVING_PIN [get_ports {" + portsOf(g.unit.Inputs) + "}]\n",
			"set_load [expr {1 * $INV_CAP}] [get_ports {" + portsOf(g.unit.Outputs) + "}]\n",
			"set_input_delay", "set_output_delay", "(lsugen timing --timing-mode sized): ",
		} {
			if !strings.Contains(sdc, want) {
				t.Errorf("%s.sdc lacks %q", g.unit.Name, want)
			}
		}
		if p := periodFactor(t, sdc); p < g.unit.FO4 || p >= g.unit.FO4+0.01 {
			t.Errorf("%s.sdc: budget %v FO4 for an estimate of %v", g.unit.Name, p, g.unit.FO4)
		}
		if strings.Contains(sdc, "\nset FO4_DELAY") {
			t.Errorf("%s.sdc sets FO4_DELAY unconditionally", g.unit.Name)
		}
		if strings.Contains(sdc, "[get_ports {clk") || strings.Contains(sdc, " clk[*]") {
			t.Errorf("%s.sdc: the clock is a data input", g.unit.Name)
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
	y, err := toolchain.Find("yosys")
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

// mapTiny writes g's files into a new directory, uncomments the Liberty
// mapping of NAME.ys with the made-up library testdata/tiny.lib and runs
// it: the directory then holds NAME_synth.v in that library's cells.
// It returns the directory and the library's absolute path.
func mapTiny(t *testing.T, y *toolchain.Tool, g generated) (dir, lib string) {
	t.Helper()
	lib, err := filepath.Abs("testdata/tiny.lib")
	if err != nil {
		t.Fatal(err)
	}
	name := g.unit.Name
	dir = t.TempDir()
	writeFiles(t, dir, g.files)
	ys := string(g.files[name+".ys"])
	mapped := strings.NewReplacer("#   read_liberty", "read_liberty", "#   dfflibmap", "dfflibmap", "#   abc", "abc",
		"#   opt_clean", "opt_clean", "#   stat -liberty", "stat -liberty", "cells.lib", lib).Replace(ys)
	if mapped == ys || !strings.Contains(mapped, "\nabc -liberty ") || (g.unit.Clock != "") != strings.Contains(mapped, "\ndfflibmap -liberty ") {
		t.Fatalf("%s.ys: the Liberty lines are not where expected:\n%s", name, ys)
	}
	writeFiles(t, dir, map[string][]byte{"mapped.ys": []byte(mapped)})
	runIn(t, dir, y.Path, "mapped.ys")
	return dir, lib
}

// TestLibertyFlow_OpenSTA uncomments the Liberty mapping of NAME.ys with a
// made-up library, then has OpenSTA read the mapped netlist and NAME.sdc:
// the SDC must read without errors or warnings and constrain the paths
// (a sequential unit's clock group, a combinational unit's max_delay).
func TestLibertyFlow_OpenSTA(t *testing.T) {
	y, err := toolchain.Find("yosys")
	if err != nil {
		t.Skip(err)
	}
	sta, err := toolchain.Find("sta") // OpenSTA, Debian package opensta
	if err != nil {
		t.Skip(err)
	}
	for _, g := range generate(t) {
		name := g.unit.Name
		dir, lib := mapTiny(t, y, g)
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

// TestSDC_OpenSTAKeepsPresets: the generic SDC, read by OpenSTA after the
// user set FO4_DELAY 123, DRIVING_CELL, DRIVING_PIN and INV_CAP (those of
// testdata/tiny.lib), keeps them: the clock period is 123 times the
// budget in FO4, and set_driving_cell and set_load take the library's
// inverter and capacitance without an error or warning.
func TestSDC_OpenSTAKeepsPresets(t *testing.T) {
	y, err := toolchain.Find("yosys")
	if err != nil {
		t.Skip(err)
	}
	sta, err := toolchain.Find("sta")
	if err != nil {
		t.Skip(err)
	}
	for _, g := range generate(t) {
		name := g.unit.Name
		sdc := string(g.files[name+".sdc"])
		dir, lib := mapTiny(t, y, g)
		presets := "set FO4_DELAY 123\nset DRIVING_CELL INV\nset DRIVING_PIN Y\nset INV_CAP 0.001\n"
		out := runSTA(t, sta, dir, lib, name, presets, clockOf(g.unit))
		if strings.Contains(out, "Error") || strings.Contains(out, "Warning") {
			t.Errorf("%s: OpenSTA:\n%s", name, out)
		}
		v := staValues(t, out)
		if want := 123 * periodFactor(t, sdc); math.Abs(v["period"]-want) > 1e-3*want {
			t.Errorf("%s: clock period %v, want 123 x the budget = %v", name, v["period"], want)
		}
		if v["FO4_DELAY"] != 123 || v["INV_CAP"] != 0.001 {
			t.Errorf("%s: the SDC changed the presets: %v", name, v)
		}
	}
}

// clockOf is the clock the SDC of u creates.
func clockOf(u *packaging.Unit) string {
	if u.Clock != "" {
		return u.Clock
	}
	return "vclk"
}

// runSTA has OpenSTA read lib, dir/NAME_synth.v and, after the Tcl
// presets, dir/NAME.sdc, and print "lsugen KEY VALUE" lines: FO4_DELAY,
// INV_CAP, the period of clock, and the latest arrival at an output from
// an input port.
func runSTA(t *testing.T, sta *toolchain.Tool, dir, lib, name, presets, clock string) string {
	t.Helper()
	script := "read_liberty {" + lib + "}\nread_verilog " + name + "_synth.v\nlink_design " + name + "\n" + presets +
		"read_sdc " + name + ".sdc\n" +
		"puts \"lsugen FO4_DELAY $FO4_DELAY\"\nputs \"lsugen INV_CAP $INV_CAP\"\n" +
		"puts \"lsugen period [get_property [get_clocks " + clock + "] period]\"\n" +
		"set pe [lindex [find_timing_paths -path_delay max -from [all_inputs] -to [all_outputs]] 0]\n" +
		"puts \"lsugen arrival [$pe data_arrival_time]\"\n"
	writeFiles(t, dir, map[string][]byte{"sta.tcl": []byte(script)})
	return runIn(t, dir, sta.Path, "-no_splash", "-exit", "sta.tcl")
}

// staValues reads runSTA's "lsugen KEY VALUE" lines.
func staValues(t *testing.T, out string) map[string]float64 {
	t.Helper()
	v := map[string]float64{}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) == 3 && f[0] == "lsugen" {
			x, err := strconv.ParseFloat(f[2], 64)
			if err != nil {
				t.Fatalf("OpenSTA printed %q", l)
			}
			v[f[1]] = x
		}
	}
	for _, k := range []string{"FO4_DELAY", "INV_CAP", "period", "arrival"} {
		if _, ok := v[k]; !ok {
			t.Fatalf("OpenSTA did not print %s:\n%s", k, out)
		}
	}
	return v
}

// periodFactor is the budget in FO4 of an SDC: X in "[expr {X * $FO4_DELAY}]".
func periodFactor(t *testing.T, sdc string) float64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^set (?:CLK_PERIOD|MAX_DELAY) \[expr \{([0-9.]+) \* \$FO4_DELAY\}\]$`).FindStringSubmatch(sdc)
	if m == nil {
		t.Fatalf("no budget in the SDC:\n%s", sdc)
	}
	x, _ := strconv.ParseFloat(m[1], 64)
	return x
}

// portsOf names ports as the SDC does: NAME, NAME[*] for a bus.
func portsOf(ps []packaging.Port) string {
	var names []string
	for _, p := range ps {
		n := p.Name
		if p.Width > 1 {
			n += "[*]"
		}
		names = append(names, n)
	}
	return strings.Join(names, " ")
}

func runIn(t *testing.T, dir, prog string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Limit(10*time.Minute))
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", prog, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestFiles_Deterministic: the same unit renders the same bytes, with and
// without the testbench.
func TestFiles_Deterministic(t *testing.T) {
	a, b := append(generate(t), generateWith(t, true)...), append(generate(t), generateWith(t, true)...)
	for i := range a {
		for n, x := range a[i].files {
			if !bytes.Equal(x, b[i].files[n]) {
				t.Errorf("%s differs between two runs", n)
			}
		}
	}
}

// coreDoc is a core file as FuseSoC reads the parts the simulation targets
// use; files stay untyped, since an entry may be a name or a mapping.
type coreDoc struct {
	Name     string
	Filesets map[string]struct {
		Files    []any
		FileType string `yaml:"file_type"`
	}
	Parameters map[string]map[string]any
	Targets    map[string]struct {
		DefaultTool string `yaml:"default_tool"`
		Filesets    []string
		Parameters  []string
		Toplevel    string
		Tools       map[string]map[string]any
	}
}

func parseCore(t *testing.T, core []byte) coreDoc {
	t.Helper()
	var doc coreDoc
	if err := yaml.Unmarshal(core, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestCoreFile_SimTargets: with the testbench, the core passes the CAPI2
// check and adds exactly the fileset tb (the testbench, and the vectors as
// a user file copied into the work directory), the vlogdefine parameter
// DUT, and the Icarus targets sim (RTL) and sim_gates (gate netlist, DUT
// set to NAME_gates); every target parameter is declared with a datatype
// and paramtype FuseSoC accepts, as FuseSoC requires at run time. The
// other targets are those of the core without the testbench.
func TestCoreFile_SimTargets(t *testing.T) {
	plain := generate(t)
	for i, g := range generateWith(t, true) {
		name := g.unit.Name
		core := g.files[name+".core"]
		if err := packaging.CheckCore(core); err != nil {
			t.Fatalf("%s.core: %v\n%s", name, err, core)
		}
		doc, base := parseCore(t, core), parseCore(t, plain[i].files[name+".core"])

		tb := doc.Filesets["tb"]
		wantFiles := []any{name + "_tb.v", map[string]any{name + ".vec": map[string]any{"file_type": "user", "copyto": name + ".vec"}}}
		if !reflect.DeepEqual(tb.Files, wantFiles) || tb.FileType != "verilogSource" {
			t.Errorf("%s: tb fileset %+v, want files %v of type verilogSource", name, tb, wantFiles)
		}
		for fs, f := range doc.Filesets {
			for _, e := range f.Files {
				file, _ := e.(string)
				if m, ok := e.(map[string]any); ok {
					for f := range m { // a file with attributes: its one key
						file = f
					}
				}
				if g.files[file] == nil {
					t.Errorf("%s: fileset %s lists %s, which lsugen does not write", name, fs, file)
				}
			}
		}
		if len(doc.Filesets) != len(base.Filesets)+1 || base.Parameters != nil {
			t.Errorf("%s: filesets %v and parameters %v, want the core's without testbench and tb", name, doc.Filesets, base.Parameters)
		}
		if p := doc.Parameters["DUT"]; len(doc.Parameters) != 1 || p["datatype"] != "str" || p["paramtype"] != "vlogdefine" {
			t.Errorf("%s: parameters %v, want DUT, a str vlogdefine", name, doc.Parameters)
		}

		want := map[string]struct {
			filesets, params []string
		}{
			"sim":       {[]string{"rtl", "tb"}, nil},
			"sim_gates": {[]string{"gates", "tb"}, []string{"DUT=" + name + "_gates"}},
		}
		if len(doc.Targets) != len(base.Targets)+len(want) {
			t.Errorf("%s: %d targets, want %d", name, len(doc.Targets), len(base.Targets)+len(want))
		}
		for tn, tg := range base.Targets {
			if !reflect.DeepEqual(doc.Targets[tn], tg) {
				t.Errorf("%s: target %s changed with the testbench: %+v, was %+v", name, tn, doc.Targets[tn], tg)
			}
		}
		for tn, w := range want {
			tg, ok := doc.Targets[tn]
			if !ok {
				t.Errorf("%s: no target %s", name, tn)
				continue
			}
			if tg.DefaultTool != "icarus" || !reflect.DeepEqual(tg.Filesets, w.filesets) ||
				!reflect.DeepEqual(tg.Parameters, w.params) || tg.Toplevel != name+"_tb" {
				t.Errorf("%s: target %s = %+v, want icarus, filesets %v, parameters %v, toplevel %s_tb", name, tn, tg, w.filesets, w.params, name)
			}
			if opts := tg.Tools["icarus"]["iverilog_options"]; !reflect.DeepEqual(opts, []any{"-g2005", "-Wall"}) {
				t.Errorf("%s: target %s iverilog_options %v", name, tn, opts)
			}
			for _, p := range tg.Parameters {
				pn, _, _ := strings.Cut(p, "=")
				decl, ok := doc.Parameters[pn]
				if !ok {
					t.Errorf("%s: target %s: parameter %s is not declared (FuseSoC: not found)", name, tn, pn)
					continue
				}
				dt, _ := decl["datatype"].(string)
				pt, _ := decl["paramtype"].(string)
				if !slices.Contains([]string{"bool", "file", "int", "str"}, dt) ||
					!slices.Contains([]string{"cmdlinearg", "generic", "plusarg", "vlogdefine", "vlogparam"}, pt) {
					t.Errorf("%s: parameter %s: %v", name, pn, decl)
				}
			}
		}
	}
}

// icarusFlow does what FuseSoC and Edalize's icarus backend do for one
// target of a core, as far as lsugen's cores use it, and returns the
// simulation's output and exit status. FuseSoC exports the files of the
// target's filesets to build/src/CORE and copies those with copyto into
// the work directory build/TARGET-icarus; Edalize writes CORE.scr (a
// +define+NAME=VALUE line per vlogdefine parameter, then the Verilog files
// in fileset order; user files are not compiled), runs `iverilog
// -sTOPLEVEL -c CORE.scr -o CORE IVERILOG_OPTIONS` and then `vvp -n -M. -l
// icarus.log CORE -fst` in the work directory. A compiler warning or error
// fails the test.
func icarusFlow(t *testing.T, core []byte, files map[string][]byte, target string) (string, int) {
	t.Helper()
	doc := parseCore(t, core)
	tg, ok := doc.Targets[target]
	if !ok || tg.DefaultTool != "icarus" {
		t.Fatalf("target %s: %+v, want an icarus target", target, tg)
	}
	sane := strings.ReplaceAll(doc.Name, ":", "_")
	build := t.TempDir()
	src, work := filepath.Join(build, "src", sane), filepath.Join(build, target+"-icarus")
	for _, d := range []string{src, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var scr strings.Builder
	for _, p := range tg.Parameters {
		pn, val, ok := strings.Cut(p, "=")
		if !ok {
			t.Fatalf("target %s: parameter %s without a value", target, p)
		}
		if doc.Parameters[pn]["paramtype"] != "vlogdefine" {
			t.Fatalf("target %s: parameter %s is not a vlogdefine", target, pn)
		}
		scr.WriteString("+define+" + pn + "=" + val + "\n")
	}
	for _, fsName := range tg.Filesets {
		fs := doc.Filesets[fsName]
		for _, e := range fs.Files {
			file, typ, copyto := "", fs.FileType, ""
			switch e := e.(type) {
			case string:
				file = e
			case map[string]any:
				for f, attrs := range e {
					file = f
					a := attrs.(map[string]any)
					if ft, ok := a["file_type"].(string); ok {
						typ = ft
					}
					copyto, _ = a["copyto"].(string)
				}
			}
			b, ok := files[file]
			if !ok {
				t.Fatalf("fileset %s: %s was not generated", fsName, file)
			}
			writeFiles(t, src, map[string][]byte{file: b})
			if copyto != "" {
				writeFiles(t, work, map[string][]byte{copyto: b})
			}
			switch typ {
			case "verilogSource":
				scr.WriteString(filepath.Join("..", "src", sane, file) + "\n")
			case "user":
			default:
				t.Fatalf("fileset %s: %s has a file type (%q) Edalize's icarus backend does not compile", fsName, file, typ)
			}
		}
	}
	writeFiles(t, work, map[string][]byte{sane + ".scr": []byte(scr.String())})
	opts, _ := tg.Tools["icarus"]["iverilog_options"].([]any)
	args := []string{"-s" + tg.Toplevel, "-c", sane + ".scr", "-o", sane}
	for _, o := range opts {
		args = append(args, o.(string))
	}
	if out, code := runTool(t, work, "iverilog", args...); code != 0 || strings.TrimSpace(out) != "" {
		t.Fatalf("target %s: iverilog %s: exit %d\n%s", target, strings.Join(args, " "), code, out)
	}
	return runTool(t, work, "vvp", "-n", "-M.", "-l", "icarus.log", sane, "-fst")
}

// runTool runs a tool found by toolchain.Find in dir: its output and exit status.
func runTool(t *testing.T, dir, name string, args ...string) (string, int) {
	t.Helper()
	tl, err := toolchain.Find(name)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Limit(10*time.Minute))
	defer cancel()
	cmd := exec.CommandContext(ctx, tl.Path, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &exit) && exit.ExitCode() > 0:
		return string(out), exit.ExitCode()
	}
	t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	return "", 0
}

// breakAssign replaces old by new in the first assign statement of
// Verilog v that has old (not in a comment).
func breakAssign(t *testing.T, v []byte, old, new string) []byte {
	t.Helper()
	lines := strings.SplitAfter(string(v), "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "assign ") && strings.Contains(l, old) {
			lines[i] = strings.Replace(l, old, new, 1)
			return []byte(strings.Join(lines, ""))
		}
	}
	t.Fatalf("no assign statement with %q to break", old)
	return nil
}

// TestCoreFile_SimFlow runs the targets sim and sim_gates of both test
// units as FuseSoC's icarus flow would: each passes every golden vector
// (cycle). With the hash's RTL hand-broken (+ made -) sim fails at a
// vector and exits non-zero while sim_gates still passes; with its gate
// netlist broken (an XOR made OR) sim_gates fails and sim passes.
func TestCoreFile_SimFlow(t *testing.T) {
	for _, g := range generateWith(t, true) {
		name := g.unit.Name
		core := g.files[name+".core"]
		what := "vectors"
		if g.unit.Clock != "" {
			what = "cycles"
		}
		for _, target := range []string{"sim", "sim_gates"} {
			out, code := icarusFlow(t, core, g.files, target)
			if code != 0 || !strings.Contains(out, "PASS ") || !strings.Contains(out, " "+what) {
				t.Errorf("%s: target %s: exit %d, want PASS <n> %s:\n%s", name, target, code, what, out)
			}
		}
		if g.unit.Clock != "" {
			continue
		}
		breaks := []struct {
			file, old, new, fails, passes string
		}{
			{name + ".v", " + ", " - ", "sim", "sim_gates"},
			{name + "_gates.v", " ^ ", " | ", "sim_gates", "sim"},
		}
		for _, br := range breaks {
			broken := maps.Clone(g.files)
			broken[br.file] = breakAssign(t, broken[br.file], br.old, br.new)
			out, code := icarusFlow(t, core, broken, br.fails)
			if code == 0 || !strings.Contains(out, "FAIL vector ") || !strings.Contains(out, "bank_o expected ") {
				t.Errorf("%s broken: target %s: exit %d, want the first failing vector and a non-zero exit:\n%s", br.file, br.fails, code, out)
			}
			if out, code := icarusFlow(t, core, broken, br.passes); code != 0 || !strings.Contains(out, "PASS ") {
				t.Errorf("%s broken: target %s does not use it but fails: exit %d\n%s", br.file, br.passes, code, out)
			}
		}
	}
}
