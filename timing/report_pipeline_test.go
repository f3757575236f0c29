package timing_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/retime"
	"github.com/lsugen/lsugen/timing"
)

// xorTree is a 64-input XOR reduction into 8 outputs, deep enough to
// need several stages at a short period.
func xorTree(t *testing.T) *netlist.Design {
	t.Helper()
	b := netlist.NewBuilder("xt")
	in := b.Input("a_i", 64, "")
	out := make(netlist.Bus, 8)
	for i := range out {
		out[i] = b.XorAll(in[i*8:]...)
	}
	b.Output("y_o", out, "")
	d, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestUnitReport_PipelinedWorstStageAndPS: a pipelined unit's report
// has its stages in the report's model, its worst stage as its critical
// path (the path ending with the setup step), one mode field in JSON
// with the placing model under pipeline.placed_under, and with a library
// every FO4 figure in ps at the library's FO4.
func TestUnitReport_PipelinedWorstStageAndPS(t *testing.T) {
	placing := timing.PipelineOptions(string(timing.Sized))
	r, err := retime.Pipeline(xorTree(t), retime.Options{PeriodFO4: 6, Timing: placing})
	if err != nil {
		t.Fatal(err)
	}
	if r.Latency < 2 {
		t.Fatalf("latency %d: want a pipeline of several stages", r.Latency)
	}
	tech := &timing.Tech{Name: "lib", Cells: timing.Cells, Wire: timing.DefaultWire, TauPS: 4.5}
	for _, mode := range []timing.Mode{timing.Sized, timing.Unsized} {
		opt := timing.OptionsFor(tech)
		opt.Mode = mode
		u, err := timing.NewUnitReport("xt", "x", "v", r.Design, nil, opt)
		if err != nil {
			t.Fatal(err)
		}
		p := u.Pipeline
		st, err := timing.StageDelays(r.Design, opt)
		if err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for _, s := range st {
			worst = max(worst, s)
		}
		if p == nil || p.PlacedUnder != "sized" || p.ClockFO4 != 6 || p.LatencyCycles != r.Latency || len(p.StageFO4) != r.Latency {
			t.Fatalf("%s: pipeline %+v", mode, p)
		}
		if u.Mode != string(mode) || u.FO4 != worst || p.WorstStageFO4 != worst {
			t.Errorf("%s: mode %q, critical path %v, worst stage %v; want %s and the worst of %v", mode, u.Mode, u.FO4, p.WorstStageFO4, mode, st)
		}
		if last := u.CriticalPath[len(u.CriticalPath)-1]; last.Arrival != u.FO4 || last.Cell != "DFF" || !strings.HasSuffix(last.Gate, ".D") {
			t.Errorf("%s: the critical path ends with %+v, not the setup at a register of the worst stage", mode, last)
		}
		fo4ps := timing.OptionsFor(tech).FO4PS()
		near := func(ps, fo4 float64) bool { return math.Abs(ps-fo4*fo4ps) < 1e-3 }
		if math.Abs(u.FO4PS-fo4ps) > 1e-3 || !near(u.DelayPS, u.FO4) || !near(p.ClockPS, 6) || !near(p.WorstStagePS, worst) || len(p.StagePS) != len(p.StageFO4) {
			t.Errorf("%s: ps figures %v, %v, %v, %v (stages %v) at %v ps per FO4", mode, u.FO4PS, u.DelayPS, p.ClockPS, p.WorstStagePS, p.StagePS, fo4ps)
		}
		for i := range p.StagePS {
			if !near(p.StagePS[i], p.StageFO4[i]) {
				t.Errorf("%s: stage %d: %v ps for %v FO4", mode, i+1, p.StagePS[i], p.StageFO4[i])
			}
		}
		u.AddCycles([]float64{4})
		if c := u.Cycles[0]; !near(c.ClockPS, 4) || c.Cycles != timing.CyclesAt(u.FO4, 4) {
			t.Errorf("%s: cycles %+v", mode, c)
		}
		rep := &timing.Report{Units: []timing.UnitReport{u}}
		js, err := rep.JSON()
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(js, &doc); err != nil {
			t.Fatal(err)
		}
		one := doc["units"].([]any)[0].(map[string]any)
		if one["mode"] != string(mode) || one["timing_mode"] != nil || one["pipeline"].(map[string]any)["placed_under"] != "sized" || strings.Count(string(js), `"mode"`) != 1 {
			t.Errorf("%s: JSON mode fields: %s", mode, js)
		}
		var text bytes.Buffer
		if err := rep.WriteTable(&text); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"     ps", "registers placed sized", " ps)", "worst "} {
			if !strings.Contains(text.String(), want) {
				t.Errorf("%s: the table lacks %q:\n%s", mode, want, text.String())
			}
		}
	}
}

// TestUnitReport_Combinational: a combinational unit's report is
// Analyze's, with no pipeline and no ps without a library.
func TestUnitReport_Combinational(t *testing.T) {
	d := xorTree(t)
	opt := timing.DefaultReportOptions()
	res, err := timing.Analyze(d, opt)
	if err != nil {
		t.Fatal(err)
	}
	u, err := timing.NewUnitReport("xt", "x", "v", d, nil, opt)
	if err != nil {
		t.Fatal(err)
	}
	if u.Pipeline != nil || u.FO4 != res.FO4 || u.FO4PS != 0 || u.DelayPS != 0 || u.Mode != "sized" {
		t.Errorf("report %+v, want Analyze's %+v", u, res)
	}
}
