package verify_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/toolchain"
	"github.com/lsugen/lsugen/units"
	"github.com/lsugen/lsugen/verify"
	"github.com/lsugen/lsugen/verify/hdl"
)

// Tests of the golden vectors and the standalone testbenches that `lsugen
// gen --tb` writes. They run the testbenches with the very commands their
// headers document, in a directory holding only the generated files.

var tbInfo = rtl.Info{Version: "lsugen test", Source: "test"}

// exampleUnit is one unit of the example specs, generated.
type exampleUnit struct {
	spec   specs.Unit
	design *netlist.Design
}

func exampleUnits(t *testing.T) []exampleUnit {
	t.Helper()
	paths, _ := filepath.Glob("../specs/*.hcl")
	if len(paths) == 0 {
		t.Fatal("no example specs")
	}
	var us []exampleUnit
	for _, path := range paths {
		for _, u := range load(t, path) {
			d, diags := units.Generate(u)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			us = append(us, exampleUnit{u, d})
		}
	}
	return us
}

func exampleUnitNamed(t *testing.T, name string) exampleUnit {
	t.Helper()
	for _, u := range exampleUnits(t) {
		if u.design.Name == name {
			return u
		}
	}
	t.Fatalf("no unit %s in specs/", name)
	return exampleUnit{}
}

// writeTB writes the unit's RTL, gate netlist, testbench and vector file
// into dir, as `lsugen gen --tb -o dir` does, and returns the golden set.
func writeTB(t *testing.T, dir string, u exampleUnit) *verify.GoldenSet {
	t.Helper()
	g, err := golden(t, u.spec, u.design)
	if err != nil {
		t.Fatal(err)
	}
	files, err := rtl.Files(u.design, tbInfo)
	if err != nil {
		t.Fatal(err)
	}
	files[verify.TestbenchFileName(u.design)] = g.Testbench(tbInfo)
	files[verify.VectorFileName(u.design)] = g.VectorFile(tbInfo)
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// tool runs an external tool (found by toolchain.Find) in dir and returns its
// combined output and exit status (-1: ended by a signal).
func tool(t *testing.T, dir, name string, args ...string) (string, int) {
	t.Helper()
	path := name
	if !strings.Contains(name, "/") {
		tl, err := toolchain.Find(name)
		if err != nil {
			t.Fatal(err)
		}
		path = tl.Path
	}
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	}
	t.Fatalf("%s: %v", name, err)
	return "", 0
}

// runIcarus compiles the testbench of unit name with the Verilog file dut
// as its header says (defines: extra -D options) and runs it.
func runIcarus(t *testing.T, dir, name, dut string, defines ...string) (string, int) {
	t.Helper()
	args := append([]string{"-g2005", "-Wall", "-o", name + "_tb.vvp"}, defines...)
	args = append(args, name+"_tb.v", dut)
	if out, code := tool(t, dir, "iverilog", args...); code != 0 || out != "" {
		t.Fatalf("iverilog %s: exit %d:\n%s", strings.Join(args, " "), code, out)
	}
	return tool(t, dir, "vvp", "-n", name+"_tb.vvp")
}

// runVerilatorBinary builds the testbench with `verilator --binary -Wall`
// as its header says and runs it.
func runVerilatorBinary(t *testing.T, dir, name, dut string) (string, int) {
	t.Helper()
	if out, code := tool(t, dir, "verilator", "--binary", "-Wall", name+"_tb.v", dut); code != 0 {
		t.Fatalf("verilator --binary: exit %d:\n%s", code, out)
	}
	return tool(t, dir, filepath.Join(dir, "obj_dir", "V"+name+"_tb"))
}

func passText(g *verify.GoldenSet) string {
	if g.Clocked {
		return fmt.Sprintf("PASS %d cycles\n", g.Len())
	}
	return fmt.Sprintf("PASS %d vectors\n", g.Len())
}

// TestStandaloneTestbench_IcarusPassesEveryUnit runs every example unit's
// testbench against its RTL under plain iverilog and vvp: every vector
// (cycle) of the golden file passes, without a warning.
func TestStandaloneTestbench_IcarusPassesEveryUnit(t *testing.T) {
	for _, u := range exampleUnits(t) {
		t.Run(u.design.Name, func(t *testing.T) {
			dir := t.TempDir()
			g := writeTB(t, dir, u)
			out, code := runIcarus(t, dir, u.design.Name, rtl.RTLFileName(u.design))
			if code != 0 || !strings.Contains(out, passText(g)) {
				t.Errorf("exit %d, want 0 and %q:\n%s", code, passText(g), out)
			}
		})
	}
}

