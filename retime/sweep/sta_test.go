package sweep

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/verify/sta"
)

// TestWorstStages: the worst stage and least slack are taken per flow,
// from different stages where they differ, and the point is within the
// period only when every timing-driven stage is.
func TestWorstStages(t *testing.T) {
	pr := &sta.PipelineReport{PeriodPS: 500, Stages: []sta.StageReport{
		{Mapped: sta.StageTiming{FO4: 9, SlackPS: -20}, TimingDriven: sta.StageTiming{FO4: 7, SlackPS: 40, WithinPeriod: true}},
		{Mapped: sta.StageTiming{FO4: 8, SlackPS: -30}, TimingDriven: sta.StageTiming{FO4: 7.5, SlackPS: -5, WithinPeriod: false}},
		{Mapped: sta.StageTiming{FO4: 3, SlackPS: 200}, TimingDriven: sta.StageTiming{FO4: 2, SlackPS: 300, WithinPeriod: true}},
	}}
	got := worstStages("lib", pr)
	want := STA{Library: "lib", PeriodPS: 500, TimingDrivenFO4: 7.5, TimingDrivenSlackPS: -5, MappedFO4: 9, MappedSlackPS: -30, WithinPeriod: false}
	if *got != want {
		t.Errorf("got %+v\nwant %+v", *got, want)
	}
	pr.Stages = pr.Stages[:1]
	if got := worstStages("lib", pr); !got.WithinPeriod || got.TimingDrivenSlackPS != 40 || got.MappedFO4 != 9 {
		t.Errorf("one stage: %+v", *got)
	}
}

// TestCompute_STA: with a liberty file a point carries OpenSTA's worst
// stage and slack of its pipeline (crosscheck-timing's flow, seconds for
// this 4-lane detector); skipped without the optional sky130 library.
func TestCompute_STA(t *testing.T) {
	lib, _ := filepath.Abs(filepath.Join("..", "..", "..", "shared", "liberty", "sky130_fd_sc_hd__tt_025C_1v80.lib.gz"))
	if _, err := os.Stat(lib); err != nil {
		t.Skipf("no sky130 liberty: %v", err)
	}
	d, diags := gen.MonotonicityDetector(&specs.MonotonicityDetector{Name: "m4", Lanes: 4, AddrBits: 8, Adder: specs.AdderRipple})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	opt := timing.DefaultOptions()
	opt.Mode = timing.Sized
	r := Compute(context.Background(), "v", Unit{Design: d, Kind: "monotonicity_detector"}, 8, opt, lib)
	if r.Status != OK || r.STA == nil || r.STA.Library != "sky130_fd_sc_hd__tt_025C_1v80" || !(r.STA.TimingDrivenFO4 > 0) || !(r.STA.MappedFO4 > 0) ||
		!(r.STA.PeriodPS > 0) || r.STA.WithinPeriod != (r.STA.TimingDrivenSlackPS >= 0) || r.Design != Digest(d) || r.Version != "v" {
		t.Fatalf("point %+v, STA %+v", r, r.STA)
	}
}
