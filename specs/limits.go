package specs

import (
	"fmt"
	"math/big"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
)

// Limits on expression evaluation. HCL evaluates expressions itself, so
// without these a few lines of spec (nested for expressions, doubling
// locals, huge number literals) could take unbounded time or memory.
const (
	maxNesting       = 256     // open brackets, quotes and unary operators, checked before parsing
	maxExprDepth     = 1000    // depth of the syntax tree, checked before evaluating
	maxListLen       = 4096    // elements made by one call of range, concat or flatten
	maxEvalWork      = 1 << 18 // for-expression steps, function arguments and results, per file
	maxTemplateBytes = 1 << 20 // bytes produced by string templates, per file
	maxLocalNodes    = 1 << 14 // values nested inside one local value
	maxNumberExp     = 64      // numbers are 0 or between 2^-64 and 2^64 in magnitude
)

// checkNesting refuses sources whose brackets, templates or unary operator
// runs nest deeper than maxNesting. It must run before the (recursive) HCL
// parser: deep nesting overflows its stack, which Go cannot recover from.
func checkNesting(src []byte, filename string) hcl.Diagnostics {
	// The lexer is a state machine, safe on any input; its diagnostics come
	// again from the parser, so drop them here.
	tokens, _ := hclsyntax.LexConfig(src, filename, hcl.InitialPos)
	depth, unary := 0, 0
	for _, t := range tokens {
		switch t.Type {
		case hclsyntax.TokenOBrace, hclsyntax.TokenOBrack, hclsyntax.TokenOParen,
			hclsyntax.TokenOQuote, hclsyntax.TokenOHeredoc,
			hclsyntax.TokenTemplateInterp, hclsyntax.TokenTemplateControl:
			depth++
		case hclsyntax.TokenCBrace, hclsyntax.TokenCBrack, hclsyntax.TokenCParen,
			hclsyntax.TokenCQuote, hclsyntax.TokenCHeredoc, hclsyntax.TokenTemplateSeqEnd:
			depth = max(depth-1, 0)
		}
		if t.Type == hclsyntax.TokenMinus || t.Type == hclsyntax.TokenBang {
			unary++
		} else {
			unary = 0
		}
		if depth+unary > maxNesting {
			return hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Expression nested too deeply",
				Detail:   fmt.Sprintf("Brackets, strings and unary operators nest more than %d levels deep here; simplify the expression.", maxNesting),
				Subject:  t.Range.Ptr(),
			}}
		}
	}
	return nil
}

// Names of the guard functions that prepareBody inserts into expressions.
// They contain a space so that no spec can call them.
const (
	forGuardName      = "for expression"
	templateGuardName = "string template"
	operandGuardName  = "operand size"
	resultGuardName   = "conditional result"
	numberGuardName   = "arithmetic operand"
	divisorGuardName  = "modulo divisor"
)

// prepareBody checks a parsed file before evaluation (tree depth, number
// literal sizes) and inserts guards that charge the evaluation budget: one
// in the condition of every for expression, which HCL evaluates before
// each step (and once before the first); one around every template part;
// one around each operand of the operations whose cost grows with the
// size of their operands (==, !=, conditionals, splats); and one around
// each arithmetic operand, keeping numbers in range.
func prepareBody(body *hclsyntax.Body) hcl.Diagnostics {
	w := &prepareWalker{}
	hclsyntax.Walk(body, w)
	return w.diags
}

type prepareWalker struct {
	depth   int
	tooDeep bool
	diags   hcl.Diagnostics
}

