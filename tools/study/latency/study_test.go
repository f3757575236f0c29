package latency

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/plot/svgcheck"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/tools/accelsim"
	"github.com/lsugen/lsugen/tools/study"
)

const root = "../../.."

// TestLoad_TransposeTrace: the example transpose trace has 16 warps of 5
// instructions: a row read, a column write and a tile read (48 LDG/STG,
// the first two monotonic: 32, as `lsugen profile` counts them) and 2
// others each.
func TestLoad_TransposeTrace(t *testing.T) {
	w, err := Load(context.Background(), root+"/"+ExampleTraces[2], accelsim.NewBudget())
	if err != nil {
		t.Fatal(err)
	}
	if w.Name != "profile_transpose.traceg" || len(w.Warps) != 16 || w.Instructions != 80 || w.Accesses != 48 || w.MonotonicAccesses != 32 {
		t.Errorf("%s: %d warps, %d instructions, %d accesses, %d monotonic; want 16, 80, 48, 32", w.Name, len(w.Warps), w.Instructions, w.Accesses, w.MonotonicAccesses)
	}
	var mono, non int
	for _, op := range w.Warps[0] {
		switch op {
		case Monotonic:
			mono++
		case NonMonotonic:
			non++
		}
	}
	if len(w.Warps[0]) != 5 || mono != 2 || non != 1 {
		t.Errorf("warp 0: %v, want 5 instructions, 2 monotonic and 1 other access", w.Warps[0])
	}
}

