package retime

import (
	"math"
	"time"
)

// EstimateCPU estimates the CPU time of one Pipeline call (with the
// stage timing after it): a combinational unit of gates gates whose
// critical path is delayFO4, pipelined at periodFO4, both in the FO4 of
// the model that places the registers. Work budgets use it to refuse a
// pipelining, or a sweep of them, before it starts.
//
// Fitted on the 2-core Intel Xeon VM (sized model) to the speculative
// coalescers of 32, 64 and 128 lanes (26,812, 98,166 and 980,926 gates),
// the 64-lane all-to-all and the 128-lane neighbour coalescer, at 8 to
// 400 FO4 (0.2 s to 118 s a point): a pipelining costs about 10 µs a
// gate at 100,000 gates, growing as gates^0.3, and each stage beyond the
// first adds 40 %; a stage holds about 60 % of the period in logic at
// short periods. On those 21 points the estimate is 35 % below to 2.6
// times above the measured time, above it at the shortest periods; on 8
// points it was not fitted to (the 32-lane masked coalescers, the 64-lane
// monotonicity detector, the 128-lane all-to-all coalescer at 10 and 40
// FO4) 56 % below to 2.7 times above.
func EstimateCPU(gates int, delayFO4, periodFO4 float64) time.Duration {
	g := float64(gates)
	base := 10e-6 * g * math.Pow(g/1e5, 0.3)
	stages := math.Max(1, math.Ceil(delayFO4/(0.6*periodFO4)))
	return time.Duration(base * (1 + 0.4*(stages-1)) * float64(time.Second))
}
