package verify

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/verify/hdl"
)

// TestVCD is a VCD file read back, for the tests of every VCD lsugen
// writes or has a simulator write: the header ($version, $timescale), the
// variables with their scopes and ranges, and each variable's value
// changes. Exported (in a test file) for the tests of package verify_test.
type TestVCD struct {
	Version   string
	Timescale string // e.g. "1ns", "1ps"
	// Vars are the variables by their full name: scopes and reference
	// joined by dots, "h_tb.dut.addr_i".
	Vars    map[string]TestVCDVar
	changes map[string][]vcdChange // by identifier code
	unit    int64                  // time unit in ps
}

// TestVCDVar is one $var: "$var wire 8 ! unique_o [7:0] $end" has Type
// wire, Width 8, Code !, Range "[7:0]".
type TestVCDVar struct {
	Type  string
	Width int
	Code  string
	Range string
}

type vcdChange struct {
	ps    int64
	value string
}

// ReadTestVCD parses the VCD at path; any malformed part fails the test.
func ReadTestVCD(t testing.TB, path string) *TestVCD {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	toks := strings.Fields(string(data))
	f := &TestVCD{Vars: map[string]TestVCDVar{}, changes: map[string][]vcdChange{}}
	// section returns the tokens up to the next $end, from toks[i].
	section := func(i int) ([]string, int) {
		for j := i; j < len(toks); j++ {
			if toks[j] == "$end" {
				return toks[i:j], j + 1
			}
		}
		t.Fatalf("%s: %s without $end", path, toks[i-1])
		return nil, 0
	}
	var scopes []string
	i := 0
	for header := true; header && i < len(toks); {
		tok := toks[i]
		var body []string
		body, i = section(i + 1)
		switch tok {
		case "$version":
			f.Version = strings.Join(body, " ")
		case "$timescale":
			f.Timescale = strings.Join(body, "")
		case "$scope":
			if len(body) != 2 {
				t.Fatalf("%s: $scope %q", path, body)
			}
			scopes = append(scopes, body[1])
		case "$upscope":
			scopes = scopes[:len(scopes)-1]
		case "$var":
			if len(body) < 4 || len(body) > 5 {
				t.Fatalf("%s: $var %q", path, body)
			}
			w, err := strconv.Atoi(body[1])
			if err != nil {
				t.Fatalf("%s: $var %q: width %v", path, body, err)
			}
			v := TestVCDVar{Type: body[0], Width: w, Code: body[2]}
			if len(body) == 5 {
				v.Range = body[4]
			}
			f.Vars[strings.Join(append(scopes[:len(scopes):len(scopes)], body[3]), ".")] = v
		case "$enddefinitions":
			header = false
		case "$date", "$comment":
		default:
			t.Fatalf("%s: unknown header command %s", path, tok)
		}
	}
	if len(scopes) != 0 {
		t.Fatalf("%s: scopes %v not closed", path, scopes)
	}
	units := map[string]int64{"1ps": 1, "1ns": 1000, "10ps": 10, "100ps": 100}
	if f.unit = units[f.Timescale]; f.unit == 0 {
		t.Fatalf("%s: $timescale %q", path, f.Timescale)
	}
	now := int64(-1)
	for ; i < len(toks); i++ {
		tok := toks[i]
		switch {
		case tok[0] == '#':
			n, err := strconv.ParseInt(tok[1:], 10, 64)
			if err != nil {
				t.Fatalf("%s: time %s", path, tok)
			}
			now = n * f.unit
		case tok == "$dumpvars" || tok == "$end" || tok == "$dumpall" || tok == "$dumpon" || tok == "$dumpoff":
		case tok[0] == 'b' || tok[0] == 'B' || tok[0] == 'r' || tok[0] == 'R':
			if i+1 >= len(toks) {
				t.Fatalf("%s: %s without a code", path, tok)
			}
			f.changes[toks[i+1]] = append(f.changes[toks[i+1]], vcdChange{now, strings.ToLower(tok[1:])})
			i++
		case strings.ContainsRune("01xzXZ", rune(tok[0])):
			f.changes[tok[1:]] = append(f.changes[tok[1:]], vcdChange{now, strings.ToLower(tok[:1])})
		default:
			t.Fatalf("%s: unknown token %q", path, tok)
		}
	}
	return f
}

