package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const (
	pipelineSpec    = "../../specs/pipeline.hcl"
	pipesimAccelSim = "../../specs/traces/accelsim/pipesim_example.traceg"
)

// pipesimAccelSimDoc is the part of pipesim --json these tests read.
type pipesimAccelSimDoc struct {
	Workload struct {
		Source              string  `json:"source"`
		Trace               string  `json:"trace"`
		Warps               int     `json:"warps"`
		WarpInstructions    int     `json:"warp_instructions"`
		SubwarpInstructions int     `json:"subwarp_instructions"`
		Shmem               int     `json:"shmem_instructions"`
		Mem                 int     `json:"mem_instructions"`
		MeanDegree          float64 `json:"mean_degree"`
		StaticPCs           int     `json:"static_pcs"`
		AccelSim            *struct {
			Banks            string `json:"banks"`
			NumBanks         int    `json:"num_banks"`
			BankBytes        int    `json:"bank_bytes"`
			TracedWarps      int    `json:"traced_warps"`
			Contexts         int    `json:"contexts"`
			PCWrapped        int    `json:"pc_wrapped"`
			DegreeClamped    int    `json:"degree_clamped"`
			InactiveSubwarps int    `json:"inactive_subwarps"`
		} `json:"accelsim"`
	} `json:"workload"`
	Runs []struct {
		Variant             string `json:"variant"`
		Mask                bool   `json:"mask"`
		Cycles              int64  `json:"cycles"`
		WarpInstructions    int64  `json:"warp_instructions"`
		SubwarpInstructions int64  `json:"subwarp_instructions"`
	} `json:"runs"`
}

