package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/flow"
	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/rtl"
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

	s, err := flow.Load([]string{a, b}, flow.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range s.Units {
		su, d := u.Spec, u.Design
		g, err := units.Golden(su, u.Built)
		if err != nil {
			t.Fatal(err)
		}
		info := rtl.Info{Version: gen.GeneratedBy(), Source: source(su)}
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

// The fixed XOR hash h of goodSpec written by hand: its bank width comes
// from an include file, its high field's position from the command line
// (-D HIGH_LSB=5), and without -D USE_XOR it ORs the halves.
const (
	hashHeaderVH = "`define BANK_BITS 5\n" +
		"`define HIGH_FIELD(a) a[`HIGH_LSB + `BANK_BITS - 1:`HIGH_LSB]\n"
	hashIncludeV = "`include \"h_hash.vh\"\n" +
		"module h (input wire [9:0] addr_i, output wire [`BANK_BITS-1:0] bank_o);\n" +
		"`ifdef USE_XOR\n" +
		"    assign bank_o = addr_i[`BANK_BITS-1:0] ^ `HIGH_FIELD(addr_i);\n" +
		"`else\n" +
		"    assign bank_o = addr_i[`BANK_BITS-1:0] | `HIGH_FIELD(addr_i);\n" +
		"`endif\n" +
		"endmodule\n"
)

// TestVerifyRTL_IncludeDirsAndDefines: -I and -D reach the simulator: a
// module that needs both passes with them (-D NAME alone defines it);
// without the include directory or a macro it cannot be built, exit 1
// with the compiler's error; with USE_XOR left out it fails at vector 33.
// A missing or non-directory -I, a bad -D and these flags without --rtl
// are usage errors.
func TestVerifyRTL_IncludeDirsAndDefines(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "a.hcl", goodSpec)
	inc := filepath.Join(dir, "inc")
	if err := os.Mkdir(inc, 0o755); err != nil {
		t.Fatal(err)
	}
	writeSpec(t, inc, "h_hash.vh", hashHeaderVH)
	src := writeSpec(t, dir, "h.v", hashIncludeV)
	verifyRTL := func(args ...string) (int, string, string) {
		t.Helper()
		return lsugen(t, append([]string{"verify", "--sim", "icarus", "--rtl", src}, append(args, spec)...)...)
	}

	code, stdout, stderr := verifyRTL("-I", inc, "-D", "HIGH_LSB=5", "-DUSE_XOR")
	if code != 0 || !strings.Contains(stdout, "module h matches the 1024 golden vectors of h under icarus\n") {
		t.Errorf("-I -D: exit %d:\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = verifyRTL("--include-dir="+inc, "--define", "HIGH_LSB=5")
	if code != 1 || !regexpMatch(`h: module h \(icarus\): vector 33 \(\S+ line \d+\): bank_o expected 5'h00, got 5'h01`, stderr) {
		t.Errorf("without USE_XOR: exit %d, want 1 and a failure at vector 33:\n%s%s", code, stdout, stderr)
	}
	for _, c := range []struct {
		what string
		args []string
		want string
	}{
		{"without -I", []string{"-D", "HIGH_LSB=5", "-D", "USE_XOR"}, "h_hash.vh not found"},
		{"without HIGH_LSB", []string{"-I", inc, "-D", "USE_XOR"}, "HIGH_LSB"},
	} {
		code, stdout, stderr := verifyRTL(c.args...)
		if code != 1 || !strings.Contains(stdout, "h                        icarus     ERROR") ||
			!strings.Contains(stderr, "icarus build") || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, want 1 with the build error naming %q:\n%s%s", c.what, code, c.want, stdout, stderr)
		}
	}

	missing := filepath.Join(dir, "missing")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-I", missing, "-D", "HIGH_LSB=5"}, "-I " + missing + ": no such file or directory"},
		{[]string{"-I", src}, "-I " + src + ": not a directory"},
		{[]string{"-D", "DUT=other"}, "-D DUT=other: DUT is the testbench's macro"},
		{[]string{"-D", "1X=2"}, `-D 1X=2: "1X" is not a macro name`},
		{[]string{"--vcd-from", "-1"}, "--vcd-from -1: a vector number"},
	} {
		code, stdout, stderr := verifyRTL(c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s%s", c.args, code, c.want, stdout, stderr)
		}
	}
	for _, args := range [][]string{{"-I", inc}, {"-D", "X"}, {"--vcd"}} {
		code, _, stderr := lsugen(t, append(append([]string{"verify"}, args...), spec)...)
		if code != 2 || !strings.Contains(stderr, "needs --rtl FILE.v") {
			t.Errorf("%v without --rtl: exit %d, %q", args, code, stderr)
		}
	}
}

// TestVerifyRTL_VCD: --vcd-from N (implying --vcd) leaves the waveform in
// the unit's and engine's work directory, keeps a temporary work
// directory, and names the waveform on a pass and in a failure.
func TestVerifyRTL_VCD(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "a.hcl", goodSpec)
	writeSpec(t, dir, "h_hash.vh", hashHeaderVH)
	src := writeSpec(t, dir, "h.v", hashIncludeV)
	work := filepath.Join(dir, "work")
	vcd := filepath.Join(work, "h", "icarus", "h_icarus.vcd")
	for _, c := range []struct {
		define string
		code   int
		want   string
	}{
		{"USE_XOR", 0, "h: module h (icarus): passed; waveform in " + vcd},
		{"USE_OR", 1, "bank_o expected 5'h00, got 5'h01; inputs addr_i=10'h021; waveform in " + vcd},
	} {
		os.RemoveAll(work)
		code, stdout, stderr := lsugen(t, "verify", "--sim", "icarus", "--rtl", src, "-I", dir, "-D", "HIGH_LSB=5", "-D", c.define,
			"--vcd-from", "30", "--work", work, spec)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("-D %s: exit %d, want %d and %q:\n%s%s", c.define, code, c.code, c.want, stdout, stderr)
		}
		text, err := os.ReadFile(vcd)
		if err != nil || !strings.Contains(string(text), "$version lsugen "+gen.Version) || !regexpMatch(`\n#30000\n`, string(text)) || regexpMatch(`\n#(\d|[12]\d)000\n`, string(text)) {
			t.Errorf("-D %s: %s (%v) is no VCD from vector 30 by lsugen:\n%.300s", c.define, vcd, err, text)
		}
	}

	// Without --work the temporary directory is kept for the waveform.
	code, stdout, stderr := lsugen(t, "verify", "--sim", "icarus", "--rtl", src, "-I", dir, "-D", "HIGH_LSB=5", "-D", "USE_XOR", "--vcd", "--json", spec)
	var rep verifyReport
	if err := json.Unmarshal([]byte(stdout), &rep); code != 0 || err != nil || rep.Work == "" {
		t.Fatalf("--vcd --json: exit %d, %v, stderr %q", code, err, stderr)
	}
	defer os.RemoveAll(rep.Work)
	if _, err := os.Stat(filepath.Join(rep.Work, "h", "icarus", "h_icarus.vcd")); err != nil {
		t.Error(err)
	}
}