// Var returns the variable of the full name, failing the test when there
// is none.
func (f *TestVCD) Var(t testing.TB, name string) TestVCDVar {
	t.Helper()
	v, ok := f.Vars[name]
	if !ok {
		var names []string
		for n := range f.Vars {
			if !strings.Contains(n, ".dut.") {
				names = append(names, n)
			}
		}
		t.Fatalf("VCD has no variable %s (top-level variables: %v)", name, names)
	}
	return v
}

// Value is the variable's value at time ns (its last change at or before
// it), in binary, most significant bit first, extended to its width as
// VCD does; "" before its first change.
func (f *TestVCD) Value(t testing.TB, name string, ns float64) string {
	t.Helper()
	v := f.Var(t, name)
	at := int64(ns * 1000)
	val := ""
	for _, c := range f.changes[v.Code] {
		if c.ps > at {
			break
		}
		val = c.value
	}
	if val == "" || len(val) >= v.Width {
		return val
	}
	pad := "0"
	if val[0] == 'x' || val[0] == 'z' {
		pad = val[:1]
	}
	return strings.Repeat(pad, v.Width-len(val)) + val
}

// Changes is the number of value changes of the variable.
func (f *TestVCD) Changes(t testing.TB, name string) int {
	return len(f.changes[f.Var(t, name).Code])
}

// binary is v's low width bits in binary, most significant first.
func binary(v []uint64, width int) string {
	b := make([]byte, width)
	for i := range b {
		bit := width - 1 - i
		b[i] = byte('0' + v[bit/64]>>uint(bit%64)&1)
	}
	return string(b)
}

// brokenXor is the fixed XOR hash of 10 address bits with its first XOR
// gate made an XNOR (bank_o bit 0 is wrong for every address), and its
// model.
func brokenXor(t *testing.T) (*netlist.Design, model.Model) {
	t.Helper()
	h := &specs.Hash{Name: "h", Function: specs.FixedXor, AddrBits: 10, BankBits: 5}
	d, diags := gen.Hash(h)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	for i := range d.Gates {
		if d.Gates[i].Kind == netlist.XOR2 {
			d.Gates[i].Kind = netlist.XNOR2
			break
		}
	}
	m, err := model.ForHash(h)
	if err != nil {
		t.Fatal(err)
	}
	return d, m
}

// TestNetlistVCD_VersionRangesExpected: the netlist VCD of a failing
// vector names lsugen and its version, gives every bus its range, and
// shows each output beside its expected value with the flag mismatch, as
// the standalone testbench does; dut holds the ports and the gate nets.
func TestNetlistVCD_VersionRangesExpected(t *testing.T) {
	d, m := brokenXor(t)
	ins, outs, err := matchInterface(d, m)
	if err != nil {
		t.Fatal(err)
	}
	vec := Vector{value(0x2a5, 10)}
	want := expected(m, outs, []Vector{vec})[0]
	path, err := writeNetlistVCDExpected(d, ins, outs, vec, want, "lsugen 9.9.9", filepath.Join(t.TempDir(), "h.vcd"))
	if err != nil {
		t.Fatal(err)
	}
	f := ReadTestVCD(t, path)
	if f.Version != "lsugen 9.9.9" || f.Timescale != "1ns" {
		t.Errorf("$version %q, $timescale %q", f.Version, f.Timescale)
	}
	for name, want := range map[string]TestVCDVar{
		"h_tb.addr_i":                  {"wire", 10, "", "[9:0]"},
		"h_tb.bank_o":                  {"wire", 5, "", "[4:0]"},
		"h_tb.bank_o" + ExpectedSuffix: {"wire", 5, "", "[4:0]"},
		"h_tb." + MismatchSignal:       {"wire", 1, "", ""},
		"h_tb.dut.addr_i":              {"wire", 10, "", "[9:0]"},
		"h_tb.dut.bank_o":              {"wire", 5, "", "[4:0]"},
	} {
		v := f.Var(t, name)
		if v.Type != want.Type || v.Width != want.Width || v.Range != want.Range {
			t.Errorf("%s: $var %s %d %s, want %s %d %s", name, v.Type, v.Width, v.Range, want.Type, want.Width, want.Range)
		}
	}
	if f.Var(t, "h_tb.addr_i").Code != f.Var(t, "h_tb.dut.addr_i").Code {
		t.Error("the testbench's addr_i and dut's are not one signal")
	}
	exp := binary(want[0], 5) // bank = 0x05 ^ 0x15 = 0x10
	if exp != "10000" {
		t.Fatalf("model: bank %s, want 10000", exp)
	}
	if got := f.Value(t, "h_tb.bank_o"+ExpectedSuffix, 0); got != exp {
		t.Errorf("bank_o_expected %s, want %s", got, exp)
	}
	if got := f.Value(t, "h_tb.bank_o", 0); got != "10001" {
		t.Errorf("bank_o %s, want 10001 (bit 0 broken)", got)
	}
	if got := f.Value(t, "h_tb."+MismatchSignal, 0); got != "1" {
		t.Errorf("mismatch %s, want 1", got)
	}
	if got := f.Value(t, "h_tb.addr_i", 0); got != binary([]uint64{0x2a5}, 10) {
		t.Errorf("addr_i %s", got)
	}
	gateNets := 0
	for name := range f.Vars {
		if strings.HasPrefix(name, "h_tb.dut.") {
			gateNets++
		}
	}
	if gateNets != len(d.Ports)+len(d.Gates) {
		t.Errorf("dut has %d variables, want %d ports and %d gate outputs", gateNets, len(d.Ports), len(d.Gates))
	}
}

