// Package gen turns typed unit specs into netlist designs: the gate-level
// netlist and, from the same generator, the word-level view the readable
// RTL is printed from. Generators do no I/O; their errors are HCL
// diagnostics pointing at the spec attribute that caused them.
package gen

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/lsugen/lsugen/specs"
)

// Version is the generator version written into every generated file;
// bump it when generated output changes.
const Version = "0.1.0"

// checkChoice refuses a named value (an adder, a structure, a variant)
// that is not one of its type's constants. The loader accepts only those;
// a spec built in Go could hold anything, and no generator falls back to
// a default in its place.
func checkChoice[T ~string](u specs.Unit, attr string, v T, valid bool) hcl.Diagnostics {
	if valid {
		return nil
	}
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Unsupported " + attr,
		Detail:   fmt.Sprintf("%s %q: %q is not a supported %s.", u.UnitKind(), u.UnitName(), string(v), attr),
		Subject:  u.DeclRange().Ptr(),
	}}
}
