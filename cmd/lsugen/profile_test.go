package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/tools/profile"
)

const profileTraces = "../../specs/traces/accelsim/"

func profileJSON(t *testing.T, args ...string) profileDoc {
	t.Helper()
	code, out, errOut := lsugen(t, append([]string{"profile", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc profileDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestProfile_TransposeTrace checks the example transpose trace end to
// end against hand-computed figures: 4 thread blocks of 4 warps, each
// warp one coalesced row read (1 block of 128 bytes), one column write
// (32 lanes one 256-byte row apart: 32 blocks, increasing) and one 8 x 4
// tile read (lane l at row l%8, column l/8: 8 blocks, not monotonic,
// each block's lanes spread over 4 runs: 32 runs, 24 extra requests).
func TestProfile_TransposeTrace(t *testing.T) {
	doc := profileJSON(t, "--timing-mode", "unsized", profileTraces+"profile_transpose.traceg")
	if len(doc.Kernels) != 1 {
		t.Fatalf("%d kernels, want 1", len(doc.Kernels))
	}
	k := doc.Kernels[0]
	if k.ID != 2 || k.Name != "_Z9transposePfPKfi" {
		t.Errorf("kernel %d %s", k.ID, k.Name)
	}
	type row struct {
		pc, opcode        string
		accesses, mono    int64
		exact, extra      int64
		blocks            []profile.BlockCount
		a2aCyc, specCycle int64
	}
	var got []row
	for _, p := range k.PCs {
		got = append(got, row{p.PC, p.Opcode, p.Accesses, p.Monotonic, p.NeighborExact, p.NeighborExtraRequests, p.UniqueBlocks, p.Cycles[0].AllToAll, p.Cycles[0].Speculative})
	}
	// The built-in thesis units, unsized, generated at 40 FO4: the
	// all-to-all answers in 1 cycle, the speculative unit (its detector
	// 2 cycles deep) in 2, fast or slow.
	want := []row{
		{"0x0040", "LDG.E", 16, 16, 16, 0, []profile.BlockCount{{Blocks: 1, Accesses: 16}}, 16, 32},
		{"0x0050", "STG.E", 16, 16, 16, 0, []profile.BlockCount{{Blocks: 32, Accesses: 16}}, 16, 32},
		{"0x0070", "LDG.E", 16, 0, 0, 16 * 24, []profile.BlockCount{{Blocks: 8, Accesses: 16}}, 16, 32},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PCs:\n got %+v\nwant %+v", got, want)
	}
	if k.MonotonicFraction != 0.6667 || k.MeanUniqueBlocks != 13.6667 {
		t.Errorf("kernel: monotonic %v, mean blocks %v; want 0.6667, 13.6667", k.MonotonicFraction, k.MeanUniqueBlocks)
	}
	tm := doc.Timing
	if tm.AllToAll.Unit != "coalesce_a2a_32" || !reflect.DeepEqual(tm.ClocksFO4, []float64{40}) ||
		!reflect.DeepEqual([][]int{tm.AllToAll.Cycles, tm.Neighbor.Cycles, tm.SpeculativeFast.Cycles, tm.SpeculativeSlow.Cycles}, [][]int{{1}, {1}, {2}, {2}}) ||
		tm.Mode != "unsized" || tm.SpecTiming != "combined" || !tm.Clocked {
		t.Errorf("timing %+v", tm)
	}
}

// TestProfile_ThesisTables: with 003_*'s method (--spec-timing separate)
// and the unsized model the cycles at 40, 48 and 56 FO4 are Table 5.1's: all-to-all 2 / 2 / 1,
// the fast path (detector) 2 / 1 / 1.
func TestProfile_ThesisTables(t *testing.T) {
	doc := profileJSON(t, "--timing-mode", "unsized", "--spec-timing", "separate", "--clock", "40,48,56", profileTraces+"profile_transpose.traceg")
	tm := doc.Timing
	got := [][]int{tm.AllToAll.Cycles, tm.SpeculativeFast.Cycles, tm.SpeculativeSlow.Cycles}
	if want := [][]int{{2, 2, 1}, {2, 1, 1}, {2, 2, 1}}; !reflect.DeepEqual(got, want) {
		t.Errorf("all-to-all, fast and slow cycles at 40, 48, 56 FO4: %v, want %v", got, want)
	}
	if tm.SpeculativeFast.Unit != "monotonic_32, coalesce_nbr_32" || tm.SpeculativeSlow.Unit != "coalesce_a2a_32, monotonic_32" {
		t.Errorf("path units %q and %q", tm.SpeculativeFast.Unit, tm.SpeculativeSlow.Unit)
	}
	// 48 accesses, 32 monotonic: at 48 FO4, 96 / (32 x 1 + 16 x 2) = 1.5.
	var speedups []float64
	for _, c := range doc.Total.Cycles {
		speedups = append(speedups, c.Speedup)
	}
	if want := []float64{1, 1.5, 1}; !reflect.DeepEqual(speedups, want) {
		t.Errorf("speedups %v, want %v", speedups, want)
	}
}

// TestProfile_BuiltinIsThesis: the built-in coalescers time as the units
// of specs/coalescer_thesis.hcl do.
func TestProfile_BuiltinIsThesis(t *testing.T) {
	for _, st := range []string{"combined", "separate"} {
		tr := profileTraces + "profile_copy.traceg"
		a := profileJSON(t, "--spec-timing", st, tr).Timing
		b := profileJSON(t, "--spec-timing", st, "--coalescers", "../../specs/coalescer_thesis.hcl", tr).Timing
		a.Spec, b.Spec = "", ""
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: built in %+v\nthesis spec %+v", st, a, b)
		}
	}
}

func TestProfile_Text(t *testing.T) {
	code, out, errOut := lsugen(t, "profile", "--block-bytes", "32", profileTraces+"profile_copy.traceg", profileTraces+"profile_spmv.traceg")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"blocks of 32 bytes",
		"kernel 1 _Z4copyPKfPfS1_S2_PK6float4PS3_i",
		"0x0070  LDG.E.128",
		"kernel 3 _Z8spmv_csriPKiS0_PKfS2_Pf",
		"not profiled: 2 global atomics (ATOMG, RED)",
		"total, 2 kernels",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestProfile_Errors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.traceg")
	if err := os.WriteFile(bad, []byte("-kernel name = k\n-kernel id = 1\n-accelsim tracer version = 4\n\n#BEGIN_TB\n\nthread block = 0,0,0\n\nwarp = 0\ninsts = 1\n0010 ffffffff 1 R1 LDG.E 1 R2 4 0 0x10 0\n#END_TB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	noSpec := writeSpec(t, dir, "small.hcl", "coalescer \"a\" {\n  structure = \"all_to_all\"\n  lanes = 8\n  addr_bits = 16\n}\n")
	tr := profileTraces + "profile_copy.traceg"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"profile"}, "no trace files"},
		{[]string{"profile", "--block-bytes", "96", tr}, "--block-bytes 96: want a power of two"},
		{[]string{"profile", "--block-bytes", "0", tr}, "power of two"},
		{[]string{"profile", "--clock", "0", tr}, `--clock: "0" is not a positive number`},
		{[]string{"profile", "--clock", "40,x", tr}, `"x" is not a positive number`},
		{[]string{"profile", "--clock", "", tr}, "want 1 to 16 clock periods"},
		{[]string{"profile", "--clock", "1e7", tr}, "at most 1e+06 FO4"},
		{[]string{"profile", "--clock", "20000", tr}, "--clock 20000 FO4: want 4 to 10000 FO4"},
		{[]string{"profile", "--spec-timing", "separate", "--clock", "40,2", tr}, "--clock 2 FO4: want 4 to 10000 FO4"},
		{[]string{"profile", "--mode", "fast", tr}, `--timing-mode "fast"`},
		{[]string{"profile", "--timing-mode", "fast", tr}, `--timing-mode "fast": want sized`},
		{[]string{"profile", "--spec-timing", "x", tr}, `--spec-timing "x"`},
		{[]string{"profile", "../../specs/coalescer_thesis.hcl"}, "not an Accel-Sim trace"},
		{[]string{"profile", tr, "../../specs/traces/accelsim/./profile_copy.traceg"}, "given twice"},
		{[]string{"profile", filepath.Join(dir, "missing.traceg")}, "no such file"},
		{[]string{"profile", "--coalescers", noSpec, tr}, "declares no 32-lane all_to_all coalescer"},
		{[]string{"profile", "--coalescers", "../../specs/coalescer_masked.hcl", "--spec-timing", "separate", tr}, ""},
		{[]string{"profile", bad}, "bad.traceg:11:"},
	} {
		code, _, errOut := lsugen(t, c.args...)
		if c.want == "" {
			if code != 0 {
				t.Errorf("%v: exit %d: %s", c.args, code, errOut)
			}
			continue
		}
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// TestTimingClock_OneAnswerWithProfileAndClockFO4: the cycles timing
// --clock reports for the thesis's coalescers are those profile counts and
// those of the units clock_fo4 builds (issue: timing said 4 cycles for the
// speculative coalescer at 40 FO4 unsized while the generated unit
// answers in 2), in the unsized and the sized model.
func TestTimingClock_OneAnswerWithProfileAndClockFO4(t *testing.T) {
	// The 32-lane units, which profile times: pipelining the 64-lane ones
	// too at each clock was most of the test's time.
	const lanes32 = "coalesce_*_32"
	for _, mode := range []string{"unsized", "sized"} {
		code, out, errOut := lsugen(t, "timing", "--json", "--timing-mode", mode, "--clock", "40,48", "--unit", lanes32, thesisSpec)
		if code != 0 {
			t.Fatalf("timing: exit %d: %s", code, errOut)
		}
		var rep timingDoc
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		at := map[string][]timing.ClockCycles{}
		for _, u := range rep.Units {
			at[u.Name] = u.Cycles
		}
		tm := profileJSON(t, "--timing-mode", mode, "--clock", "40,48", profileTraces+"profile_transpose.traceg").Timing
		for i, clock := range []float64{40, 48} {
			a2a, spec := at["coalesce_a2a_32"][i], at["coalesce_spec_32"][i]
			if !a2a.Built || !spec.Built || spec.FastCycles == 0 {
				t.Fatalf("%s @%v: not the built units' latencies: %+v %+v", mode, clock, a2a, spec)
			}
			if a2a.Cycles != tm.AllToAll.Cycles[i] || spec.FastCycles != tm.SpeculativeFast.Cycles[i] || spec.Cycles != tm.SpeculativeSlow.Cycles[i] {
				t.Errorf("%s @%v FO4: timing says a2a %d, speculative %d/%d; profile %d, %d/%d", mode, clock,
					a2a.Cycles, spec.FastCycles, spec.Cycles, tm.AllToAll.Cycles[i], tm.SpeculativeFast.Cycles[i], tm.SpeculativeSlow.Cycles[i])
			}
			// The unit clock_fo4 generates at that period.
			code, out, errOut := lsugen(t, "timing", "--json", "--timing-mode", mode, "--clock-fo4", fmt.Sprint(clock), "--unit", lanes32, thesisSpec)
			if code != 0 {
				t.Fatalf("timing --clock-fo4: exit %d: %s", code, errOut)
			}
			var clocked timingDoc
			if err := json.Unmarshal([]byte(out), &clocked); err != nil {
				t.Fatal(err)
			}
			for _, u := range clocked.Units {
				if c, ok := at[u.Name]; ok && (u.Pipeline == nil || u.Pipeline.LatencyCycles != c[i].Cycles) {
					t.Errorf("%s @%v FO4: timing --clock says %s takes %d cycles, clock_fo4 builds %+v", mode, clock, u.Name, c[i].Cycles, u.Pipeline)
				}
			}
		}
	}
	// Below clock_fo4's least period no unit is built: ⌈FO4 / period⌉.
	code, out, _ := lsugen(t, "timing", "--clock", "2", thesisSpec)
	if code != 0 || !strings.Contains(out, "~") || !strings.Contains(out, "⌈FO4 / period⌉") {
		t.Errorf("--clock 2: exit %d\n%s", code, out)
	}
}
