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
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/compose"
	"github.com/lsugen/lsugen/flow"
	"github.com/lsugen/lsugen/internal/testenv"
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
	// variable is the composer's measure of a variable-latency unit.
	variable *compose.Timing
}

// exampleUnits are the example specs' units (flow.ExampleUnits), shared
// by every test of the binary: read, never modified.
func exampleUnits(t *testing.T) []exampleUnit {
	t.Helper()
	all, err := flow.ExampleUnits()
	if err != nil {
		t.Fatal(err)
	}
	us := make([]exampleUnit, len(all))
	for i, u := range all {
		us[i] = exampleUnit{u.Spec, u.Design, u.Variable}
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
	g, err := golden(t, u)
	if err != nil {
		t.Fatal(err)
	}
	files, err := rtl.FilesWithSubmodules(u.design, tbInfo)
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
// as its header says (defines: extra -D options) and runs it. A run that
// passed before on the same files (every file in dir: the testbench, the
// Verilog, the vectors), options and Icarus is not repeated: its output is
// remembered (testenv.Remembered).
func runIcarus(t *testing.T, dir, name, dut string, defines ...string) (string, int) {
	t.Helper()
	args := append([]string{"-g2005", "-Wall", "-o", name + "_tb.vvp"}, defines...)
	args = append(args, name+"_tb.v", dut)
	key := runKey(t, dir, []string{"iverilog", "vvp"}, args)
	code := 0
	out, _, _ := testenv.Remembered(toolchain.CacheRoot(), "icarus-testbench", key, func() ([]byte, bool) {
		if out, code := tool(t, dir, "iverilog", args...); code != 0 || out != "" {
			t.Fatalf("iverilog %s: exit %d:\n%s", strings.Join(args, " "), code, out)
		}
		var out string
		out, code = tool(t, dir, "vvp", "-n", name+"_tb.vvp")
		return []byte(out), code == 0
	})
	return string(out), code
}

// runKey is the key of a run of the tools (by command name) with args on
// the files in dir: their versions, the arguments, every file's name and
// text.
func runKey(t *testing.T, dir string, tools, args []string) *testenv.Key {
	t.Helper()
	key := &testenv.Key{}
	for _, name := range tools {
		tl, err := toolchain.Find(name)
		if err != nil {
			t.Fatal(err)
		}
		key.Add(name, tl.Version)
	}
	key.Add(args...)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		if e.Type().IsRegular() { // not a build directory an earlier run left
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	if err := key.AddFiles(files...); err != nil {
		t.Fatal(err)
	}
	return key
}

// runVerilatorBinary builds the testbench with `verilator --binary -Wall`
// as its header says and runs it; a run that passed before on the same
// files, options and tools is remembered as runIcarus's.
func runVerilatorBinary(t *testing.T, dir, name, dut string) (string, int) {
	t.Helper()
	args := []string{"--binary", "-Wall", name + "_tb.v", dut}
	code := 0
	out, _, _ := testenv.Remembered(toolchain.CacheRoot(), "verilator-testbench", runKey(t, dir, []string{"verilator", "g++"}, args), func() ([]byte, bool) {
		if out, code := tool(t, dir, "verilator", args...); code != 0 {
			t.Fatalf("verilator --binary: exit %d:\n%s", code, out)
		}
		var out string
		out, code = tool(t, dir, filepath.Join(dir, "obj_dir", "V"+name+"_tb"))
		return []byte(out), code == 0
	})
	return string(out), code
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
			rtlFiles, _ := rtl.Sources(u.design) // the units it instantiates, then its own
			out, code := runIcarus(t, dir, u.design.Name, rtlFiles[len(rtlFiles)-1], rtlFiles[:len(rtlFiles)-1]...)
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

			// A Verilator build compiles its run-time library (about 13 s of
			// CPU): the unbroken unit once, the clocked one, whose
			// testbench also uses --timing's delays and clock (remembered
			// when it passed before, as the Icarus runs).
			if bc.unit == "ep_elastic_m4" {
				out, code = runVerilatorBinary(t, good, bc.unit, rtlFile)
				if code != 0 || !strings.Contains(out, passText(g)) {
					t.Errorf("verilator, unbroken: exit %d, want 0 and %q:\n%s", code, passText(g), out)
				}
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
	g, err := golden(t, u)
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
	g, err := golden(t, u)
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
func golden(t *testing.T, u exampleUnit) (*verify.GoldenSet, error) {
	t.Helper()
	j, err := units.Job(u.spec, units.Built{Design: u.design, Variable: u.variable})
	if err != nil {
		t.Fatal(err)
	}
	return verify.Golden(j)
}

// hashUnit is a fixed XOR hash of addrBits address bits onto 32 banks,
// generated, as a spec would declare it.
func hashUnit(t *testing.T, name string, addrBits int) exampleUnit {
	t.Helper()
	h := &specs.Hash{Name: name, Function: specs.FixedXor, AddrBits: addrBits, BankBits: 5}
	d, diags := units.Generate(h)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return exampleUnit{spec: h, design: d}
}

// TestGolden_ExhaustiveUpTo2To20Inputs: golden vectors enumerate every
// input exactly where `lsugen verify` does (2^20 inputs, all input bits
// together, configuration included), in counting order: a 20-bit hash gets
// all 1,048,576 addresses, a 21-bit one random vectors, and the
// configurable bit-vector permutation (14 address and 4 configuration
// bits) all 2^18 pairs.
func TestGolden_ExhaustiveUpTo2To20Inputs(t *testing.T) {
	u := hashUnit(t, "wide_xor", 20)
	g, err := golden(t, u)
	if err != nil {
		t.Fatal(err)
	}
	if g.Len() != 1<<20 || g.Coverage != "exhaustive" {
		t.Errorf("20 input bits: %d vectors (%s), want all %d", g.Len(), g.Coverage, 1<<20)
	}
	text := g.VectorFile(tbInfo)
	if !strings.Contains(string(text), "\n# 1048576 vectors: exhaustive\n") {
		t.Error("the vector file's header does not say it is exhaustive")
	}
	if len(text) > 10<<20 {
		t.Errorf("vector file of %d bytes, want under 10 MiB", len(text))
	}
	v := 0
	for _, line := range strings.Split(strings.TrimSuffix(string(text), "\n"), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		if want := fmt.Sprintf("%05x %02x", v, (v^v>>5)&31); line != want {
			t.Fatalf("vector %d: %q, want %q", v, line, want)
		}
		v++
	}
	if v != 1<<20 {
		t.Errorf("%d vector lines, want %d", v, 1<<20)
	}

	u = hashUnit(t, "wider_xor", 21)
	if g, err = golden(t, u); err != nil {
		t.Fatal(err)
	}
	if g.Len() > 4096 || g.Coverage != "random" {
		t.Errorf("21 input bits: %d vectors (%s), want at most 4096 random ones", g.Len(), g.Coverage)
	}

	u = exampleUnitNamed(t, "cfg_bitvector_perm")
	if g, err = golden(t, u); err != nil {
		t.Fatal(err)
	}
	if g.Len() != 1<<18 || g.Coverage != "exhaustive" {
		t.Errorf("cfg_bitvector_perm: %d vectors (%s), want all %d address and configuration pairs", g.Len(), g.Coverage, 1<<18)
	}
}

// TestStandaloneTestbench_WrongAtOneAddressFails: a 20-bit hash whose RTL
// is wrong at a single address, which the 4,096 random vectors of the
// earlier golden files would have missed, fails its standalone testbench
// under iverilog/vvp at that address; the unbroken RTL passes all 2^20.
func TestStandaloneTestbench_WrongAtOneAddressFails(t *testing.T) {
	const bad = 0x9c3a7
	u := hashUnit(t, "wide_xor", 20)
	old := verify.Plan{MaxVectors: 1 << 14, Configs: 16, Random: 4096, Seed: 1}
	vs, _ := old.Vectors(u.design.Inputs(), 0)
	for _, v := range vs {
		if v[0][0] == bad {
			t.Fatalf("address %#x is among the 4096 random vectors: choose another", bad)
		}
	}
	good, broken := t.TempDir(), t.TempDir()
	g := writeTB(t, good, u)
	writeTB(t, broken, u)
	rtlFile := rtl.RTLFileName(u.design)
	text, err := os.ReadFile(filepath.Join(good, rtlFile))
	if err != nil {
		t.Fatal(err)
	}
	const hash = "addr_i[4:0] ^ addr_i[9:5]"
	wrong := breakRTL(t, string(text), "assign bank_o = "+hash+";",
		fmt.Sprintf("assign bank_o = (addr_i == 20'h%05x) ? ~(%s) : (%s);", bad, hash, hash))
	if err := os.WriteFile(filepath.Join(broken, rtlFile), []byte(wrong), 0o644); err != nil {
		t.Fatal(err)
	}

	out, code := runIcarus(t, good, u.design.Name, rtlFile)
	if code != 0 || !strings.Contains(out, "PASS 1048576 vectors\n") {
		t.Errorf("unbroken: exit %d, want 0 and PASS 1048576 vectors:\n%s", code, out)
	}
	out, code = runIcarus(t, broken, u.design.Name, rtlFile)
	if code == 0 {
		t.Fatalf("wrong at %#x: exit 0:\n%s", bad, out)
	}
	vec := filepath.Join(broken, verify.VectorFileName(u.design))
	if v := checkFailure(t, out, g, vec); v != bad {
		t.Errorf("fails at vector %#x, want %#x", v, bad)
	}
	// The waveform of the last vectors up to the failure, not of 600,000.
	out, code = tool(t, broken, "vvp", "-n", u.design.Name+"_tb.vvp", "+dump=near.vcd", fmt.Sprintf("+%s=%d", verify.DumpFromPlusarg, bad-10))
	if code == 0 || checkFailure(t, out, g, vec) != bad {
		t.Fatalf("+dump +%s: exit %d, want the same failure:\n%s", verify.DumpFromPlusarg, code, out)
	}
	f := verify.ReadTestVCD(t, filepath.Join(broken, "near.vcd"))
	checkStandaloneVCD(t, f, u.design.Name+"_tb.", g, vec, bad-10, bad)
	if n := f.Changes(t, u.design.Name+"_tb.addr_i"); n != 11 {
		t.Errorf("addr_i changes %d times in the VCD, want 11 (vectors %d to %d)", n, bad-10, bad)
	}
}

// TestStandaloneTestbench_DumpVCD: +dump makes the standalone testbench
// write a VCD, under vvp and a `verilator --binary --trace` build, in
// which every input and output is a bus with its range, each output sits
// beside its expected value from the vector file, and the flag mismatch
// is 0 up to the failing vector (cycle) and 1 in it: for the hand-broken
// combinational and clocked units.
func TestStandaloneTestbench_DumpVCD(t *testing.T) {
	for _, bc := range brokenCases {
		t.Run(bc.unit, func(t *testing.T) {
			u := exampleUnitNamed(t, bc.unit)
			dir := t.TempDir()
			g := writeTB(t, dir, u)
			rtlFile := rtl.RTLFileName(u.design)
			text, err := os.ReadFile(filepath.Join(dir, rtlFile))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, rtlFile), []byte(breakRTL(t, string(text), bc.old, bc.new)), 0o644); err != nil {
				t.Fatal(err)
			}
			vec := filepath.Join(dir, verify.VectorFileName(u.design))
			tb := verify.TestbenchModule(u.design)

			out, code := runIcarus(t, dir, bc.unit, rtlFile)
			if code == 0 {
				t.Fatalf("icarus: exit 0:\n%s", out)
			}
			fail := checkFailure(t, out, g, vec)
			out, code = tool(t, dir, "vvp", "-n", tb+".vvp", "+dump")
			if code == 0 || checkFailure(t, out, g, vec) != fail {
				t.Fatalf("icarus +dump: exit %d, want the same failure:\n%s", code, out)
			}
			f := verify.ReadTestVCD(t, filepath.Join(dir, verify.DumpFileName(u.design)))
			if f.Version != "Icarus Verilog" {
				t.Errorf("icarus: $version %q", f.Version)
			}
			checkStandaloneVCD(t, f, tb+".", g, vec, 0, fail)

			if !g.Clocked {
				return // Verilator's dump: one build, of the clocked unit
			}
			if out, code := tool(t, dir, "verilator", "--binary", "-Wall", "--trace", tb+".v", rtlFile); code != 0 {
				t.Fatalf("verilator --binary --trace: exit %d:\n%s", code, out)
			}
			out, code = tool(t, dir, filepath.Join(dir, "obj_dir", "V"+tb), "+dump=wave.vcd")
			if code == 0 || checkFailure(t, out, g, vec) != fail {
				t.Fatalf("verilator +dump=wave.vcd: exit %d, want the same failure:\n%s", code, out)
			}
			checkStandaloneVCD(t, verify.ReadTestVCD(t, filepath.Join(dir, "wave.vcd")), "TOP."+tb+".", g, vec, 0, fail)
		})
	}
}

// checkStandaloneVCD checks a standalone testbench's VCD (its scope top,
// with a trailing dot) that starts at vector (cycle) from, up to vector
// (cycle) fail, the first failing one: nothing is dumped before from.
func checkStandaloneVCD(t *testing.T, f *verify.TestVCD, top string, g *verify.GoldenSet, vecPath string, from, fail int) {
	t.Helper()
	for _, p := range append(append([]*netlist.Port(nil), g.Inputs()...), g.Outputs()...) {
		want := ""
		if p.Width() > 1 {
			want = fmt.Sprintf("[%d:0]", p.Width()-1)
		}
		for _, name := range []string{p.Name, "dut." + p.Name} {
			if v := f.Var(t, top+name); v.Width != p.Width() || v.Range != want {
				t.Errorf("%s: width %d range %q, want %d %q", name, v.Width, v.Range, p.Width(), want)
			}
		}
	}
	// A vector's values hold from v to v+1 ns; a cycle's inputs from 2c+2
	// to the rising edge at 2c+3.
	at := func(v int) float64 {
		if g.Clocked {
			return float64(2*v+2) + 0.5
		}
		return float64(v) + 0.5
	}
	if from > 0 {
		if got := f.Value(t, top+verify.MismatchSignal, at(from-1)); got != "" {
			t.Errorf("mismatch %q at %d, before the dump starts at %d", got, from-1, from)
		}
	}
	for v := max(from, fail-20); v <= fail; v++ {
		want := "0"
		if v == fail {
			want = "1"
		}
		if got := f.Value(t, top+verify.MismatchSignal, at(v)); got != want {
			t.Errorf("%d: mismatch %q, want %s", v, got, want)
		}
		cols, _ := dataLine(t, vecPath, v)
		for k, p := range g.Outputs() {
			exp := cols[len(g.Inputs())+k]
			got := f.Value(t, top+p.Name+verify.ExpectedSuffix, at(v))
			n, err := strconv.ParseUint(got, 2, 64)
			if err != nil || fmt.Sprintf("%0*x", len(exp), n) != exp {
				t.Errorf("%d: %s%s = %s, want %s from the vector file", v, p.Name, verify.ExpectedSuffix, got, exp)
			}
		}
	}
}

// TestRTLCheck_VCD: with VCD set, `verify --rtl`'s check leaves each
// simulator's waveform of the run from VCDFrom on, stamped with lsugen's
// version beside the simulator's, with the failing vector's mismatch flag
// set.
func TestRTLCheck_VCD(t *testing.T) {
	u := exampleUnitNamed(t, "atomic_xor")
	src := t.TempDir()
	g := writeTB(t, src, u)
	text, err := os.ReadFile(filepath.Join(src, "atomic_xor.v"))
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(src, "broken", "atomic_xor.v")
	if err := os.Mkdir(filepath.Dir(bad), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(breakRTL(t, string(text), brokenCases[0].old, brokenCases[0].new)), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	check := verify.RTLCheck{Golden: g, Info: tbInfo, Sources: []string{bad}, Dir: dir, VCD: true, VCDFrom: 30}
	res, err := check.Run(context.Background(), []verify.Engine{verify.Icarus, verify.Verilator})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Passed || !strings.HasPrefix(r.Failure, "vector 33 ") || r.VCD != filepath.Join(dir, "atomic_xor_"+string(r.Engine)+".vcd") {
			t.Errorf("%s: %+v, want a failure at vector 33 with a VCD in %s", r.Engine, r, dir)
			continue
		}
		f := verify.ReadTestVCD(t, r.VCD)
		if !strings.HasPrefix(f.Version, tbInfo.Version+", written by ") {
			t.Errorf("%s: $version %q, want %q and the simulator", r.Engine, f.Version, tbInfo.Version)
		}
		top := "atomic_xor_tb."
		if r.Engine == verify.Verilator {
			top = "TOP." + top
		}
		checkStandaloneVCD(t, f, top, g, filepath.Join(dir, "atomic_xor.vec"), check.VCDFrom, 33)
	}
}

// writeFiles writes name -> text under dir (creating directories) and
// returns the paths by name.
func writeFiles(t *testing.T, dir string, files map[string]string) map[string]string {
	t.Helper()
	paths := map[string]string{}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		paths[name] = p
	}
	return paths
}

// The fixed XOR hash written by hand: with an include file and macros
// from the command line, and in SystemVerilog.
const (
	hashHeaderVH = "`define BANK_BITS 5\n" +
		"`define HIGH_FIELD(a) a[`HIGH_LSB + `BANK_BITS - 1:`HIGH_LSB]\n"
	// Needs the include directory of atomic_hash.vh and HIGH_LSB=5;
	// without USE_XOR it ORs the halves (and fails at vector 33).
	hashIncludeV = "`include \"atomic_hash.vh\"\n" +
		"module atomic_xor (input wire [13:0] addr_i, output wire [`BANK_BITS-1:0] bank_o);\n" +
		"`ifdef USE_XOR\n" +
		"    assign bank_o = addr_i[`BANK_BITS-1:0] ^ `HIGH_FIELD(addr_i);\n" +
		"`else\n" +
		"    assign bank_o = addr_i[`BANK_BITS-1:0] | `HIGH_FIELD(addr_i);\n" +
		"`endif\n" +
		"endmodule\n"
	hashSV = "module atomic_xor (input logic [13:0] addr_i, output logic [4:0] bank_o);\n" +
		"    always_comb bank_o = addr_i[4:0] ^ addr_i[9:5];\n" +
		"endmodule\n"
	// inside, which Icarus 11 does not support: with a low half of 0 the
	// bank is the high half, as the XOR gives.
	hashInsideSV = "module atomic_xor (input logic [13:0] addr_i, output logic [4:0] bank_o);\n" +
		"    always_comb bank_o = (addr_i[4:0] inside {5'd0}) ? addr_i[9:5] : addr_i[4:0] ^ addr_i[9:5];\n" +
		"endmodule\n"
)

// TestRTLCheck_IncludeDirsDefinesAndSV: `verify --rtl`'s check passes a
// module that compiles only with its include directory and a define, under
// Icarus and Verilator; a define without a value is 1; without the
// include directory or the define it cannot compile. A SystemVerilog
// source passes under both (Icarus with -g2012).
func TestRTLCheck_IncludeDirsDefinesAndSV(t *testing.T) {
	u := exampleUnitNamed(t, "atomic_xor")
	g := writeTB(t, t.TempDir(), u)
	src := writeFiles(t, t.TempDir(), map[string]string{
		"inc/atomic_hash.vh": hashHeaderVH,
		"v/atomic_xor.v":     hashIncludeV,
		"sv/atomic_xor.sv":   hashSV,
	})
	inc := filepath.Dir(src["inc/atomic_hash.vh"])
	both := []verify.Engine{verify.Icarus, verify.Verilator}
	run := func(sources, incs, defines []string, engines []verify.Engine) ([]verify.RTLResult, error) {
		check := verify.RTLCheck{Golden: g, Info: tbInfo, Sources: sources, Dir: t.TempDir(), IncludeDirs: incs, Defines: defines}
		return check.Run(context.Background(), engines)
	}
	passes := func(what string, res []verify.RTLResult, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if len(res) != 2 {
			t.Fatalf("%s: %d results", what, len(res))
		}
		for _, r := range res {
			if !r.Passed || r.Skipped || r.Count != g.Len() {
				t.Errorf("%s, %s: %+v, want a pass of %d vectors", what, r.Engine, r, g.Len())
			}
		}
	}

	res, err := run([]string{src["v/atomic_xor.v"]}, []string{inc}, []string{"HIGH_LSB=5", "USE_XOR"}, both)
	passes("include and defines", res, err)

	res, err = run([]string{src["v/atomic_xor.v"]}, []string{inc}, []string{"HIGH_LSB=5"}, both)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Passed || !strings.HasPrefix(r.Failure, "vector 33 ") {
			t.Errorf("without USE_XOR, %s: %+v, want a failure at vector 33", r.Engine, r)
		}
	}
	for _, e := range both {
		if _, err := run([]string{src["v/atomic_xor.v"]}, nil, []string{"HIGH_LSB=5", "USE_XOR"}, []verify.Engine{e}); err == nil || !strings.Contains(err.Error(), "atomic_hash.vh") {
			t.Errorf("%s without the include directory: %v, want the compiler's error naming atomic_hash.vh", e, err)
		}
		if _, err := run([]string{src["v/atomic_xor.v"]}, []string{inc}, []string{"USE_XOR"}, []verify.Engine{e}); err == nil || !strings.Contains(err.Error(), "HIGH_LSB") {
			t.Errorf("%s without HIGH_LSB: %v, want the compiler's error naming it", e, err)
		}
	}

	res, err = run([]string{src["sv/atomic_xor.sv"]}, nil, nil, both)
	passes("SystemVerilog", res, err)
}

// TestRTLCheck_IcarusSkipsUnsupportedSV: a SystemVerilog source that
// Icarus cannot compile (inside) gives a skipped Icarus result with the
// reason, not an error or a silent pass, and Verilator's verdict; with
// Icarus alone nothing checks it, an error. Bad defines and include
// directories are errors before any build.
func TestRTLCheck_IcarusSkipsUnsupportedSV(t *testing.T) {
	u := exampleUnitNamed(t, "atomic_xor")
	g := writeTB(t, t.TempDir(), u)
	src := writeFiles(t, t.TempDir(), map[string]string{"atomic_xor.sv": hashInsideSV})["atomic_xor.sv"]
	run := func(engines []verify.Engine, incs, defines []string) ([]verify.RTLResult, error) {
		check := verify.RTLCheck{Golden: g, Info: tbInfo, Sources: []string{src}, Dir: t.TempDir(), IncludeDirs: incs, Defines: defines}
		return check.Run(context.Background(), engines)
	}
	res, err := run([]verify.Engine{verify.Icarus, verify.Verilator}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 {
		t.Fatalf("%d results, want 2", len(res))
	}
	if ic := res[0]; !ic.Skipped || ic.Passed || !strings.Contains(ic.Note, "atomic_xor.sv") || !strings.Contains(ic.Note, "inside") {
		t.Errorf("icarus: %+v, want skipped with a note naming the file and the compiler's complaint", ic)
	}
	if vl := res[1]; !vl.Passed || vl.Skipped || vl.Count != g.Len() {
		t.Errorf("verilator: %+v, want a pass", vl)
	}
	if _, err := run([]verify.Engine{verify.Icarus}, nil, nil); err == nil || !strings.Contains(err.Error(), "no simulator could check") {
		t.Errorf("icarus alone: %v, want an error", err)
	}
	for _, c := range []struct {
		incs, defines []string
		want          string
	}{
		{nil, []string{"DUT=other"}, "DUT"},
		{nil, []string{"1X=2"}, "not a macro name"},
		{nil, []string{"=2"}, "not a macro name"},
		{[]string{filepath.Join(t.TempDir(), "absent")}, nil, "absent"},
		{[]string{src}, nil, "not a directory"},
	} {
		if _, err := run([]verify.Engine{verify.Verilator}, c.incs, c.defines); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("include dirs %q, defines %q: %v, want an error with %q", c.incs, c.defines, err, c.want)
		}
	}
}

// TestGoldenDrawn_AddsVectorsPerSeed: the vectors of verify --rtl are the
// golden ones, then as many drawn with the run's seed, with the model's
// answers: different per seed, the same for one seed; an exhaustive set
// gains none.
func TestGoldenDrawn_AddsVectorsPerSeed(t *testing.T) {
	u := hashUnit(t, "wide_xor", 32)
	j, err := units.Job(u.spec, units.Built{Design: u.design})
	if err != nil {
		t.Fatal(err)
	}
	lines := func(g *verify.GoldenSet) []string {
		var out []string
		for _, l := range strings.Split(string(g.VectorFile(tbInfo)), "\n") {
			if l != "" && !strings.HasPrefix(l, "#") {
				out = append(out, l)
			}
		}
		return out
	}
	g, _ := verify.Golden(j)
	a, _ := verify.GoldenDrawn(j, 7)
	a2, _ := verify.GoldenDrawn(j, 7)
	b, _ := verify.GoldenDrawn(j, 8)
	gl, al, bl := lines(g), lines(a), lines(b)
	if len(al) != 2*len(gl) || !slices.Equal(al[:len(gl)], gl) {
		t.Fatalf("drawn set: %d vectors, want the %d golden ones first and as many more", len(al), len(gl))
	}
	if !slices.Equal(al, lines(a2)) || slices.Equal(al[len(gl):], bl[len(gl):]) {
		t.Error("drawn vectors: want the same for one seed and others for another")
	}
	for i, l := range al[len(gl):] {
		var v, bank uint64
		if _, err := fmt.Sscanf(l, "%x %x", &v, &bank); err != nil || bank != (v^v>>5)&31 {
			t.Fatalf("drawn vector %d: %q, want bank = addr[4:0] ^ addr[9:5]", i, l)
		}
	}
	e := hashUnit(t, "small_xor", 10)
	je, _ := units.Job(e.spec, units.Built{Design: e.design})
	if d, _ := verify.GoldenDrawn(je, 7); d.Len() != 1<<10 || d.Coverage != "exhaustive" {
		t.Errorf("exhaustive set: %d vectors (%s), want 1024, exhaustive", d.Len(), d.Coverage)
	}
}
