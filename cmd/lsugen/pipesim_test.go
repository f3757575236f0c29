package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

const (
	fig4Spec  = "../../specs/pipeline_figure4.hcl"
	fig4Trace = "../../specs/traces/figure4.ptrace"
	studySpec = "../../specs/pipeline_study.hcl"
)

// TestPipesim_Figure4Text: the text table of the Figure 4/5 scenario.
func TestPipesim_Figure4Text(t *testing.T) {
	code, stdout, stderr := lsugen(t, "pipesim", fig4Spec, "--trace", fig4Trace)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, s := range []string{
		"elastic_pipeline figure4_pipeline (../../specs/pipeline_figure4.hcl): M = 2 memory stages, warp 8, SIMD 8, 1 shared-memory port: 1 subwarp per warp, PREMEM depth 0 (elastic)",
		"ready mask (the paper's default): 256 sets x 2 ways, 14-bit PCs, 6 warp contexts",
		"workload: trace ../../specs/traces/figure4.ptrace (6 PCs): 6 warps, 6 warp instructions (6 subwarps); shmem 16.7%, mem 0.0%, mean conflict degree 2.00",
		"variant           mask  cycles    IPC  subwarp IPC  bank stalls  wb stalls  fails masked  fails none  wb bubbles  speedup",
		"baseline_unified  off        9  0.667        0.667            1          0             0           0           1    1.000",
		"baseline_split    on         9  0.667        0.667            0          1             0           0           1    1.000",
		"elastic           off        7  0.857        0.857            0          0             0           0           0    1.286",
	} {
		if !strings.Contains(stdout, s+"\n") {
			t.Errorf("%q missing from\n%s", s, stdout)
		}
	}
}

