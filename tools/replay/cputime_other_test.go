//go:build !unix

package replay

import "time"

// processCPU is not measured here.
func processCPU() time.Duration { return 0 }
