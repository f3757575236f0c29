package coalescers_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/tools/profile"
	"github.com/lsugen/lsugen/tools/profile/coalescers"
	"github.com/lsugen/lsugen/units"
)

func parse(t *testing.T, src string) []specs.Unit {
	t.Helper()
	file, diags := specs.NewLoader().Parse([]byte(src), "c.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return file.Units
}

func timeUnits(t *testing.T, us []specs.Unit, specTiming string, clocks ...float64) profile.Timing {
	t.Helper()
	tm, diags, err := coalescers.Time(us, coalescers.Options{ClocksFO4: clocks, Mode: timing.Unsized, SpecTiming: specTiming, Spec: "c.hcl", Generate: units.Generate, Clock: units.ClockedAt(nil)})
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	return tm
}

// TestTime_Combined: the built-in thesis units, unsized, at 40 FO4, as
// lsugen generates them at that clock: the all-to-all and the neighbor
// coalescer pipeline into 1 cycle (buffer trees on their wide fanouts);
// the speculative unit does not speculate there (its detector needs 2
// cycles, the all-to-all 1) and answers every warp in 2. Inside the
// combinational unit the detector's select arrives last: both its paths
// have the same FO4, no less than any part's arrival.
func TestTime_Combined(t *testing.T) {
	tm := timeUnits(t, parse(t, coalescers.Builtin), coalescers.Combined, 40)
	got := [][]int{tm.AllToAll.Cycles, tm.Neighbor.Cycles, tm.SpeculativeFast.Cycles, tm.SpeculativeSlow.Cycles}
	if want := [][]int{{1}, {1}, {2}, {2}}; !reflect.DeepEqual(got, want) {
		t.Errorf("cycles of all-to-all, neighbor, fast, slow: %v, want %v", got, want)
	}
	if !tm.Clocked || tm.SpeculativeFast.FO4 != tm.SpeculativeSlow.FO4 || !(tm.SpeculativeFast.FO4 > 2*40) {
		t.Errorf("clocked %v, fast path %.2f FO4, slow %.2f", tm.Clocked, tm.SpeculativeFast.FO4, tm.SpeculativeSlow.FO4)
	}
	if tm.AllToAll.Unit != "coalesce_a2a_32" || tm.AllToAll.Lanes != 32 || tm.AllToAll.AddrBits != 32 || tm.SpeculativeFast.Unit != "coalesce_spec_32" {
		t.Errorf("units %+v, %+v", tm.AllToAll, tm.SpeculativeFast)
	}
	if len(tm.SpeculativeParts) != 3 {
		t.Fatalf("parts %+v", tm.SpeculativeParts)
	}
	part := map[string]float64{}
	for _, p := range tm.SpeculativeParts {
		part[p.Name] = p.FO4
		if !(p.FO4 > 0) || p.FO4 > tm.SpeculativeSlow.FO4 {
			t.Errorf("part %s at %.2f FO4, the slow path %.2f", p.Name, p.FO4, tm.SpeculativeSlow.FO4)
		}
	}
	if !(part["detector"] > part["all_to_all"]) || !(part["all_to_all"] > part["neighbor"]) {
		t.Errorf("arrivals %v: want detector > all_to_all > neighbor", part)
	}
	if tm.Mode != "unsized" || tm.SpecTiming != "combined" || tm.Spec != "c.hcl" || !reflect.DeepEqual(tm.ClocksFO4, []float64{40}) {
		t.Errorf("timing %+v", tm)
	}
}

// TestTime_CombinedIsTheClockedUnit: profile's cycles are the latencies
// that the units of specs/coalescer_thesis.hcl have when generated with
// clock_fo4 (built here from spec text through units.Build, not through
// the profile's code path): at 40 and 48 FO4, sized and unsized, the
// speculative unit's fast and slow answers and the all-to-all's latency.
// The expected figures are stated too, so that a change that moved both
// sides at once would still fail: unsized, the speculative unit answers
// in 2 cycles at each clock and the all-to-all in 1; sized, both in 1.
func TestTime_CombinedIsTheClockedUnit(t *testing.T) {
	clocks := []float64{40, 48}
	want := map[timing.Mode][3][]int{ // all-to-all, fast, slow
		timing.Unsized: {{1, 1}, {2, 2}, {2, 2}},
		timing.Sized:   {{1, 1}, {1, 1}, {1, 1}},
	}
	for _, mode := range []timing.Mode{timing.Unsized, timing.Sized} {
		tm, diags, err := coalescers.Time(parse(t, coalescers.Builtin), coalescers.Options{ClocksFO4: clocks, Mode: mode, SpecTiming: coalescers.Combined,
			Spec: "c.hcl", Generate: units.Generate, Clock: units.ClockedAt(nil)})
		if err != nil || diags.HasErrors() {
			t.Fatal(err, diags)
		}
		got := [3][]int{tm.AllToAll.Cycles, tm.SpeculativeFast.Cycles, tm.SpeculativeSlow.Cycles}
		if !reflect.DeepEqual(got, want[mode]) {
			t.Errorf("%s: all-to-all, fast, slow cycles at %v FO4: %v, want %v", mode, clocks, got, want[mode])
		}
		for i, p := range clocks {
			for _, c := range []struct {
				unit, structure string
				fast, slow      int
			}{
				{"coalesce_spec_32", "speculative", tm.SpeculativeFast.Cycles[i], tm.SpeculativeSlow.Cycles[i]},
				{"coalesce_a2a_32", "all_to_all", tm.AllToAll.Cycles[i], tm.AllToAll.Cycles[i]},
			} {
				src := fmt.Sprintf("coalescer %q {\n  structure = %q\n  lanes = 32\n  addr_bits = 32\n  clock_fo4 = %g\n  timing_mode = %q\n}\n", c.unit, c.structure, p, mode)
				b, diags := units.Build(parse(t, src)[0])
				if diags.HasErrors() {
					t.Fatal(diags)
				}
				fast, slow := b.Design.Pipeline.Latency, b.Design.Pipeline.Latency
				if b.Variable != nil {
					fast = b.Variable.FastLatency
				}
				if fast != c.fast || slow != c.slow {
					t.Errorf("%s, %s at %g FO4: the generated clocked unit answers in %d / %d cycles, profile says %d / %d", mode, c.unit, p, fast, slow, c.fast, c.slow)
				}
			}
		}
	}
}

// TestTime_Separate: with 003_*'s method the cycles at 40, 48 and 56 FO4
// are Table 5.1's: all-to-all 2 / 2 / 1, the fast path (the detector,
// slower than the neighbor) 2 / 1 / 1; each path is named after its two
// units, the slower first.
func TestTime_Separate(t *testing.T) {
	tm := timeUnits(t, parse(t, coalescers.Builtin), coalescers.Separate, 40, 48, 56)
	got := [][]int{tm.AllToAll.Cycles, tm.SpeculativeFast.Cycles, tm.SpeculativeSlow.Cycles}
	if want := [][]int{{2, 2, 1}, {2, 1, 1}, {2, 2, 1}}; !reflect.DeepEqual(got, want) {
		t.Errorf("all-to-all, fast and slow cycles: %v, want %v", got, want)
	}
	if tm.SpeculativeFast.Unit != "monotonic_32, coalesce_nbr_32" || tm.SpeculativeSlow.Unit != "coalesce_a2a_32, monotonic_32" || tm.SpeculativeParts != nil {
		t.Errorf("paths %q, %q, parts %v", tm.SpeculativeFast.Unit, tm.SpeculativeSlow.Unit, tm.SpeculativeParts)
	}
	if tm.SpeculativeSlow.FO4 != tm.AllToAll.FO4 || !(tm.SpeculativeFast.FO4 > tm.Neighbor.FO4) {
		t.Errorf("slow %.2f vs all-to-all %.2f, fast %.2f vs neighbor %.2f", tm.SpeculativeSlow.FO4, tm.AllToAll.FO4, tm.SpeculativeFast.FO4, tm.Neighbor.FO4)
	}
}

// TestBuiltin_IsThesis: the built-in units time as those of
// specs/coalescer_thesis.hcl, the first of each structure there.
func TestBuiltin_IsThesis(t *testing.T) {
	file, diags := specs.NewLoader().Load("../../../specs/coalescer_thesis.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, st := range []string{coalescers.Combined, coalescers.Separate} {
		a := timeUnits(t, parse(t, coalescers.Builtin), st, 40, 48)
		b := timeUnits(t, file.Units, st, 40, 48)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: built in %+v\nthesis spec %+v", st, a, b)
		}
	}
}

