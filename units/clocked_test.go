package units_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/units"
)

// TestClocked_ExampleSpecsAtThesisClocks pipelines every combinational
// unit of the example specs at 40, 48 and 56 FO4 (the thesis's clocks)
// and checks each against its promise: L = len(stage_fo4) ≥ 1, every
// stage at most the period when timed again, and the protocol ports.
func TestClocked_ExampleSpecsAtThesisClocks(t *testing.T) {
	paths, _ := filepath.Glob("../specs/*.hcl")
	if len(paths) == 0 {
		t.Fatal("no example specs")
	}
	n := 0
	for _, p := range paths {
		file, diags := specs.NewLoader().Load(p)
		if diags.HasErrors() {
			t.Fatalf("%s: %v", p, diags)
		}
		for _, u := range file.Units {
			d, diags := units.Generate(u)
			if diags.HasErrors() {
				t.Fatalf("%s: %v", u.UnitName(), diags)
			}
			if d.Clock != "" {
				continue
			}
			for _, period := range []float64{40, 48, 56} {
				start := time.Now()
				pd, diags := units.Pipeline(u, d, specs.Clocking{ClockFO4: period}, nil)
				if diags.HasErrors() {
					t.Fatalf("%s at %v FO4: %v", u.UnitName(), period, diags)
				}
				rep := timing.UnitReport{}
				if err := rep.AddPipeline(pd); err != nil {
					t.Fatal(err)
				}
				if rep.LatencyCycles < 1 || len(rep.StageFO4) != rep.LatencyCycles || rep.ClockFO4 != period || rep.TimingMode != "sized" {
					t.Fatalf("%s at %v FO4: latency %d, stages %v, clock %v (%s)", u.UnitName(), period, rep.LatencyCycles, rep.StageFO4, rep.ClockFO4, rep.TimingMode)
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
	}
	t.Logf("%d pipelined units", n)
}
