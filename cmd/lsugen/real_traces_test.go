package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/tools/conflicts"
)

// Excerpts of traces the Accel-Sim NVBit tracer wrote on real GPUs
// (tools/accelsim/testdata/real/README.md says where each comes from).
const realTraces = "../../tools/accelsim/testdata/real/"

// realTraceCase is one GPU generation's excerpt: its conflicts per PC
// (accesses, bank conflicts, max way on 32 four-byte banks) on a sample of
// PCs computed by hand, and the instruction size pipesim must divide by.
type realTraceCase struct {
	name       string
	file       string
	instrBytes string // as pipesim's summary prints it
	perPC      map[string][3]int
	total      [2]int // accesses, bank conflicts
}

var realTraceCases = []realTraceCase{
	// Pascal (GTX 1080, -binary version 61, tracer version 4 without the
	// immediate, 8-byte PCs): matrixmul's 32x32 tile loop, warps 0-3.
	// STS 0x0248 "1 0x0 4": lanes on words 0..31 (+32 per warp): one
	// word per bank, 1-way. LDS.U.128 0x0278 "1 0x0 0": every lane reads
	// bytes 0..15 (words 0-3), served in 4 phases of 8 lanes; each phase
	// has one word per bank: 4 accesses per warp, 16 for 4 warps, 1-way.
	// LDS.U.32 0x0270 "1 0x1000 4": words 1024..1055, 32 banks, 1-way.
	{"pascal", "pascal-matrixmul.traceg", "PC = byte PC / 8", map[string][3]int{
		"k1 _Z8mult_gpuIfEvPT_S1_S1_ii STS 0x0248":       {4, 0, 1},
		"k1 _Z8mult_gpuIfEvPT_S1_S1_ii LDS.U.128 0x0278": {16, 0, 1},
		"k1 _Z8mult_gpuIfEvPT_S1_S1_ii LDS.U.32 0x0270":  {4, 0, 1},
	}, [2]int{264, 0}},
	// Volta (-binary version 70, a trace from before tracer version 3:
	// no version line, each line starting with the thread block and
	// warp; 16-byte PCs): Rodinia lud_perimeter, lanes 16-31 active.
	// LDS.U 0x0c70 "1 0x800 64": words 512 + 16i, i = 0..15, bank =
	// word mod 32 is 0 for even i, 16 for odd: 8 distinct words in bank
	// 0, 8-way, 7 conflicts. LDS.U.128 0x0cd0 "1 0x800 64": 16 bytes per
	// lane, phases of 8 lanes (16-23, 24-31); lane i's words 512+16i ..
	// 512+16i+3, so bank m (m < 4) gets the words of i = 0, 2, 4, 6 in
	// each phase: 4-way twice, 2 accesses, 6 conflicts. STS 0x0430 "1
	// 0x200 4": words 128..143, one per bank, 1-way. LDS.U 0x0c60 "1 0x0
	// 0": 16 lanes on word 0, a broadcast, 1-way.
	{"volta", "volta-lud-excerpt.traceg", "PC = byte PC / 16", map[string][3]int{
		"k8 _Z13lud_perimeterPfii LDS.U 0x0c70":     {1, 7, 8},
		"k8 _Z13lud_perimeterPfii LDS.U.128 0x0cd0": {2, 6, 4},
		"k8 _Z13lud_perimeterPfii STS 0x0430":       {1, 0, 1},
		"k8 _Z13lud_perimeterPfii LDS.U 0x0c60":     {1, 0, 1},
	}, [2]int{9, 20}},
}

