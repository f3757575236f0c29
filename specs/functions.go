package specs

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// functions returns the functions available in spec expressions. Every
// call is charged to b with the size of its arguments (cty walks them all
// on each call) and of its result.
func (b *budget) functions() map[string]function.Function {
	fns := map[string]function.Function{
		"log2":    b.metered(log2Func, nil),
		"clog2":   b.metered(clog2Func, nil),
		"pow2":    b.metered(pow2Func, nil),
		"range":   b.metered(b.rangeFunc(), nil),
		"min":     b.metered(stdlib.MinFunc, nil),
		"max":     b.metered(stdlib.MaxFunc, nil),
		"abs":     b.metered(stdlib.AbsoluteFunc, nil),
		"floor":   b.metered(stdlib.FloorFunc, nil),
		"ceil":    b.metered(stdlib.CeilFunc, nil),
		"length":  b.metered(stdlib.LengthFunc, nil),
		"concat":  b.metered(stdlib.ConcatFunc, concatLen),
		"reverse": b.metered(stdlib.ReverseListFunc, reverseLen),
		"flatten": b.metered(stdlib.FlattenFunc, flattenLen),
	}
	for name, f := range b.guardFunctions() {
		fns[name] = f
	}
	return fns
}

// wholeArg returns a whole-number argument as int64 (ok false when it is
// not whole or does not fit).
func wholeArg(v cty.Value) (int64, bool) {
	f := v.AsBigFloat()
	if !f.IsInt() {
		return 0, false
	}
	i, acc := f.Int64()
	return i, acc == big.Exact
}

// formatNumber prints a number for a message without expanding huge
// exponents into millions of digits.
func formatNumber(v cty.Value) string {
	f := v.AsBigFloat()
	if i, acc := f.Int64(); acc == big.Exact {
		return strconv.FormatInt(i, 10)
	}
	if f.IsInf() || numberInRange(f) {
		return f.Text('g', 10)
	}
	return fmt.Sprintf("about 2^%d", f.MantExp(nil))
}

var numberParam = []function.Parameter{{Name: "x", Type: cty.Number}}

// log2Func is the exact base-2 logarithm of a power of two.
var log2Func = function.New(&function.Spec{
	Description: "Returns n where x = 2^n; x must be a positive power of two.",
	Params:      numberParam,
	Type:        function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		f := args[0].AsBigFloat()
		if !f.IsInt() || f.Sign() <= 0 {
			return cty.NilVal, function.NewArgErrorf(0, "log2 needs a positive whole number, got %s", formatNumber(args[0]))
		}
		mant := new(big.Float)
		exp := f.MantExp(mant)
		if mant.Cmp(big.NewFloat(0.5)) != 0 {
			return cty.NilVal, function.NewArgErrorf(0, "%s is not a power of two, so log2 is not exact; use clog2 to round up", formatNumber(args[0]))
		}
		return cty.NumberIntVal(int64(exp - 1)), nil
	},
})

// clog2Func is the base-2 logarithm rounded up: the bits needed to count
// x values.
var clog2Func = function.New(&function.Spec{
	Description: "Returns the smallest n with 2^n >= x, for a whole x >= 1.",
	Params:      numberParam,
	Type:        function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		f := args[0].AsBigFloat()
		if !f.IsInt() || f.Sign() <= 0 {
			return cty.NilVal, function.NewArgErrorf(0, "clog2 needs a whole number >= 1, got %s", formatNumber(args[0]))
		}
		mant := new(big.Float)
		exp := f.MantExp(mant)
		if mant.Cmp(big.NewFloat(0.5)) == 0 {
			exp-- // exact power of two
		}
		return cty.NumberIntVal(int64(exp)), nil
	},
})

// pow2Func is 2^n.
var pow2Func = function.New(&function.Spec{
	Description: "Returns 2^n for a whole n between 0 and 62.",
	Params:      []function.Parameter{{Name: "n", Type: cty.Number}},
	Type:        function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		n, ok := wholeArg(args[0])
		if !ok || n < 0 || n > 62 {
			return cty.NilVal, function.NewArgErrorf(0, "pow2 needs a whole number between 0 and 62, got %s", formatNumber(args[0]))
		}
		return cty.NumberIntVal(1 << n), nil
	},
})

