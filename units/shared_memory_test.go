package units

import (
	"strings"
	"testing"

	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
)

// TestSharedMemory_ClockChecked holds clock_fo4 on a shared memory to its
// promise: a period the built memory misses is refused at clock_fo4 with
// the slowest path's delay, one it meets gives a unit whose timing report
// states the latency, the period and a slowest path within it.
func TestSharedMemory_ClockChecked(t *testing.T) {
	build := func(clock string) (Built, string, error) {
		src := `shared_memory "m" {
  lanes     = 16
  bytes     = 1024
  banks     = 16
  clock_fo4 = ` + clock + `
}
`
		f, diags := specs.NewLoader().Parse([]byte(src), "m.hcl")
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		b, diags := Build(f.Units[0])
		if diags.HasErrors() {
			d := diags[0]
			return b, d.Summary + ": " + d.Detail, &locErr{d.Subject.Start.Line, d.Subject.Start.Column}
		}
		return b, "", nil
	}
	_, msg, err := build("12")
	if err == nil {
		t.Fatal("clock_fo4 = 12 accepted: no 16-lane memory has a 12 FO4 loop in the sized model")
	}
	if l := err.(*locErr); l.line != 5 || l.col != 15 {
		t.Errorf("diagnostic at %d:%d, want 5:15 (clock_fo4's value)", l.line, l.col)
	}
	for _, want := range []string{"Cannot meet clock_fo4", "slowest register-to-register path is", "more than the period, 12 FO4", "give clock_fo4 of at least"} {
		if !strings.Contains(msg, want) {
			t.Errorf("diagnostic %q lacks %q", msg, want)
		}
	}
	// The unsized model: no period in range fits a memory whose control
	// nets fan out to thousands of gates; the diagnostic says which model
	// to use instead of a period past the limit.
	if _, msg, err := build("10000\n  timing_mode = \"unsized\""); err == nil || !strings.Contains(msg, `use timing_mode = "sized"`) {
		t.Errorf("unsized at 10000 FO4: %q, want a refusal that names the sized model", msg)
	}
	b, _, err := build("60")
	if err != nil {
		t.Fatalf("clock_fo4 = 60: %v", err)
	}
	res, err := timing.Analyze(b.Design, timing.PipelineOptions("sized"))
	if err != nil {
		t.Fatal(err)
	}
	ur, err := timing.NewUnitReport("m", "", "", b.Design, nil, timing.PipelineOptions("sized"))
	if err != nil {
		t.Fatal(err)
	}
	if p := ur.Pipeline; p == nil || p.LatencyCycles != specs.ShmemLatency || p.ClockFO4 != 60 || p.PlacedUnder != "sized" {
		t.Fatalf("report: pipeline %+v; want latency %d, clock 60, placed sized", p, specs.ShmemLatency)
	}
	if w := ur.Pipeline.WorstStageFO4; w <= 0 || w > 60 || w != ur.FO4 {
		t.Errorf("slowest path %g FO4, want within (0, 60] and the report's critical path (%g)", w, ur.FO4)
	}
	if ur.Pipeline.WorstStageFO4 < res.FO4 {
		t.Errorf("slowest path %g FO4 is below the critical path %g", ur.Pipeline.WorstStageFO4, res.FO4)
	}
}

type locErr struct{ line, col int }

func (e *locErr) Error() string { return "diagnostic" }
