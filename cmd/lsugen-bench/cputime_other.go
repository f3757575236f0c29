//go:build !unix

package main

import "time"

var started = time.Now()

// processCPU falls back to wall time where getrusage is missing.
func processCPU() time.Duration { return time.Since(started) }

// childrenCPU is 0: processCPU's wall time counts the children already.
func childrenCPU() time.Duration { return 0 }