// rangeFunc works like Terraform's range(end), range(start, end) and
// range(start, end, step), but counts the result before building it and
// refuses more than maxListLen elements.
func (b *budget) rangeFunc() function.Function {
	return function.New(&function.Spec{
		Description: "Returns the numbers from start (default 0) up to but not including end, step (default 1 or -1) apart.",
		VarParam:    &function.Parameter{Name: "params", Type: cty.Number},
		Type:        function.StaticReturnType(cty.List(cty.Number)),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			nums := make([]*big.Float, len(args))
			for i, a := range args {
				nums[i] = a.AsBigFloat()
				if nums[i].IsInf() {
					return cty.NilVal, function.NewArgErrorf(i, "range arguments must be finite")
				}
			}
			start, step := new(big.Float), big.NewFloat(1)
			var end *big.Float
			switch len(nums) {
			case 1:
				end = nums[0]
			case 2:
				start, end = nums[0], nums[1]
			case 3:
				start, end, step = nums[0], nums[1], nums[2]
			default:
				return cty.NilVal, errors.New("range takes one, two or three arguments")
			}
			if len(nums) < 3 && end.Cmp(start) < 0 {
				step = big.NewFloat(-1)
			}
			switch {
			case step.Sign() == 0:
				return cty.NilVal, function.NewArgErrorf(2, "step must not be zero")
			case step.Sign() > 0 && end.Cmp(start) < 0:
				return cty.NilVal, function.NewArgErrorf(1, "end must not be less than start when step is positive")
			case step.Sign() < 0 && end.Cmp(start) > 0:
				return cty.NilVal, function.NewArgErrorf(1, "end must not be greater than start when step is negative")
			}
			// count = ceil((end - start) / step), computed before building.
			q := new(big.Float).Sub(end, start)
			q.Quo(q, step)
			if q.Cmp(big.NewFloat(maxListLen)) > 0 {
				return cty.NilVal, fmt.Errorf("the result would have more than %d elements", maxListLen)
			}
			count, acc := q.Int64()
			if acc == big.Below {
				count++
			}
			if count == 0 {
				return cty.ListValEmpty(cty.Number), nil
			}
			if err := b.charge(count); err != nil {
				return cty.NilVal, err
			}
			vals := make([]cty.Value, count)
			for i := range vals {
				x := new(big.Float).Mul(step, big.NewFloat(float64(i)))
				vals[i] = cty.NumberVal(x.Add(x, start))
			}
			return cty.ListVal(vals), nil
		},
	})
}

// metered wraps f so that each call charges the size of its arguments
// and, when resultLen is given, the length of its result, which must not
// exceed maxListLen. The check runs in the type function because the
// stdlib type functions of concat and flatten already build their result.
func (b *budget) metered(f function.Function, resultLen func(args []cty.Value) (int, error)) function.Function {
	return function.New(&function.Spec{
		Description: f.Description(),
		Params:      f.Params(),
		VarParam:    f.VarParam(),
		Type: func(args []cty.Value) (cty.Type, error) {
			for _, a := range args {
				n, _ := valueSize(a, int(min(b.work, maxEvalWork))+1)
				if err := b.charge(int64(n)); err != nil {
					return cty.NilType, err
				}
			}
			if resultLen != nil {
				n, err := resultLen(args)
				if err == nil && n > maxListLen {
					err = fmt.Errorf("the result would have more than %d elements", maxListLen)
				}
				if err == nil {
					err = b.charge(int64(n))
				}
				if err != nil {
					return cty.NilType, err
				}
			}
			return f.ReturnTypeForValues(args)
		},
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			v, err := f.Call(args)
			if err != nil {
				return v, err
			}
			// Arguments converted from strings may be huge numbers.
			if _, badNumber := valueSize(v, maxListLen+1); badNumber {
				return cty.NilVal, fmt.Errorf("the result is out of range: numbers must be 0 or between 2^-%d and 2^%d in magnitude", maxNumberExp, maxNumberExp)
			}
			return v, nil
		},
	})
}

func concatLen(args []cty.Value) (int, error) {
	total := 0
	for _, a := range args {
		n, _ := seqLen(a)
		total += n
		if total > maxListLen {
			break // avoid overflow on absurd input
		}
	}
	return total, nil
}

func reverseLen(args []cty.Value) (int, error) {
	n, _ := seqLen(args[0])
	return n, nil
}

// flattenLen counts the leaves flatten would produce, giving up after
// visiting a bounded number of values.
func flattenLen(args []cty.Value) (int, error) {
	leaves, visits := 0, 0
	var walk func(v cty.Value) error
	walk = func(v cty.Value) error {
		visits++
		if visits > 4*maxListLen {
			return fmt.Errorf("the argument holds more than %d nested values", 4*maxListLen)
		}
		if _, ok := seqLen(v); !ok {
			leaves++
			return nil
		}
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			if err := walk(e); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(args[0]); err != nil {
		return 0, err
	}
	if _, ok := seqLen(args[0]); !ok {
		return 0, nil // not a sequence: stdlib reports it
	}
	return leaves, nil
}
