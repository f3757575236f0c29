package units

import (
	"testing"
	"time"

	"github.com/lsugen/lsugen/retime"
)

// TestLeastPeriod_WithinItsWorkLimit: the search for the shortest period
// finds it (to about 1 %) when its probes are cheap, and stops before the
// probes' estimated cost passes twice the refused pipelining's (or
// searchLimit) when they are not: a large unit's refusal is bounded by
// estimates, the same on every machine, and says how far it got.
func TestLeastPeriod_WithinItsWorkLimit(t *testing.T) {
	const shortest = 23.0 // FO4: the unit's real limit
	probes := 0
	meets := func(o retime.Options) bool { probes++; return o.PeriodFO4 >= shortest }
	opt := retime.Options{PeriodFO4: 8}

	cheap := func(float64) time.Duration { return time.Millisecond }
	s := leastPeriod(opt, meets, cheap)
	if !s.found || s.stopped || s.least < shortest || s.least > shortest*1.02 {
		t.Errorf("cheap probes: %+v; want %.0f FO4 found to about 1 %%", s, shortest)
	}

	// A probe estimated at 72 s at 8 FO4, less as the period grows (fewer
	// stages): the limit is 144 s, so the probes at 10, 12.5 and 15.6 FO4
	// run (141 s) and the one at 19.5 FO4 (29 s more) does not.
	probes = 0
	dear := func(p float64) time.Duration { return time.Duration(float64(time.Minute) * 8 / p * 1.2) }
	s = leastPeriod(opt, meets, dear)
	if s.found || !s.stopped || probes != 3 || s.failed != 8*1.25*1.25*1.25 || s.spent > 2*dear(8) {
		t.Errorf("costly probes: %+v after %d probes; want the search stopped after 10, 12.5 and 15.6 FO4 failed, within %v", s, probes, 2*dear(8))
	}

	// Stopped during the bisection: a period is met, not the shortest.
	probes = 0
	mid := func(p float64) time.Duration { return 12 * time.Second }
	s = leastPeriod(retime.Options{PeriodFO4: 20}, meets, mid)
	if !s.found || !s.stopped || s.least < shortest || s.spent > searchLimit {
		t.Errorf("stopped while bisecting: %+v after %d probes; want a period at or above %.0f FO4, the search stopped", s, probes, shortest)
	}
}
