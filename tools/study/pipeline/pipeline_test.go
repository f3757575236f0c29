package pipeline

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/tools/pipesim"
	"github.com/lsugen/lsugen/tools/study"
)

// TestCore_IsTheStudySpec: Core is the unit of specs/pipeline_study.hcl,
// Table 3's core as `lsugen pipesim` runs it.
func TestCore_IsTheStudySpec(t *testing.T) {
	file, diags := specs.NewLoader().Load("../../../specs/pipeline_study.hcl")
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	p, err := pipesim.PickPipeline(file.Units, "", "pipeline_study.hcl")
	if err != nil {
		t.Fatal(err)
	}
	c := Core()
	if p.Name != c.Name || p.MemStages != c.MemStages || p.WarpSize != c.WarpSize || p.SIMDWidth != c.SIMDWidth || p.ShmemPorts != c.ShmemPorts {
		t.Errorf("Core %+v, the spec's unit %+v", c, *p)
	}
}

// TestTheoretic_ByHand: Table 4's definition, 1 + f(d-1), worked by hand
// for two rows' inputs; a kernel without shared memory gains nothing.
func TestTheoretic_ByHand(t *testing.T) {
	for _, c := range []struct {
		f, d, want float64
	}{
		{0.361, 1.54, 1.19494}, // 1 + 0.361 x 0.54
		{0.216, 3.33, 1.50328}, // 1 + 0.216 x 2.33
		{0.5, 1, 1},
	} {
		if got := Theoretic(pipesim.Stats{Shmem: 1, ShmemIntensity: c.f, MeanDegree: c.d}); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("f %v, d %v: %v, want %v", c.f, c.d, got, c.want)
		}
	}
	if got := Theoretic(pipesim.Stats{}); got != 1 {
		t.Errorf("no shared memory: %v, want 1", got)
	}
}