func (w *prepareWalker) Enter(node hclsyntax.Node) hcl.Diagnostics {
	w.depth++
	if w.depth > maxExprDepth && !w.tooDeep {
		w.tooDeep = true
		w.diags = append(w.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Expression nested too deeply",
			Detail:   fmt.Sprintf("This expression nests more than %d levels deep; simplify it.", maxExprDepth),
			Subject:  node.Range().Ptr(),
		})
	}
	switch e := node.(type) {
	case *hclsyntax.LiteralValueExpr:
		if e.Val.Type() == cty.Number && !e.Val.IsNull() && !numberInRange(e.Val.AsBigFloat()) {
			w.diags = append(w.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Number out of range",
				Detail:   fmt.Sprintf("Number literals must be 0 or between 2^-%d and 2^%d in magnitude.", maxNumberExp, maxNumberExp),
				Subject:  e.SrcRange.Ptr(),
			})
		}
	case *hclsyntax.ForExpr:
		// Each step costs about the size of the body it evaluates.
		cost := 1 + nodeCount(e.KeyExpr) + nodeCount(e.ValExpr) + nodeCount(e.CondExpr)
		cond := e.CondExpr
		if cond == nil {
			cond = &hclsyntax.LiteralValueExpr{Val: cty.True, SrcRange: e.SrcRange}
		}
		guard := guardCall(forGuardName, cond, &hclsyntax.LiteralValueExpr{
			Val: cty.NumberIntVal(int64(cost)), SrcRange: e.SrcRange,
		})
		// Budget errors point at the whole for expression.
		guard.NameRange, guard.OpenParenRange = e.SrcRange, e.SrcRange
		e.CondExpr = guard
	case *hclsyntax.BinaryOpExpr:
		switch e.Op {
		case hclsyntax.OpEqual, hclsyntax.OpNotEqual:
			e.LHS = guardCall(operandGuardName, e.LHS)
			e.RHS = guardCall(operandGuardName, e.RHS)
		case hclsyntax.OpAdd, hclsyntax.OpSubtract, hclsyntax.OpMultiply, hclsyntax.OpDivide, hclsyntax.OpModulo:
			e.LHS = guardCall(numberGuardName, e.LHS)
			e.RHS = guardCall(numberGuardName, e.RHS)
			// cty's a % 0 is a, silently (a / 0 is an infinity, which the
			// number guard of its use refuses).
			if e.Op == hclsyntax.OpModulo {
				e.RHS = guardCall(divisorGuardName, e.RHS)
			}
		}
	case *hclsyntax.UnaryOpExpr:
		if e.Op == hclsyntax.OpNegate {
			e.Val = guardCall(numberGuardName, e.Val)
		}
	case *hclsyntax.ConditionalExpr:
		e.TrueResult = guardCall(resultGuardName, e.TrueResult)
		e.FalseResult = guardCall(resultGuardName, e.FalseResult)
	case *hclsyntax.SplatExpr:
		e.Source = guardCall(operandGuardName, e.Source)
	case *hclsyntax.TemplateExpr:
		for i, part := range e.Parts {
			e.Parts[i] = guardCall(templateGuardName, part)
		}
	}
	return nil
}

func (w *prepareWalker) Exit(hclsyntax.Node) hcl.Diagnostics {
	w.depth--
	return nil
}

// nodeCount counts the syntax nodes of an expression (0 for nil).
func nodeCount(e hclsyntax.Expression) int {
	if e == nil {
		return 0
	}
	n := 0
	hclsyntax.VisitAll(e, func(hclsyntax.Node) hcl.Diagnostics {
		n++
		return nil
	})
	return n
}

// guardCall wraps e in a call of the named guard function, at e's range.
func guardCall(name string, e hclsyntax.Expression, more ...hclsyntax.Expression) *hclsyntax.FunctionCallExpr {
	r := e.Range()
	return &hclsyntax.FunctionCallExpr{
		Name:            name,
		Args:            append([]hclsyntax.Expression{e}, more...),
		NameRange:       r,
		OpenParenRange:  r,
		CloseParenRange: r,
	}
}

// numberInRange reports whether f is 0 or between 2^-64 and 2^64 in
// magnitude. Larger or tinier numbers have huge decimal forms, which HCL
// computes whenever it converts a number to a string.
func numberInRange(f *big.Float) bool {
	if f.Sign() == 0 {
		return true
	}
	if f.IsInf() {
		return false
	}
	exp := f.MantExp(nil) // |f| = mant * 2^exp, 0.5 <= mant < 1
	return exp >= -maxNumberExp+1 && exp <= maxNumberExp
}