// TestStandaloneTestbench_GatesThroughDUTMacro checks the gate netlists of
// a combinational and a clocked unit with -DDUT=NAME_gates.
func TestStandaloneTestbench_GatesThroughDUTMacro(t *testing.T) {
	for _, name := range []string{"atomic_add_cla", "ep_elastic_m4"} {
		u := exampleUnitNamed(t, name)
		dir := t.TempDir()
		g := writeTB(t, dir, u)
		gates := rtl.GatesModuleName(u.design)
		out, code := runIcarus(t, dir, name, rtl.GatesFileName(u.design), "-D"+verify.DUTMacro+"="+gates)
		if code != 0 || !strings.Contains(out, passText(g)) {
			t.Errorf("%s: exit %d, want 0 and %q:\n%s", gates, code, passText(g), out)
		}
	}
}

// breakRTL returns the RTL text with old replaced by new, once.
func breakRTL(t *testing.T, text, old, new string) string {
	t.Helper()
	if strings.Count(text, old) != 1 {
		t.Fatalf("the generated RTL has %d copies of %q, want 1", strings.Count(text, old), old)
	}
	return strings.Replace(text, old, new, 1)
}

// brokenCases are hand-broken copies of a combinational and a clocked
// unit's generated RTL.
var brokenCases = []struct {
	unit, old, new string
}{
	// An operator: OR for XOR.
	{"atomic_xor", "assign bank_o = addr_i[4:0] ^ addr_i[9:5];", "assign bank_o = addr_i[4:0] | addr_i[9:5];"},
	// A register: the memory pipeline's tag inverted between two stages.
	{"ep_elastic_m4", "mem1_tag <= mem0_tag;", "mem1_tag <= ~mem0_tag;"},
}

var failRE = regexp.MustCompile(`(?m)^FAIL (vector|cycle) (\d+) \((\S+) line (\d+)\): (\w+) expected (\d+)'h([0-9a-f]+), got \d+'h([0-9a-fxz]+); inputs .*$`)

// checkFailure checks a FAIL line against the vector file: the line
// number is the failing vector's, and the expected value is the file's.
// It returns the failing vector (cycle).
func checkFailure(t *testing.T, out string, g *verify.GoldenSet, vecPath string) int {
	t.Helper()
	m := failRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no FAIL line:\n%s", out)
	}
	what := "vector"
	if g.Clocked {
		what = "cycle"
	}
	if m[1] != what {
		t.Errorf("FAIL names a %s, want a %s", m[1], what)
	}
	v, _ := strconv.Atoi(m[2])
	line, _ := strconv.Atoi(m[4])
	cols, fileLine := dataLine(t, vecPath, v)
	if line != fileLine {
		t.Errorf("FAIL names line %d, but %s %d is on line %d", line, what, v, fileLine)
	}
	col := -1
	ports := append(append([]*netlist.Port(nil), g.Inputs()...), g.Outputs()...)
	for i, p := range ports {
		if p.Name == m[5] {
			col = i
		}
	}
	if col < len(g.Inputs()) {
		t.Fatalf("FAIL names port %s, not an output", m[5])
	}
	if m[7] != cols[col] || m[8] == m[7] {
		t.Errorf("FAIL: %s expected %s, got %s; the file expects %s", m[5], m[7], m[8], cols[col])
	}
	return v
}

// dataLine returns the columns of vector v of a vector file and its line
// number, counted from 1.
func dataLine(t *testing.T, path string, v int) ([]string, int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n, k := 0, -1
	for sc.Scan() {
		n++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		if k++; k == v {
			return strings.Fields(text), n
		}
	}
	t.Fatalf("%s has no vector %d", path, v)
	return nil, 0
}