// TestVerifyVCD_EveryEngine: the VCDs `lsugen verify` leaves for a broken
// gate, from the netlist simulator, Icarus and Verilator, carry the job's
// version, bus ranges, the expected values and the mismatch flag set at
// the failing vector; so do those of a clocked unit's failing cycle.
func TestVerifyVCD_EveryEngine(t *testing.T) {
	engines := append([]Engine{Netlist}, hdlEngines(t)...)
	d, m := brokenXor(t)
	dir := t.TempDir()
	files, err := rtl.Files(d, rtl.Info{Version: "lsugen test"})
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	job := Job{Design: d, Model: m, Dir: dir, Version: "lsugen 9.9.9",
		Sources: []string{filepath.Join(dir, rtl.RTLFileName(d)), filepath.Join(dir, rtl.GatesFileName(d))},
		Modules: []string{d.Name, rtl.GatesModuleName(d)}}
	res, err := Run(context.Background(), job, DefaultPlan(), engines)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Checks {
		mm := c.Mismatch
		if mm == nil || mm.VCD == "" {
			t.Errorf("%s: no mismatch with a VCD", c.Engine)
			continue
		}
		f := ReadTestVCD(t, mm.VCD)
		if !strings.HasPrefix(f.Version, "lsugen 9.9.9") {
			t.Errorf("%s: $version %q", c.Engine, f.Version)
		}
		top := map[Engine]string{Netlist: "h_tb.", Icarus: hdl.TopModule + ".", Verilator: "TOP." + hdl.TopModule + "."}[c.Engine]
		if v := f.Var(t, top+"bank_o"+ExpectedSuffix); v.Range != "[4:0]" {
			t.Errorf("%s: bank_o_expected range %q", c.Engine, v.Range)
		}
		if got := f.Value(t, top+MismatchSignal, 0.5); got != "1" {
			t.Errorf("%s: mismatch %q at the failing vector, want 1", c.Engine, got)
		}
	}

	sd := seqaccDesign(t)
	const bad = 40
	seq := seqJob(t, sd, seqaccV, &corruptAt{seqaccModel: &seqaccModel{}, at: map[int]bool{bad: true}})
	seq.Version = "lsugen 9.9.9"
	res, err = RunSequential(context.Background(), seq, SeqPlan{Cycles: 100, Seed: 5, Segments: 1}, engines)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Checks {
		mm := c.Mismatch
		if mm == nil || mm.Vector != bad || mm.VCD == "" {
			t.Errorf("%s: mismatch %+v, want cycle %d with a VCD", c.Engine, mm, bad)
			continue
		}
		f := ReadTestVCD(t, mm.VCD)
		if !strings.HasPrefix(f.Version, "lsugen 9.9.9") {
			t.Errorf("%s: $version %q", c.Engine, f.Version)
		}
		top := map[Engine]string{Netlist: "seqacc_tb.", Icarus: hdl.TopModule + ".", Verilator: "TOP." + hdl.TopModule + "."}[c.Engine]
		for cyc := bad - 3; cyc <= bad; cyc++ {
			want := map[bool]string{true: "1", false: "0"}[cyc == bad]
			if got := f.Value(t, top+MismatchSignal, float64(2*cyc+2)+0.5); got != want {
				t.Errorf("%s: cycle %d: mismatch %q, want %s", c.Engine, cyc, got, want)
			}
		}
	}
}

