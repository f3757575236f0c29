package units_test

import (
	"bytes"
	"context"
	"fmt"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/verify/formal"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/toolchain"
	"github.com/lsugen/lsugen/units"
)

// TestPipelineWords_Arbiter32KeepsHierarchy pipelines the 32-lane arbiter
// of 002_* (a bank hash and a lock hash instantiated per lane) and checks
// the readable module: every hash instance kept (in the gate-level module
// too), registers between named signals (no gate-list stage registers),
// within 3x the combinational RTL's size, and lint-clean under Verilator
// and Icarus with its submodules. At 40 FO4 every entry is whole; at 30
// and 20 FO4 the 32-input popcounts straddle boundaries: their partial
// sums (which the generator names the nets of) become wires of their own,
// in the stage that makes them, and the adders cut inside, alike in every
// lane, are written gate by gate once, as functions each lane calls.
func TestPipelineWords_Arbiter32KeepsHierarchy(t *testing.T) {
	file, diags := specs.NewLoader().Load("../specs/locks_002.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var u specs.Unit
	for _, su := range file.Units {
		if su.UnitName() == "fermi_arbiter" {
			u = su
		}
	}
	if u == nil {
		t.Fatal("no fermi_arbiter in specs/locks_002.hcl")
	}
	b, gd := units.Build(u)
	if gd.HasErrors() {
		t.Fatal(gd)
	}
	for _, period := range []float64{40, 30, 20} {
		arbiterAt(t, u, b.Design, period)
	}
}

func arbiterAt(t *testing.T, u specs.Unit, comb *netlist.Design, period float64) {
	pb, pd := units.Pipeline(u, comb, specs.Clocking{ClockFO4: period}, nil, nil)
	if pd.HasErrors() {
		t.Fatal(pd)
	}
	piped := pb.Design
	var cv, pv, gv bytes.Buffer
	info := rtl.Info{Version: "lsugen test"}
	if err := rtl.WriteRTL(&cv, comb, info); err != nil {
		t.Fatal(err)
	}
	if err := rtl.WriteRTL(&pv, piped, info); err != nil {
		t.Fatal(err)
	}
	if err := rtl.WriteGates(&gv, piped, info); err != nil {
		t.Fatal(err)
	}
	lines := func(b []byte) int { return bytes.Count(b, []byte("\n")) }
	t.Logf("at %v FO4: combinational RTL %d lines, %d bytes; pipelined (latency %d) %d lines, %d bytes; its gate-level module %d lines",
		period, lines(cv.Bytes()), cv.Len(), piped.Pipeline.Latency, lines(pv.Bytes()), pv.Len(), lines(gv.Bytes()))
	if piped.Pipeline.Latency < 2 {
		t.Fatalf("latency %d: no stage boundary to check", piped.Pipeline.Latency)
	}
	split := strings.Contains(pv.String(), "gate by gate") || strings.Contains(pv.String(), "by function")
	if pv.Len() > 3*cv.Len() || lines(pv.Bytes()) > 3*lines(cv.Bytes()) || split != (period < 40) {
		t.Errorf("at %v FO4: pipelined RTL %d bytes / %d lines (entries split: %v), want within 3x the combinational %d / %d, entries split below 40 FO4",
			period, pv.Len(), lines(pv.Bytes()), split, cv.Len(), lines(cv.Bytes()))
	}
	if period < 40 && !strings.Contains(pv.String(), "wire [5:0] bank_count_0_p") {
		t.Errorf("at %v FO4: the popcounts' partial sums are not wires of their own", period)
	}
	if len(comb.Instances) != 64 || len(piped.Instances) != len(comb.Instances) {
		t.Errorf("%d instances in the pipelined design, %d in the combinational (want 64)", len(piped.Instances), len(comb.Instances))
	}
	for _, inst := range comb.Instances {
		if !strings.Contains(pv.String(), "    "+inst.Design.Name+" "+inst.Name+" (") {
			t.Errorf("the readable module lost instance %s of %s", inst.Name, inst.Design.Name)
		}
	}
	if strings.Contains(pv.String(), "stage1_q") || !strings.Contains(pv.String(), "_q1 <= ") {
		t.Errorf("the readable module's registers are not named after its signals")
	}

	verilator, err := toolchain.Find("verilator")
	if err != nil {
		t.Fatal(err)
	}
	iverilog, err := toolchain.Find("iverilog")
	if err != nil {
		t.Fatal(err)
	}
	rtlSrcs, _, err := rtl.WriteDir(t.TempDir(), piped, info)
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{
		append([]string{verilator.Path, "--lint-only", "-Wall"}, rtlSrcs...),
		append([]string{iverilog.Path, "-g2005", "-Wall", "-o", os.DevNull}, rtlSrcs...),
	} {
		out, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput()
		if err != nil || len(out) > 0 {
			t.Errorf("%s: %v\n%s", filepath.Base(cmd[0]), err, out)
		}
	}
}

// TestPipelineWords_ProvedEqualToGates proves, for an arbiter with a hash
// instance per lane whose word-level cut takes two stages (20 FO4), at 12
// FO4, where entries are split between stages and written gate by gate,
// and under the unsized model, whose wide fanouts are buffered after the
// registers, its readable module equal to its gate-level one (registers
// paired by name) and the pipeline equal to the combinational arbiter
// followed by its register stages.
func TestPipelineWords_ProvedEqualToGates(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "arb.hcl")
	src := `hash "arb_xor" {
  function  = "xor_matrix"
  addr_bits = 10
  bank_bits = 3
  bits      = [[0, 3, 6], [1, 4, 7], [2, 5, 8]]
}
bank_arbiter "arb_words" {
  lanes     = 4
  addr_bits = 10
  hash      = hash.arb_xor
}
`
	if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	file, diags := specs.NewLoader().Load(spec)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	u := file.Units[len(file.Units)-1]
	b, gd := units.Build(u)
	if gd.HasErrors() {
		t.Fatal(gd)
	}
	for _, tc := range []struct {
		period float64
		mode   string
		split  bool // some entry is written gate by gate
	}{{20, "sized", false}, {12, "sized", true}, {20, "unsized", true}} {
		proveWords(t, u, b.Design, tc.period, tc.mode, tc.split, filepath.Join(dir, fmt.Sprint(tc.period, tc.mode)))
	}
}

