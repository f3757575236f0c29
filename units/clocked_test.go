package units_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lsugen/lsugen/flow"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/units"
	"github.com/lsugen/lsugen/verify"
)

// TestClocked_ExampleSpecsAtThesisClocks pipelines every combinational
// unit of the example specs at 40, 48 and 56 FO4 (the thesis's clocks)
// and checks each against its promise: L = len(stage_fo4) ≥ 1, every
// stage at most the period when timed again, and the protocol ports; a
// speculative coalescer, a variable-latency unit, has its fast latency
// at most its slow one and its slowest stage within the period.
func TestClocked_ExampleSpecsAtThesisClocks(t *testing.T) {
	examples, err := flow.ExampleUnits()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ex := range examples {
		u, d := ex.Spec, ex.Design
		if d.Clock != "" {
			continue
		}
		for _, period := range []float64{40, 48, 56} {
			start := time.Now()
			pb, diags := units.Pipeline(u, d, specs.Clocking{ClockFO4: period}, nil, nil)
			if diags.HasErrors() {
				t.Fatalf("%s at %v FO4: %v", u.UnitName(), period, diags)
			}
			pd := pb.Design
			ur, err := timing.NewUnitReport(u.UnitName(), "", "", pd, pb.Variable.Report(), timing.PipelineOptions(pd.Pipeline.Mode))
			if err != nil {
				t.Fatal(err)
			}
			rep := ur.Pipeline
			if rep.FastLatencyCycles > 0 {
				// The speculative coalescer: a variable-latency unit.
				if rep.LatencyCycles < rep.FastLatencyCycles || !(rep.WorstStageFO4 > 0 && rep.WorstStageFO4 <= period) || pd.Port("fast_o") == nil {
					t.Errorf("%s at %v FO4: latency %d/%d, worst stage %v", u.UnitName(), period, rep.FastLatencyCycles, rep.LatencyCycles, rep.WorstStageFO4)
				}
				n++
				continue
			}
			if rep.LatencyCycles < 1 || len(rep.StageFO4) != rep.LatencyCycles || rep.ClockFO4 != period || rep.PlacedUnder != "sized" {
				t.Fatalf("%s at %v FO4: latency %d, stages %v, clock %v (%s)", u.UnitName(), period, rep.LatencyCycles, rep.StageFO4, rep.ClockFO4, rep.PlacedUnder)
			}
			for i, s := range rep.StageFO4 {
				if !(s > 0 && s <= period) {
					t.Errorf("%s at %v FO4: stage %d takes %v FO4", u.UnitName(), period, i+1, s)
				}
			}
			for _, name := range []string{"clk", "rst", "valid_i", "valid_o"} {
				if pd.Port(name) == nil {
					t.Errorf("%s: no port %s", u.UnitName(), name)
				}
			}
			if el := time.Since(start); el > time.Second {
				t.Logf("%s at %v FO4: %v (%d gates)", u.UnitName(), period, el.Round(time.Millisecond), len(d.Gates))
			}
			n++
		}
	}
	t.Logf("%d pipelined units", n)
}

// TestPipelinedJob_CoversAndCatches runs a pipelined detector's lockstep
// job on the netlist simulator: the stream has directed and random
// operations, bubbles and resets with operations in flight, and the job
// catches a pipeline whose valid chain skips a register (the answer one
// cycle early) and one whose output register ignores the mask.
func TestPipelinedJob_CoversAndCatches(t *testing.T) {
	u := &specs.MonotonicityDetector{Name: "m", Lanes: 4, AddrBits: 8, Adder: specs.AdderRipple,
		Clocking: specs.Clocking{ClockFO4: 8, TimingMode: "sized"}}
	d, diags := units.Generate(u)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if d.Pipeline == nil || d.Pipeline.Latency < 2 {
		t.Fatalf("want a pipeline of 2 stages or more, got %+v", d.Pipeline)
	}
	run := func(d *netlist.Design) *verify.Result {
		t.Helper()
		job, err := units.Job(u, units.Built{Design: d})
		if err != nil {
			t.Fatal(err)
		}
		res, err := verify.RunSequential(context.Background(), job, verify.SeqPlan{Cycles: 4000, Seed: 3}, []verify.Engine{verify.Netlist})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run(d)
	if res.Failed() {
		t.Fatalf("the pipeline fails its own check: %v", res.Checks[0].Mismatch)
	}
	var directed, random, bubbles, resets int
	if _, err := fmt.Sscanf(res.Coverage[strings.Index(res.Coverage, "; ")+2:], "%d directed and %d random operations, %d bubbles, %d resets with operations in flight",
		&directed, &random, &bubbles, &resets); err != nil {
		t.Fatalf("coverage %q: %v", res.Coverage, err)
	}
	t.Logf("%s", res.Coverage)
	if directed == 0 || random == 0 || bubbles == 0 || resets == 0 {
		t.Errorf("coverage %q: want every kind of cycle", res.Coverage)
	}

	// Broken copies: the first valid register bypassed; an output
	// register loading its data unmasked.
	for _, breakIt := range []func(*netlist.Design) bool{
		func(b *netlist.Design) bool {
			for _, g := range b.Gates {
				if g.Kind == netlist.DFF && b.NetNames[g.Out] == "valid_q_0" {
					for j := range b.Gates {
						for k, n := range b.Gates[j].In {
							if n == g.Out {
								b.Gates[j].In[k] = g.In[0]
							}
						}
					}
					return true
				}
			}
			return false
		},
		func(b *netlist.Design) bool {
			for _, g := range b.Gates {
				if g.Kind == netlist.DFF && strings.HasPrefix(b.NetNames[g.Out], "monotonic_o_q") {
					for j, a := range b.Gates {
						if a.Out == g.In[0] && a.Kind == netlist.AND2 {
							b.Gates[j].In[1] = netlist.Const1
							return true
						}
					}
				}
			}
			return false
		},
	} {
		b := *d
		b.Gates = make([]netlist.Gate, len(d.Gates))
		for i, g := range d.Gates {
			b.Gates[i] = netlist.Gate{Kind: g.Kind, In: append([]netlist.Net(nil), g.In...), Out: g.Out}
		}
		if !breakIt(&b) {
			t.Fatal("nothing to break")
		}
		if res := run(&b); !res.Failed() {
			t.Errorf("a broken pipeline passed: %s", res.Coverage)
		}
	}
}