// TestStandaloneTestbench_BrokenUnitFails: a hand-broken copy of a
// combinational and of a clocked unit fails its standalone testbench under
// plain iverilog/vvp and `verilator --binary` (non-zero exit, the first
// failing vector named, the same one in both), and the unbroken RTL
// passes both.
func TestStandaloneTestbench_BrokenUnitFails(t *testing.T) {
	for _, bc := range brokenCases {
		t.Run(bc.unit, func(t *testing.T) {
			u := exampleUnitNamed(t, bc.unit)
			good, bad := t.TempDir(), t.TempDir()
			g := writeTB(t, good, u)
			writeTB(t, bad, u)
			rtlFile := rtl.RTLFileName(u.design)
			text, err := os.ReadFile(filepath.Join(good, rtlFile))
			if err != nil {
				t.Fatal(err)
			}
			broken := breakRTL(t, string(text), bc.old, bc.new)
			if err := os.WriteFile(filepath.Join(bad, rtlFile), []byte(broken), 0o644); err != nil {
				t.Fatal(err)
			}
			vec := filepath.Join(bad, verify.VectorFileName(u.design))

			out, code := runIcarus(t, good, bc.unit, rtlFile)
			if code != 0 || !strings.Contains(out, passText(g)) {
				t.Errorf("icarus, unbroken: exit %d, want 0 and %q:\n%s", code, passText(g), out)
			}
			out, code = runIcarus(t, bad, bc.unit, rtlFile)
			if code == 0 {
				t.Errorf("icarus, broken: exit 0:\n%s", out)
			}
			vIcarus := checkFailure(t, out, g, vec)

			out, code = runVerilatorBinary(t, good, bc.unit, rtlFile)
			if code != 0 || !strings.Contains(out, passText(g)) {
				t.Errorf("verilator, unbroken: exit %d, want 0 and %q:\n%s", code, passText(g), out)
			}
			out, code = runVerilatorBinary(t, bad, bc.unit, rtlFile)
			if code == 0 {
				t.Errorf("verilator, broken: exit 0:\n%s", out)
			}
			if v := checkFailure(t, out, g, vec); v != vIcarus {
				t.Errorf("verilator fails at %d, icarus at %d", v, vIcarus)
			}
			if bc.unit == "atomic_xor" {
				// OR differs from XOR first where both halves share a
				// one bit: address 0x21, vector 33 of the exhaustive
				// enumeration.
				if vIcarus != 33 {
					t.Errorf("first failing vector %d, want 33", vIcarus)
				}
			}
		})
	}
}

// TestRTLCheck_VerilatorSubset runs the standalone testbench of a few
// representative units under Verilator through RTLCheck: a coalescer with
// its directed warps, a configurable hash, the warp ready logic (clocked)
// and a gate netlist given as the module to check.
func TestRTLCheck_VerilatorSubset(t *testing.T) {
	for _, c := range []struct{ unit, top string }{
		{"coalesce_spec_8", ""},
		{"cfg_bitwise_xor", ""},
		{"wrm_4way", ""},
		{"ep_elastic_fig6", "ep_elastic_fig6_gates"},
	} {
		t.Run(c.unit, func(t *testing.T) {
			u := exampleUnitNamed(t, c.unit)
			src := t.TempDir()
			g := writeTB(t, src, u)
			file := rtl.RTLFileName(u.design)
			if c.top != "" {
				file = rtl.GatesFileName(u.design)
			}
			check := verify.RTLCheck{Golden: g, Info: tbInfo, Sources: []string{filepath.Join(src, file)}, Top: c.top, Dir: t.TempDir()}
			res, err := check.Run(context.Background(), []verify.Engine{verify.Verilator})
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != 1 || !res[0].Passed || res[0].Count != g.Len() {
				t.Errorf("results %+v, want one pass of %d", res, g.Len())
			}
		})
	}
}