func runPipesimAccelSim(t *testing.T, args ...string) pipesimAccelSimDoc {
	t.Helper()
	code, stdout, stderr := lsugen(t, append([]string{"pipesim", "--json", pipelineSpec}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc pipesimAccelSimDoc
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestPipesimAccelSim_ExampleEndToEnd: the example's workload (2 blocks x
// 2 warps, 17 instructions: 9 alu, 3 mem, 5 shmem with degrees summing to
// 77 over 20 subwarps, 11 PCs) reaches every run whole, and the elastic
// pipeline is not slower than either baseline, with or without the mask.
func TestPipesimAccelSim_ExampleEndToEnd(t *testing.T) {
	doc := runPipesimAccelSim(t, "--accelsim", pipesimAccelSim)
	w := doc.Workload
	if w.Source != "accelsim" || w.Trace != pipesimAccelSim || w.Warps != 4 || w.WarpInstructions != 17 ||
		w.SubwarpInstructions != 68 || w.Shmem != 5 || w.Mem != 3 || w.MeanDegree != 77.0/20 || w.StaticPCs != 11 {
		t.Errorf("workload %+v", w)
	}
	if a := w.AccelSim; a == nil || a.Banks != "mod 32" || a.NumBanks != 32 || a.BankBytes != 4 || a.TracedWarps != 4 ||
		a.Contexts != 4 || a.PCWrapped != 0 || a.DegreeClamped != 0 || a.InactiveSubwarps != 4 {
		t.Errorf("accelsim %+v", a)
	}
	if len(doc.Runs) != 6 {
		t.Fatalf("%d runs, want 6", len(doc.Runs))
	}
	cycles := map[string]int64{}
	for _, r := range doc.Runs {
		if r.WarpInstructions != 17 || r.SubwarpInstructions != 68 {
			t.Errorf("%s mask=%v: %d warp and %d subwarp instructions, want 17 and 68", r.Variant, r.Mask, r.WarpInstructions, r.SubwarpInstructions)
		}
		// At least one cycle per subwarp through the single EXE entry.
		if r.Cycles < 68 {
			t.Errorf("%s mask=%v: %d cycles for 68 subwarps", r.Variant, r.Mask, r.Cycles)
		}
		cycles[r.Variant+map[bool]string{false: " off", true: " on"}[r.Mask]] = r.Cycles
	}
	for _, m := range []string{" off", " on"} {
		e := cycles["elastic"+m]
		if e > cycles["baseline_unified"+m] || e > cycles["baseline_split"+m] {
			t.Errorf("elastic%s %d cycles, slower than a baseline: %v", m, e, cycles)
		}
	}
}

// TestPipesimAccelSim_Text: the workload lines of the text report.
func TestPipesimAccelSim_Text(t *testing.T) {
	code, stdout, stderr := lsugen(t, "pipesim", pipelineSpec, "--accelsim", pipesimAccelSim)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, s := range []string{
		"workload: Accel-Sim trace ../../specs/traces/accelsim/pipesim_example.traceg (11 PCs): 4 warps, 17 warp instructions (68 subwarps); shmem 29.4%, mem 17.6%, mean conflict degree 3.85",
		"Accel-Sim: 4 traced warps on 4 warp contexts; banks mod 32 (32 banks) of 4 bytes; PC = byte PC / 16 mod 2^14 (0 wrapped); 0 subwarp degrees clamped to simd_width, 4 subwarps without an active lane at 1",
	} {
		if !strings.Contains(stdout, s+"\n") {
			t.Errorf("%q missing from\n%s", s, stdout)
		}
	}
}

// The example kernelslist.g (two kernels, three warps): 14 instructions,
// 9 of them memory (8 shared, 1 global). A hash unit as the bank mapping
// and 8-byte banks are taken as conflicts takes them.
func TestPipesimAccelSim_KernelsListAndMappings(t *testing.T) {
	doc := runPipesimAccelSim(t, "--accelsim", "../../specs/traces/accelsim/kernelslist.g")
	w := doc.Workload
	if w.Warps != 3 || w.WarpInstructions != 14 || w.Shmem != 8 || w.Mem != 1 {
		t.Errorf("kernelslist.g workload %+v", w)
	}
	doc = runPipesimAccelSim(t, "--accelsim", pipesimAccelSim, "--hash", "../../specs/hash_ipoly_mod.hcl:mod17", "--bank-bytes", "8")
	if a := doc.Workload.AccelSim; a == nil || a.Banks != "hash mod17" || a.NumBanks != 17 || a.BankBytes != 8 {
		t.Errorf("--hash: accelsim %+v", a)
	}
}

// TestPipesimAccelSim_ConfiguredHash: a configurable --hash unit at the
// configuration of --hash-config gives the workload and runs of its
// constant twin, a bitwise_xor whose fixed bits are the selections.
func TestPipesimAccelSim_ConfiguredHash(t *testing.T) {
	spec := writeSpec(t, t.TempDir(), "twins.hcl", `
hash "bx_cfg" {
  function     = "bitwise_xor"
  addr_bits    = 14
  bank_bits    = 5
  configurable = true
}
hash "bx_const" {
  function  = "bitwise_xor"
  addr_bits = 14
  bank_bits = 5
  bits      = [[0, 5], [1, 9], [2, 7], [3, 8], [4, 13]]
}
`)
	got := runPipesimAccelSim(t, "--accelsim", pipesimAccelSim, "--hash", spec+":bx_cfg", "--hash-config", "sel_a=[0,1,2,3,4],sel_b=[5,9,7,8,13]")
	want := runPipesimAccelSim(t, "--accelsim", pipesimAccelSim, "--hash", spec+":bx_const")
	if a := got.Workload.AccelSim; a == nil || a.Banks != "hash bx_cfg at sel_a=[0,1,2,3,4],sel_b=[5,9,7,8,13]" || a.NumBanks != 32 {
		t.Fatalf("--hash bx_cfg: accelsim %+v", a)
	}
	got.Workload.AccelSim.Banks = want.Workload.AccelSim.Banks
	if !reflect.DeepEqual(got, want) || len(want.Runs) == 0 {
		t.Errorf("configured:\n%+v\nconstant twin:\n%+v", got, want)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--hash", spec + ":bx_cfg"}, "give its configuration with --hash-config sel_a="},
		{[]string{"--hash-config", "sel_a=[0,1,2,3,4]"}, "--hash-config configures the unit of --hash"},
	} {
		code, _, stderr := lsugen(t, append([]string{"pipesim", pipelineSpec, "--accelsim", pipesimAccelSim}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

func TestPipesimAccelSim_Errors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.traceg")
	trace := "-accelsim tracer version = 4\n#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0004 ffffffff 0 EXIT 0 0 0\n#END_TB\n"
	if err := os.WriteFile(bad, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		code int
		want string
		spec string // pipelineSpec when ""
	}{
		{[]string{"--accelsim", bad}, 2, bad + ":6: PC 0x4 is not a multiple of 8", ""},
		{[]string{"--accelsim", filepath.Join(dir, "missing.traceg")}, 2, "missing.traceg", ""},
		{[]string{"--accelsim", pipelineSpec}, 2, "not an Accel-Sim trace", ""},
		{[]string{"--accelsim", pipesimAccelSim, "--trace", "x.ptrace"}, 2, "exclude each other", ""},
		{[]string{"--accelsim", pipesimAccelSim, "--banks", "0"}, 2, "--banks: 0 banks", ""},
		{[]string{"--accelsim", pipesimAccelSim, "--bank-bytes", "2"}, 2, "--bank-bytes 2: want 4 or 8", ""},
		{[]string{"--accelsim", pipesimAccelSim, "--banks", "16", "--hash", "x.hcl:h"}, 2, "use one", ""},
		{[]string{"--synthetic", "--banks", "16"}, 2, "--banks applies to --accelsim workloads only", ""},
		{[]string{"--accelsim", pipesimAccelSim}, 2, "warp_size is 8", fig4Spec}, // warps of 8 lanes
	}
	for _, c := range cases {
		spec := c.spec
		if spec == "" {
			spec = pipelineSpec
		}
		code, _, stderr := lsugen(t, append([]string{"pipesim", spec}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

// --write-trace writes the converted workload in --trace's format: the
// example's programs line by line, and the trace read back runs the same
// cycles.
func TestPipesimAccelSim_WriteTraceRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "example.ptrace")
	doc := runPipesimAccelSim(t, "--accelsim", pipesimAccelSim, "--write-trace", path)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	want := "0 alu 0x0|0 mem 0x1|0 shmem 0x2 1|0 shmem 0x3 8|0 alu 0x4|1 alu 0x0|1 shmem 0x3 2 1 1 3|1 mem 0x5|1 alu 0x4|" +
		"2 alu 0x0|2 shmem 0x6 8 8 1 1|2 mem 0x9|2 alu 0xa|2 alu 0x4|3 alu 0x7|3 shmem 0x8 4|3 alu 0x4"
	if got := strings.Join(lines, "|"); got != want {
		t.Errorf("written trace\n got %s\nwant %s", got, want)
	}
	back := runPipesimAccelSim(t, "--trace", path)
	for i, r := range back.Runs {
		if r.Cycles != doc.Runs[i].Cycles {
			t.Errorf("run %d (%s): %d cycles from the written trace, %d from the Accel-Sim trace", i, r.Variant, r.Cycles, doc.Runs[i].Cycles)
		}
	}
}
