// Package interp holds the table interpolation shared by the liberty
// reader's lookup tables and the timing model's transition tables.
package interp

import "sort"

// Bracket returns the index i of the segment [xs[i], xs[i+1]] to
// interpolate x in (the first or last segment outside the range) and the
// fraction of x along it. xs is sorted ascending.
func Bracket(xs []float64, x float64) (int, float64) {
	if len(xs) < 2 {
		return 0, 0
	}
	i := sort.SearchFloat64s(xs, x) - 1
	i = max(0, min(i, len(xs)-2))
	d := xs[i+1] - xs[i]
	if d == 0 {
		return i, 0
	}
	return i, (x - xs[i]) / d
}
