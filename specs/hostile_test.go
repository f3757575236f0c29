package specs

import (
	"strings"
	"testing"
)

// TestHostile_ModuloByZero: k % 0 is an error located at the divisor, as
// k / 0 is (an infinity, out of range), wherever it is evaluated (a local,
// an attribute); cty's own % returns k.
func TestHostile_ModuloByZero(t *testing.T) {
	for _, src := range []string{
		"locals {\n  k = 5 % 0\n}\n",
		"locals {\n  z = 0\n  k = 5 % local.z\n}\n",
		"locals {\n  k = 5 % \"0\"\n}\n",
		"locals {\n  k = 5 % -0.0\n}\n",
		"hash \"h\" {\n  function  = \"fixed_xor\"\n  addr_bits = 8 % 0\n  bank_bits = 2\n}\n",
	} {
		_, diags := NewLoader().Parse([]byte(src), "t.hcl")
		if !diags.HasErrors() {
			t.Errorf("%q: accepted", src)
			continue
		}
		d := diags[0]
		if d.Subject == nil || d.Subject.Start.Line < 2 || d.Subject.Start.Column < 10 || !strings.Contains(strings.ToLower(d.Summary+d.Detail), "zero") {
			t.Errorf("%q: %s: %s at %v; want a located error naming the zero divisor", src, d.Summary, d.Detail, d.Subject)
		}
	}
	for _, src := range []string{"locals {\n  k = 5 % 3\n}\n", "locals {\n  k = -5 % 0.5\n}\n"} {
		if _, diags := NewLoader().Parse([]byte(src), "t.hcl"); diags.HasErrors() {
			t.Errorf("%q: %v", src, diags)
		}
	}
}
