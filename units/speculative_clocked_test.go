package units

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/compose"
	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/retime"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/toolchain"
	"github.com/lsugen/lsugen/verify"
)

func specUnit(name string, lanes, addrBits, blockBits int, masked, requests bool) *specs.Coalescer {
	return &specs.Coalescer{Name: name, Structure: specs.Speculative, Lanes: lanes, AddrBits: addrBits, BlockBits: blockBits,
		Adder: specs.AdderCLA4, ActiveMask: masked, Requests: requests}
}

func timingOpts(mode timing.Mode) timing.Options {
	o := timing.DefaultOptions()
	o.Mode = mode
	return o
}

// specPending builds a speculating unit whose slow path is cut at a
// shorter period than the fast path, so that Ls > Lf on a small unit
// (under the sized model the all-to-all is the faster circuit).
func specPending(t *testing.T, c *specs.Coalescer, fastP, slowP float64) (*netlist.Design, *compose.Timing) {
	t.Helper()
	d, info, err := compose.SpeculativeAt(c, fastP, slowP, timingOpts(timing.Sized))
	if err != nil {
		t.Fatal(err)
	}
	return d, info
}

// lockstep runs the unit against model.ForSpeculativeClocked on the
// engines and returns the stimulus's coverage line.
func lockstep(t *testing.T, c *specs.Coalescer, d *netlist.Design, info *compose.Timing, cycles int, engines []verify.Engine, files bool) string {
	t.Helper()
	m, err := model.ForSpeculativeClocked(c, info.FastLatency, info.SlowLatency)
	if err != nil {
		t.Fatal(err)
	}
	job := verify.Job{Design: d, Seq: m, Stimulus: speculativeClockedStimulus(c), Version: "lsugen " + gen.Version}
	if files {
		dir := t.TempDir()
		fs, err := rtl.Files(d, rtl.Info{Version: "lsugen test", Source: "speculative_clocked_test.go:1"})
		if err != nil {
			t.Fatal(err)
		}
		for name, b := range fs {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		job.Sources = []string{filepath.Join(dir, rtl.RTLFileName(d)), filepath.Join(dir, rtl.GatesFileName(d))}
		job.Modules = []string{d.Name, rtl.GatesModuleName(d)}
		job.Dir = dir
		for _, f := range []string{rtl.RTLFileName(d), rtl.GatesFileName(d)} {
			lintFile(t, dir, f)
		}
	}
	res, err := verify.RunSequential(context.Background(), job, verify.SeqPlan{Cycles: cycles, Seed: 3}, engines)
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range res.Checks {
		if ch.Mismatch != nil {
			t.Errorf("%s (Lf %d, Ls %d): %s", ch.Engine, info.FastLatency, info.SlowLatency, ch.Mismatch)
		}
	}
	return res.Coverage
}

// lintFile runs Verilator's and Icarus's linters on a generated file; any
// output fails.
func lintFile(t *testing.T, dir, file string) {
	t.Helper()
	for _, run := range [][]string{{"verilator", "--lint-only", "-Wall", file}, {"iverilog", "-g2005", "-Wall", "-o", os.DevNull, file}} {
		tool, err := toolchain.Find(run[0])
		if err != nil {
			t.Fatal(err)
		}
		res, err := tool.Command(dir, run[1:]...).Run(context.Background())
		if err != nil {
			t.Fatalf("%s %s: %v", run[0], file, err)
		}
		if out := strings.TrimSpace(string(res.Output)); out != "" {
			t.Errorf("%s %s:\n%s", run[0], file, out)
		}
	}
}

// coverageCounts reads "N answered fast, N slow of which N monotonic held".
func coverageCounts(t *testing.T, cov string) (fast, slow, held int) {
	t.Helper()
	m := regexp.MustCompile(`(\d+) answered fast, (\d+) slow of which (\d+) monotonic held`).FindStringSubmatch(cov)
	if m == nil {
		t.Fatalf("coverage %q", cov)
	}
	fast, _ = strconv.Atoi(m[1])
	slow, _ = strconv.Atoi(m[2])
	held, _ = strconv.Atoi(m[3])
	return
}

// TestSpeculativeClocked_MatchesModel builds units through the builder
// (both timing models, with and without active_mask and requests) and
// runs each in lockstep with its model on the netlist simulator; every
// register-to-register stage fits the period.
func TestSpeculativeClocked_MatchesModel(t *testing.T) {
	cases := []struct {
		c      *specs.Coalescer
		period float64
		mode   timing.Mode
	}{
		{specUnit("spec4", 4, 12, 2, false, false), 12, timing.Sized},
		{specUnit("spec8m", 8, 10, 1, true, true), 10, timing.Sized},
		{specUnit("spec8u", 8, 12, 2, false, false), 20, timing.Unsized},
		{specUnit("spec16", 16, 8, 0, true, false), 30, timing.Sized},
	}
	for _, tc := range cases {
		d, info, err := compose.Speculative(tc.c, retime.Options{PeriodFO4: tc.period, Timing: timingOpts(tc.mode)})
		if err != nil {
			t.Fatalf("%s: %v", tc.c.Name, err)
		}
		if info.WorstStageFO4 > tc.period || info.FastLatency < 1 || info.SlowLatency < info.FastLatency || info.Speculates != (info.FastLatency < info.SlowLatency) {
			t.Errorf("%s: %+v", tc.c.Name, info)
		}
		if p := d.Pipeline; p == nil || p.Latency != info.SlowLatency || p.RegStage != nil || d.RTL == nil || d.Clock != "clk" {
			t.Errorf("%s: Pipeline %+v, RTL %v, clock %q", tc.c.Name, d.Pipeline, d.RTL != nil, d.Clock)
		}
		cov := lockstep(t, tc.c, d, info, 20_000, []verify.Engine{verify.Netlist}, false)
		t.Logf("%s at %v FO4 (%s): Lf %d Ls %d, worst stage %.2f FO4, %d registers, %d gates; %s", tc.c.Name, tc.period, tc.mode,
			info.FastLatency, info.SlowLatency, info.WorstStageFO4, info.Registers, len(d.Gates), cov)
	}
}

// TestSpeculativeClocked_PendingMatchesModel checks the speculating
// unit (Ls - Lf of 1 to 3 and more) in lockstep on the netlist simulator:
// fast answers, slow ones, and monotonic warps held behind a slow one all
// occur, and match the model.
func TestSpeculativeClocked_PendingMatchesModel(t *testing.T) {
	for _, tc := range []struct {
		c            *specs.Coalescer
		fastP, slowP float64
	}{
		{specUnit("pend4", 4, 12, 2, false, false), 40, 5}, // Lf 1, Ls 2
		{specUnit("pend8", 8, 12, 0, false, false), 40, 5}, // Lf 1, Ls 2
		{specUnit("pend8r", 8, 10, 1, true, true), 40, 10}, // Lf 1, Ls 3
		{specUnit("pend8r6", 8, 10, 1, true, true), 20, 6}, // Lf 2, Ls 8
	} {
		d, info := specPending(t, tc.c, tc.fastP, tc.slowP)
		cov := lockstep(t, tc.c, d, info, 20_000, []verify.Engine{verify.Netlist}, false)
		fast, slow, held := coverageCounts(t, cov)
		if fast < 500 || slow < 1000 || held < 100 {
			t.Errorf("%s: %s", tc.c.Name, cov)
		}
		t.Logf("%s: Lf %d Ls %d: %s", tc.c.Name, info.FastLatency, info.SlowLatency, cov)
	}
}

// TestSpeculativeClocked_IcarusVerilator runs a speculating unit and a
// non-speculating one, RTL and gate-level modules, on Icarus and
// Verilator in lockstep with the model; both files are lint-clean.
func TestSpeculativeClocked_IcarusVerilator(t *testing.T) {
	c := specUnit("spec_hdl", 4, 8, 1, true, true)
	d, info := specPending(t, c, 20, 6)
	if info.SlowLatency-info.FastLatency < 2 {
		t.Fatalf("Lf %d, Ls %d: want Ls - Lf >= 2", info.FastLatency, info.SlowLatency)
	}
	lockstep(t, c, d, info, 3000, []verify.Engine{verify.Netlist, verify.Icarus, verify.Verilator}, true)
	c2 := specUnit("spec_hdl2", 4, 8, 1, false, false)
	d2, info2, err := compose.Speculative(c2, retime.Options{PeriodFO4: 10, Timing: timingOpts(timing.Sized)})
	if err != nil {
		t.Fatal(err)
	}
	lockstep(t, c2, d2, info2, 3000, []verify.Engine{verify.Icarus, verify.Verilator}, true)
}

// TestSpeculativeClockedStimulus_Covers drives the model alone: the
// stream is reproducible, has directed warps, bubbles of every length up
// to 4, resets with warps in flight, fast and slow answers and monotonic
// warps held behind slow ones.
func TestSpeculativeClockedStimulus_Covers(t *testing.T) {
	c := specUnit("s", 8, 12, 2, true, false)
	run := func(seed uint64) string {
		m, err := model.ForSpeculativeClocked(c, 1, 3)
		if err != nil {
			t.Fatal(err)
		}
		_, stim := drive(t, speculativeClockedStimulus(c), m, 20_000, seed)
		return stim.Coverage()
	}
	a := run(5)
	if b := run(5); a != b {
		t.Errorf("not reproducible:\n%s\n%s", a, b)
	}
	fast, slow, held := coverageCounts(t, a)
	if fast < 1000 || slow < 1000 || held < 100 || !strings.Contains(a, "4 lengths") || strings.Contains(a, " 0 resets") || strings.Contains(a, "(0 directed)") {
		t.Errorf("coverage: %s", a)
	}
	if _, err := speculativeClockedStimulus(c)([]model.Port{{Name: "rst", Width: 1}}, 1); err == nil {
		t.Error("no valid_i: want an error")
	}
}

// TestSpeculativeClocked_UnsizedSpeculates builds, under the unsized
// model, a unit whose all-to-all path (with requests) is deeper than the
// fast path inside the unit, and runs it in lockstep with its model on
// the netlist simulator: it speculates, every stage fits the period, and
// no net of the unit drives more than a buffer tree's fanout.
func TestSpeculativeClocked_UnsizedSpeculates(t *testing.T) {
	c := specUnit("spec16u", 16, 10, 1, false, true)
	const P = 36
	d, info, err := compose.Speculative(c, retime.Options{PeriodFO4: P, Timing: timingOpts(timing.Unsized)})
	if err != nil {
		t.Fatal(err)
	}
	if !info.Speculates || info.FastLatency != 4 || info.SlowLatency != 5 || info.WorstStageFO4 > P {
		t.Errorf("%+v: want Lf 4 < Ls 5, worst stage <= %v FO4", info, P)
	}
	readers := make([]int, d.NumNets)
	for _, g := range d.Gates {
		for _, n := range g.In {
			readers[n]++
		}
	}
	worst := 0
	for n, r := range readers {
		if n >= 2 && r > worst {
			worst = r
		}
	}
	if worst > retime.MaxBufferFanout {
		t.Errorf("a net of the unit has %d readers, more than %d", worst, retime.MaxBufferFanout)
	}
	cov := lockstep(t, c, d, info, 5000, []verify.Engine{verify.Netlist}, false)
	fast, slow, held := coverageCounts(t, cov)
	if fast < 100 || slow < 100 || held < 20 {
		t.Errorf("coverage: %s", cov)
	}
	t.Logf("Lf %d Ls %d, worst stage %.2f FO4, %d registers, %d gates; %s", info.FastLatency, info.SlowLatency, info.WorstStageFO4, info.Registers, len(d.Gates), cov)
}
