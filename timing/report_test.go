package timing

import "testing"

// TestCyclesAt_ThesisTables applies the cycle count to the FO4 figures that
// 003_* Tables 5.1 and 5.2 list, and gets the tables' cycle counts.
func TestCyclesAt_ThesisTables(t *testing.T) {
	cases := []struct {
		fo4, clock float64
		want       int
	}{
		{55.92, 40, 2}, {55.92, 48, 2}, {55.92, 56, 1}, // all-to-all, 32 lanes
		{46, 40, 2}, {46, 48, 1}, {46, 56, 1}, // detector, 32 lanes
		{112.25, 40, 3}, {112.25, 48, 3}, {112.25, 56, 3}, // all-to-all, 64 lanes
		{55.17, 40, 2}, {55.17, 48, 2}, {55.17, 56, 1}, // detector, 64 lanes
		{0, 40, 1}, {40, 40, 1}, {40.0001, 40, 2},
	}
	for _, c := range cases {
		if got := CyclesAt(c.fo4, c.clock); got != c.want {
			t.Errorf("CyclesAt(%v, %v) = %d, want %d", c.fo4, c.clock, got, c.want)
		}
	}
}
