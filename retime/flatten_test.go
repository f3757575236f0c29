package retime_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lsugen/lsugen/retime"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/units"
	"github.com/lsugen/lsugen/verify/formal"
)

// TestPipelineByGates_FlattensCutInstances writes the readable module of
// the gate-level placement of a 4-lane arbiter whose hash (9-input XORs)
// a short period cuts: each hash cut between stages is written flat, gate
// by gate, in both modules, the others stay instances, and Yosys proves
// the readable module equal to the gates.
func TestPipelineByGates_FlattensCutInstances(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "arb.hcl")
	src := `hash "arb_xor9" {
  function  = "xor_matrix"
  addr_bits = 10
  bank_bits = 3
  bits      = [[0, 1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8, 9], [0, 2, 3, 4, 5, 6, 7, 8, 9]]
}
bank_arbiter "arb_xor9_4" {
  lanes     = 4
  addr_bits = 10
  hash      = hash.arb_xor9
}
`
	if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	file, diags := specs.NewLoader().Load(spec)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	b, gd := units.Build(file.Units[len(file.Units)-1])
	if gd.HasErrors() {
		t.Fatal(gd)
	}
	comb := b.Design
	for _, period := range []float64{6, 7, 8} {
		r, err := retime.PipelineByGates(comb, retime.Options{PeriodFO4: period, Timing: timing.PipelineOptions("sized")})
		if err != nil {
			t.Fatalf("at %v FO4: %v", period, err)
		}
		kept := len(r.Design.Instances)
		t.Logf("at %v FO4: latency %d, %d of %d instances kept", period, r.Latency, kept, len(comb.Instances))
		for _, rg := range r.Design.RTL.Regs {
			if strings.HasPrefix(rg.Name, "stage") {
				t.Fatalf("at %v FO4: register %s: the readable module is a gate list", period, rg.Name)
			}
		}
		if kept == len(comb.Instances) {
			continue
		}
		ud := filepath.Join(dir, "unit")
		files, err := rtl.FilesWithSubmodules(r.Design, rtl.Info{Version: "lsugen test"})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(ud, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(ud, name), text, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		u := formal.Unit{Design: r.Design, RTL: filepath.Join(ud, rtl.RTLFileName(r.Design)), Gates: filepath.Join(ud, rtl.GatesFileName(r.Design))}
		for _, s := range r.Design.Submodules() {
			u.RTLLibs = append(u.RTLLibs, filepath.Join(ud, rtl.RTLFileName(s)))
			u.GateLibs = append(u.GateLibs, filepath.Join(ud, rtl.GatesFileName(s)))
		}
		res, err := formal.Prove(context.Background(), u, formal.Options{Dir: filepath.Join(dir, "proof"), Timeout: 10 * time.Minute, NoCache: true})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Equivalent {
			t.Fatalf("at %v FO4: RTL and gates differ:\n%s", period, res.Cex)
		}
		t.Logf("proved: %s", res.Method)
		return
	}
	t.Fatal("no period cut a hash instance: the test checks nothing")
}
