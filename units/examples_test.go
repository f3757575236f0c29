package units_test

import (
	"testing"

	"github.com/lsugen/lsugen/flow"
	"github.com/lsugen/lsugen/units"
)

// TestExampleSpecs_EveryUnitHasAJob builds every example unit's
// verification job (the units generated through the table, once per
// binary, by flow.Examples): the model fits the design's interface and
// the golden vectors come out; every family has an example.
func TestExampleSpecs_EveryUnitHasAJob(t *testing.T) {
	examples, err := flow.ExampleUnits()
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, ex := range examples {
		u, d := ex.Spec, ex.Design
		kinds[u.UnitKind()] = true
		job, err := units.Job(u, ex.Built)
		if err != nil {
			t.Fatalf("%s: %v", u.UnitName(), err)
		}
		if (d.Clock != "") != (job.Seq != nil) {
			t.Errorf("%s: clock %q but sequential model %v", u.UnitName(), d.Clock, job.Seq != nil)
		}
	}
	for _, k := range units.Kinds() {
		if !kinds[k] {
			t.Errorf("no example spec declares a %s unit", k)
		}
	}
}
