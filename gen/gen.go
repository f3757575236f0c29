// Package gen turns typed unit specs into netlist designs: the gate-level
// netlist and, from the same generator, the word-level view the readable
// RTL is printed from. Generators do no I/O; their errors are HCL
// diagnostics pointing at the spec attribute that caused them.
package gen

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
)

// Version is the generator version written into every generated file;
// bump it when generated output changes.
const Version = "0.1.0"

// Generate builds the design of any unit.
func Generate(u specs.Unit) (*netlist.Design, hcl.Diagnostics) {
	switch u := u.(type) {
	case *specs.Hash:
		return Hash(u)
	case *specs.Coalescer:
		return Coalescer(u)
	case *specs.MonotonicityDetector:
		return MonotonicityDetector(u)
	case *specs.ElasticPipeline:
		return ElasticPipeline(u)
	case *specs.WarpReadyMask:
		return WarpReadyMask(u)
	}
	return nil, hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "No generator for unit kind",
		Detail:   fmt.Sprintf("lsugen has no generator for %s blocks.", u.UnitKind()),
		Subject:  u.DeclRange().Ptr(),
	}}
}