// TestTime_Errors: a spec without a 32-lane unit of a structure, and a
// speculative coalescer whose select cannot be found, are SpecErrors
// naming what is missing; a generator's errors come back as diagnostics.
func TestTime_Errors(t *testing.T) {
	small := parse(t, "coalescer \"a\" {\n  structure = \"all_to_all\"\n  lanes = 8\n  addr_bits = 16\n}\n")
	_, _, err := coalescers.Time(small, coalescers.Options{ClocksFO4: []float64{40}, SpecTiming: coalescers.Combined, Spec: "small.hcl", Generate: units.Generate, Clock: units.ClockedAt(nil)})
	var se *coalescers.SpecError
	if !errors.As(err, &se) || err.Error() != "small.hcl declares no 32-lane all_to_all coalescer (the traces' warps have 32 lanes)" {
		t.Errorf("no 32-lane unit: %v", err)
	}
	us := parse(t, coalescers.Builtin)
	_, _, err = coalescers.Time(us[:3], coalescers.Options{ClocksFO4: []float64{40}, SpecTiming: coalescers.Separate, Spec: "x", Generate: units.Generate})
	if !errors.As(err, &se) {
		t.Errorf("separate without a 32-lane speculative unit: %v", err)
	}
	// A "speculative" unit generated as an all-to-all one has no select.
	wrong := func(u specs.Unit) (*netlist.Design, hcl.Diagnostics) {
		if c, ok := u.(*specs.Coalescer); ok && c.Structure == specs.Speculative {
			return units.Generate(us[0])
		}
		return units.Generate(u)
	}
	_, _, err = coalescers.Time(us, coalescers.Options{ClocksFO4: []float64{40}, SpecTiming: coalescers.Combined, Spec: "x", Generate: wrong, Clock: units.ClockedAt(nil)})
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "coalesce_spec_32: no addr_i input and 1-bit monotonic_o output") {
		t.Errorf("no select: %v", err)
	}
	// Combined timing builds the units at each clock: a clock clock_fo4
	// refuses, or no builder, is refused before any work.
	for _, c := range []struct {
		opt  coalescers.Options
		want string
	}{
		{coalescers.Options{ClocksFO4: []float64{2}, SpecTiming: coalescers.Combined, Generate: units.Generate, Clock: units.ClockedAt(nil)}, "clock 2 FO4: the units are generated at each clock, which clock_fo4 takes from 4 to 10000 FO4"},
		{coalescers.Options{ClocksFO4: []float64{40}, SpecTiming: coalescers.Combined, Generate: units.Generate}, "no Options.Clock"},
		{coalescers.Options{ClocksFO4: []float64{40}, SpecTiming: "x", Generate: units.Generate}, `speculative timing "x"`},
	} {
		if _, _, err := coalescers.Time(us, c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.opt.ClocksFO4, err, c.want)
		}
	}
}

