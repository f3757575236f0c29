package specs

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// decoder holds the state of decoding one file: its locals and its
// evaluation budget.
type decoder struct {
	funcs  map[string]function.Function
	locals map[string]*local
	order  []*local // declaration order

	budgetReported bool // the evaluation budget ran out, and that was reported
}

// local is one local value.
type local struct {
	name  string
	attr  *hcl.Attribute
	state localState
	cycle bool      // part of a reference cycle, reported already
	val   cty.Value // valid when ok
	ok    bool
}

type localState int

const (
	unvisited localState = iota
	visiting
	done
)

func newDecoder() *decoder {
	return &decoder{
		funcs:  newBudget().functions(),
		locals: map[string]*local{},
	}
}

// decodeLocalsBlock records the attributes of a `locals { ... }` block.
// Their values are computed later by evalLocals, once all blocks are known.
func (d *decoder) decodeLocalsBlock(block *hcl.Block) hcl.Diagnostics {
	attrs, diags := block.Body.JustAttributes()
	// JustAttributes returns a map: sort by position for stable diagnostics.
	sorted := make([]*hcl.Attribute, 0, len(attrs))
	for _, attr := range attrs {
		sorted = append(sorted, attr)
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Range.Start.Byte < sorted[j].Range.Start.Byte })
	for _, attr := range sorted {
		if prev := d.locals[attr.Name]; prev != nil {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Duplicate local value",
				Detail: fmt.Sprintf("A local value named %q was already declared at %s. Local value names must be unique across all locals blocks.",
					attr.Name, prev.attr.NameRange.String()),
				Subject: attr.NameRange.Ptr(),
			})
			continue
		}
		l := &local{name: attr.Name, attr: attr}
		d.locals[attr.Name] = l
		d.order = append(d.order, l)
	}
	return diags
}

// evalLocals computes every local value, each after the locals it refers
// to, reporting reference cycles.
func (d *decoder) evalLocals() hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, l := range d.order {
		diags = append(diags, d.evalLocal(l, nil)...)
	}
	return diags
}

// evalLocal evaluates l after its dependencies; stack holds the locals
// being evaluated that led to l.
func (d *decoder) evalLocal(l *local, stack []*local) hcl.Diagnostics {
	if l.state != unvisited {
		return nil
	}
	l.state = visiting
	stack = append(stack, l)
	var diags hcl.Diagnostics
	for _, t := range l.attr.Expr.Variables() {
		dep := d.localRef(t)
		if dep == nil {
			continue // not a valid local reference: eval reports it
		}
		switch dep.state {
		case visiting:
			diags = append(diags, d.cycleDiag(stack, dep, t))
		case unvisited:
			diags = append(diags, d.evalLocal(dep, stack)...)
		}
		if l.cycle {
			l.state = done
			return diags
		}
	}
	val, ok, moreDiags := d.eval(l.attr.Expr)
	diags = append(diags, moreDiags...)
	if ok {
		if n, badNumber := valueSize(val, maxLocalNodes); n > maxLocalNodes {
			ok = false
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Local value too large",
				Detail:   fmt.Sprintf("local.%s holds more than %d values.", l.name, maxLocalNodes),
				Subject:  l.attr.Expr.Range().Ptr(),
			})
		} else if badNumber {
			ok = false
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Number out of range",
				Detail:   fmt.Sprintf("local.%s holds a number that is not 0 or between 2^-%d and 2^%d in magnitude.", l.name, maxNumberExp, maxNumberExp),
				Subject:  l.attr.Expr.Range().Ptr(),
			})
		}
	}
	l.val, l.ok, l.state = val, ok, done
	return diags
}

// cycleDiag reports that the reference t from the last local of stack to
// dep closes a cycle, and marks the locals of the cycle as failed.
func (d *decoder) cycleDiag(stack []*local, dep *local, t hcl.Traversal) *hcl.Diagnostic {
	start := 0
	for i, l := range stack {
		if l == dep {
			start = i
		}
	}
	names := make([]string, 0, len(stack)-start+1)
	for _, l := range stack[start:] {
		l.cycle = true
		names = append(names, "local."+l.name)
	}
	names = append(names, "local."+dep.name)
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Cycle in local values",
		Detail:   fmt.Sprintf("These local values refer to each other, so none of them can be computed: %s.", strings.Join(names, " -> ")),
		Subject:  t.SourceRange().Ptr(),
	}
}

