package main

import (
	"encoding/json"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/lsugen/lsugen/flow"
	"github.com/lsugen/lsugen/retime/sweep"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/tools/profile"
)

// defaultModel is the model the commands that time get from their flags
// when none is given: timing's and the sweep's (timingModelFlags) and
// profile's (--timing-mode alone).
func defaultModel(t *testing.T) (timing.Options, timing.Mode) {
	t.Helper()
	var m timingModelFlags
	fs := pflag.NewFlagSet("timing", pflag.ContinueOnError)
	m.add(fs)
	opt, err := m.options()
	if err != nil {
		t.Fatal(err)
	}
	pfs := pflag.NewFlagSet("profile", pflag.ContinueOnError)
	addTimingModeFlag(pfs, new(string))
	mode, err := timingMode(pfs, false)
	if err != nil {
		t.Fatal(err)
	}
	return opt, mode
}

// TestDefaults_SameFO4Everywhere: under the defaults, a unit reads one
// FO4 in every command that times. A combinational coalescer's critical
// path is the same in timing and in profile; a unit pipelined by
// --clock-fo4 (clock_fo4's default model) has the same stages, and its
// worst stage is the same figure, in clock_fo4's own measure, in timing
// (where it is the unit's critical path) and in the sweep at that period.
func TestDefaults_SameFO4Everywhere(t *testing.T) {
	opt, profileMode := defaultModel(t)
	if opt.Mode != timing.Sized || profileMode != opt.Mode {
		t.Fatalf("default models: timing %q, profile %q; want sized in both", opt.Mode, profileMode)
	}

	// timing and profile: the thesis's 32-lane coalescers.
	us, err := loadAndGenerate([]string{"../../specs/coalescer_thesis.hcl"}, defaultBudget(false), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := timingReport(us, opt)
	if err != nil {
		t.Fatal(err)
	}
	fo4 := map[string]float64{}
	for _, u := range rep.Units {
		fo4[u.Name] = u.FO4
	}
	tm, err := coalescerTiming("", []float64{40}, profileMode, nil, "combined", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, ut := range []struct {
		unit string
		fo4  float64
	}{{tm.AllToAll.Unit, tm.AllToAll.FO4}, {tm.Neighbor.Unit, tm.Neighbor.FO4}, {tm.SpeculativeSlow.Unit, tm.SpeculativeSlow.FO4}} {
		if got, ok := fo4[ut.unit]; !ok || got != ut.fo4 {
			t.Errorf("%s: timing %v FO4 (found %v), profile %v FO4", ut.unit, got, ok, ut.fo4)
		}
	}

	// clock_fo4, timing and the sweep: units pipelined at one period.
	const period = 12
	specs := []string{"../../specs/arbiter.hcl", "../../specs/coalescer_small.hcl", "../../specs/hash_table5.hcl"}
	comb, err := loadAndGenerate(specs, defaultBudget(false), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	b := defaultBudget(false)
	b.Clock.ClockFO4 = period
	piped, err := loadAndGenerate(specs, b, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]flow.Unit{}
	for _, u := range comb {
		byName[u.Design.Name] = u
	}
	checked := 0
	for _, u := range piped {
		d := u.Design
		if d.Pipeline == nil || u.Variable != nil || d.Pipeline.PeriodFO4 != period {
			continue // already clocked, or a variable-latency unit without stages
		}
		c, ok := byName[d.Name]
		if !ok {
			t.Fatalf("%s: no combinational unit of that name", d.Name)
		}
		// clock_fo4's measure: the stages under the model that placed them.
		placed, err := timing.StageDelays(d, timing.PipelineOptions(d.Pipeline.Mode))
		if err != nil {
			t.Fatal(err)
		}
		ur, err := timing.NewUnitReport(d.Name, u.Spec.UnitKind(), u.Spec.Variant(), d, nil, opt)
		if err != nil {
			t.Fatal(err)
		}
		pt := sweep.PointOf(sweep.Unit{Design: c.Design, Kind: c.Spec.UnitKind(), Variant: c.Spec.Variant()}, period, opt)
		worst := 0.0
		for _, s := range placed {
			worst = max(worst, s)
		}
		if pt.Status != sweep.OK || !reflect.DeepEqual(pt.StageFO4, placed) || !reflect.DeepEqual(ur.Pipeline.StageFO4, placed) {
			t.Errorf("%s at %d FO4: stages clock_fo4 %v, timing %v, sweep %v (%s)", d.Name, period, placed, ur.Pipeline.StageFO4, pt.StageFO4, pt.Status)
		}
		if ur.FO4 != worst || ur.Pipeline.WorstStageFO4 != worst || pt.WorstStageFO4 != worst {
			t.Errorf("%s at %d FO4: worst stage clock_fo4 %v, timing %v (critical path %v), sweep %v", d.Name, period, worst, ur.Pipeline.WorstStageFO4, ur.FO4, pt.WorstStageFO4)
		}
		checked++
	}
	if checked < 5 {
		t.Errorf("only %d pipelined units compared", checked)
	}
}

// TestLiberty_PicosecondsBesideFO4: with --liberty, timing and profile give
// each FO4 figure's ps beside it, at the library's one FO4 delay (that of
// its characterization): the critical path (a pipelined unit's worst
// stage), the stages, the period and the --clock periods; profile's
// units, paths and clocks.
func TestLiberty_PicosecondsBesideFO4(t *testing.T) {
	lib := sky130Lib(t)
	ch, err := characterizeFile(lib)
	if err != nil {
		t.Fatal(err)
	}
	fo4ps := timing.OptionsFor(ch.Tech).FO4PS()
	near := func(ps, fo4 float64) bool { return math.Abs(ps-fo4*fo4ps) < 1e-3 }

	code, stdout, stderr := lsugen(t, "timing", "--json", "--liberty", lib, "--clock-fo4", "12", "--clock", "20", "../../specs/arbiter.hcl", "../../specs/pipeline.hcl")
	if code != 0 {
		t.Fatalf("timing: exit %d: %s", code, stderr)
	}
	validateJSON(t, "timing.json", stdout)
	var rep timing.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	piped, paths := 0, 0
	for _, u := range rep.Units {
		if math.Abs(u.FO4PS-fo4ps) > 1e-3 || !near(u.DelayPS, u.FO4) || len(u.Cycles) != 1 || !near(u.Cycles[0].ClockPS, 20) {
			t.Errorf("%s: fo4_ps %v (want %v), delay %v ps for %v FO4, cycles %+v", u.Name, u.FO4PS, fo4ps, u.DelayPS, u.FO4, u.Cycles)
		}
		for _, np := range u.Paths {
			paths++
			if !near(np.DelayPS, np.FO4) {
				t.Errorf("%s: path %s: %v ps for %v FO4", u.Name, np.Name, np.DelayPS, np.FO4)
			}
		}
		if p := u.Pipeline; p != nil && p.ClockFO4 == 12 {
			piped++
			if !near(p.ClockPS, 12) || !near(p.WorstStagePS, p.WorstStageFO4) || len(p.StagePS) != len(p.StageFO4) || p.WorstStageFO4 != u.FO4 {
				t.Errorf("%s: pipeline %+v", u.Name, p)
			}
			for i := range p.StagePS {
				if !near(p.StagePS[i], p.StageFO4[i]) {
					t.Errorf("%s: stage %d: %v ps for %v FO4", u.Name, i+1, p.StagePS[i], p.StageFO4[i])
				}
			}
		}
	}
	if piped == 0 || paths == 0 {
		t.Errorf("%d units pipelined at 12 FO4, %d named paths: want some of each", piped, paths)
	}
	// --timing-mode liberty: the library's model, gates as built; it
	// needs the library.
	code, stdout, stderr = lsugen(t, "timing", "--json", "--timing-mode", "liberty", "--liberty", lib, "../../specs/hash_atomics.hcl")
	if err := json.Unmarshal([]byte(stdout), &rep); code != 0 || err != nil || rep.Units[0].Mode != "unsized" || rep.Units[0].Tech != ch.Tech.Name {
		t.Errorf("--timing-mode liberty: exit %d (%s), %v, units %+v", code, stderr, err, rep.Units)
	}
	if code, _, stderr := lsugen(t, "timing", "--timing-mode", "liberty", "../../specs/hash_atomics.hcl"); code != 2 || !strings.Contains(stderr, "give --liberty FILE") {
		t.Errorf("--timing-mode liberty without a library: exit %d, %s", code, stderr)
	}
	code, text, _ := lsugen(t, "timing", "--liberty", lib, "--clock-fo4", "12", "../../specs/arbiter.hcl")
	if code != 0 || !strings.Contains(text, "     ps") || !strings.Contains(text, "at 12 FO4 (") || !strings.Contains(text, " ps), worst ") {
		t.Errorf("timing text: exit %d, no ps beside the figures:\n%s", code, text)
	}

	// profile builds each coalescer at each clock: 12 FO4 is about the
	// shortest the all-to-all unit pipelines at in sky130 (10.6 FO4 and
	// the flip-flops' overhead).
	code, stdout, stderr = lsugen(t, "profile", "--json", "--liberty", lib, "--clock", "12,14", profileTraces+"profile_copy.traceg")
	if code != 0 {
		t.Fatalf("profile: exit %d: %s", code, stderr)
	}
	validateJSON(t, "profile.json", stdout)
	var doc profileDoc
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	tm := doc.Timing
	if tm.Tech != ch.Tech.Name || math.Abs(tm.FO4PS-fo4ps) > 1e-3 || len(tm.ClocksPS) != 2 || !near(tm.ClocksPS[1], 14) {
		t.Errorf("profile timing: tech %q, fo4_ps %v, clocks %v ps", tm.Tech, tm.FO4PS, tm.ClocksPS)
	}
	for _, u := range []profile.UnitTiming{tm.AllToAll, tm.Neighbor, tm.SpeculativeFast, tm.SpeculativeSlow} {
		if u.FO4 <= 0 || !near(u.DelayPS, u.FO4) {
			t.Errorf("profile %s: %v ps for %v FO4", u.Unit, u.DelayPS, u.FO4)
		}
	}
	for _, p := range tm.SpeculativeParts {
		if !near(p.DelayPS, p.FO4) {
			t.Errorf("profile part %s: %v ps for %v FO4", p.Name, p.DelayPS, p.FO4)
		}
	}
	if c := doc.Total.Cycles; len(c) != 2 || !near(c[0].ClockPS, 12) {
		t.Errorf("profile total cycles %+v", c)
	}
}
