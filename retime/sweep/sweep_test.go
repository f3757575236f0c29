package sweep_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/retime"
	"github.com/lsugen/lsugen/retime/sweep"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/units"
)

// spec has a shallow hash (5 output bits, about 1 FO4), a detector whose
// sized critical path (about 21 FO4) needs several stages at short
// periods, and a clocked elastic pipeline, which a sweep leaves alone.
const spec = `hash "h" {
  function  = "fixed_xor"
  addr_bits = 10
  bank_bits = 5
}

monotonicity_detector "mono" {
  lanes     = 8
  addr_bits = 12
  adder     = "ripple"
}

elastic_pipeline "p" {
  mem_stages  = 2
  warp_size   = 8
  simd_width  = 4
  shmem_ports = 2
  tag_bits    = 2
  variant     = "elastic"
}
`

// sweepUnits generates the units of spec, as the command hands them over.
func sweepUnits(t *testing.T) []sweep.Unit {
	t.Helper()
	file, diags := specs.NewLoader().Parse([]byte(spec), "s.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var us []sweep.Unit
	for _, su := range file.Units {
		d, gd := units.Generate(su)
		if gd.HasErrors() {
			t.Fatal(gd)
		}
		us = append(us, sweep.Unit{Design: d, Kind: su.UnitKind(), Variant: su.Variant()})
	}
	return us
}

func sized() timing.Options {
	opt := timing.DefaultOptions()
	opt.Mode = timing.Sized
	return opt
}

// TestParsePeriods: LO:HI:STEP gives LO, LO+STEP, ... up to HI without
// losing HI to rounding; bad ranges are refused with the part named.
func TestParsePeriods(t *testing.T) {
	for in, want := range map[string][]float64{
		"20:60:8":      {20, 28, 36, 44, 52, 60},
		"0.1:0.5:0.1":  {0.1, 0.2, 0.3, 0.4, 0.5},
		"40:47:4":      {40, 44},
		" 2 : 3 : 0.5": {2, 2.5, 3},
	} {
		got, err := sweep.ParsePeriods(in, 0.1, 1e6)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %v, %v; want %v", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"60:20:4":   `"60:20:4": LO 60 is above HI 20`,
		"20:60":     "want LO:HI:STEP",
		"20:60:0":   `STEP "0" is not a positive finite number`,
		"0.01:60:4": "want periods from 0.1 to 1e+06 FO4",
		"1:2000:1":  "2000 periods, more than 1000",
	} {
		if _, err := sweep.ParsePeriods(in, 0.1, 1e6); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}

// TestPointName: a point's name round-trips through its parser, and a
// period out of range is refused.
func TestPointName(t *testing.T) {
	for _, p := range []float64{0.1, 20, 22.5, 1e6} {
		name := sweep.PointName("u@v", p)
		u, q, err := sweep.ParsePointName(name, 0.1, 1e6)
		if err != nil || u != "u@v" || q != p {
			t.Errorf("%s: %q %g %v", name, u, q, err)
		}
	}
	for _, s := range []string{"h20", "@20", "h@fast", "h@0.01"} {
		if _, _, err := sweep.ParsePointName(s, 0.1, 1e6); err == nil {
			t.Errorf("%q: no error", s)
		}
	}
}

// TestRun_Points: the points come unit by unit, period by period; each ok
// point is what retime.PipelineWords and timing.Analyze give, in as many
// cycles as retime.Pipeline and no more registers; a period below
// the setup time is too short, the clocked unit is marked; the hash takes
// one cycle and 6 flip-flops, the detector at least 3 cycles at 8.5 FO4
// and more area than at 40.5; 3 workers give what one gives.
func TestRun_Points(t *testing.T) {
	us := sweepUnits(t)
	periods := []float64{0.5, 8.5, 40.5}
	opt := sized()
	sw, err := sweep.Run(context.Background(), us, periods, opt, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := sweep.Run(context.Background(), us, periods, opt, 3, nil); !reflect.DeepEqual(sw, again) {
		t.Error("3 workers gave another sweep than 1")
	}
	if len(sw.Points) != 9 || sw.Model.Mode != "sized" || sw.Model.SetupFO4 != timing.SetupFO4 {
		t.Fatalf("%d points, model %+v", len(sw.Points), sw.Model)
	}
	at := map[string]sweep.Point{}
	for i, p := range sw.Points {
		u := us[i/len(periods)]
		if p.Unit != u.Design.Name || p.PeriodFO4 != periods[i%len(periods)] || p.Kind != u.Kind {
			t.Fatalf("point %d is %s", i, sweep.PointName(p.Unit, p.PeriodFO4))
		}
		at[sweep.PointName(p.Unit, p.PeriodFO4)] = p
		if p.Status != sweep.OK {
			continue
		}
		r, err := retime.PipelineWords(u.Design, retime.Options{PeriodFO4: p.PeriodFO4, Timing: opt})
		if err != nil {
			t.Fatal(err)
		}
		fine, err := retime.Pipeline(u.Design, retime.Options{PeriodFO4: p.PeriodFO4, Timing: opt})
		if err != nil {
			t.Fatal(err)
		}
		res, _ := timing.Analyze(r.Design, opt)
		if p.LatencyCycles != r.Latency || p.Registers != r.Registers || p.AreaGE != res.AreaGE || len(p.StageFO4) != r.Latency || p.WorstStageFO4 > p.PeriodFO4 {
			t.Errorf("%s: %+v; retime gives latency %d, %d registers, %.1f GE", sweep.PointName(p.Unit, p.PeriodFO4), p, r.Latency, r.Registers, res.AreaGE)
		}
		if r.Latency != fine.Latency || r.Registers > fine.Registers {
			t.Errorf("%s: the readable cut takes %d cycles and %d registers, the gate-level %d and %d", sweep.PointName(p.Unit, p.PeriodFO4), r.Latency, r.Registers, fine.Latency, fine.Registers)
		}
	}
	for name, st := range map[string]string{"h@0.5": sweep.TooShort, "mono@0.5": sweep.TooShort, "p@8.5": sweep.Clocked, "h@8.5": sweep.OK, "mono@40.5": sweep.OK} {
		if at[name].Status != st {
			t.Errorf("%s: status %s (%s), want %s", name, at[name].Status, at[name].Reason, st)
		}
	}
	if h := at["h@8.5"]; h.LatencyCycles != 1 || h.Registers != 6 {
		t.Errorf("h@8.5: %d cycles, %d flip-flops; want 1 and 6", h.LatencyCycles, h.Registers)
	}
	if m, m40 := at["mono@8.5"], at["mono@40.5"]; m.LatencyCycles < 3 || m40.LatencyCycles != 1 || !(m.AreaGE > m40.AreaGE) {
		t.Errorf("mono: %d cycles and %.1f GE at 8.5, %d and %.1f at 40.5", m.LatencyCycles, m.AreaGE, m40.LatencyCycles, m40.AreaGE)
	}
	if bad, err := sw.Unfinished(); bad != nil || err != nil {
		t.Errorf("unfinished %v: %v", bad, err)
	}
	// A cancelled sweep says so.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sweep.Run(ctx, us, periods, opt, 2, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestJobsMerge: the job list has a line per point of the units without
// a clock; the points computed one by one and merged give Run's sweep; a
// missing result, one of another point and one under another model are
// named, and Unfinished counts them.
func TestJobsMerge(t *testing.T) {
	us := sweepUnits(t)
	periods := []float64{8.5, 40.5}
	opt := sized()
	man := sweep.NewManifest("v1", opt, periods, us)
	list, n := man.Jobs(func(point string) string { return "run " + point })
	if n != 4 || string(list) != "run h@8.5\nrun h@40.5\nrun mono@8.5\nrun mono@40.5\n" {
		t.Fatalf("%d jobs:\n%s", n, list)
	}
	if len(man.Units) != 3 || man.Units[2].Clock == "" || man.Units[0].Design != sweep.Digest(us[0].Design) {
		t.Fatalf("manifest units %+v", man.Units)
	}
	dir := t.TempDir()
	write := func(name string, v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(sweep.ManifestFile, man)
	for _, u := range us[:2] {
		for _, p := range periods {
			write(sweep.PointName(u.Design.Name, p)+".json", sweep.Compute(context.Background(), "v1", u, p, opt, ""))
		}
	}
	read, err := sweep.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := sweep.Run(context.Background(), us, periods, opt, 1, nil)
	if got := read.Merge(dir); !reflect.DeepEqual(got, want) {
		t.Errorf("merge:\n%+v\nwant\n%+v", got, want)
	}
	os.Remove(filepath.Join(dir, "h@8.5.json"))
	write("h@40.5.json", sweep.Compute(context.Background(), "v1", us[0], 8.5, opt, ""))
	write("mono@8.5.json", sweep.Compute(context.Background(), "v1", us[1], 8.5, timing.DefaultOptions(), ""))
	got := read.Merge(dir)
	bad, err := got.Unfinished()
	if err == nil || err.Error() != "3 of 6 points not computed (1 missing, 2 malformed)" || len(bad) != 3 {
		t.Fatalf("unfinished %v: %v", bad, err)
	}
	for i, want := range []string{"h@8.5.json: no such file", "h@40.5.json: holds the point h@8.5", "mono@8.5.json: computed under another timing model"} {
		if !strings.Contains(bad[i].Reason, want) {
			t.Errorf("%s: %s, want %q", sweep.PointName(bad[i].Unit, bad[i].PeriodFO4), bad[i].Reason, want)
		}
	}
	if _, err := sweep.ReadManifest(t.TempDir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("no manifest: %v", err)
	}
}

// TestDigest: the same netlist gives the same digest, one gate more
// another.
func TestDigest(t *testing.T) {
	us := sweepUnits(t)
	d := *us[1].Design
	if sweep.Digest(&d) != sweep.Digest(us[1].Design) {
		t.Fatal("a copy digests otherwise")
	}
	d.Gates = append(append([]netlist.Gate(nil), d.Gates...), netlist.Gate{Kind: netlist.INV, In: []netlist.Net{d.Gates[0].Out}, Out: netlist.Net(d.NumNets)})
	d.NumNets++
	if sweep.Digest(&d) == sweep.Digest(us[1].Design) {
		t.Error("an added gate leaves the digest")
	}
}

// TestTableAndSVG: the table has a row per point of the swept units and
// one for the clocked unit; the figure draws the swept units, names the
// others, and a sweep with nothing pipelined draws nothing.
func TestTableAndSVG(t *testing.T) {
	sw, _ := sweep.Run(context.Background(), sweepUnits(t), []float64{0.5, 8.5}, sized(), 2, nil)
	var b strings.Builder
	if err := sw.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2+4+1 || !strings.HasPrefix(lines[0], "clock sweep (sized: logical-effort buffer trees on every stage): 2 periods from 0.5 to 8.5 FO4") ||
		!strings.Contains(lines[2], "period too short: period 0.5 FO4 must be finite and above the setup time 1 FO4") ||
		!strings.HasPrefix(lines[3], "h     hash                   8.5         1       6 ") || !strings.HasSuffix(lines[6], "clocked: not swept") {
		t.Errorf("table:\n%s", b.String())
	}
	svg, err := sw.SVG()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">h<", ">mono<", "not drawn (clocked, or no period met): p", "h at 8.5 FO4: 1 cycle, 6 flip-flops"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	none, _ := sweep.Run(context.Background(), sweepUnits(t), []float64{0.5}, sized(), 1, nil)
	if _, err := none.SVG(); !errors.Is(err, sweep.ErrNothingToDraw) {
		t.Errorf("nothing pipelined: %v", err)
	}
}

// TestRun_DoneOncePerPoint: Run calls done once for every point it
// finishes, with any number of workers.
func TestRun_DoneOncePerPoint(t *testing.T) {
	us := sweepUnits(t)
	for _, jobs := range []int{1, 3} {
		var n atomic.Int64
		sw, err := sweep.Run(context.Background(), us, []float64{8.5, 40.5}, sized(), jobs, func() { n.Add(1) })
		if err != nil {
			t.Fatal(err)
		}
		if int(n.Load()) != len(sw.Points) || len(sw.Points) != 2*len(us) {
			t.Errorf("jobs %d: done called %d times for %d points", jobs, n.Load(), len(sw.Points))
		}
	}
}

// TestEstimateRun: a sweep's estimate counts every point, costs nothing
// for a clocked unit, and grows with the points and as the periods
// shorten (more stages).
func TestEstimateRun(t *testing.T) {
	us := sweepUnits(t)
	var comb, clocked []sweep.Unit
	for _, u := range us {
		if u.Design.Clock != "" {
			clocked = append(clocked, u)
		} else {
			comb = append(comb, u)
		}
	}
	if len(comb) == 0 || len(clocked) == 0 {
		t.Fatalf("%d combinational and %d clocked units: want both", len(comb), len(clocked))
	}
	est := func(us []sweep.Unit, periods ...float64) sweep.Estimate {
		e, err := sweep.EstimateRun(us, periods, sized())
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	if e := est(clocked, 10, 20); e.CPU != 0 || e.Points != 2*len(clocked) {
		t.Errorf("clocked units: %+v, want no CPU time and %d points", e, 2*len(clocked))
	}
	one, two, short := est(comb, 40), est(comb, 40, 40), est(comb, 4)
	if one.CPU <= 0 || two.CPU != 2*one.CPU || two.Longest != one.Longest || two.Points != 2*one.Points {
		t.Errorf("one period %+v, the same twice %+v", one, two)
	}
	if short.CPU <= one.CPU {
		t.Errorf("at 4 FO4 %v, at 40 FO4 %v: want more at the shorter period", short.CPU, one.CPU)
	}
}
