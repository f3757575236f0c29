package timing_test

import (
	"math"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/flow"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/timing"
)

// The delays 003_* measured with Design Compiler (§5.1.2) and its cycle
// tables 5.1 (32 lanes) and 5.2 (64 lanes) at clocks of 40, 48 and 56 FO4.
// "Fast coalescer (if monotonic)" is bounded by the monotonicity detector,
// the clock-critical part of that design (§5.1.2).
var thesisUnits = []struct {
	unit   string
	fo4    float64
	cycles []int // at 40, 48, 56 FO4; nil where the thesis has no table
}{
	{"coalesce_a2a_32", 55.92, []int{2, 2, 1}},
	{"coalesce_a2a_64", 112.25, []int{3, 3, 3}},
	{"coalesce_nbr_32", 5, nil},
	{"coalesce_nbr_64", 5, nil},
	{"monotonic_32", 46, []int{2, 1, 1}},
	{"monotonic_64", 55, []int{2, 2, 1}},
}

// thesisDesigns are the units of thesisUnits from
// specs/coalescer_thesis.hcl (flow.ExampleUnit), in thesisUnits' order.
func thesisDesigns(t *testing.T) []*netlist.Design {
	t.Helper()
	designs := make([]*netlist.Design, len(thesisUnits))
	for k, want := range thesisUnits {
		u, err := flow.ExampleUnit(want.unit)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(u.Source(), "specs/coalescer_thesis.hcl:") {
			t.Fatalf("unit %s is declared at %s, not in specs/coalescer_thesis.hcl", want.unit, u.Source())
		}
		designs[k] = u.Design
	}
	return designs
}

// TestThesis003 checks the unsized model against the thesis: each delay
// within 20%, and the cycle tables exactly.
func TestThesis003(t *testing.T) {
	designs := thesisDesigns(t)
	for k, want := range thesisUnits {
		d := designs[k]
		r, err := timing.Analyze(d, timing.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if e := r.FO4/want.fo4 - 1; math.Abs(e) > 0.20 {
			t.Errorf("%s: %.2f FO4, thesis %.2f: error %+.1f%% beyond ±20%%", want.unit, r.FO4, want.fo4, 100*e)
		}
		for i, clock := range []float64{40, 48, 56} {
			if want.cycles == nil {
				break
			}
			if got := timing.CyclesAt(r.FO4, clock); got != want.cycles[i] {
				t.Errorf("%s: %.2f FO4 takes %d cycles at %v FO4, thesis table %d", want.unit, r.FO4, got, clock, want.cycles[i])
			}
		}
	}
}