// TestRTLCheck_Errors: a module with other ports, a missing module and the
// netlist engine are errors, not failures.
func TestRTLCheck_Errors(t *testing.T) {
	u := exampleUnitNamed(t, "atomic_xor")
	src := t.TempDir()
	g := writeTB(t, src, u)
	narrow := filepath.Join(src, "narrow.v")
	if err := os.WriteFile(narrow, []byte("module atomic_xor (input wire [12:0] addr_i, output wire [4:0] bank_o);\n"+
		"    assign bank_o = addr_i[4:0] ^ addr_i[9:5];\nendmodule\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	icarus := []verify.Engine{verify.Icarus}
	run := func(top string, files []string, engines []verify.Engine) error {
		_, err := verify.RTLCheck{Golden: g, Info: tbInfo, Sources: files, Top: top, Dir: t.TempDir()}.Run(context.Background(), engines)
		return err
	}
	if err := run("", []string{narrow}, icarus); !errors.Is(err, hdl.ErrInterface) || !strings.Contains(err.Error(), "expects 13 bits") {
		t.Errorf("narrow addr_i: %v, want the interface error with the compiler's warning", err)
	}
	if err := run("nothere", []string{filepath.Join(src, "atomic_xor.v")}, icarus); err == nil || !strings.Contains(err.Error(), "nothere") {
		t.Errorf("missing module: %v", err)
	}
	if err := run("", []string{filepath.Join(src, "atomic_xor.v")}, []verify.Engine{verify.Netlist}); err == nil {
		t.Error("netlist engine: no error")
	}
	if err := run("a b", []string{filepath.Join(src, "atomic_xor.v")}, icarus); err == nil {
		t.Error("module name with a space: no error")
	}
}

// TestStandaloneTestbench_BadVectorFiles: a line with a column missing, a
// missing file and a file without vectors fail with a message naming the
// problem.
func TestStandaloneTestbench_BadVectorFiles(t *testing.T) {
	u := exampleUnitNamed(t, "atomic_xor")
	dir := t.TempDir()
	writeTB(t, dir, u)
	if out, code := tool(t, dir, "iverilog", "-g2005", "-Wall", "-o", "tb.vvp", "atomic_xor_tb.v", "atomic_xor.v"); code != 0 {
		t.Fatal(out)
	}
	for _, c := range []struct{ name, text, want string }{
		{"short.vec", "# a comment\n0000 00\n\n0021 \n0001 01\n", "FAIL short.vec line 4: not 2 hex columns"},
		{"extra.vec", "0000 00 00\n", "FAIL extra.vec line 1: not 2 hex columns"},
		{"empty.vec", "# only a comment\n", "FAIL no vectors in empty.vec"},
		{"wrong.vec", "0000 00\r\n0001 02\r\n", "FAIL vector 1 (wrong.vec line 2): bank_o expected 5'h02, got 5'h01; inputs addr_i=14'h0001"},
	} {
		if err := os.WriteFile(filepath.Join(dir, c.name), []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		out, code := tool(t, dir, "vvp", "-n", "tb.vvp", "+vectors="+c.name)
		if code == 0 || !strings.Contains(out, c.want) {
			t.Errorf("%s: exit %d, want non-zero and %q:\n%s", c.name, code, c.want, out)
		}
	}
	out, code := tool(t, dir, "vvp", "-n", "tb.vvp", "+vectors=absent.vec")
	if code == 0 || !strings.Contains(out, "FAIL cannot open the vector file absent.vec") {
		t.Errorf("absent.vec: exit %d:\n%s", code, out)
	}
}

// TestGolden_HashVectorsAreExhaustiveAndRight reads the golden vectors of
// the fixed XOR hash: every 14-bit address once, in order, each with
// bank = addr[4:0] ^ addr[9:5], worked out here.
func TestGolden_HashVectorsAreExhaustiveAndRight(t *testing.T) {
	u := exampleUnitNamed(t, "atomic_xor")
	g, err := golden(t, u.spec, u.design)
	if err != nil {
		t.Fatal(err)
	}
	text := string(g.VectorFile(tbInfo))
	if !strings.Contains(text, "#   1  addr_i  input   14 bits\n#   2  bank_o  output  5 bits, expected\n# 16384 vectors: exhaustive\n") {
		t.Errorf("header does not list the columns and the count:\n%.1500s", text)
	}
	v := 0
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		want := fmt.Sprintf("%04x %02x", v, (v^v>>5)&31)
		if line != want {
			t.Fatalf("vector %d: %q, want %q", v, line, want)
		}
		v++
	}
	if v != 1<<14 {
		t.Errorf("%d vectors, want %d", v, 1<<14)
	}
}

// TestGolden_CoalescerVectorsStartDirected: the golden vectors of a
// coalescer start with the directed warps, with the expected outputs
// worked out here: a strictly increasing warp, a decreasing one and a
// warp of one address. The 8-lane coalescer's blocks are 32 addresses
// (block_bits 5), and unique_o[i] is 1 when no later lane has lane i's
// block.
func TestGolden_CoalescerVectorsStartDirected(t *testing.T) {
	u := exampleUnitNamed(t, "coalesce_a2a_8") // 8 lanes of 16-bit addresses
	g, err := golden(t, u.spec, u.design)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(g.Coverage, "66 directed + ") {
		t.Errorf("coverage %q, want 66 directed warps first", g.Coverage)
	}
	var data []string
	for _, line := range strings.Split(string(g.VectorFile(tbInfo)), "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			data = append(data, line)
		}
	}
	for i, step := range []int64{1, -1, 0} {
		f := strings.Fields(data[i])
		var a []int64
		for k := 0; k < 8; k++ { // lane k: digits 4k .. 4k+3 from the right
			x, err := strconv.ParseUint(f[0][len(f[0])-4*(k+1):len(f[0])-4*k], 16, 16)
			if err != nil {
				t.Fatal(err)
			}
			a = append(a, int64(x))
		}
		unique := 0
		for k := 0; k < 8; k++ {
			if k > 0 && a[k]-a[k-1] != step {
				t.Errorf("vector %d: lanes %x, want steps of %d", i, a, step)
			}
			later := false
			for j := k + 1; j < 8; j++ {
				later = later || a[j]>>5 == a[k]>>5
			}
			if !later {
				unique |= 1 << k
			}
		}
		if want := fmt.Sprintf("%02x", unique); f[1] != want {
			t.Errorf("vector %d (lanes %x): unique_o %s, want %s", i, a, f[1], want)
		}
	}
}

// golden computes a unit's golden vectors through its family's job.
func golden(t *testing.T, u specs.Unit, d *netlist.Design) (*verify.GoldenSet, error) {
	t.Helper()
	j, err := units.Job(u, d)
	if err != nil {
		t.Fatal(err)
	}
	return verify.Golden(j)
}
