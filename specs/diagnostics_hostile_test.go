package specs

import (
	"strings"
	"testing"
)

// Diagnostics of issue 18: one error never hides the others, and no message
// repeats a huge value.

// TestHostile_DuplicateAttributeKeepsOtherDiagnostics: an attribute set
// twice in one block is reported together with the errors of the file's
// other blocks, and the block with it is not returned as a valid unit.
func TestHostile_DuplicateAttributeKeepsOtherDiagnostics(t *testing.T) {
	src := `hash "a" {
  function  = "fixed_xor"
  addr_bits = 8
  addr_bits = 9
  bank_bits = 2
}
hash "b" {
  function  = "fixed_xor"
  addr_bits = nosuch(3)
  bank_bits = 2
}
hash "c" {
  function  = "fixed_xor"
  addr_bits = 8
  bank_bits = 2
}
`
	file, diags := NewLoader().Parse([]byte(src), "t.hcl")
	var redefined, unknown bool
	for _, d := range diags {
		redefined = redefined || (d.Summary == "Attribute redefined" && d.Subject != nil && d.Subject.Start.Line == 4)
		unknown = unknown || (strings.Contains(d.Summary, "unknown function") && d.Subject != nil && d.Subject.Start.Line == 9)
	}
	if !redefined || !unknown {
		t.Fatalf("diagnostics %v; want both the redefined attribute (line 4) and the unknown function (line 9)", diags)
	}
	for _, u := range file.Units {
		if u.UnitName() == "a" || u.UnitName() == "b" {
			t.Errorf("unit %q returned although its block has errors", u.UnitName())
		}
	}
}

// TestHostile_DiagnosticTextBounded: a 384 KB local used wrongly costs a
// few kilobytes per diagnostic, not its whole value.
func TestHostile_DiagnosticTextBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("locals {\n  a = \"" + strings.Repeat("x", 2000) + "\"\n")
	b.WriteString("  b = \"${local.a}${local.a}${local.a}${local.a}\"\n")
	b.WriteString("  c = \"${local.b}${local.b}${local.b}${local.b}\"\n")
	b.WriteString("  d = \"" + strings.Repeat("${local.c}", 12) + "\"\n}\n")
	for i := 0; i < 5; i++ {
		b.WriteString("hash \"h" + string(rune('0'+i)) + "\" {\n  function  = local.d\n  addr_bits = 8\n  bank_bits = 2\n}\n")
	}
	_, diags := NewLoader().Parse([]byte(b.String()), "t.hcl")
	if !diags.HasErrors() {
		t.Fatal("accepted")
	}
	for _, d := range diags {
		if n := len(d.Summary) + len(d.Detail); n > MaxDiagnosticText*2+100 {
			t.Errorf("%s: summary and detail of %d bytes", d.Summary, n)
		}
	}
}
