package verify_test

import (
	"context"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/flow"
	"github.com/lsugen/lsugen/units"
	"github.com/lsugen/lsugen/verify"
)

// countPlans are plans small enough to draw for every example unit, one
// for each of Plan.Vectors's cases: exhaustive, configurations x every
// data value, configurations x random data, random; the default plan's
// gate-vector cap among them.
var countPlans = []verify.Plan{
	{MaxVectors: 1 << 12, Configs: 3, Random: 300, Seed: 1},
	{MaxVectors: 1 << 9, Configs: 5, Random: 1000, Seed: 2},
	{MaxVectors: 1 << 16, Configs: 16, Random: 1 << 12, GateVectors: 1 << 22, Seed: 3},
	{MaxVectors: 1, Configs: 7, Random: 50, Seed: 4},
}

// TestPlanCount_EqualsVectorsDrawn: the count `lsugen verify` checks its
// budget with (Plan.Count, EngineCount) is the number of vectors the plan
// draws, for every combinational example unit under every countPlans
// plan, and each case of Plan.Vectors is met.
func TestPlanCount_EqualsVectorsDrawn(t *testing.T) {
	us, err := flow.ExampleUnits()
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]bool{}
	for _, u := range us {
		d := u.Design
		if d.Clock != "" {
			continue
		}
		for _, p := range countPlans {
			vs, coverage := p.Vectors(d.Inputs(), len(d.Gates))
			cases[coverageCase(coverage)] = true
			if n := p.Count(d.Inputs(), len(d.Gates)); n != float64(len(vs)) {
				t.Errorf("%s, plan %+v: Count %v, Vectors drew %d (%s)", d.Name, p, n, len(vs), coverage)
			}
			if n := verify.EngineCount(d, verify.Netlist, p, verify.SeqPlan{}); n != float64(len(vs)) {
				t.Errorf("%s: EngineCount(netlist) %v, Vectors drew %d", d.Name, n, len(vs))
			}
		}
	}
	for _, c := range []string{"exhaustive", "random", "configs x all", "configs x random"} {
		if !cases[c] {
			t.Errorf("no example unit met the case %q of Plan.Vectors", c)
		}
	}
}

// coverageCase is the case of Plan.Vectors a coverage string tells.
func coverageCase(coverage string) string {
	switch {
	case coverage == "exhaustive" || coverage == "random":
		return coverage
	case strings.Contains(coverage, " x all "):
		return "configs x all"
	}
	return "configs x random"
}

// TestEngineCount_EqualsRun: on a real run of the netlist engine, a
// combinational unit runs its directed vectors and EngineCount more, and
// a clocked unit EngineCount cycles; for combinational and clocked
// examples units.
func TestEngineCount_EqualsRun(t *testing.T) {
	us, err := flow.ExampleUnits()
	if err != nil {
		t.Fatal(err)
	}
	plan := verify.Plan{MaxVectors: 1 << 10, Configs: 4, Random: 700, Seed: 1}
	seq := verify.SeqPlan{Cycles: 1500, Seed: 1}
	var tasks []verify.Task
	var want []float64
	comb, clocked := 0, 0
	for _, u := range us {
		d := u.Design
		if len(d.Gates) > 20000 || (d.Clock == "" && comb >= 6) || (d.Clock != "" && clocked >= 4) {
			continue
		}
		job, err := units.Job(u.Spec, u.Built)
		if err != nil {
			t.Fatal(err)
		}
		n := verify.EngineCount(d, verify.Netlist, plan, seq)
		if d.Clock == "" {
			comb++
			if job.Directed != nil {
				n += float64(len(job.Directed(d.Inputs(), plan.Seed)))
			}
		} else {
			clocked++
		}
		tasks = append(tasks, verify.Task{Job: job, Plan: plan, SeqPlan: seq, Engines: []verify.Engine{verify.Netlist}})
		want = append(want, n)
	}
	if comb < 6 || clocked < 4 {
		t.Fatalf("%d combinational and %d clocked example units, want 6 and 4", comb, clocked)
	}
	for _, os := range verify.RunTasks(context.Background(), tasks, 2, verify.Hooks{}) {
		for _, o := range os {
			if o.Err != nil {
				t.Fatalf("%s: %v", o.Unit, o.Err)
			}
			if float64(o.Check.Vectors) != want[o.Task] {
				t.Errorf("%s: the netlist ran %d vectors (cycles), the budget counts %v", o.Unit, o.Check.Vectors, want[o.Task])
			}
		}
	}
}
