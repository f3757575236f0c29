package testenv

import (
	"testing"
	"time"
)

// TestLimit_ScaleEnv: the variable multiplies every limit; values under 1
// and garbage are ignored (the load factor still applies, and it is ≥ 1).
func TestLimit_ScaleEnv(t *testing.T) {
	for _, c := range []struct {
		env string
		min float64
	}{{"", 1}, {"4", 4}, {"0.5", 1}, {"x", 1}, {"2.5", 2.5}} {
		t.Setenv(ScaleEnv, c.env)
		if s := Scale(); s < c.min {
			t.Errorf("%s=%q: scale %v, want at least %v", ScaleEnv, c.env, s, c.min)
		}
		if l := Limit(time.Second); l < time.Duration(c.min*float64(time.Second)) {
			t.Errorf("%s=%q: Limit(1s) = %v", ScaleEnv, c.env, l)
		}
	}
	if f := loadFactor(); f < 1 {
		t.Errorf("load factor %v, want at least 1", f)
	}
}