// budget is the evaluation allowance of one file.
type budget struct {
	work, text int64
}

func newBudget() *budget {
	return &budget{work: maxEvalWork, text: maxTemplateBytes}
}

// Errors of a spent budget. Once spent, every later charge fails too, so
// the decoder reports only the first of them.
var (
	errWorkBudget = fmt.Errorf("the expressions of this file compute more than %d values; use smaller collections", maxEvalWork)
	errTextBudget = fmt.Errorf("the string templates of this file produce more than %d bytes", maxTemplateBytes)
)

// charge takes n units of work, failing once the budget is spent.
func (b *budget) charge(n int64) error {
	if n > b.work {
		b.work = 0
		return errWorkBudget
	}
	b.work -= n
	return nil
}

// chargeText takes n bytes of template output.
func (b *budget) chargeText(n int64) error {
	if n > b.text {
		b.text = 0
		return errTextBudget
	}
	b.text -= n
	return nil
}

// guardFunctions returns the guards that prepareBody inserts. Each passes
// its first argument through.
func (b *budget) guardFunctions() map[string]function.Function {
	passThrough := function.Parameter{
		Name: "value", Type: cty.DynamicPseudoType,
		AllowNull: true, AllowUnknown: true, AllowDynamicType: true, AllowMarked: true,
	}
	sameType := func(args []cty.Value) (cty.Type, error) { return args[0].Type(), nil }
	return map[string]function.Function{
		forGuardName: function.New(&function.Spec{
			Params: []function.Parameter{passThrough, {Name: "cost", Type: cty.Number}},
			Type:   sameType,
			Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
				cost, _ := args[1].AsBigFloat().Int64()
				if err := b.charge(cost); err != nil {
					return cty.NilVal, err
				}
				return args[0], nil
			},
		}),
		operandGuardName: function.New(&function.Spec{
			Params: []function.Parameter{passThrough},
			Type:   sameType,
			Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
				n, _ := valueSize(args[0], int(min(b.work, maxEvalWork))+1)
				if err := b.charge(int64(n)); err != nil {
					return cty.NilVal, err
				}
				return args[0], nil
			},
		}),
		// HCL unifies the types of both results, and cty sorts the element
		// types of a tuple to do so: quadratic in its length.
		resultGuardName: function.New(&function.Spec{
			Params: []function.Parameter{passThrough},
			Type:   sameType,
			Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
				if err := b.charge(unifyCost(args[0], min(b.work, maxEvalWork)+1)); err != nil {
					return cty.NilVal, err
				}
				return args[0], nil
			},
		}),
		// Arithmetic on in-range numbers gives numbers whose decimal form is
		// short; strings are checked as the number HCL will convert them to.
		numberGuardName: function.New(&function.Spec{
			Params: []function.Parameter{passThrough},
			Type:   sameType,
			Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
				v := args[0]
				if v.IsKnown() && !v.IsNull() && v.Type() == cty.String {
					if n, err := convert.Convert(v, cty.Number); err == nil {
						v = n // non-numeric strings are reported by HCL
					}
				}
				if v.IsKnown() && !v.IsNull() && v.Type() == cty.Number && !numberInRange(v.AsBigFloat()) {
					return cty.NilVal, &guardError{
						summary: "Number out of range",
						detail:  fmt.Sprintf("Numbers in arithmetic must be 0 or between 2^-%d and 2^%d in magnitude; this operand is %s", maxNumberExp, maxNumberExp, formatNumber(v)),
					}
				}
				return args[0], nil
			},
		}),
		// The right operand of %: not zero.
		divisorGuardName: function.New(&function.Spec{
			Params: []function.Parameter{passThrough},
			Type:   sameType,
			Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
				v, _ := args[0].Unmark()
				if v.IsKnown() && !v.IsNull() && v.Type() == cty.String {
					if n, err := convert.Convert(v, cty.Number); err == nil {
						v = n // non-numeric strings are reported by HCL
					}
				}
				if v.IsKnown() && !v.IsNull() && v.Type() == cty.Number && v.AsBigFloat().Sign() == 0 {
					return cty.NilVal, &guardError{
						summary: "Modulo by zero",
						detail:  "The right operand of % is zero, and a remainder of a division by zero is undefined",
					}
				}
				return args[0], nil
			},
		}),
		templateGuardName: function.New(&function.Spec{
			Params: []function.Parameter{passThrough},
			Type:   sameType,
			Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
				if err := b.chargeText(textSize(args[0])); err != nil {
					return cty.NilVal, err
				}
				return args[0], nil
			},
		}),
	}
}

