package specs

import (
	"math"
	"testing"
)

// TestParsePeriod: frequencies and periods in the units a user writes, a
// bare number refused (it could be FO4).
func TestParsePeriod(t *testing.T) {
	for s, want := range map[string]float64{
		"1GHz": 1000, "1 GHz": 1000, "800MHz": 1250, "1.25ns": 1250, "900ps": 900, "2us": 2e6,
		"500 mhz": 2000, "0.5GHz": 2000, "1e3ps": 1000, "250kHz": 4e6,
	} {
		got, err := ParsePeriod(s)
		if err != nil || math.Abs(got-want) > 1e-9*want {
			t.Errorf("ParsePeriod(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"1000", "", "GHz", "-1ns", "0ps", "1 parsec", "infps", "NaNGHz", "1.2.3ns"} {
		if got, err := ParsePeriod(s); err == nil {
			t.Errorf("ParsePeriod(%q) = %v, want an error", s, got)
		}
	}
	if err := CheckPeriodPS(50); err == nil {
		t.Error("50 ps (20 GHz) accepted")
	}
	if err := CheckPeriodPS(1000); err != nil {
		t.Error(err)
	}
}