func proveWords(t *testing.T, u specs.Unit, comb *netlist.Design, period float64, mode string, split bool, dir string) {
	pb, pd := units.Pipeline(u, comb, specs.Clocking{ClockFO4: period, TimingMode: mode}, nil, nil)
	if pd.HasErrors() {
		t.Fatal(pd)
	}
	piped := pb.Design
	if piped.Pipeline.Latency < 2 || len(piped.Instances) != 4 {
		t.Fatalf("at %v FO4: latency %d, %d instances: not the word-level cut this test proves", period, piped.Pipeline.Latency, len(piped.Instances))
	}
	gateByGate := false
	for _, a := range piped.RTL.Assigns {
		gateByGate = gateByGate || strings.Contains(a.Doc, "gate by gate")
	}
	for _, rg := range piped.RTL.Regs {
		if strings.HasPrefix(rg.Name, "stage") {
			t.Errorf("at %v FO4: register %s: the readable module is a gate list", period, rg.Name)
		}
	}
	if gateByGate != split {
		t.Fatalf("at %v FO4: entries written gate by gate %v, want %v", period, gateByGate, split)
	}
	if mode == "unsized" && piped.Stats()[netlist.BUF] == 0 {
		t.Fatalf("at %v FO4 unsized: no buffer in the gate-level module", period)
	}
	write := func(d *netlist.Design, sub string) formal.Unit {
		t.Helper()
		ud := filepath.Join(dir, sub)
		files, err := rtl.FilesWithSubmodules(d, rtl.Info{Version: "lsugen test"})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(ud, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, b := range files {
			if err := os.WriteFile(filepath.Join(ud, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		fu := formal.Unit{Design: d, RTL: filepath.Join(ud, rtl.RTLFileName(d)), Gates: filepath.Join(ud, rtl.GatesFileName(d))}
		for _, s := range d.Submodules() {
			fu.RTLLibs = append(fu.RTLLibs, filepath.Join(ud, rtl.RTLFileName(s)))
			fu.GateLibs = append(fu.GateLibs, filepath.Join(ud, rtl.GatesFileName(s)))
		}
		return fu
	}
	pu, cu := write(piped, "piped"), write(comb, "comb")
	opt := formal.Options{Dir: filepath.Join(dir, "proof"), Timeout: 10 * time.Minute, NoCache: true}
	res, err := formal.Prove(context.Background(), pu, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Equivalent {
		t.Fatalf("RTL and gates differ:\n%s", res.Cex)
	}
	pr, err := formal.ProvePipelined(context.Background(), cu, pu, piped.Pipeline.Latency, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !pr.Equivalent {
		t.Fatalf("the pipeline is not the original with %d register stages:\n%s", piped.Pipeline.Latency, pr.Cex)
	}
	t.Logf("%s at %v FO4 %s (latency %d): %s; %s", piped.Name, period, mode, piped.Pipeline.Latency, res.Method, pr.Method)
}