// TestCoalescers_GeneratedUnits: at 48 FO4, unsized, the generated
// all-to-all answers in 1 cycle and the speculative unit in 2, fast or
// slow (its detector needs two stages: it does not speculate); the
// ideal and the thesis's coalescers are as given.
func TestCoalescers_GeneratedUnits(t *testing.T) {
	cs, err := Coalescers([]float64{48}, timing.Unsized, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []Coalescer{
		{Name: "ideal", Fast: 1, Slow: 1},
		{Name: "thesis fast", Fast: 1, Slow: 3},
		{Name: "thesis slow", Fast: 3, Slow: 3},
		{Name: "all-to-all @48", Fast: 1, Slow: 1},
		{Name: "speculative @48", Fast: 2, Slow: 2},
	}
	if !reflect.DeepEqual(cs, want) {
		t.Errorf("coalescers %+v\nwant %+v", cs, want)
	}
}

// small is a run of the study on the transpose trace that takes little
// time: one clock, 64 warps.
func small(t *testing.T, set map[string]string) *study.Result {
	t.Helper()
	base := map[string]string{"clocks": "48", "warps": "64", "contexts": "16,8", "mem-latency": "20"}
	for k, v := range set {
		base[k] = v
	}
	r, err := Study{Root: root}.Run(context.Background(), study.Options{Set: base, Inputs: []string{root + "/" + ExampleTraces[2]}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestStudy_Run: the tables of a small run, its figure, and the same
// bytes from a second run.
func TestStudy_Run(t *testing.T) {
	r := small(t, nil)
	if len(r.Tables) != 3 || len(r.Charts) != 1 || len(r.Notes) != 3 {
		t.Fatalf("%d tables, %d charts, %d notes", len(r.Tables), len(r.Charts), len(r.Notes))
	}
	main := r.Tables[2]
	if want := []string{"trace", "coalescer", "fast / slow", "cycles @16", "vs ideal @16", "cycles @8", "vs ideal @8"}; !reflect.DeepEqual(main.Columns, want) {
		t.Errorf("columns %q", main.Columns)
	}
	if len(main.Rows) != 5 || main.Rows[0][1] != "ideal" || main.Rows[0][4] != "1.0000" || main.Rows[4][1] != "speculative @48" || main.Rows[4][2] != "2 / 2" {
		t.Errorf("rows %q", main.Rows)
	}
	// The chart: contexts 4, 8, 12, 16; a series per coalescer but the ideal.
	if s := r.Charts[0].Series; len(s) != 4 || len(s[0].Points) != 4 || s[0].Points[3].X != 16 {
		t.Errorf("series %+v", s)
	}
	svg, err := r.SVG()
	if err != nil {
		t.Fatal(err)
	}
	d, err := svgcheck.Parse(svg)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range d.Faults("point", "series-line", "hline", "hline-leader", "mark") {
		t.Errorf("figure: %s", f)
	}
	a, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := small(t, nil).JSON()
	if !bytes.Equal(a, b) {
		t.Error("two runs with the same parameters differ")
	}
}

// TestStudy_FewerContextsWidenTheGap: with the memory 20 cycles away the
// transpose's warps need about 16 contexts to keep the issue slot busy:
// with 16 the 3-cycle coalescer costs less against the ideal one than
// with 4 (Fig. 5.2's claim), and the pipelined 3-cycle coalescer is never
// faster than the ideal one.
func TestStudy_FewerContextsWidenTheGap(t *testing.T) {
	r := small(t, map[string]string{"contexts": "16,4", "pipelined": "true"})
	row := r.Tables[2].Rows[2]
	if row[1] != "thesis slow" {
		t.Fatalf("row %q", row)
	}
	at16, err16 := strconv.ParseFloat(row[4], 64)
	at4, err4 := strconv.ParseFloat(row[6], 64)
	if err16 != nil || err4 != nil || !(at16 < at4) || at16 < 1 {
		t.Errorf("thesis slow: %s against the ideal at 16 contexts, %s at 4; want 1 <= the first < the second", row[4], row[6])
	}
}

// TestStudy_Params: every bad parameter is refused before any work,
// naming it and what it takes.
func TestStudy_Params(t *testing.T) {
	for _, c := range []struct {
		set  map[string]string
		want string
	}{
		{map[string]string{"contexts": "0"}, `parameter contexts = "0": want 1 to 4 comma-separated numbers from 1 to 1024`},
		{map[string]string{"contexts": "48,24,16,8,4"}, "parameter contexts"},
		{map[string]string{"contexts": "48,48"}, "parameter contexts"},
		{map[string]string{"warps": "0"}, `parameter warps = "0": want an integer from 1 to 1048576`},
		{map[string]string{"mem-latency": "-1"}, "parameter mem-latency"},
		{map[string]string{"alu-latency": "x"}, "parameter alu-latency"},
		{map[string]string{"clocks": "2"}, `parameter clocks = "2": want 1 to 8 comma-separated numbers from 4 to 10000`},
		{map[string]string{"timing-mode": "liberty"}, `parameter timing-mode = "liberty": want unsized or sized`},
		{map[string]string{"thesis-slow": "1001"}, "parameter thesis-slow"},
		{map[string]string{"pipelined": "yes"}, `parameter pipelined = "yes": want true or false`},
		{map[string]string{"speed": "1"}, `unknown parameter "speed"`},
	} {
		_, err := Study{Root: root}.Run(context.Background(), study.Options{Set: c.set})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.set, err, c.want)
		}
	}
	_, err := Study{Root: root}.Run(context.Background(), study.Options{Inputs: []string{root + "/specs/coalescer_thesis.hcl"}})
	if err == nil || !strings.Contains(err.Error(), "not an Accel-Sim trace") {
		t.Errorf("a spec as input: %v", err)
	}
	tr := root + "/" + ExampleTraces[2]
	_, err = Study{Root: root}.Run(context.Background(), study.Options{Inputs: []string{tr, root + "/specs/../" + ExampleTraces[2]}})
	if err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("a trace twice: %v", err)
	}
	_, err = Study{Root: t.TempDir()}.Run(context.Background(), study.Options{})
	if err == nil || !strings.Contains(err.Error(), "run in its root, or give traces") {
		t.Errorf("no example traces: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Study{Root: root}.Run(ctx, study.Options{Set: map[string]string{"clocks": "48"}, Inputs: []string{root + "/" + ExampleTraces[2]}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestNotes: the largest slowdown over all pairs and over the generated
// units, and the pairs whose gap grows from the first contexts to the
// last.
func TestNotes(t *testing.T) {
	got := notes([]pairSlowdown{
		{trace: "a", coalescer: "thesis slow", at: []float64{1.01, 1.02}},
		{trace: "a", coalescer: "speculative @48", generated: true, at: []float64{1.005, 1.005}},
		{trace: "b", coalescer: "all-to-all @48", generated: true, at: []float64{0.99, 1.0}},
	}, []int{48, 24})
	want := []string{
		"With 48 warp contexts the largest slowdown against the ideal coalescer is +1.00% (thesis slow on a); of lsugen's generated units +0.50% (speculative @48 on a).",
		"With 24 warp contexts the largest slowdown against the ideal coalescer is +2.00% (thesis slow on a); of lsugen's generated units +0.50% (speculative @48 on a).",
		"From 48 to 24 contexts the gap to the ideal coalescer grows in 2 of 3 (trace, coalescer) pairs.",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("notes\n%q\nwant\n%q", got, want)
	}
}
