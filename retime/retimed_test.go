package retime_test

import (
	"fmt"
	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/specs"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/retime"
	"github.com/lsugen/lsugen/timing"
)

// TestPipelineForRetiming_LogicThenRegisters checks the retime style: the
// latency of the placed pipeline, the original's gates first and intact,
// every register after them (named <port>_q<k>, <port>_q, valid_q), a
// word-level view with those registers, and the protocol in lockstep with
// the combinational design.
func TestPipelineForRetiming_LogicThenRegisters(t *testing.T) {
	for i, d := range append(designs(t), designs(t)...) {
		// Each design sized at 20 FO4, then unsized (buffer trees on the
		// reset and the valid mask) at 40.
		opt := retime.Options{PeriodFO4: 20, Timing: timing.PipelineOptions("sized")}
		if i >= len(designs(t)) {
			opt = retime.Options{PeriodFO4: 40, Timing: timing.PipelineOptions("unsized")}
		}
		placed, err := retime.Pipeline(d, opt)
		if err != nil {
			t.Fatal(err)
		}
		r, err := retime.PipelineForRetiming(d, opt)
		if err != nil {
			t.Fatal(err)
		}
		p := r.Design
		if r.Latency != placed.Latency || p.Pipeline == nil || p.Pipeline.Latency != r.Latency {
			t.Fatalf("%s: latency %d, placed %d", d.Name, r.Latency, placed.Latency)
		}
		for i, g := range d.Gates {
			if pg := p.Gates[i]; pg.Kind != g.Kind || pg.Out != g.Out || fmt.Sprint(pg.In) != fmt.Sprint(g.In) {
				t.Fatalf("%s: gate %d changed", d.Name, i)
			}
		}
		names := map[string]bool{}
		for _, g := range p.Gates[len(d.Gates):] {
			if g.Kind == netlist.DFF {
				names[p.NetNames[g.Out]] = true
			}
		}
		for _, pt := range d.Outputs() {
			for _, reg := range []string{fmt.Sprintf("%s_q%d", pt.Name, r.Latency-1), pt.Name + "_q"} {
				if r.Latency == 1 && reg != pt.Name+"_q" {
					continue
				}
				bit := reg
				if pt.Width() > 1 {
					bit = reg + "_0"
				}
				if !names[bit] {
					t.Errorf("%s: no flip-flop %s", d.Name, bit)
				}
				found := false
				for _, rg := range p.RTL.Regs {
					found = found || rg.Name == reg && rg.Width == pt.Width()
				}
				if !found {
					t.Errorf("%s: no register %s in the word-level view", d.Name, reg)
				}
			}
		}
		if want := r.Latency * (1 + outputBits(d)); r.Registers != want {
			t.Errorf("%s: %d registers, want %d (L per output bit and the valid chain)", d.Name, r.Registers, want)
		}
		checkLockstep(t, d, r)
	}
}

func outputBits(d *netlist.Design) int {
	n := 0
	for _, p := range d.Outputs() {
		n += p.Width()
	}
	return n
}

// TestPipelineWords_MatchesCombinational runs PipelineWords' designs in
// lockstep with the combinational ones, those cut between word-level
// signals (registers named after them, some entries split gate by gate)
// and those that fall back alike, under the sized model and the unsized
// one (whose wide fanouts are buffered after the registers), and checks
// that the word-level cut keeps the latency and the period and costs no
// register.
func TestPipelineWords_MatchesCombinational(t *testing.T) {
	words, deep, split := map[string]int{}, 0, 0
	arb, diags := gen.BankArbiter(&specs.BankArbiter{Name: "arb", Lanes: 8, AddrBits: 10, BankBits: 3, Broadcast: true})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, d := range append(designs(t), arb) {
		for _, c := range []struct {
			mode   string
			period float64
		}{{"sized", 7}, {"sized", 9}, {"sized", 12}, {"sized", 20}, {"sized", 40}, {"unsized", 20}, {"unsized", 40}} {
			period := c.period
			opt := retime.Options{PeriodFO4: period, Timing: timing.PipelineOptions(c.mode)}
			fine, err := retime.Pipeline(d, opt)
			if err != nil {
				t.Fatal(err)
			}
			r, err := retime.PipelineWords(d, opt)
			if err != nil {
				t.Fatal(err)
			}
			why := retime.WordCutErr(d, opt)
			named := true
			for _, rg := range r.Design.RTL.Regs {
				if strings.HasPrefix(rg.Name, "stage") {
					named = false
				}
			}
			if named != (why == nil) {
				t.Errorf("%s at %v: registers named after signals %v, word-level cut error %v", d.Name, period, named, why)
			}
			if why == nil {
				words[c.mode]++
				if r.Latency > 1 {
					deep++
				}
				for _, a := range r.Design.RTL.Assigns {
					if strings.Contains(a.Doc, "gate by gate") {
						split++
						break
					}
				}
			}
			if r.Latency != fine.Latency || r.Registers > fine.Registers {
				t.Errorf("%s at %v: latency %d, %d registers; Pipeline's %d, %d", d.Name, period, r.Latency, r.Registers, fine.Latency, fine.Registers)
			}
			for i, s := range r.StageFO4 {
				if s > period {
					t.Errorf("%s at %v: stage %d takes %v FO4", d.Name, period, i+1, s)
				}
			}
			t.Logf("%s at %v FO4 %s: latency %d, word-level cut: %v", d.Name, period, c.mode, r.Latency, why)
			checkLockstep(t, d, r)
		}
	}
	if words["sized"] == 0 || words["unsized"] == 0 || deep == 0 || split == 0 {
		t.Errorf("designs cut between word-level signals: %v, %d of them in more than one stage, %d with entries split", words, deep, split)
	}
}
