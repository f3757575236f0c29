package main

import (
	"fmt"

	"github.com/lsugen/lsugen/retime/sweep"
)

// fitJobs is how many of the sweep's points run at once: --jobs, or as
// many of its largest unit's points as fit the memory this process can
// still take (memoryAvailable; sweep.PointBytes), saying so on standard
// error; at least one. Under an address-space limit (ulimit -v) that
// leaves less than one point, the sweep is refused before it starts,
// where it would otherwise die of running out of memory.
func fitJobs(a *app, jobs int, us []sweep.Unit) (int, error) {
	largest, gates := "", 0
	for _, u := range us {
		if u.Design.Clock == "" && len(u.Design.Gates) > gates {
			largest, gates = u.Design.Name, len(u.Design.Gates)
		}
	}
	avail, limited, ok := memoryAvailable()
	per := sweep.PointBytes(gates)
	if !ok || gates == 0 || int64(jobs)*per <= avail {
		return jobs, nil
	}
	fit := int(avail / per)
	if fit < 1 {
		if limited {
			return 0, usagef("a point of %s (%d gates) is estimated at %s of memory, more than the %s the address-space limit (ulimit -v) leaves: raise the limit or sweep smaller units (--unit)",
				largest, gates, memString(per), memString(avail))
		}
		fit = 1
	}
	points := "points"
	if fit == 1 {
		points = "point"
	}
	fmt.Fprintf(a.stderr, "lsugen timing sweep: --jobs %d: %d %s at once, as many as fit the %s of memory there is (a point of %s, %d gates, is estimated at %s)\n",
		jobs, fit, points, memString(avail), largest, gates, memString(per))
	return fit, nil
}

// memString is n bytes in MiB, or GiB from 10 GiB on.
func memString(n int64) string {
	if n >= 10<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%d MiB", n>>20)
}
