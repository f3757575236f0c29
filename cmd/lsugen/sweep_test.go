package main

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/retime"
	"github.com/lsugen/lsugen/retime/sweep"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/units"
)

// sweepSpec has a shallow hash (5 output bits), a detector whose sized
// critical path (about 21 FO4) needs several stages at short periods, and
// a clocked elastic pipeline, which a sweep reports and leaves alone.
const sweepSpec = `hash "h" {
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

// sweepJSON runs a sweep with --json and decodes it.
func sweepJSON(t *testing.T, args ...string) *sweepDoc {
	t.Helper()
	code, stdout, stderr := lsugen(t, append([]string{"timing", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("timing %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	var doc sweepDoc
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("timing %s --json: %v", strings.Join(args, " "), err)
	}
	return &doc
}

// TestSweepClock_Periods: LO:HI:STEP gives LO, LO+STEP, ... up to HI,
// without losing HI to rounding.
func TestSweepClock_Periods(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []float64
	}{
		{"20:60:4", []float64{20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60}},
		{"0.1:0.5:0.1", []float64{0.1, 0.2, 0.3, 0.4, 0.5}},
		{"40:40:1", []float64{40}},
		{"40:47:4", []float64{40, 44}},
		{" 2 : 3 : 0.25 ", []float64{2, 2.25, 2.5, 2.75, 3}},
		{"1:1000:1", nil}, // 1000 periods: allowed, checked by length below
	} {
		got, err := sweep.ParsePeriods(c.in, minClockFO4, maxClockFO4)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if c.want == nil {
			if len(got) != sweep.MaxPeriods || got[len(got)-1] != 1000 {
				t.Errorf("%q: %d periods ending at %g, want 1000 ending at 1000", c.in, len(got), got[len(got)-1])
			}
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %v, want %v", c.in, got, c.want)
		}
	}
}

// TestSweep_UsageErrors: bad periods and flag combinations are usage
// errors (exit status 2) naming the flag, before any work.
func TestSweep_UsageErrors(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "s.hcl", sweepSpec)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--sweep-clock", "60:20:4", spec}, "--sweep-clock \"60:20:4\": LO 60 is above HI 20"},
		{[]string{"--sweep-clock", "20:60:0", spec}, "STEP \"0\" is not a positive finite number"},
		{[]string{"--sweep-clock", "20:60:-4", spec}, "STEP \"-4\" is not a positive"},
		{[]string{"--sweep-clock", "20:inf:4", spec}, "HI \"inf\" is not a positive finite number"},
		{[]string{"--sweep-clock", "NaN:60:4", spec}, "LO \"NaN\" is not"},
		{[]string{"--sweep-clock", "20:60", spec}, "--sweep-clock \"20:60\": want LO:HI:STEP"},
		{[]string{"--sweep-clock", "0.01:60:4", spec}, "want periods from 0.1 to 1e+06 FO4"},
		{[]string{"--sweep-clock", "1:2000:1", spec}, "2000 periods, more than 1000"},
		{[]string{"--sweep-clock", "20:60:4", "--jobs", "0", spec}, "--jobs 0: want 1 to 1024"},
		{[]string{"--sweep-clock", "20:60:4", "--clock", "40", spec}, "--clock is for the timing report"},
		{[]string{"--sweep-clock", "20:60:4", "--clock-fo4", "40", spec}, "--clock-fo4 pipelines the units at one period"},
		{[]string{"--sweep-clock", "20:60:4", "--sweep-merge", dir}, "give one"},
		{[]string{"--job-list", filepath.Join(dir, "j"), spec}, "--job-list: applies to a clock sweep"},
		{[]string{"--jobs", "2", "--clock", "40", spec}, "--jobs: applies to a clock sweep"},
		{[]string{"--sweep-clock=", spec}, "--sweep-clock: empty; it needs a value"},
		{[]string{"--sweep-clock", "20:60:4", "--job-list", filepath.Join(dir, "j"), spec}, "need --out-dir DIR"},
		{[]string{"--sweep-clock", "20:60:4", "--job-list", filepath.Join(dir, "j"), "--out-dir", dir, "--jobs", "2", spec}, "--jobs N computes the points of --sweep-clock here"},
		{[]string{"--sweep-clock", "20:60:4", "--out-dir", dir, spec}, "--out-dir applies to --job-list and --sweep-point only"},
		{[]string{"--sweep-point", "h@20", spec}, "need --out-dir DIR"},
		{[]string{"--sweep-point", "h20", "--out-dir", dir, spec}, "--sweep-point \"h20\": want UNIT@P"},
		{[]string{"--sweep-point", "h@fast", "--out-dir", dir, spec}, "the period \"fast\" is not a number"},
		{[]string{"--sweep-point", "nosuch@20", "--out-dir", dir, spec}, "--sweep-point: no unit nosuch in the specs (units: h, mono, p)"},
		{[]string{"--sweep-merge", dir, spec}, "--sweep-merge DIR takes no spec files"},
		{[]string{"--sweep-merge", dir, "--mode", "unsized"}, "--mode: --sweep-merge takes the model from the sweep's manifest"},
		{[]string{"--sweep-merge", dir}, "no sweep.json: not the --out-dir"},
		{[]string{"--sweep-clock", "20:60:4", "--svg", filepath.Join(dir, "no", "f.svg"), spec}, "--svg: " + filepath.Join(dir, "no") + ": no such directory"},
	} {
		code, stdout, stderr := lsugen(t, append([]string{"timing"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("timing %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), code, stdout, stderr, c.want)
		}
	}
}

// TestSweep_PointsMatchTheLibrary: every point of the sweep is what
// retime.Pipeline and timing.Analyze give for that unit and period under
// the sized model: a period below the setup time is too short, the 1.2 FO4
// hash takes one cycle and 6 flip-flops (5 outputs and valid) at every
// period from 8.5 FO4, the 21 FO4 detector more than one cycle at 8.5
// and one at 40.5; the clocked unit is marked, not swept. --jobs 3 gives
// the same document as --jobs 1.
func TestSweep_PointsMatchTheLibrary(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "s.hcl", sweepSpec)
	doc := sweepJSON(t, "--sweep-clock", "0.5:40.5:8", spec)
	if again := sweepJSON(t, "--sweep-clock", "0.5:40.5:8", "--jobs", "3", spec); !reflect.DeepEqual(doc, again) {
		t.Errorf("--jobs 3 gave another sweep than --jobs 1")
	}
	periods := []float64{0.5, 8.5, 16.5, 24.5, 32.5, 40.5}
	if !reflect.DeepEqual(doc.PeriodsFO4, periods) || doc.Model.Mode != "sized" || len(doc.Points) != 3*len(periods) {
		t.Fatalf("periods %v, mode %s, %d points; want %v, sized, 18", doc.PeriodsFO4, doc.Model.Mode, len(doc.Points), periods)
	}
	file, diags := specs.NewLoader().Load(spec)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	opt := timing.DefaultOptions()
	opt.Mode = timing.Sized
	for i, pt := range doc.Points {
		su := file.Units[i/len(periods)]
		p := periods[i%len(periods)]
		name := sweep.PointName(su.UnitName(), p)
		if pt.Unit != su.UnitName() || pt.PeriodFO4 != p || pt.Kind != su.UnitKind() {
			t.Fatalf("point %d is %s (%s), want %s (%s)", i, sweep.PointName(pt.Unit, pt.PeriodFO4), pt.Kind, name, su.UnitKind())
		}
		d, gd := units.Generate(su)
		if gd.HasErrors() {
			t.Fatal(gd)
		}
		if d.Clock != "" {
			if pt.Status != sweep.Clocked || !strings.Contains(pt.Reason, "has a clock") {
				t.Errorf("%s: status %s (%s), want clocked", name, pt.Status, pt.Reason)
			}
			continue
		}
		r, err := retime.Pipeline(d, retime.Options{PeriodFO4: p, Timing: opt})
		if p < timing.SetupFO4 {
			if err == nil || pt.Status != sweep.TooShort || !strings.Contains(pt.Reason, "above the setup time") {
				t.Errorf("%s: status %s (%s), want period_too_short", name, pt.Status, pt.Reason)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		res, err := timing.Analyze(r.Design, opt)
		if err != nil {
			t.Fatal(err)
		}
		want := sweep.Point{Unit: pt.Unit, Kind: pt.Kind, Variant: pt.Variant, PeriodFO4: p, Status: sweep.OK,
			LatencyCycles: r.Latency, Registers: r.Registers, AreaGE: res.AreaGE, WorstStageFO4: slicesMax(r.StageFO4),
			StageFO4: r.StageFO4, StageRegisters: r.StageRegisters}
		if len(want.StageRegisters) == 0 {
			want.StageRegisters = nil // as the JSON has it
		}
		if !reflect.DeepEqual(pt, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", name, pt, want)
		}
		if len(pt.StageFO4) != pt.LatencyCycles || pt.WorstStageFO4 > p {
			t.Errorf("%s: %d stages of worst %g FO4 for latency %d", name, len(pt.StageFO4), pt.WorstStageFO4, pt.LatencyCycles)
		}
		switch {
		case su.UnitName() == "h" && (pt.LatencyCycles != 1 || pt.Registers != 6):
			t.Errorf("%s: %d cycles, %d flip-flops; want 1 and 6", name, pt.LatencyCycles, pt.Registers)
		case su.UnitName() == "mono" && p == 8.5 && pt.LatencyCycles < 3:
			t.Errorf("%s: %d cycles for a 21 FO4 path in 7.5 FO4 stages; want at least 3", name, pt.LatencyCycles)
		case su.UnitName() == "mono" && p == 40.5 && pt.LatencyCycles != 1:
			t.Errorf("%s: %d cycles; want 1", name, pt.LatencyCycles)
		}
	}
	// The table: one row per point of h and mono, one for p.
	code, stdout, stderr := lsugen(t, "timing", "--sweep-clock", "0.5:40.5:8", spec)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 2+2*len(periods)+1 {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), 2+2*len(periods)+1, stdout)
	}
	for _, want := range []string{
		"clock sweep (sized: logical-effort buffer trees on every stage): 6 periods from 0.5 to 40.5 FO4, setup 1 FO4 in each stage\n",
		"h     hash                   0.5         -       -           -        -                period too short: period 0.5 FO4 must be finite and above the setup time 1 FO4",
		"h     hash                   8.5         1       6 ",
		"p     elastic_pipeline       -           -       -           -        -                clocked: not swept",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
}

func slicesMax(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// TestSweep_SVG: --svg draws one series per unit pipelined at some
// period, its points at the periods, and names the units left out.
func TestSweep_SVG(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "s.hcl", sweepSpec)
	svg := filepath.Join(dir, "sweep.svg")
	code, stdout, stderr := lsugen(t, "timing", "--sweep-clock", "8:40:16", "--svg", svg, spec)
	if code != 0 || !strings.Contains(stdout, "wrote "+svg) {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{"<svg", "Area of the pipelined units against the clock period", "(b) Flip-flops of the pipelined units", "clock period (FO4)", "not drawn (clocked, or no period met): p", ">h<", ">mono<", "h at 8 FO4: 1 cycle, 6 flip-flops"} {
		if !strings.Contains(s, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	// Nothing pipelined: no figure, and the old file kept.
	code, _, stderr = lsugen(t, "timing", "--sweep-clock", "0.5:0.5:1", "--svg", svg, spec)
	if code != 1 || !strings.Contains(stderr, "--svg: no point of the sweep was pipelined") {
		t.Errorf("nothing to draw: exit %d, %s", code, stderr)
	}
	if after, _ := os.ReadFile(svg); string(after) != s {
		t.Errorf("the SVG changed though nothing was drawn")
	}
}

// TestSweep_JobListParallelMerge: the job list has one line per point of
// the units without a clock; GNU parallel runs it unchanged, the Slurm
// array form runs one line, and the merge gives the document the sweep
// gives here. A deleted result, one truncated and one holding another
// point are named, and the merge fails (exit status 1).
func TestSweep_JobListParallelMerge(t *testing.T) {
	par, err := exec.LookPath("parallel")
	if err != nil {
		t.Fatalf("GNU parallel is not installed (make deps installs it: apt-get install parallel): %v", err)
	}
	dir := t.TempDir()
	spec := writeSpec(t, dir, "s.hcl", sweepSpec)
	jobs, out := filepath.Join(dir, "jobs.txt"), filepath.Join(dir, "res")
	jobCmd := childCommand(t)
	sweep := []string{"--sweep-clock", "0.5:40.5:20", "--driver-size", "2"}
	code, stdout, stderr := lsugen(t, append([]string{"timing", "--job-list", jobs, "--out-dir", out, "--job-command", jobCmd, spec}, sweep...)...)
	if code != 0 || !strings.Contains(stdout, "6 jobs") {
		t.Fatalf("--job-list: exit %d: %s%s", code, stdout, stderr)
	}
	raw, err := os.ReadFile(jobs)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	want0 := jobCmd + " timing --sweep-point=h@0.5 --timing-mode=sized --driver-size=2 --out-dir=" + shellQuote(out) + " -- " + shellQuote(spec)
	if len(lines) != 6 || lines[0] != want0 || !strings.Contains(lines[5], "--sweep-point=mono@40.5 ") {
		t.Fatalf("job list:\n%s\nwant 6 lines, the first\n%s", raw, want0)
	}
	run := exec.Command(par)
	run.Stdin = strings.NewReader(string(raw))
	run.Dir = t.TempDir() // the jobs depend on no working directory
	run.Env = append(os.Environ(), "HOME="+t.TempDir())
	if o, err := run.CombinedOutput(); err != nil {
		t.Fatalf("parallel < %s: %v\n%s", jobs, err, o)
	}
	direct := sweepJSON(t, append(sweep, spec)...)
	merged := sweepJSON(t, "--sweep-merge", out)
	if !reflect.DeepEqual(direct, merged) {
		t.Errorf("merge:\n%+v\nwant the sweep's\n%+v", merged, direct)
	}
	// The Slurm array form, task 6, rewrites its point.
	last := filepath.Join(out, "mono@40.5.json")
	before, _ := os.ReadFile(last)
	if err := os.Remove(last); err != nil {
		t.Fatal(err)
	}
	slurm := exec.Command("sh", "-c", `sed -n "${SLURM_ARRAY_TASK_ID}p" "$1" | sh`, "sh", jobs)
	slurm.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID=6")
	if o, err := slurm.CombinedOutput(); err != nil || !strings.Contains(string(o), "mono@40.5: 1 cycle") {
		t.Fatalf("Slurm form: %v\n%s", err, o)
	}
	if after, _ := os.ReadFile(last); string(after) != string(before) {
		t.Errorf("the Slurm form wrote\n%s\nwant\n%s", after, before)
	}
	// Missing and malformed points.
	os.Remove(filepath.Join(out, "h@20.5.json"))
	os.WriteFile(filepath.Join(out, "h@40.5.json"), before[:len(before)/2], 0o644)
	os.WriteFile(filepath.Join(out, "mono@20.5.json"), before, 0o644)
	code, stdout, stderr = lsugen(t, "timing", "--sweep-merge", out)
	for _, want := range []string{
		"h@20.5 missing: " + filepath.Join(out, "h@20.5.json") + ": no such file",
		"h@40.5 malformed: " + filepath.Join(out, "h@40.5.json") + ": not a sweep point: unexpected EOF",
		"mono@20.5 malformed: " + filepath.Join(out, "mono@20.5.json") + ": holds the point mono@40.5",
		"3 of 9 points not computed (1 missing, 2 malformed)",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("merge stderr lacks %q:\n%s", want, stderr)
		}
	}
	if code != 1 || !strings.Contains(stdout, "MISSING") || !strings.Contains(stdout, "mono  monotonicity_detector  40.5") {
		t.Errorf("merge: exit %d, table\n%s", code, stdout)
	}
}

// TestSweep_JobListDefaultCommand: without --job-command each line starts
// with this lsugen's absolute path, quoted for the shell; the manifest
// lists every unit with its clock, and a point written under another
// model is malformed.
func TestSweep_JobListDefaultCommand(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	spec := writeSpec(t, dir, "s.hcl", sweepSpec)
	jobs, out := filepath.Join(dir, "jobs.txt"), filepath.Join(dir, "res")
	if code, _, stderr := lsugen(t, "timing", "--sweep-clock", "20:20:1", "--job-list", jobs, "--out-dir", out, spec); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	raw, _ := os.ReadFile(jobs)
	if !strings.HasPrefix(string(raw), shellQuote(exe)+" timing --sweep-point=h@20 --timing-mode=sized ") || strings.Count(string(raw), "\n") != 2 {
		t.Errorf("job list:\n%s", raw)
	}
	var man sweep.Manifest
	mraw, _ := os.ReadFile(filepath.Join(out, sweep.ManifestFile))
	if err := json.Unmarshal(mraw, &man); err != nil {
		t.Fatal(err)
	}
	if len(man.Units) != 3 || man.Units[2].Name != "p" || man.Units[2].Clock == "" || man.Units[0].Clock != "" || man.Model.Mode != "sized" {
		t.Errorf("manifest: %+v", man)
	}
	// Points computed here, one of them under the unsized model.
	for _, args := range [][]string{
		{"--sweep-point", "h@20", "--mode", "sized"},
		{"--sweep-point", "mono@20", "--mode", "unsized"},
	} {
		if code, _, stderr := lsugen(t, append([]string{"timing", "--out-dir", out, spec}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	code, stdout, stderr := lsugen(t, "timing", "--sweep-merge", out)
	if code != 1 || !strings.Contains(stderr, "mono@20 malformed: "+filepath.Join(out, "mono@20.json")+": computed under another timing model") ||
		!strings.Contains(stdout, "h     hash                   20          1       6") {
		t.Errorf("merge: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestSweep_PointName: a point's name round-trips through its parser.
func TestSweep_PointName(t *testing.T) {
	for _, p := range []float64{0.1, 20, 22.5, 1e6} {
		name := sweep.PointName("u@v", p)
		u, q, err := sweep.ParsePointName(name, minClockFO4, maxClockFO4)
		if err != nil || u != "u@v" || q != p {
			t.Errorf("%s: %q %g %v", name, u, q, err)
		}
	}
	if got := shellQuote("it's"); got != `'it'\''s'` {
		t.Errorf("shellQuote: %s", got)
	}
	if got := strconv.Quote(shellQuote("/a/b-c_d.hcl")); got != `"/a/b-c_d.hcl"` {
		t.Errorf("shellQuote of a plain path: %s", got)
	}
}

