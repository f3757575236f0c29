package specs

import (
	"testing"
)

// TestCoalescerSpecs_Valid decodes coalescer and detector blocks with
// defaults, locals and functions.
func TestCoalescerSpecs_Valid(t *testing.T) {
	src := `
locals {
  warp = 32
}
coalescer "a2a" {
  structure  = "all_to_all"
  lanes      = local.warp * 2
  addr_bits  = 32
  block_bits = log2(128)
}
coalescer "spec" {
  structure = "speculative"
  lanes     = local.warp
  addr_bits = 40
  adder     = "prefix"
}
coalescer "nbr" {
  structure = "neighbor"
  lanes     = 2
  addr_bits = 1
}
monotonicity_detector "det" {
  lanes     = 128
  addr_bits = 64
}
`
	f, diags := NewLoader().Parse([]byte(src), "c.hcl")
	if len(diags) > 0 {
		t.Fatal(diags.Error())
	}
	if len(f.Units) != 4 {
		t.Fatalf("%d units, want 4", len(f.Units))
	}
	want := []Unit{
		&Coalescer{Name: "a2a", Structure: AllToAll, Lanes: 64, AddrBits: 32, BlockBits: 7, Adder: AdderCLA4},
		&Coalescer{Name: "spec", Structure: Speculative, Lanes: 32, AddrBits: 40, Adder: AdderPrefix},
		&Coalescer{Name: "nbr", Structure: Neighbor, Lanes: 2, AddrBits: 1, Adder: AdderCLA4},
		&MonotonicityDetector{Name: "det", Lanes: 128, AddrBits: 64, Adder: AdderCLA4},
	}
	for i, u := range f.Units {
		switch g := u.(type) {
		case *Coalescer:
			w := want[i].(*Coalescer)
			if g.Name != w.Name || g.Structure != w.Structure || g.Lanes != w.Lanes || g.AddrBits != w.AddrBits || g.BlockBits != w.BlockBits || g.Adder != w.Adder {
				t.Errorf("unit %d: got %+v, want %+v", i, g, w)
			}
			if g.UnitKind() != "coalescer" || g.Variant() != string(w.Structure) {
				t.Errorf("unit %d: kind %q variant %q", i, g.UnitKind(), g.Variant())
			}
		case *MonotonicityDetector:
			w := want[i].(*MonotonicityDetector)
			if g.Name != w.Name || g.Lanes != w.Lanes || g.AddrBits != w.AddrBits || g.Adder != w.Adder {
				t.Errorf("unit %d: got %+v, want %+v", i, g, w)
			}
		default:
			t.Errorf("unit %d is a %T", i, u)
		}
		if u.DeclRange().Start.Line == 0 {
			t.Errorf("unit %d has no declaration range", i)
		}
	}
}

// TestCoalescerSpecs_Options decodes active_mask and requests, and checks
// that they show in the variant.
func TestCoalescerSpecs_Options(t *testing.T) {
	src := `
coalescer "a" {
  structure   = "all_to_all"
  lanes       = 8
  addr_bits   = 16
  active_mask = true
  requests    = true
}
coalescer "b" {
  structure = "neighbor"
  lanes     = 8
  addr_bits = 16
  requests  = false
}
monotonicity_detector "d" {
  lanes       = 8
  addr_bits   = 16
  active_mask = true
}
`
	f, diags := NewLoader().Parse([]byte(src), "c.hcl")
	if len(diags) > 0 {
		t.Fatal(diags.Error())
	}
	if len(f.Units) != 3 {
		t.Fatalf("%d units, want 3", len(f.Units))
	}
	a, b, d := f.Units[0].(*Coalescer), f.Units[1].(*Coalescer), f.Units[2].(*MonotonicityDetector)
	if !a.ActiveMask || !a.Requests || a.Variant() != "all_to_all, active_mask, requests" {
		t.Errorf("a: %+v, variant %q", a, a.Variant())
	}
	if b.ActiveMask || b.Requests || b.Variant() != "neighbor" {
		t.Errorf("b: %+v, variant %q", b, b.Variant())
	}
	if !d.ActiveMask || d.Variant() != "cla4, active_mask" {
		t.Errorf("d: %+v, variant %q", d, d.Variant())
	}
}
