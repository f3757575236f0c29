package specs

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// # References between units
//
// An argument of type "reference" names another unit of the files loaded
// together, as Terraform names resources: `hash = hash.bank_xor`. The
// loader resolves it after every file is decoded, so a reference may
// point forward or into another file. What the referring unit does with
// the referenced one (instantiate it, check its widths) is its family's
// business; the loader checks that the unit exists, has the wanted kind
// and decoded cleanly, and that references form no cycle.

// UnitRef is one resolved reference from a unit's argument to another unit.
type UnitRef struct {
	Attr  string    // the argument, e.g. "hash"
	Kind  string    // the kind the argument wants, e.g. "hash"
	Name  string    // the referenced unit's name
	Range hcl.Range // the reference expression
	// Unit is the referenced unit, set by the loader once every file is
	// decoded; nil until then (and in a unit that failed to load).
	Unit Unit
}

// Hash returns the referenced unit as a hash, or nil.
func (r *UnitRef) Hash() *Hash {
	if r == nil {
		return nil
	}
	h, _ := r.Unit.(*Hash)
	return h
}

// referrer is a unit with references; checkRefs runs once every one is
// resolved (Unit set), for the family's own checks (widths,
// configuration).
type referrer interface {
	Unit
	refs() []*UnitRef
	checkRefs() hcl.Diagnostics
}

// References returns the units u refers to, in argument order (none for
// a unit without references).
func References(u Unit) []*UnitRef {
	if r, ok := u.(referrer); ok {
		return r.refs()
	}
	return nil
}

// referenceAttrs lists the reference arguments (Attr.Refers) of every
// block type; filled from blockKinds by init, since the decoders that read
// it are themselves in blockKinds.
var referenceAttrs = map[string]map[string]bool{}

func init() {
	for _, k := range blockKinds {
		for _, a := range k.Attrs {
			if a.Refers != "" {
				if referenceAttrs[k.Type] == nil {
					referenceAttrs[k.Type] = map[string]bool{}
				}
				referenceAttrs[k.Type][a.Name] = true
			}
		}
	}
}

// isReference reports whether argument attr of a blockType block is a
// reference, which the decoder reads as a traversal instead of evaluating.
func isReference(blockType, attr string) bool { return referenceAttrs[blockType][attr] }

// ref decodes a reference argument written KIND.NAME; nil when it is not
// written or is malformed (reported).
func (hd *blockDecoder) ref(name, kind string) *UnitRef {
	attr := hd.attrs[name]
	if attr == nil {
		return nil
	}
	rng := attr.Expr.Range()
	t, diags := hcl.AbsTraversalForExpr(attr.Expr)
	if diags.HasErrors() || len(t) != 2 {
		hd.errorf(rng, "Invalid reference", "%s must name a %s unit as %s.NAME, without quotes, e.g. %s = %s.bank_xor.", name, kind, kind, name, kind)
		return nil
	}
	attrStep, ok := t[1].(hcl.TraverseAttr)
	if !ok {
		hd.errorf(rng, "Invalid reference", "%s must name a %s unit as %s.NAME.", name, kind, kind)
		return nil
	}
	if root := t.RootName(); root != kind {
		hd.errorf(rng, "Wrong kind of unit", "%s takes a %s unit, written %s.NAME; got %s.%s.", name, kind, kind, root, attrStep.Name)
		return nil
	}
	return &UnitRef{Attr: name, Kind: kind, Name: attrStep.Name, Range: rng}
}

// resolveRefs points every reference at its unit and runs the families'
// checks. declared holds every block's range by name, failed the names of
// blocks that did not decode; units are the decoded ones. bad are the
// units whose references failed: they are dropped, as units with errors.
func resolveRefs(units []Unit, declared map[string]hcl.Range, failed map[string]bool) (bad map[Unit]bool, diags hcl.Diagnostics) {
	byName := map[string]Unit{}
	for _, u := range units {
		byName[u.UnitName()] = u
	}
	bad = map[Unit]bool{}
	for _, u := range units {
		for _, ref := range References(u) {
			target := byName[ref.Name]
			switch {
			case failed[ref.Name]:
				diags = append(diags, refDiag(ref, "Reference to a unit with errors",
					fmt.Sprintf("%s %q has errors (reported at %s), so %s cannot use it.", ref.Kind, ref.Name, declared[ref.Name].String(), u.UnitName())))
			case target == nil:
				diags = append(diags, refDiag(ref, "Reference to an undeclared unit",
					fmt.Sprintf("No %s unit named %q is declared in the files loaded together.%s", ref.Kind, ref.Name, didYouMean(ref.Name, namesOfKind(units, ref.Kind)))))
			case target.UnitKind() != ref.Kind:
				diags = append(diags, refDiag(ref, "Wrong kind of unit",
					fmt.Sprintf("%s takes a %s unit, but %q (declared at %s) is a %s.", ref.Attr, ref.Kind, ref.Name, target.DeclRange().String(), target.UnitKind())))
			default:
				ref.Unit = target
				continue
			}
			bad[u] = true
		}
	}
	diags = append(diags, refCycles(units, bad)...)
	for _, u := range units {
		if r, ok := u.(referrer); ok && !bad[u] {
			more := r.checkRefs()
			diags = append(diags, more...)
			if more.HasErrors() {
				bad[u] = true
			}
		}
	}
	return bad, diags
}

// refCycles reports each reference that closes a cycle and marks every
// unit of the cycle bad.
func refCycles(units []Unit, bad map[Unit]bool) hcl.Diagnostics {
	var diags hcl.Diagnostics
	state := map[Unit]int{} // 0 unvisited, 1 on the stack, 2 done
	var stack []string
	var onStack []Unit
	var visit func(u Unit)
	visit = func(u Unit) {
		state[u] = 1
		stack = append(stack, u.UnitName())
		onStack = append(onStack, u)
		for _, ref := range References(u) {
			switch t := ref.Unit; {
			case t == nil:
			case state[t] == 1:
				i := len(stack) - 1
				for i > 0 && stack[i] != t.UnitName() {
					i--
				}
				diags = append(diags, refDiag(ref, "Reference cycle",
					fmt.Sprintf("Units cannot refer to each other in a cycle: %s -> %s.", strings.Join(stack[i:], " -> "), t.UnitName())))
				for _, x := range onStack[i:] { // every unit of the cycle
					bad[x] = true
				}
			case state[t] == 0:
				visit(t)
			}
		}
		stack, onStack = stack[:len(stack)-1], onStack[:len(onStack)-1]
		state[u] = 2
	}
	for _, u := range units {
		if state[u] == 0 {
			visit(u)
		}
	}
	return diags
}

func refDiag(ref *UnitRef, summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: ref.Range.Ptr()}
}

func namesOfKind(units []Unit, kind string) []string {
	var out []string
	for _, u := range units {
		if u.UnitKind() == kind {
			out = append(out, u.UnitName())
		}
	}
	sort.Strings(out)
	return out
}