// TestPipesim_JSON: the documented keys, six runs in order, a preset's
// workload described.
func TestPipesim_JSON(t *testing.T) {
	code, stdout, stderr := lsugen(t, "pipesim", "--json", studySpec, "--preset", "transpose", "--instructions", "108", "--seed", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(stdout), &raw); err != nil {
		t.Fatal(err)
	}
	if got := sortedKeys(raw); !reflect.DeepEqual(got, []string{"pipeline", "ready_mask", "runs", "spec", "version", "workload"}) {
		t.Errorf("top-level keys %v", got)
	}
	var doc struct {
		Spec     string `json:"spec"`
		Pipeline struct {
			Unit      string `json:"unit"`
			MemStages int    `json:"mem_stages"`
			Subwarps  int    `json:"subwarps"`
			PremDepth int    `json:"premem_depth"`
		} `json:"pipeline"`
		ReadyMask struct {
			Unit        string `json:"unit"`
			HistorySets int    `json:"history_sets"`
		} `json:"ready_mask"`
		Workload struct {
			Source    string `json:"source"`
			Synthetic struct {
				Preset       string `json:"preset"`
				Warps        int    `json:"warps"`
				Instructions int    `json:"instructions_per_warp"`
				Seed         uint64 `json:"seed"`
				Irregular    bool   `json:"irregular"`
			} `json:"synthetic"`
			WarpInstructions int     `json:"warp_instructions"`
			ShmemIntensity   float64 `json:"shmem_intensity"`
		} `json:"workload"`
		Runs []map[string]json.RawMessage `json:"runs"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Spec != studySpec || doc.Pipeline.Unit != "study_pipeline" || doc.Pipeline.MemStages != 4 || doc.Pipeline.Subwarps != 4 || doc.Pipeline.PremDepth != 3 {
		t.Errorf("pipeline %+v", doc.Pipeline)
	}
	if doc.ReadyMask.Unit != "study_mask" || doc.ReadyMask.HistorySets != 256 {
		t.Errorf("mask %+v", doc.ReadyMask)
	}
	w := doc.Workload
	if w.Source != "synthetic" || w.Synthetic.Preset != "transpose" || w.Synthetic.Warps != 32 || w.Synthetic.Instructions != 108 ||
		w.Synthetic.Seed != 3 || w.Synthetic.Irregular || w.WarpInstructions != 32*108 || w.ShmemIntensity != 2.0/54 {
		t.Errorf("workload %+v", w)
	}
	runKeys := []string{"cycles", "history_hits", "history_lookups", "ipc", "mask", "mask_cycles", "sched_fails", "speedup", "stalls", "subwarp_instructions", "subwarp_ipc", "variant", "warp_instructions", "wb_bubbles"}
	if len(doc.Runs) != 6 {
		t.Fatalf("%d runs", len(doc.Runs))
	}
	for i, r := range doc.Runs {
		if got := sortedKeys(r); !reflect.DeepEqual(got, runKeys) {
			t.Errorf("run %d keys %v", i, got)
		}
		var v string
		var m bool
		json.Unmarshal(r["variant"], &v)
		json.Unmarshal(r["mask"], &m)
		if v != []string{"baseline_unified", "baseline_split", "elastic"}[i/2] || m != (i%2 == 1) {
			t.Errorf("run %d: %s mask %v", i, v, m)
		}
		var st, sf map[string]int
		json.Unmarshal(r["stalls"], &st)
		json.Unmarshal(r["sched_fails"], &sf)
		if sortedKeys(st)[0] != "bank_conflict" || len(st) != 3 || len(sf) != 3 || sf["total"] != sf["masked"]+sf["none_ready"] {
			t.Errorf("run %d: stalls %v, fails %v", i, st, sf)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	var k []string
	for s := range m {
		k = append(k, s)
	}
	slices.Sort(k)
	return k
}

// TestPipesim_OutputFile: -o writes the report atomically (no stdout, no
// temporaries), replaces an earlier report, and a failing run leaves it.
func TestPipesim_OutputFile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "report.json")
	if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := lsugen(t, "pipesim", "--json", "-o", out, fig4Spec, "--trace", fig4Trace)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q: %s", code, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil || !json.Valid(b) || !strings.Contains(string(b), `"variant": "elastic"`) {
		t.Fatalf("%s: %v", b, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d entries in the output directory, want 1 (no temporaries)", len(entries))
	}
	bad := writeSpec(t, dir, "bad.ptrace", "0 alu 0\n0 shmem 1 9\n")
	code, _, stderr = lsugen(t, "pipesim", "-o", out, fig4Spec, "--trace", bad)
	if code != 2 || !strings.Contains(stderr, "bad.ptrace:2: conflict degree \"9\": want a decimal number 1..8 (simd_width)") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if after, _ := os.ReadFile(out); string(after) != string(b) {
		t.Error("a failed run changed the report")
	}
}

// TestPipesim_WriteTrace: the generated trace, read back with --trace,
// gives the same runs as the synthetic workload.
func TestPipesim_WriteTrace(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "aes.ptrace")
	args := []string{"pipesim", "--json", studySpec, "--preset", "aes_encrypt", "--warps", "8", "--instructions", "300"}
	code, synth, stderr := lsugen(t, append(args, "--write-trace", tr)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, fromTrace, stderr := lsugen(t, "pipesim", "--json", studySpec, "--trace", tr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	runs := func(s string) string {
		var d struct{ Runs json.RawMessage }
		if err := json.Unmarshal([]byte(s), &d); err != nil {
			t.Fatal(err)
		}
		return string(d.Runs)
	}
	if runs(synth) != runs(fromTrace) {
		t.Errorf("runs differ:\n%s\n%s", runs(synth), runs(fromTrace))
	}
	b, _ := os.ReadFile(tr)
	if !strings.HasPrefix(string(b), "# lsugen pipesim synthetic workload for study_pipeline") || !strings.Contains(string(b), "# preset aes_encrypt\n") {
		t.Errorf("trace header:\n%.300s", b)
	}
	// Same seed, same output.
	_, again, _ := lsugen(t, args...)
	if again != synth {
		t.Error("a second run with the same seed differs")
	}
}

// TestPipesim_UsageErrors are refused with exit 2 and a message, before any
// simulation.
func TestPipesim_UsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "unknown flag: --bogus"},
		{[]string{"--preest", "aes_encrypt"}, "Did you mean this?\n\t--preset"},
		{[]string{"--trace", fig4Trace}, "want exactly one SPEC file, got 0"},
		{[]string{fig4Spec, fig4Spec, "--trace", fig4Trace}, "want exactly one SPEC file, got 2"},
		{[]string{fig4Spec}, "no workload: give --trace FILE or --synthetic/--preset NAME"},
		{[]string{fig4Spec, "--trace", fig4Trace, "--synthetic"}, "--trace and --synthetic/--preset exclude each other"},
		{[]string{fig4Spec, "--trace", fig4Trace, "--warps", "4"}, "--warps applies to synthetic workloads only"},
		{[]string{fig4Spec, "--preset", "fft"}, `--preset "fft": want one of aes_encrypt, aes_decrypt, reduction, transpose, dct, idct, dct_short, idct_short`},
		{[]string{fig4Spec, "--synthetic", "--degrees", "1:0.5,x:1"}, `--degrees: term "x:1": degree "x"`},
		{[]string{fig4Spec, "--synthetic", "--degrees", "16:1"}, "conflict degree 16: want 1..8 (simd_width)"},
		{[]string{studySpec, "--synthetic", "--warps", "33"}, "warps = 33: want 1..32"},
		{[]string{fig4Spec, "--synthetic", "--shmem", "0.7", "--mem", "0.5", "--static", "1"}, "cannot hold 1 shmem and 1 mem"},
		{[]string{fig4Spec, "--synthetic", "--instructions", "0"}, "instructions = 0"},
		{[]string{fig4Spec, "--synthetic", "--max-cycles", "-1"}, "--max-cycles -1"},
		{[]string{fig4Spec, "--synthetic", "--seed", "x"}, `invalid argument "x" for "--seed" flag`},
	} {
		code, stdout, stderr := lsugen(t, append([]string{"pipesim"}, c.args...)...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, stdout, stderr, c.want)
		}
	}
}

// TestPipesim_Errors: bad inputs are errors (exit 2) that name the problem;
// a run that does not finish is a failure (exit 1).
func TestPipesim_Errors(t *testing.T) {
	dir := t.TempDir()
	noPipe := writeSpec(t, dir, "h.hcl", goodSpec)
	mismatch := writeSpec(t, dir, "m.hcl", `elastic_pipeline "p" {
  mem_stages = 2
  warp_size  = 32
  simd_width = 8
  tag_bits   = 8
}
warp_ready_mask "m" {
  warp_contexts = 8
  history_sets  = 16
  history_ways  = 2
  pc_bits       = 8
  warp_size     = 16
  simd_width    = 8
}
`)
	wide := writeSpec(t, dir, "w.ptrace", "0 alu 0x4000\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{noPipe, "--synthetic"}, "h.hcl declares no elastic_pipeline unit"},
		{[]string{fig4Spec, "--unit", "nope", "--synthetic"}, `--unit nope: ../../specs/pipeline_figure4.hcl declares no unit "nope"`},
		{[]string{studySpec, "--unit", "study_mask", "--synthetic"}, "--unit study_mask: study_mask is a warp_ready_mask unit, not an elastic_pipeline"},
		{[]string{studySpec, "--mask", "study_pipeline", "--synthetic"}, "--mask study_pipeline: study_pipeline is an elastic_pipeline unit"},
		{[]string{mismatch, "--synthetic"}, "warp_ready_mask m (warp_size 16, simd_width 8, shmem_ports 1) does not match elastic_pipeline p (32, 8, 1)"},
		{[]string{studySpec, "--trace", wide}, "w.ptrace:1: pc 0x4000 does not fit in 14 bits"},
		{[]string{studySpec, "--trace", filepath.Join(dir, "missing.ptrace")}, "missing.ptrace: no such file"},
		{[]string{filepath.Join(dir, "none.hcl"), "--synthetic"}, "none.hcl"},
	} {
		code, _, stderr := lsugen(t, append([]string{"pipesim"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	args := []string{"pipesim", fig4Spec, "--trace", fig4Trace, "--max-cycles", "3"}
	if code, _, stderr := lsugen(t, args...); code != 1 || !strings.Contains(stderr, "not written back after 3 cycles (the cycle limit)") {
		t.Errorf("%v: exit %d, stderr %q; want 1", args, code, stderr)
	}
}

// TestPipesim_Help documents the trace format and the flags, on stdout.
func TestPipesim_Help(t *testing.T) {
	code, stdout, _ := lsugen(t, "pipesim", "-h")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, s := range []string{"WARP KIND PC [DEGREE...]", "1 shmem 0x11 1 2 4 1", "strict barrel processing", "--write-trace", "--preset", "aes_encrypt"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("%q missing from -h:\n%s", s, stdout)
		}
	}
	if _, out, _ := lsugen(t, "help"); !strings.Contains(out, "\n  pipesim ") {
		t.Error("pipesim missing from the usage")
	}
}

// widestPipeline is an elastic_pipeline at the family's limits (warp 1024,
// 16 subwarps of 64 lanes, 16 memory stages, one port) with a mask of 64
// warp contexts: a subwarp of 64-way conflicts holds MEM0 64 cycles.
const widestPipeline = `elastic_pipeline "widest" {
  mem_stages  = 16
  warp_size   = 1024
  simd_width  = 64
  shmem_ports = 1
  tag_bits    = 16
  variant     = "elastic"
}
warp_ready_mask "widest_mask" {
  warp_contexts = 64
  history_sets  = 256
  history_ways  = 2
  pc_bits       = 14
  warp_size     = 1024
  simd_width    = 64
  shmem_ports   = 1
}
`

// TestHostile_PipesimWorkBudget: a study estimated over --work-budget is
// refused before any work (before the workload is generated), with exit 2
// and a message naming the estimate, the limit and the flags: the issue's
// 40-minute run (the largest synthetic workload, 2^22 warp instructions of
// 64-way conflicts on the widest pipeline), a preset under a 1 s limit,
// and a trace read from a file (checked once read); a negative --work-budget
// is refused; a study within the limit runs.
func TestHostile_PipesimWorkBudget(t *testing.T) {
	widest := writeSpec(t, t.TempDir(), "widest.hcl", widestPipeline)
	for _, c := range []refusalCase{
		{[]string{widest, "--synthetic", "--warps", "64", "--instructions", "65536", "--shmem", "1", "--mem", "0", "--degrees", "64:1", "--static", "100"}, 2,
			[]string{"estimated at 18m09s of CPU time (25.8G simulated cycles in 6 runs of 4.19M warp instructions;", "over the budget of 10m00s (--work-budget; 0 for no limit): make it smaller (--instructions or --warps) or give --work-budget 19m00s or more to run it"}},
		{[]string{studySpec, "--preset", "aes_encrypt", "--instructions", "100000", "--work-budget", "1s"}, 2, []string{"over the budget of 1s (--work-budget;"}},
		{[]string{fig4Spec, "--trace", fig4Trace, "--work-budget", "1ns"}, 2, []string{"simulated cycles in 6 runs of 6 warp instructions", "make it smaller (a shorter trace)"}},
		{[]string{fig4Spec, "--trace", fig4Trace, "--work-budget", "-5m"}, 2, []string{"--work-budget -5m0s: want a duration of 0 (no limit) or more"}},
		{[]string{widest, "--synthetic", "--warps", "2", "--instructions", "10", "--work-budget", "1s"}, 0, nil},
	} {
		checkRefusal(t, "pipesim", c.args, c.code, c.want)
	}
}

// TestPipesim_CancelStops: a study of minutes under --work-budget 0 stops
// soon after its context is cancelled (as SIGINT, SIGTERM and SIGHUP
// cancel it: signals.go), with exit 1 and the cancellation named.
func TestPipesim_CancelStops(t *testing.T) {
	widest := writeSpec(t, t.TempDir(), "widest.hcl", widestPipeline)
	ctx, sinceCancel := cancelIn(t, 300*time.Millisecond)
	code, stdout, stderr, _ := lsugenWithin(t, ctx, 2*time.Minute, "pipesim", widest, "--synthetic", "--warps", "64", "--instructions", "4096",
		"--shmem", "1", "--mem", "0", "--degrees", "64:1", "--static", "10", "--work-budget", "0")
	took := sinceCancel()
	t.Logf("stopped %v after the cancellation", took)
	if code != 1 || stdout != "" || !strings.Contains(stderr, "stopped: context canceled") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
