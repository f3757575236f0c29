package flow

import (
	"testing"

	"github.com/lsugen/lsugen/netlist"
)

// TestDistinctExamples_OneUnitPerDesign: wrm_paper (specs/pipeline.hcl)
// and study_mask (specs/pipeline_study.hcl) are one design under two
// names, so only the first is kept; every other example is its own
// design.
func TestDistinctExamples_OneUnitPerDesign(t *testing.T) {
	all, err := ExampleUnits()
	if err != nil {
		t.Fatal(err)
	}
	us, same, err := DistinctExamples()
	if err != nil {
		t.Fatal(err)
	}
	if same["study_mask"] != "wrm_paper" {
		t.Errorf("study_mask shares the design of %q, want wrm_paper", same["study_mask"])
	}
	if len(us)+len(same) != len(all) {
		t.Errorf("%d distinct + %d shared, want %d units", len(us), len(same), len(all))
	}
	kept := map[string]bool{}
	for _, u := range us {
		kept[u.Design.Name] = true
	}
	for dup, orig := range same {
		if kept[dup] || !kept[orig] {
			t.Errorf("%s shares %s: kept %v and %v", dup, orig, kept[dup], kept[orig])
		}
	}
	t.Logf("%d units, %d distinct designs; shared: %v", len(all), len(us), same)
}

// TestFingerprint_SeesOneGate: changing one gate of a design changes its
// fingerprint, and so does another design of the same family.
func TestFingerprint_SeesOneGate(t *testing.T) {
	u, err := ExampleUnit("wrm_paper")
	if err != nil {
		t.Fatal(err)
	}
	other, err := ExampleUnit("wrm_4way")
	if err != nil {
		t.Fatal(err)
	}
	fp := func(d *netlist.Design) [32]byte {
		t.Helper()
		f, err := Fingerprint(d)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	base := fp(u.Design)
	if fp(other.Design) == base {
		t.Error("wrm_paper and wrm_4way have one fingerprint")
	}
	c := *u.Design
	c.Gates = append([]netlist.Gate(nil), u.Design.Gates...)
	for i, g := range c.Gates {
		if g.Kind == netlist.AND2 {
			c.Gates[i].Kind = netlist.OR2
			break
		}
	}
	if fp(&c) == base {
		t.Error("a design with one AND2 made an OR2 has the original's fingerprint")
	}
	if fp(u.Design) != base {
		t.Error("the fingerprint changed between two calls")
	}
}