func run(t *testing.T, s study.Study, set map[string]string) *study.Result {
	t.Helper()
	r, err := s.Run(context.Background(), study.Options{Set: set})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// cell is the number in table t's row whose first cell is row, column col.
func cell(t *testing.T, tab study.Table, row, col string) float64 {
	t.Helper()
	s, err := tab.Cell(col, row)
	if err != nil {
		t.Fatal(err)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%s / %s: %q", row, col, s)
	}
	return v
}

// TestFig89_Small: on two kernels, the enhanced GPU stalls less and runs
// faster than the baseline, the elastic pipeline alone gains less than
// with the mask, no kernel beats its theoretic speed-up by much, and the
// stalls of the DRAM model are there on the baseline. The same
// parameters give the same bytes.
func TestFig89_Small(t *testing.T) {
	set := map[string]string{"kernels": "dct,reduction", "instructions": "600"}
	r := run(t, Fig89{}, set)
	stalls, speed := r.Tables[1], r.Tables[2]
	for _, k := range []string{"dct", "reduction"} {
		red := cell(t, stalls, k, "reduction %")
		both, el, th := cell(t, speed, k, "elastic+mask %"), cell(t, speed, k, "elastic %"), cell(t, speed, k, "theoretic %")
		if red <= 20 || red >= 100 || both <= el || both <= 0 || both > th+5 {
			t.Errorf("%s: stall reduction %v%%, speed-ups elastic %v%%, both %v%%, theoretic %v%%", k, red, el, both, th)
		}
		if cell(t, stalls, k, "base other") == 0 || cell(t, stalls, k, "base fails") == 0 {
			t.Errorf("%s: no DRAM stalls on the baseline", k)
		}
	}
	if th := cell(t, r.Tables[0], "dct", "theoretic"); math.Abs(th-1.5) > 0.02 {
		t.Errorf("dct's theoretic speed-up %v, want about 1.5 (f 0.216, d 3.33)", th)
	}
	if len(r.Charts) != 2 || len(r.Notes) < 4 {
		t.Errorf("%d charts, %d notes", len(r.Charts), len(r.Notes))
	}
	a, _ := r.JSON()
	b, _ := run(t, Fig89{}, set).JSON()
	if !bytes.Equal(a, b) {
		t.Error("two runs with the same parameters differ")
	}
}

// TestFig89_NoDRAM: latency=0 is pipesim without the DRAM model: no
// "other" stalls and no global-memory waits.
func TestFig89_NoDRAM(t *testing.T) {
	r := run(t, Fig89{}, map[string]string{"kernels": "transpose", "instructions": "300", "latency": "0"})
	if o, f := cell(t, r.Tables[1], "transpose", "base other"), cell(t, r.Tables[1], "transpose", "base fails"); o != 0 || f != 0 {
		t.Errorf("without DRAM: %v other stalls, %v fails on the baseline", o, f)
	}
}

// TestFig1011: hand-optimized kernels have no bank conflicts, so the
// elastic pipeline, with or without the mask, finds nothing to stall on
// or to mask (the mask is on for S-1 cycles after each shared-memory
// warp, Eq. 5's distance, while the front end still issues that warp's
// subwarps, so it never fails a schedule); the unoptimized kernel on the enhanced GPU beats it on the
// baseline GPU.
func TestFig1011(t *testing.T) {
	sys := System{DRAM: pipesim.DRAM{Latency: 440, Outstanding: 8}, Instructions: 400, Mem: 0.05, Seed: 3}
	k, _ := pipesim.LookupPreset("dct_short")
	opt, err := sys.Workload(k, true)
	if err != nil {
		t.Fatal(err)
	}
	if st := opt.Stats(); st.MeanDegree != 1 || st.Shmem == 0 {
		t.Fatalf("optimized workload %+v", st)
	}
	for _, g := range []GPU{Elastic, Both} {
		r, err := sys.Run(context.Background(), opt, g)
		if err != nil {
			t.Fatal(err)
		}
		if r.Stalls.BankConflict != 0 || r.SchedFails.Masked != 0 {
			t.Errorf("%s on conflict-free code: %+v", g.Name, r)
		}
	}
	r := run(t, Fig1011{}, map[string]string{"kernels": "dct_short", "instructions": "400", "seed": "3"})
	if b, e := cell(t, r.Tables[0], "dct_short", "unopt base"), cell(t, r.Tables[0], "dct_short", "unopt enhanced"); e <= b || b >= 0 {
		t.Errorf("Fig. 10: unoptimized on the baseline %v%%, on the enhanced GPU %v%%", b, e)
	}
}

func TestParams_Refused(t *testing.T) {
	for _, s := range []study.Study{Fig89{}, Fig1011{}} {
		for _, set := range []map[string]string{
			{"kernels": "nope"}, {"kernels": "dct,dct"}, {"latency": "-1"}, {"latency": "100001"},
			{"outstanding": "0"}, {"mem": "51"}, {"instructions": "99"}, {"seed": "x"}, {"bogus": "1"},
			// Hours of simulation: refused before any work.
			{"mem": "50", "latency": "100000", "outstanding": "1"}, {"latency": "100000", "mem": "20"},
		} {
			_, err := s.Run(context.Background(), study.Options{Set: set})
			if !study.IsParamError(err) {
				t.Errorf("%s %v: %v, want a parameter error", s.Name(), set, err)
			}
		}
		_, err := s.Run(context.Background(), study.Options{Inputs: []string{"x.ptrace"}})
		if !study.IsParamError(err) {
			t.Errorf("%s with an input: %v", s.Name(), err)
		}
	}
}

func TestRun_Cancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, s := range []study.Study{Fig89{}, Fig1011{}} {
		if _, err := s.Run(ctx, study.Options{}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v, want context.Canceled", s.Name(), err)
		}
	}
}

func TestPlus_NoNegativeZero(t *testing.T) {
	if got := plus(1 - 1e-5); got != "+0.0" || strings.HasPrefix(plus(0.99), "+") {
		t.Errorf("plus: %q, %q", got, plus(0.99))
	}
}
