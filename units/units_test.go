package units

import (
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/lsugen/lsugen/specs"
)

// missingParts lists the parts a family row lacks: every family needs a
// kind, a summary, a source, a generator and a lane-plot answer, and
// a combinational model with directed vectors, a sequential model with a
// stimulus, or both pairs (a family with clocked and unclocked members),
// never half a pair.
func missingParts(f Family) []string {
	var missing []string
	need := func(ok bool, part string) {
		if !ok {
			missing = append(missing, part)
		}
	}
	need(f.Kind != "", "kind")
	need(f.Summary != "", "summary")
	need(f.Source != "", "source")
	need(f.Generate != nil, "generator")
	need(f.Size != nil, "size estimate")
	need(f.LanePlot != nil, "lane plot")
	comb, seq := f.Model != nil || f.Directed != nil, f.Sequential != nil || f.Stimulus != nil
	if comb {
		need(f.Model != nil, "model")
		need(f.Directed != nil, "directed vectors")
	}
	if seq {
		need(f.Sequential != nil, "sequential model")
		need(f.Stimulus != nil, "stimulus")
	}
	if !comb && !seq {
		missing = append(missing, "model")
	}
	return missing
}

// tableProblems compares the family table with the loader's block kinds.
func tableProblems(fams []Family, blocks []specs.BlockKind) []string {
	var problems []string
	seen := map[string]int{}
	for _, f := range fams {
		seen[f.Kind]++
		if m := missingParts(f); len(m) > 0 {
			problems = append(problems, "family "+f.Kind+" lacks: "+strings.Join(m, ", "))
		}
	}
	var unitKinds []string
	for _, b := range blocks {
		if b.Unit {
			unitKinds = append(unitKinds, b.Type)
		}
	}
	for _, k := range unitKinds {
		if seen[k] == 0 {
			problems = append(problems, "the loader decodes "+k+" blocks but no family row has them")
		}
	}
	for k, n := range seen {
		if n > 1 {
			problems = append(problems, "two rows for "+k)
		}
		if !slices.Contains(unitKinds, k) {
			problems = append(problems, "family "+k+" is not a unit block kind of the loader")
		}
	}
	slices.Sort(problems)
	return problems
}

// TestTable_Complete is the completeness test: every family has every
// part, and the table and the loader agree on the unit kinds.
func TestTable_Complete(t *testing.T) {
	for _, p := range tableProblems(Families(), specs.BlockKinds()) {
		t.Error(p)
	}
	if !slices.Equal(Kinds(), sortedCopy(specs.UnitKinds())) {
		t.Errorf("table kinds %v, loader unit kinds %v", Kinds(), specs.UnitKinds())
	}
}

// TestTable_CompletenessCheckFails shows the completeness check failing
// when a row is removed or a part is missing.
func TestTable_CompletenessCheckFails(t *testing.T) {
	fams := Families()
	withoutDetector := slices.DeleteFunc(slices.Clone(fams), func(f Family) bool { return f.Kind == "monotonicity_detector" })
	got := tableProblems(withoutDetector, specs.BlockKinds())
	if !slices.Equal(got, []string{"the loader decodes monotonicity_detector blocks but no family row has them"}) {
		t.Errorf("row removed: %q", got)
	}
	noDirected := slices.Clone(fams)
	noDirected[1].Directed = nil
	got = tableProblems(noDirected, specs.BlockKinds())
	if !slices.Equal(got, []string{"family coalescer lacks: directed vectors"}) {
		t.Errorf("directed vectors removed: %q", got)
	}
	noPlot := slices.Clone(fams)
	noPlot[0].LanePlot = nil
	got = tableProblems(noPlot, specs.BlockKinds())
	if !slices.Equal(got, []string{"family hash lacks: lane plot"}) {
		t.Errorf("lane plot removed: %q", got)
	}
	extra := append(slices.Clone(fams), Family{Kind: "crossbar"})
	got = tableProblems(extra, specs.BlockKinds())
	if len(got) != 2 || !strings.Contains(got[0], "family crossbar is not a unit block kind") || !strings.Contains(got[1], "crossbar lacks") {
		t.Errorf("unknown family: %q", got)
	}
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// TestFor_UnknownKindIsDiagnostic checks that a unit kind without a row
// is an error at the unit's block, never a silent skip.
func TestFor_UnknownKindIsDiagnostic(t *testing.T) {
	u := &fakeUnit{rng: hcl.Range{Filename: "x.hcl", Start: hcl.Pos{Line: 3, Column: 1}}}
	_, diags := Generate(u)
	if !diags.HasErrors() || diags[0].Summary != "Unsupported unit kind" || diags[0].Subject == nil || diags[0].Subject.Start.Line != 3 {
		t.Fatalf("diags = %v", diags)
	}
	if _, err := Job(u, Built{}); err == nil {
		t.Error("Job of an unknown kind succeeded")
	}
	if _, ok := LanePlot(u); ok {
		t.Error("an unknown kind is on the lane plot")
	}
}

type fakeUnit struct{ rng hcl.Range }

func (f *fakeUnit) UnitName() string     { return "f" }
func (f *fakeUnit) UnitKind() string     { return "crossbar" }
func (f *fakeUnit) Variant() string      { return "" }
func (f *fakeUnit) DeclRange() hcl.Range { return f.rng }
