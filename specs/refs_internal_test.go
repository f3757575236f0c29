package specs

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// loopUnit is a unit kind that refers to units of its own kind, which no
// family does yet: it exercises the cycle check.
type loopUnit struct {
	name string
	ref  *UnitRef
}

func (u *loopUnit) UnitName() string           { return u.name }
func (u *loopUnit) UnitKind() string           { return "loop" }
func (u *loopUnit) Variant() string            { return "" }
func (u *loopUnit) DeclRange() hcl.Range       { return hcl.Range{Filename: "x.hcl"} }
func (u *loopUnit) refs() []*UnitRef           { return []*UnitRef{u.ref} }
func (u *loopUnit) checkRefs() hcl.Diagnostics { return nil }

func TestResolveRefs_Cycle(t *testing.T) {
	mk := func(name, to string, line int) *loopUnit {
		return &loopUnit{name: name, ref: &UnitRef{Attr: "next", Kind: "loop", Name: to,
			Range: hcl.Range{Filename: "x.hcl", Start: hcl.Pos{Line: line}}}}
	}
	a, b, c, d := mk("a", "b", 1), mk("b", "c", 2), mk("c", "a", 3), mk("d", "a", 4)
	units := []Unit{a, b, c, d}
	bad, diags := resolveRefs(units, map[string]hcl.Range{}, map[string]bool{})
	if len(diags) != 1 || !strings.Contains(diags[0].Detail, "a -> b -> c -> a") {
		t.Fatalf("diags = %v, want one cycle a -> b -> c -> a", diags)
	}
	if diags[0].Subject.Start.Line != 3 {
		t.Errorf("cycle reported at line %d, want 3 (the reference that closes it)", diags[0].Subject.Start.Line)
	}
	if !bad[a] || !bad[b] || !bad[c] || bad[d] {
		t.Errorf("bad = %v, want a, b and c (not d, which only points into the cycle)", bad)
	}
	self := mk("s", "s", 9)
	if _, diags := resolveRefs([]Unit{self}, map[string]hcl.Range{}, map[string]bool{}); len(diags) != 1 || !strings.Contains(diags[0].Detail, "s -> s") {
		t.Errorf("self reference: %v", diags)
	}
}