// TestNetlistSeqVCD_ExpectedAndMismatch: the netlist VCD of a clocked
// unit's failing cycle shows each output beside the model's value; the
// flag mismatch is 1 exactly from the failing cycle's inputs to its rising
// edge; the reset cycle's expected values are x.
func TestNetlistSeqVCD_ExpectedAndMismatch(t *testing.T) {
	d := seqaccDesign(t)
	const bad = 40 // the cycle whose expected sum_o is wrong
	m := &corruptAt{seqaccModel: &seqaccModel{}, at: map[int]bool{bad: true}}
	job := Job{Design: d, Seq: m, Dir: t.TempDir()}
	res, err := RunSequential(context.Background(), job, SeqPlan{Cycles: 100, Seed: 5, Segments: 1}, []Engine{Netlist})
	if err != nil {
		t.Fatal(err)
	}
	mm := res.Checks[0].Mismatch
	if mm == nil || mm.Vector != bad || mm.VCD == "" {
		t.Fatalf("mismatch %+v, want cycle %d with a VCD", mm, bad)
	}
	f := ReadTestVCD(t, mm.VCD)
	if v := f.Var(t, "seqacc_tb.sum_o"+ExpectedSuffix); v.Width != 6 || v.Range != "[5:0]" {
		t.Errorf("sum_o_expected: %+v", v)
	}
	f.Var(t, "seqacc_tb.clk")
	f.Var(t, "seqacc_tb.dut.clk")
	flag := "seqacc_tb." + MismatchSignal
	if got := f.Value(t, "seqacc_tb.sum_o"+ExpectedSuffix, 0.5); got != "xxxxxx" {
		t.Errorf("sum_o_expected in the reset cycle: %q, want x", got)
	}
	for c := 0; c <= bad; c++ {
		checkAt, afterEdge := float64(2*c+2)+0.5, float64(2*c+3)+0.5
		wantFlag := "0"
		if c == bad {
			wantFlag = "1"
		}
		if got := f.Value(t, flag, checkAt); got != wantFlag {
			t.Errorf("cycle %d: mismatch %s before the edge, want %s", c, got, wantFlag)
		}
		if got := f.Value(t, flag, afterEdge); got != "0" {
			t.Errorf("cycle %d: mismatch %s after the edge, want 0", c, got)
		}
		got, exp := f.Value(t, "seqacc_tb.sum_o", checkAt), f.Value(t, "seqacc_tb.sum_o"+ExpectedSuffix, checkAt)
		if (got == exp) != (c != bad) {
			t.Errorf("cycle %d: sum_o %s, expected %s", c, got, exp)
		}
	}
}

// TestBenchVCD_ExpectedAndVersion: the cross-check testbench's VCDs under
// Icarus and Verilator, with DumpVCDExpected, carry lsugen's $version (and
// the simulator's), ranges, each output's expected value and the flag
// mismatch, 1 where a module's output differs: for a combinational unit
// (the broken XOR hash, RTL and gates) and a clocked one (the accumulator
// with one expected value made wrong).
func TestBenchVCD_ExpectedAndVersion(t *testing.T) {
	for _, e := range hdlEngines(t) {
		t.Run(string(e), func(t *testing.T) {
			t.Run("combinational", func(t *testing.T) { checkBenchVCDComb(t, hdl.Engine(e)) })
			t.Run("clocked", func(t *testing.T) { checkBenchVCDClocked(t, hdl.Engine(e)) })
		})
	}
}

