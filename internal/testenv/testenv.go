// Package testenv gives tests time limits that hold on a slow or busy
// machine, and remembers external tools' checks that passed (remember.go).
// A limit in a test only stops a hang; it never measures speed.
// Like meson's --timeout-multiplier, every limit is scaled: by
// LSUGEN_TEST_TIME_SCALE when it is set (a number ≥ 1), and by the
// machine's load, read when the limit is asked for, so that a run beside
// other work gets the time its share of the CPUs needs.
//
// Only tests import this package.
package testenv

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// ScaleEnv names the variable that multiplies every test time limit.
const ScaleEnv = "LSUGEN_TEST_TIME_SCALE"

// Limit is d scaled for this machine: d × Scale().
func Limit(d time.Duration) time.Duration {
	return time.Duration(float64(d) * Scale())
}

// Scale is the factor every limit is multiplied by: LSUGEN_TEST_TIME_SCALE
// (when set and ≥ 1) times the load factor, the one-minute load average
// per CPU when it is over 1.
func Scale() float64 {
	s := 1.0
	if v, err := strconv.ParseFloat(os.Getenv(ScaleEnv), 64); err == nil && v >= 1 {
		s = v
	}
	return s * loadFactor()
}

// loadFactor is the one-minute load average per CPU, at least 1 (1 where
// the system does not say).
func loadFactor() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 1
	}
	load, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 1
	}
	if per := load / float64(runtime.NumCPU()); per > 1 {
		return per
	}
	return 1
}