// TestVerifyRTL_IcarusCannotCompileSV: a SystemVerilog source Icarus
// cannot compile (inside) skips Icarus with the library's note, on the
// check's line, in JSON and in JUnit; with Icarus alone no simulator
// checked the module: exit 1.
func TestVerifyRTL_IcarusCannotCompileSV(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "a.hcl", goodSpec)
	src := writeSpec(t, dir, "h.sv", "module h (input logic [9:0] addr_i, output logic [4:0] bank_o);\n"+
		"    always_comb bank_o = (addr_i[4:0] inside {5'd0}) ? addr_i[9:5] : addr_i[4:0] ^ addr_i[9:5];\nendmodule\n")
	junit := filepath.Join(dir, "j.xml")
	code, stdout, stderr := lsugen(t, "verify", "--sim", "icarus", "--rtl", src, "--junit", junit, spec)
	if code != 1 || !regexpMatch(`(?m)^h +icarus +SKIPPED +Icarus Verilog cannot compile the SystemVerilog sources \(h\.sv\) with -g2012: .*inside.*; not checked under Icarus$`, stdout) ||
		!strings.Contains(stderr, "lsugen verify: h: no simulator could check module h\n") {
		t.Errorf("exit %d, want 1, a SKIPPED line and no simulator:\n%s%s", code, stdout, stderr)
	}
	x, _ := os.ReadFile(junit)
	if !strings.Contains(string(x), `skipped="1"`) || !strings.Contains(string(x), `<skipped message="Icarus Verilog cannot compile`) {
		t.Errorf("JUnit:\n%s", x)
	}
}

// TestRTLVerdict: a simulator skipped for the sources does not fail the
// run when another checked each unit; an interrupted check, a failure,
// an error or a unit that only skips does.
func TestRTLVerdict(t *testing.T) {
	skip := verifyResult{Engine: "icarus", Status: statusSkipped, Error: "Icarus Verilog cannot compile ..."}
	pass := verifyResult{Engine: "verilator", Status: statusPass, Vectors: 1024}
	for _, c := range []struct {
		name    string
		results [][]verifyResult
		passed  bool
		verdict string
	}{
		{"skip, pass", [][]verifyResult{{skip, pass}}, true,
			"module h0 matches the 1024 golden vectors of u0 under verilator (not checked under icarus: see above)\n"},
		{"pass, pass", [][]verifyResult{{{Engine: "icarus", Status: statusPass, Vectors: 1024}, pass}}, true,
			"module h0 matches the 1024 golden vectors of u0 under icarus and verilator\n"},
		{"skip only", [][]verifyResult{{skip}}, false, ""},
		{"second unit skips only", [][]verifyResult{{skip, pass}, {skip}}, false, ""},
		{"interrupted", [][]verifyResult{{{Engine: "icarus", Status: statusSkipped, Error: "interrupted"}, pass}}, false, ""},
		{"fail", [][]verifyResult{{skip, {Engine: "verilator", Status: statusFail}}}, false, ""},
		{"error", [][]verifyResult{{{Engine: "icarus", Status: statusError}, pass}}, false, ""},
	} {
		rep := &verifyReport{Mode: modeRTL}
		for i, rs := range c.results {
			rep.Units = append(rep.Units, verifyUnit{Name: "u" + strconv.Itoa(i), Module: "h" + strconv.Itoa(i), Results: rs})
		}
		rep.count()
		var stderr, out strings.Builder
		rtlVerdict(rep, &stderr)
		if rep.Passed != c.passed {
			t.Errorf("%s: passed %v, want %v", c.name, rep.Passed, c.passed)
		}
		if strings.Contains(c.name, "skip") && !c.passed && !strings.Contains(stderr.String(), "no simulator could check module") {
			t.Errorf("%s: stderr %q", c.name, stderr.String())
		}
		if c.passed {
			writeRTLVerdict(&out, rep)
			if out.String() != c.verdict {
				t.Errorf("%s: verdict %q, want %q", c.name, out.String(), c.verdict)
			}
		}
	}
}