func checkBenchVCDComb(t *testing.T, e hdl.Engine) {
	d, m := brokenXor(t)
	dir := t.TempDir()
	files, err := rtl.Files(d, rtl.Info{Version: "lsugen test"})
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b := &hdl.Bench{
		Dir:     filepath.Join(dir, "work"),
		Sources: []string{filepath.Join(dir, rtl.RTLFileName(d)), filepath.Join(dir, rtl.GatesFileName(d))},
		Modules: []string{d.Name, rtl.GatesModuleName(d)},
		Ports:   d.Ports,
		Version: "lsugen 9.9.9",
	}
	_, outs, err := matchInterface(d, m)
	if err != nil {
		t.Fatal(err)
	}
	vs := []Vector{{value(0x2a5, 10)}, {value(0, 10)}}
	want := expected(m, outs, vs)
	raw := [][][]uint64{vs[0], vs[1]}
	exp := [][][]uint64{want[0], want[1]}
	path, err := b.DumpVCDExpected(context.Background(), e, raw, exp, "fail")
	if err != nil {
		t.Fatal(err)
	}
	f := ReadTestVCD(t, path)
	if !strings.HasPrefix(f.Version, "lsugen 9.9.9, written by ") {
		t.Errorf("$version %q, want lsugen 9.9.9 and the simulator", f.Version)
	}
	top := hdl.TopModule + "."
	if e == hdl.Verilator {
		top = "TOP." + top
	}
	for _, name := range []string{"addr_i", "m0_bank_o", "m1_bank_o", "bank_o" + hdl.ExpectedSuffix} {
		v := f.Var(t, top+name)
		if want := map[bool]string{true: "[9:0]", false: "[4:0]"}[name == "addr_i"]; v.Range != want {
			t.Errorf("%s: range %q, want %q", name, v.Range, want)
		}
	}
	// Vector v is applied at v ns: RTL right, gates wrong in bit 0.
	for v := range vs {
		at := float64(v) + 0.5
		wantBits := binary(want[v][0], 5)
		if got := f.Value(t, top+"bank_o"+hdl.ExpectedSuffix, at); got != wantBits {
			t.Errorf("vector %d: bank_o_expected %s, want %s", v, got, wantBits)
		}
		if got := f.Value(t, top+"m0_bank_o", at); got != wantBits {
			t.Errorf("vector %d: RTL bank_o %s, want %s", v, got, wantBits)
		}
		if got := f.Value(t, top+hdl.MismatchSignal, at); got != "1" {
			t.Errorf("vector %d: mismatch %s, want 1 (the gates differ)", v, got)
		}
	}
	// Without expected outputs the dump has the signals, never set.
	path, err = b.DumpVCD(context.Background(), e, raw, "plain")
	if err != nil {
		t.Fatal(err)
	}
	if got := ReadTestVCD(t, path).Value(t, top+hdl.MismatchSignal, 0.5); got != "0" {
		t.Errorf("without +exp: mismatch %s, want 0", got)
	}
}

func checkBenchVCDClocked(t *testing.T, e hdl.Engine) {
	d := seqaccDesign(t)
	m := &seqaccModel{}
	job := seqJob(t, d, seqaccV, m)
	ins, outs, err := matchSeqInterface(d, m)
	if err != nil {
		t.Fatal(err)
	}
	stim, err := RandomStimulus(m.Ports(), 3)
	if err != nil {
		t.Fatal(err)
	}
	const n, bad = 30, 17
	s := record(m, stim, ins, outs, n, []segment{{0, n}})
	vecs := make([][][]uint64, n)
	exp := make([][][]uint64, n)
	for c := range vecs {
		vecs[c] = make([][]uint64, len(ins))
		exp[c] = make([][]uint64, len(outs))
		s.inView(vecs[c], c)
		s.outView(exp[c], c)
	}
	exp[bad][3] = []uint64{exp[bad][3][0] ^ 1} // tog_o made wrong
	b := &hdl.Bench{Dir: filepath.Join(job.Dir, "work"), Sources: job.Sources, Modules: job.Modules, Ports: d.Ports,
		Clock: d.Clock, Reset: ResetPort, VCDCycles: -1, Version: "lsugen 9.9.9"}
	path, err := b.DumpVCDExpected(context.Background(), e, vecs, exp, "fail")
	if err != nil {
		t.Fatal(err)
	}
	f := ReadTestVCD(t, path)
	if !strings.HasPrefix(f.Version, "lsugen 9.9.9") {
		t.Errorf("$version %q", f.Version)
	}
	top := hdl.TopModule + "."
	if e == hdl.Verilator {
		top = "TOP." + top
	}
	if v := f.Var(t, top+"sum_o"+hdl.ExpectedSuffix); v.Range != "[5:0]" {
		t.Errorf("sum_o_expected range %q", v.Range)
	}
	for c := 0; c < n; c++ {
		want := "0"
		if c == bad {
			want = "1"
		}
		if got := f.Value(t, top+hdl.MismatchSignal, float64(2*c+2)+0.5); got != want {
			t.Errorf("cycle %d: mismatch %s before the edge, want %s", c, got, want)
		}
		if got := f.Value(t, top+hdl.MismatchSignal, float64(2*c+3)+0.5); got != "0" {
			t.Errorf("cycle %d: mismatch %s after the edge, want 0", c, got)
		}
		if got, want := f.Value(t, top+"sum_o"+hdl.ExpectedSuffix, float64(2*c+2)+0.5), binary(exp[c][0], 6); got != want {
			t.Errorf("cycle %d: sum_o_expected %s, want %s", c, got, want)
		}
	}
}
