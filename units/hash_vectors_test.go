package units

import (
	"slices"
	"testing"
)

// TestModCorners lists, for 24 banks (2^3 * (2^2 - 1)) over 12 address
// bits, the multiples of 24 at both ends with their neighbours and the
// all-ones chunk runs above the 3 pass-through bits.
func TestModCorners(t *testing.T) {
	got := modCorners(12, 24)
	for _, want := range []uint64{0, 4095, 23, 24, 25, 47, 48, 49, 4079, 4080, 4081, 4055, 4056, 0b11000, 0b11111, 0b1111000, 0b11111111000, 0b11111110000} {
		if !slices.Contains(got, want) {
			t.Errorf("corner %d (%#b) missing", want, want)
		}
	}
	for _, a := range got {
		if a > 4095 {
			t.Errorf("corner %d above the 12-bit range", a)
		}
	}
	if wide := modCorners(64, 1023); !slices.Contains(wide, ^uint64(0)) || !slices.Contains(wide, ^uint64(0)/1023*1023) {
		t.Errorf("64-bit corners lack all ones or the last multiple of 1023")
	}
}