// guardError is an error of a guard function, with the summary its
// diagnostic gets (the user never wrote a call to the guard).
type guardError struct {
	summary, detail string
}

func (e *guardError) Error() string { return e.detail }

// textSize estimates the bytes a template part adds to its string, before
// HCL converts it.
func textSize(v cty.Value) int64 {
	if !v.IsKnown() || v.IsNull() || v.IsMarked() {
		return 0
	}
	switch v.Type() {
	case cty.String:
		return int64(len(v.AsString()))
	case cty.Number:
		f := v.AsBigFloat()
		if f.IsInf() || f.Sign() == 0 {
			return 4
		}
		exp := int64(f.MantExp(nil))
		// About 0.3 decimal digits per binary digit, plus the 512-bit mantissa.
		return max(exp, -exp)*3/10 + 160
	default:
		return 5
	}
}

// seqLen is the length of a known list, tuple or set.
func seqLen(v cty.Value) (int, bool) {
	if !v.IsKnown() || v.IsNull() || v.IsMarked() {
		return 0, false
	}
	ty := v.Type()
	switch {
	case ty.IsTupleType():
		return len(ty.TupleElementTypes()), true
	case ty.IsListType(), ty.IsSetType():
		return v.LengthInt(), true
	}
	return 0, false
}

// valueSize counts the values nested in v (v itself included), stopping
// early once the count passes limit. It also reports the first number out
// of range. It does not recurse through shared sub-values more than limit
// times, so a value built by repeated doubling is cheap to reject.
func valueSize(v cty.Value, limit int) (n int, badNumber bool) {
	var walk func(v cty.Value)
	walk = func(v cty.Value) {
		if n > limit || badNumber {
			return
		}
		n++
		if !v.IsKnown() || v.IsNull() || v.IsMarked() {
			return
		}
		switch v.Type() {
		case cty.Number:
			badNumber = !numberInRange(v.AsBigFloat())
			return
		case cty.String:
			n += len(v.AsString()) / 64 // comparing strings costs their length
			return
		}
		if v.CanIterateElements() {
			for it := v.ElementIterator(); it.Next() && n <= limit && !badNumber; {
				_, e := it.Element()
				walk(e)
			}
		}
	}
	walk(v)
	return n, badNumber
}

// unifyCost estimates the work of unifying v's type with another: one unit
// per nested value plus the square of the length of every tuple and object
// in it. It stops counting once past limit.
func unifyCost(v cty.Value, limit int64) int64 {
	var cost int64
	var walk func(v cty.Value)
	walk = func(v cty.Value) {
		if cost > limit {
			return
		}
		cost++
		if !v.IsKnown() || v.IsNull() || v.IsMarked() || !v.CanIterateElements() {
			return
		}
		if ty := v.Type(); ty.IsTupleType() || ty.IsObjectType() {
			n := int64(v.LengthInt())
			cost += n * n
		}
		for it := v.ElementIterator(); it.Next() && cost <= limit; {
			_, e := it.Element()
			walk(e)
		}
	}
	walk(v)
	return cost
}