// TestSweep_STAPoint: --sta-liberty times a point's pipeline with
// crosscheck-timing's flow; the point file carries OpenSTA's worst stage
// and slack at the period, the job list passes the library on by its
// absolute path, and it is refused without a point or a job list.
func TestSweep_STAPoint(t *testing.T) {
	lib := sky130Lib(t)
	dir := t.TempDir()
	spec := writeSpec(t, dir, "d.hcl", "monotonicity_detector \"m4\" {\n  lanes     = 4\n  addr_bits = 8\n}\n")
	out := filepath.Join(dir, "points")
	code, stdout, stderr := lsugen(t, "timing", "--sweep-point=m4@8", "--out-dir", out, "--sta-liberty", lib, spec)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "m4@8.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pt struct {
		Status string     `json:"status"`
		STA    *sweep.STA `json:"sta"`
	}
	if err := json.Unmarshal(b, &pt); err != nil {
		t.Fatal(err)
	}
	if pt.Status != "ok" || pt.STA == nil || !(pt.STA.TimingDrivenFO4 > 0) || !(pt.STA.MappedFO4 > 0) || !(pt.STA.PeriodPS > 0) ||
		pt.STA.WithinPeriod != (pt.STA.TimingDrivenSlackPS >= 0) {
		t.Fatalf("point %s", b)
	}
	if !strings.Contains(stdout, "OpenSTA (sky130_fd_sc_hd__tt_025C_1v80, timing-driven flow): worst stage") {
		t.Errorf("stdout %q", stdout)
	}
	list := filepath.Join(dir, "jobs.txt")
	if code, _, stderr := lsugen(t, "timing", "--sweep-clock", "8:16:8", "--job-list", list, "--out-dir", out, "--sta-liberty", lib, spec); code != 0 {
		t.Fatalf("job list: exit %d: %s", code, stderr)
	}
	abs, _ := filepath.Abs(lib)
	if b, _ := os.ReadFile(list); strings.Count(string(b), "--sta-liberty="+shellQuote(abs)) != 2 {
		t.Errorf("job list does not pass the library on:\n%s", b)
	}
	if code, _, stderr := lsugen(t, "timing", "--sweep-clock", "8:16:8", "--sta-liberty", lib, spec); code != 2 || !strings.Contains(stderr, "--sta-liberty runs OpenSTA on each point") {
		t.Errorf("--sta-liberty with an in-process sweep: exit %d, %q", code, stderr)
	}
}