// localRef returns the declared local that t refers to, or nil.
func (d *decoder) localRef(t hcl.Traversal) *local {
	if t.RootName() != "local" || len(t) < 2 {
		return nil
	}
	attr, ok := t[1].(hcl.TraverseAttr)
	if !ok {
		return nil
	}
	return d.locals[attr.Name]
}

// eval evaluates an expression with the locals it refers to. ok is false
// when the value cannot be used: either an error is in diags, or the
// expression depends on a local that failed (reported already).
func (d *decoder) eval(expr hcl.Expression) (val cty.Value, ok bool, diags hcl.Diagnostics) {
	vars := map[string]cty.Value{}
	usable := true
	for _, t := range expr.Variables() {
		if t.RootName() != "local" {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Unknown variable",
				Detail:   fmt.Sprintf("There is no variable named %q; only local values (local.NAME) can be used in a spec.", t.RootName()),
				Subject:  t.SourceRange().Ptr(),
			})
			continue
		}
		var name string
		if len(t) >= 2 {
			if attr, isAttr := t[1].(hcl.TraverseAttr); isAttr {
				name = attr.Name
			}
		}
		if name == "" {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid local value reference",
				Detail:   "A local value is referred to as local.NAME.",
				Subject:  t.SourceRange().Ptr(),
			})
			continue
		}
		l := d.locals[name]
		switch {
		case l == nil:
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Reference to undeclared local value",
				Detail:   fmt.Sprintf("No local value named %q is declared in a locals block.", name),
				Subject:  t.SourceRange().Ptr(),
			})
		case !l.ok:
			usable = false // its own error is reported already
		default:
			vars[name] = l.val
		}
	}
	if diags.HasErrors() || !usable {
		return cty.DynamicVal, false, diags
	}
	ctx := &hcl.EvalContext{
		Variables: map[string]cty.Value{"local": cty.ObjectVal(vars)},
		Functions: d.funcs,
	}
	val, moreDiags := expr.Value(ctx)
	diags = append(diags, d.guardDiags(dedupe(moreDiags))...)
	// Unknown values only come from errors, which are in diags already.
	return val, !diags.HasErrors() && val.IsWhollyKnown(), diags
}

// guardDiags relabels the errors of the guard functions that prepareBody
// inserted, since the user never wrote a call to them. Errors of a spent
// budget are reported once: once spent, every later charge fails too.
func (d *decoder) guardDiags(diags hcl.Diagnostics) hcl.Diagnostics {
	var out hcl.Diagnostics
	for _, diag := range diags {
		extra, ok := hcl.DiagnosticExtra[hclsyntax.FunctionCallDiagExtra](diag)
		if ok {
			var gerr *guardError
			switch err := extra.FunctionCallError(); {
			case errors.Is(err, errWorkBudget) || errors.Is(err, errTextBudget):
				if d.budgetReported {
					continue
				}
				d.budgetReported = true
				diag.Summary = "Evaluation limit exceeded"
				diag.Detail = "While evaluating this expression, " + err.Error() + "."
			case errors.As(err, &gerr):
				diag.Summary = gerr.summary
				diag.Detail = gerr.detail + "."
			}
		}
		out = append(out, diag)
	}
	return out
}

// dedupe drops repeated diagnostics: a for expression reports the same
// error once per element.
func dedupe(diags hcl.Diagnostics) hcl.Diagnostics {
	type key struct {
		severity        hcl.DiagnosticSeverity
		summary, detail string
		subject         hcl.Range
	}
	seen := map[key]bool{}
	var out hcl.Diagnostics
	for _, diag := range diags {
		k := key{severity: diag.Severity, summary: diag.Summary, detail: diag.Detail}
		if diag.Subject != nil {
			k.subject = *diag.Subject
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, diag)
		}
	}
	return out
}