// TestRealTraces_EveryCommand reads each generation's excerpt through
// conflicts (checking the hand-computed PCs), search, profile and pipesim.
func TestRealTraces_EveryCommand(t *testing.T) {
	for _, c := range realTraceCases {
		t.Run(c.name, func(t *testing.T) {
			path := realTraces + c.file
			code, out, errOut := lsugen(t, "conflicts", "--json", path)
			if code != 0 {
				t.Fatalf("conflicts: code %d: %s", code, errOut)
			}
			var rep conflicts.Report
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			seen := 0
			for _, it := range rep.Inputs[0].Instrs {
				if w, ok := c.perPC[it.Instr]; ok {
					seen++
					if got := [3]int{it.Accesses, it.BankConflicts, it.MaxBankDegree}; got != w {
						t.Errorf("%s: %v, want %v", it.Instr, got, w)
					}
				}
			}
			if seen != len(c.perPC) || rep.Total.Accesses != c.total[0] || rep.Total.BankConflicts != c.total[1] {
				t.Errorf("%d of %d sampled PCs; total %+v, want %v", seen, len(c.perPC), rep.Total, c.total)
			}
			if code, out, errOut = lsugen(t, "search", "--compare", "--addr-bits", "14", "--bank-bits", "5", path); code != 0 || out == "" {
				t.Errorf("search: code %d: %s", code, errOut)
			}
			kernel := strings.SplitN(strings.TrimPrefix(firstKey(c.perPC), "k"), " ", 3) // id, name
			if code, out, errOut = lsugen(t, "profile", path); code != 0 || !strings.Contains(out, "kernel "+kernel[0]+" "+kernel[1]+" ("+path+")") {
				t.Errorf("profile: code %d: %s%s", code, out, errOut)
			}
			code, out, errOut = lsugen(t, "pipesim", pipelineSpec, "--accelsim", path)
			if code != 0 || !strings.Contains(out, c.instrBytes) {
				t.Errorf("pipesim: code %d, want %q:\n%s%s", code, c.instrBytes, out, errOut)
			}
		})
	}
}

// TestRealTraces_ByContent: a kernel trace named .trace or without an
// extension is recognised by its header and read as Accel-Sim by every
// command, not as an lsugen trace.
func TestRealTraces_ByContent(t *testing.T) {
	data, err := os.ReadFile(realTraces + "volta-lud-excerpt.traceg")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"kernel-8.trace", "lud"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"conflicts", path},
			{"search", "--compare", "--addr-bits", "14", "--bank-bits", "5", path},
			{"profile", path},
			{"pipesim", pipelineSpec, "--accelsim", path},
		} {
			code, out, errOut := lsugen(t, args...)
			if code != 0 {
				t.Errorf("%v: code %d: %s", args, code, errOut)
			}
			if args[0] == "conflicts" && !strings.Contains(out, "total: 9 accesses, 20 bank conflicts (max 8-way)") {
				t.Errorf("%v:\n%s", args, out)
			}
		}
	}
	// The raw form (before post-processing): the same lines without the
	// thread block and warp sections, and the tracer's own kernelslist.
	var raw []string
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "#BEGIN_TB") && !strings.HasPrefix(line, "#END_TB") && !strings.HasPrefix(line, "thread block") &&
			!strings.HasPrefix(line, "warp") && !strings.HasPrefix(line, "insts") {
			raw = append(raw, line)
		}
	}
	rawPath, list := filepath.Join(dir, "kernel-8.trace"), filepath.Join(dir, "kernelslist")
	if err := os.WriteFile(rawPath, []byte(strings.Join(raw, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(list, []byte("kernel-8.trace\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{rawPath, list} {
		code, out, errOut := lsugen(t, "conflicts", path)
		if code != 0 || !strings.Contains(out, "total: 9 accesses, 20 bank conflicts (max 8-way)") {
			t.Errorf("raw %s: code %d\n%s%s", path, code, out, errOut)
		}
	}
	// pipesim holds a raw file's warps until it ends: the same cycles as
	// on the post-processed excerpt.
	table := func(path string) string {
		code, out, errOut := lsugen(t, "pipesim", pipelineSpec, "--accelsim", path)
		if code != 0 {
			t.Fatalf("pipesim %s: code %d: %s", path, code, errOut)
		}
		_, rest, _ := strings.Cut(out, "\nvariant")
		return rest
	}
	if got, want := table(rawPath), table(realTraces+"volta-lud-excerpt.traceg"); got != want || want == "" {
		t.Errorf("pipesim on the raw trace:\n%s\nwant\n%s", got, want)
	}
}

// firstKey is a key of m (the sampled PCs all name one kernel).
func firstKey(m map[string][3]int) string {
	for k := range m {
		return k
	}
	return ""
}