// TestSweep_SubcommandsMatchFlags: timing sweep, sweep-point and
// sweep-merge give, byte for byte, what the older flags --sweep-clock,
// --sweep-point and --sweep-merge give (the table, the JSON, the job list,
// the manifest and a point's file); each has its own help, and a missing
// argument is a usage error.
func TestSweep_SubcommandsMatchFlags(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "s.hcl", sweepSpec)
	same := func(what string, sub, old []string) string {
		t.Helper()
		code1, out1, err1 := lsugen(t, append([]string{"timing"}, sub...)...)
		code2, out2, err2 := lsugen(t, append([]string{"timing"}, old...)...)
		// Errors name the command that ran.
		err1 = strings.ReplaceAll(err1, "lsugen timing "+sub[0]+":", "lsugen timing:")
		if code1 != code2 || out1 != out2 || err1 != err2 {
			t.Errorf("%s: timing %s: exit %d\n%s%s\ntiming %s: exit %d\n%s%s", what, strings.Join(sub, " "), code1, out1, err1, strings.Join(old, " "), code2, out2, err2)
		}
		return out1
	}
	same("table", []string{"sweep", "0.5:40.5:20", spec}, []string{"--sweep-clock", "0.5:40.5:20", spec})
	if out := same("json", []string{"sweep", "--json", "--jobs", "2", "--mode", "unsized", "0.5:40.5:20", spec}, []string{"--json", "--jobs", "2", "--mode", "unsized", "--sweep-clock", "0.5:40.5:20", spec}); !strings.Contains(out, `"mode": "unsized"`) {
		t.Errorf("--mode unsized not taken:\n%s", out)
	}
	// Job lists: the same lines (each the older --sweep-point spelling) and manifest.
	read := func(path string) string {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	out := filepath.Join(dir, "res")
	for _, spelling := range [][]string{
		{"sweep", "--job-list", filepath.Join(dir, "jobs1"), "--out-dir", out, "--job-command", "lsugen", "--driver-size", "2", "20:40:20", spec},
		{"--sweep-clock", "20:40:20", "--job-list", filepath.Join(dir, "jobs2"), "--out-dir", out, "--job-command", "lsugen", "--driver-size", "2", spec},
	} {
		if code, _, stderr := lsugen(t, append([]string{"timing"}, spelling...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", spelling, code, stderr)
		}
	}
	if j1, j2 := read(filepath.Join(dir, "jobs1")), read(filepath.Join(dir, "jobs2")); j1 != j2 || !strings.HasPrefix(j1, "lsugen timing --sweep-point=h@20 --timing-mode=sized --driver-size=2 ") {
		t.Errorf("job lists differ:\n%s\n%s", j1, j2)
	}
	// Points: the same file, written by either spelling.
	same("point", []string{"sweep-point", "--out-dir", out, "--driver-size", "2", "h@20", spec}, []string{"--sweep-point", "h@20", "--out-dir", out, "--driver-size", "2", spec})
	h20 := read(filepath.Join(out, "h@20.json"))
	same("point json", []string{"sweep-point", "--json", "--out-dir", out, "--driver-size", "2", "h@20", spec}, []string{"--json", "--sweep-point", "h@20", "--out-dir", out, "--driver-size", "2", spec})
	if got := read(filepath.Join(out, "h@20.json")); got != h20 || !strings.Contains(got, `"latency_cycles": 1`) {
		t.Errorf("point file:\n%s\nwant\n%s", got, h20)
	}
	// A merge with three points missing fails the same way in both.
	if merged := same("merge", []string{"sweep-merge", out}, []string{"--sweep-merge", out}); !strings.Contains(merged, "MISSING") {
		t.Errorf("merge table:\n%s", merged)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep", "--help"}, "Usage:\n  lsugen timing sweep [--jobs N]"},
		{[]string{"sweep-point", "--help"}, "Usage:\n  lsugen timing sweep-point --out-dir DIR"},
		{[]string{"sweep-merge", "--help"}, "Usage:\n  lsugen timing sweep-merge [--json] [--svg FILE] DIR"},
		{[]string{"--help"}, "sweep-merge "},
	} {
		if code, stdout, _ := lsugen(t, append([]string{"timing"}, c.args...)...); code != 0 || !strings.Contains(stdout, c.want) {
			t.Errorf("timing %v: exit %d:\n%s", c.args, code, stdout)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep"}, "want the periods LO:HI:STEP"},
		{[]string{"sweep", "60:20:4", spec}, `LO:HI:STEP "60:20:4": LO 60 is above HI 20`},
		{[]string{"sweep-point", "--out-dir", out, "h20", spec}, `UNIT@P "h20": want UNIT@P`},
		{[]string{"sweep", "--clock-fo4", "40", "20:40:4", spec}, "unknown flag: --clock-fo4"},
		{[]string{"sweep", "--jobs", "2", "--job-list", filepath.Join(dir, "j"), "--out-dir", out, "20:40:4", spec}, "--jobs N computes the points"},
		{[]string{"sweep-point", "--out-dir", out}, "want the point UNIT@P"},
		{[]string{"sweep-point", "h@20", spec}, "need --out-dir DIR"},
		{[]string{"sweep-merge"}, "want one DIR"},
		{[]string{"sweep-merge", out, "--mode", "sized"}, "unknown flag: --mode"},
		{[]string{"sweep", "--clock", "40", "20:40:4", spec}, "unknown flag: --clock"},
	} {
		if code, _, stderr := lsugen(t, append([]string{"timing"}, c.args...)...); code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("timing %v: exit %d, %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