// TestSpeculativePath: the fast path's copy ties every output
// multiplexer's all-to-all input to 0, the slow path's the neighbor
// input, and leaves every other gate and the original alone.
func TestSpeculativePath(t *testing.T) {
	d, diags := units.Generate(parse(t, coalescers.Builtin)[3])
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	sel := d.Port("monotonic_o").Bits[0]
	before := append([]netlist.Gate(nil), d.Gates...)
	for _, fast := range []bool{true, false} {
		cp, err := coalescers.SpeculativePath(d, fast)
		if err != nil {
			t.Fatal(err)
		}
		cut := 0
		for i, g := range cp.Gates {
			if g.Kind == netlist.MUX2 && g.In[0] == sel {
				cut++
				tied, kept := 1, 2
				if !fast {
					tied, kept = 2, 1
				}
				if g.In[tied] != netlist.Const0 || g.In[kept] != d.Gates[i].In[kept] {
					t.Fatalf("fast %v: mux %d is %v, was %v", fast, i, g.In, d.Gates[i].In)
				}
				continue
			}
			if !reflect.DeepEqual(g, d.Gates[i]) {
				t.Fatalf("fast %v: gate %d changed", fast, i)
			}
		}
		if cut == 0 {
			t.Errorf("fast %v: no multiplexer cut", fast)
		}
	}
	if !reflect.DeepEqual(before, d.Gates) {
		t.Error("the original design changed")
	}
	if _, err := coalescers.SpeculativePath(&netlist.Design{Name: "x"}, true); err == nil {
		t.Error("a design without monotonic_o: no error")
	}
}
