package hashspeed

import (
	"context"
	"errors"
	"math"

	"github.com/lsugen/lsugen/tools/conflicts"
)

// Timing is the execution-time model's parameters.
//
// The model is one SM running a workload's warps in order, Warps of
// them resident at a time (a finished warp's context takes the next
// warp when its last instruction completes). Each cycle the scheduler
// issues one instruction, from the first resident warp, in round-robin
// order after the last one that issued, whose previous instruction has
// completed (every instruction depends on the one before it: no
// instruction-level parallelism within a warp).
//
//   - An other instruction completes OtherLatency cycles after issue.
//   - A shared-memory access needs the banks free: it holds them for d
//     cycles, d its bank cycles (the sum over its phases of the conflict
//     degree, conflicts.Counter.AccessDegree), and completes
//     ShmLatency + d − 1 + HashCycles cycles after issue. HashCycles is
//     the bank hash's extra pipeline stage: 1 for a configurable hash
//     (000_* §4.5), 0 for mod N and the fixed XOR. It adds latency, not
//     bank occupancy: other warps hide it when they can issue.
//
// The execution time is the cycle the last instruction completes.
type Timing struct {
	Warps        int
	ShmLatency   int
	OtherLatency int
	HashCycles   int
}

// degrees is each instruction's bank cycles under a mapping, warp by
// warp: 0 for an other instruction.
func degrees(w *Workload, m conflicts.Mapping) [][]int32 {
	c := conflicts.NewCounter(m)
	out := make([][]int32, len(w.Warps))
	for i, p := range w.Warps {
		out[i] = make([]int32, len(p))
		for j, in := range p {
			for _, ph := range in.Phases {
				if in.Atomic {
					out[i][j] += int32(c.LaneDegree(ph))
				} else {
					out[i][j] += int32(c.Degree(ph))
				}
			}
		}
	}
	return out
}

// conflictsOf is Σ (degree − 1) over the accesses (phases) under m,
// every lane group counted with broadcast, as the search counts them.
func conflictsOf(w *Workload, m conflicts.Mapping) int64 {
	c := conflicts.NewCounter(m)
	var n int64
	for _, p := range w.Warps {
		for _, in := range p {
			for _, ph := range in.Phases {
				n += int64(max(c.Degree(ph)-1, 0))
			}
		}
	}
	return n
}

// errStuck is a bug in simulate: no warp can ever issue.
var errStuck = errors.New("hashspeed: the execution-time model made no progress")

// simulate is the execution time in cycles of the warps' programs (each
// instruction's bank cycles, 0 for an other instruction) under t.
func simulate(ctx context.Context, progs [][]int32, t Timing) (int64, error) {
	type warpSlot struct {
		warp, pc int
		ready    int64 // cycle its next instruction may issue
		live     bool
	}
	var warps [][]int32
	for _, p := range progs {
		if len(p) > 0 {
			warps = append(warps, p)
		}
	}
	slots := make([]warpSlot, min(t.Warps, len(warps)))
	next := 0
	for i := range slots {
		slots[i] = warpSlot{warp: next, live: true}
		next++
	}
	var now, banksFree, end int64
	live, rr := len(slots), 0
	for steps := 0; live > 0; steps++ {
		if steps&4095 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		wake := int64(math.MaxInt64)
		issued := false
		for i := range slots {
			s := &slots[(rr+i)%len(slots)]
			if !s.live {
				continue
			}
			if s.ready > now {
				wake = min(wake, s.ready)
				continue
			}
			d := int64(warps[s.warp][s.pc])
			if d > 0 && banksFree > now {
				wake = min(wake, banksFree)
				continue
			}
			if d > 0 {
				banksFree = now + d
				s.ready = now + int64(t.ShmLatency) + d - 1 + int64(t.HashCycles)
			} else {
				s.ready = now + int64(t.OtherLatency)
			}
			if s.pc++; s.pc == len(warps[s.warp]) {
				end = max(end, s.ready)
				if next < len(warps) {
					*s = warpSlot{warp: next, ready: s.ready, live: true}
					next++
				} else {
					s.live = false
					live--
				}
			}
			rr = (rr + i + 1) % len(slots)
			issued = true
			break
		}
		switch {
		case issued:
			now++
		case wake == math.MaxInt64:
			return 0, errStuck
		default:
			now = wake
		}
	}
	return max(end, now), nil
}
