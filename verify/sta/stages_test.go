package sta

import (
	"context"
	"encoding/json"
	"math"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/retime"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/timing/liberty"
)

// pipelinedAdder is hash_atomics.hcl's 14-bit ripple-carry adder hash
// pipelined at 5 FO4 by the sized model: 3 stages, 21 flip-flops.
func pipelinedAdder(t *testing.T) specUnit {
	t.Helper()
	u := unitsFrom(t, "hash_atomics.hcl", "atomic_add_ripple")["atomic_add_ripple"]
	r, err := retime.Pipeline(u.design, retime.Options{PeriodFO4: 5, Timing: timing.PipelineOptions("sized")})
	if err != nil {
		t.Fatal(err)
	}
	if r.Latency != 3 || !staged(r.Design) {
		t.Fatalf("latency %d, pipeline %+v", r.Latency, r.Design.Pipeline)
	}
	return specUnit{u.spec, r.Design}
}

// TestSynthStage: the readable module's register names, as Yosys leaves
// them on the flip-flops' Q nets, name the stage they end.
func TestSynthStage(t *testing.T) {
	d := pipelinedAdder(t).design // L = 3, output bank_o
	for name, want := range map[string]int{
		"stage1_q[3]":        0,
		"stage2_q[0]":        1,
		`\stage2_q_reg[11]`:  1,
		"stage1_q":           0,
		"same_addr_q1[7]":    0, // a word-level view's registers
		"grant_o_q2":         1,
		"grant_o_q3[0]":      -1,
		"stage3_q[0]":        -1, // no such boundary: the last stage ends at the outputs
		"valid_q[0]":         0,
		"valid_q[1]":         1,
		"valid_q[2]":         2,
		"valid_q[3]":         -1,
		"valid_o":            2,
		"bank_o[4]":          2,
		"bank_o_q[4]":        2,
		`\bank_o_q_reg[4]`:   2,
		"_123_":              -1,
		"stage1_qq[0]":       -1,
		"nondecreasing_o[0]": -1,
	} {
		if got := synthStage(d, name); got != want {
			t.Errorf("synthStage(%q) = %d, want %d", name, got, want)
		}
	}
	// The mapped netlist's instances are lsugen's gate indices.
	for gi, g := range d.Gates {
		want := -1
		if g.Kind == netlist.DFF {
			want = int(d.Pipeline.RegStage[gi])
		}
		if got := mappedStage(d, "g"+itoa(gi)); got != want {
			t.Errorf("mappedStage(g%d) = %d, want %d", gi, got, want)
		}
	}
	if mappedStage(d, "g1_inv") != -1 || mappedStage(d, "g99999") != -1 {
		t.Error("mappedStage took a name that is no flip-flop")
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestGroupStages: a stage's figure is its least-slack endpoint's,
// arrival plus setup (the period less the required time); endpoints of no
// stage are listed.
func TestGroupStages(t *testing.T) {
	eps := []regEndpoint{
		{Pin: "_1_/D", QNet: "a", ArrivalPS: 900, RequiredPS: 880},  // stage 0, slack -20, setup 120
		{Pin: "_2_/D", QNet: "b", ArrivalPS: 950, RequiredPS: 950},  // stage 0, slack 0: later but not worse
		{Pin: "_3_/D", QNet: "c", ArrivalPS: 400, RequiredPS: 940},  // stage 1, slack 540
		{Pin: "_4_/D", QNet: "zz", ArrivalPS: 400, RequiredPS: 940}, // none
	}
	stage := map[string]int{"a": 0, "b": 0, "c": 1, "zz": -1}
	st, none := groupStages(eps, 3, 100, 1000, func(e regEndpoint) string { return e.QNet },
		func(e regEndpoint) int { return stage[e.QNet] })
	want := []StageTiming{
		{Endpoints: 2, ArrivalPS: 900, SetupPS: 120, FO4: 10.2, SlackPS: -20, Register: "a"},
		{Endpoints: 1, ArrivalPS: 400, SetupPS: 60, FO4: 4.6, SlackPS: 540, WithinPeriod: true, Register: "c"},
		{},
	}
	for k := range want {
		if st[k] != want[k] {
			t.Errorf("stage %d: %+v, want %+v", k+1, st[k], want[k])
		}
	}
	if len(none) != 1 || none[0] != "_4_/D (zz)" {
		t.Errorf("unassigned %v", none)
	}
}

// TestCrosscheck_PipelinedStages runs a 3-stage pipelined adder through
// the cross-check: every flip-flop of lsugen's netlist is timed in its
// stage in the mapped netlist, every synthesised one is found a stage by
// its name, the slacks are against the period in the library's FO4, and
// the model's stages stand beside them in the JSON and text reports.
func TestCrosscheck_PipelinedStages(t *testing.T) {
	lib := needFlow(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	u := pipelinedAdder(t)
	d := u.design
	rep, err := Crosscheck(ctx, []CrosscheckUnit{{Design: d, Kind: u.spec.UnitKind(), Variant: u.spec.Variant(),
		Info: rtl.Info{Version: "test", Source: "test"}}}, CrosscheckOptions{Config: Config{Liberty: lib, WorkDir: t.TempDir()}, BandPct: DefaultBandPct}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Units[0].Pipeline
	if p == nil {
		t.Fatal("no pipeline in the report")
	}
	if p.Latency != 3 || len(p.Stages) != 3 || p.PeriodFO4 != 5 || p.Mode != "sized" || len(p.Unassigned) != 0 {
		t.Fatalf("pipeline %+v", p)
	}
	if math.Abs(p.PeriodPS-5*rep.FO4PS()) > 0.1 {
		t.Errorf("period %v ps, want 5 × %v", p.PeriodPS, rep.FO4PS())
	}
	textbook, err := timing.StageDelays(d, timing.PipelineOptions("sized"))
	if err != nil {
		t.Fatal(err)
	}
	ff, tdFF := 0, 0
	regName := map[int]*regexp.Regexp{
		0: regexp.MustCompile(`^(stage1_q\[\d+\]|valid_q\[0\]) `),
		1: regexp.MustCompile(`^(stage2_q\[\d+\]|valid_q\[1\]) `),
		2: regexp.MustCompile(`^(bank_o\[\d+\]|valid_o) `),
	}
	for k, s := range p.Stages {
		ff += s.FlipFlops
		tdFF += s.TimingDriven.Endpoints
		if s.Stage != k+1 || s.FlipFlops == 0 || s.Mapped.Endpoints != s.FlipFlops || s.TimingDriven.Endpoints == 0 {
			t.Errorf("stage %d: %+v", k+1, s)
		}
		if s.TextbookFO4 != math.Round(textbook[k]*100)/100 || s.TextbookFO4 > 5 || !(s.LibUnsizedFO4 > timing.SetupFO4) || !(s.LibSizedFO4 > timing.SetupFO4) {
			t.Errorf("stage %d: model %v / %v / %v, StageDelays %v", k+1, s.TextbookFO4, s.LibUnsizedFO4, s.LibSizedFO4, textbook[k])
		}
		if s.TextbookErrorPct == nil || s.LibSizedErrorPct == nil || s.LibUnsizedErrorPct == nil {
			t.Errorf("stage %d: an error missing: %+v", k+1, s)
		}
		for flow, st := range map[string]StageTiming{"mapped": s.Mapped, "timing-driven": s.TimingDriven} {
			// The slack is the period less the setup less the arrival; the
			// sky130 flip-flops' setup times are some 50 to 150 ps.
			if math.Abs(st.SlackPS-(p.PeriodPS-st.SetupPS-st.ArrivalPS)) > 0.3 || !(st.SetupPS > 20 && st.SetupPS < 300) ||
				math.Abs(st.FO4-(st.ArrivalPS+st.SetupPS)/rep.FO4PS()) > 0.01 || st.WithinPeriod != (st.SlackPS >= 0) {
				t.Errorf("stage %d %s: %+v", k+1, flow, st)
			}
		}
		if !regName[k].MatchString(s.TimingDriven.Register) {
			t.Errorf("stage %d: timing-driven worst register %q", k+1, s.TimingDriven.Register)
		}
	}
	if ff != 21 || tdFF > ff {
		t.Errorf("%d flip-flops in lsugen's netlist (want 21), %d timed in the synthesised one", ff, tdFF)
	}
	b, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	// --flow-from keeps OpenSTA's stages and computes the model's anew:
	// the same figures.
	var prev Report
	if err := json.Unmarshal(b, &prev); err != nil {
		t.Fatal(err)
	}
	l, err := liberty.Load(lib)
	if err != nil {
		t.Fatal(err)
	}
	re, err := Recompute([]CrosscheckUnit{{Design: d}}, &prev, l, DefaultBandPct)
	if err != nil {
		t.Fatal(err)
	}
	if len(re.Units) != 1 || !reflect.DeepEqual(re.Units[0].Pipeline, p) {
		t.Errorf("recomputed pipeline %+v, want %+v", re.Units[0].Pipeline, p)
	}
	for _, key := range []string{`"pipeline": {`, `"stages": [`, `"timing_driven": {`, `"slack_ps":`, `"textbook_error_pct":`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
	var text, md strings.Builder
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteStagesMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if n := len(regexp.MustCompile(`(?m)^ *atomic_add_ripple +5 FO4 sized +[123] `).FindAllString(text.String(), -1)); n != 3 {
		t.Errorf("%d stage lines in the text report:\n%s", n, text.String())
	}
	if lines := strings.Split(strings.TrimSpace(md.String()), "\n"); len(lines) != 5 || !strings.HasPrefix(lines[2], "| atomic_add_ripple | 5 FO4 (") {
		t.Errorf("stages table:\n%s", md.String())
	}
	var page strings.Builder
	if err := rep.WritePage(&page, PageInfo{Version: "test"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "\n\n"+md.String()) {
		t.Errorf("the page lacks the stages table:\n%s", page.String())
	}
}
