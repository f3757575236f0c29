package latency

import (
	"context"
	"fmt"
)

// Limits of a Config, checked before a run.
const (
	MaxContexts = 1024
	MaxLatency  = 100000 // cycles of any one latency
	MaxWarps    = 1 << 20
)

// Coalescer is a coalescer's latency in cycles: of an access whose
// addresses are monotonic (a speculative coalescer's fast path) and of
// any other; a coalescer that does not speculate has Fast = Slow.
type Coalescer struct {
	Name       string
	Fast, Slow int
}

// Config is one streaming multiprocessor (SM) of the model.
type Config struct {
	// Contexts is the warp contexts: at most this many warps are resident,
	// a context taking the next warp when its warp's last instruction
	// completes.
	Contexts int
	// Warps is how many warps are launched: the workload's warps in trace
	// order, again and again (warp i runs the program of the workload's
	// warp i mod its warps), at least once each.
	Warps int
	// ALULatency is the cycles of every instruction that is not an LDG or
	// STG; MemLatency the cycles of the memory behind the coalescer.
	ALULatency, MemLatency int
	// Coalescer is the coalescer's latency.
	Coalescer Coalescer
	// Pipelined: the coalescer takes an access every cycle (as the clocked
	// speculative unit does, ready_o = 1); else an access holds it for
	// its whole latency (a multi-cycle combinational unit).
	Pipelined bool
}

func (c Config) check() error {
	switch {
	case c.Contexts < 1 || c.Contexts > MaxContexts:
		return fmt.Errorf("%d warp contexts: want 1 to %d", c.Contexts, MaxContexts)
	case c.Warps < 0 || c.Warps > MaxWarps:
		return fmt.Errorf("%d warps: want 0 to %d", c.Warps, MaxWarps)
	case c.ALULatency < 1 || c.ALULatency > MaxLatency:
		return fmt.Errorf("ALU latency %d cycles: want 1 to %d", c.ALULatency, MaxLatency)
	case c.MemLatency < 0 || c.MemLatency > MaxLatency:
		return fmt.Errorf("memory latency %d cycles: want 0 to %d", c.MemLatency, MaxLatency)
	case c.Coalescer.Fast < 1 || c.Coalescer.Slow < 1 || c.Coalescer.Fast > MaxLatency || c.Coalescer.Slow > MaxLatency:
		return fmt.Errorf("coalescer %s: %d / %d cycles: want 1 to %d each", c.Coalescer.Name, c.Coalescer.Fast, c.Coalescer.Slow, MaxLatency)
	}
	return nil
}

// Run is what one simulation measured.
type Run struct {
	// Cycles is when the last warp's last instruction completes.
	Cycles int64
	// Instructions and Accesses are those issued (LDG/STG among them).
	Instructions, Accesses int64
	// CoalescerBusy is the cycles in which the coalescer held an access.
	CoalescerBusy int64
}

// context is one warp context: its warp's program and next instruction,
// and when that instruction may issue (the previous one has completed).
type warpContext struct {
	prog  []Op
	pc    int
	ready int64
	busy  bool
}

// Simulate runs workload w on the SM c, as 003_* §4.2 describes its
// GPGPU-Sim change: each cycle a round-robin scheduler, starting after
// the context it last issued from, issues one instruction of the first
// warp that is ready, skipping warps that are not, so that other warps
// hide a warp's latency. A warp's instructions run in order, each after
// the previous has completed (the model has no register dependences:
// every instruction waits for the one before). An LDG or STG passes the
// coalescer (its Fast or Slow cycles, by the access's monotonicity) and
// then the memory (MemLatency); it cannot issue while the coalescer is
// held by another access. Everything else takes ALULatency. It honours
// ctx.
func Simulate(ctx context.Context, w *Workload, c Config) (Run, error) {
	if err := c.check(); err != nil {
		return Run{}, err
	}
	if w == nil || len(w.Warps) == 0 {
		return Run{}, errNoWarps
	}
	total := max(c.Warps, len(w.Warps))
	ctxs := make([]warpContext, c.Contexts)
	var (
		run      Run
		now      int64
		coalFree int64 // the first cycle the coalescer takes an access
		launched int
		retired  int
		rr       int // the context the scheduler looks at first
	)
	for iter := 0; retired < total; iter++ {
		if iter%65536 == 0 {
			if err := ctx.Err(); err != nil {
				return Run{}, err
			}
		}
		// Retire the warps whose last instruction has completed, and give
		// free contexts the next warps.
		for i := range ctxs {
			s := &ctxs[i]
			if s.busy && s.pc == len(s.prog) && s.ready <= now {
				s.busy = false
				retired++
				run.Cycles = max(run.Cycles, s.ready)
			}
			if !s.busy && launched < total {
				*s = warpContext{prog: w.Warps[launched%len(w.Warps)], ready: now, busy: true}
				launched++
			}
		}
		issued := false
		for k := 0; k < c.Contexts && !issued; k++ {
			i := (rr + k) % c.Contexts
			s := &ctxs[i]
			if !s.busy || s.pc == len(s.prog) || s.ready > now {
				continue
			}
			lat := int64(c.ALULatency)
			if op := s.prog[s.pc]; op != Other {
				if coalFree > now {
					continue // the coalescer is held: another warp may issue
				}
				cl := c.Coalescer.Slow
				if op == Monotonic {
					cl = c.Coalescer.Fast
				}
				hold := int64(cl)
				if c.Pipelined {
					hold = 1
				}
				coalFree = now + hold
				run.CoalescerBusy += hold
				run.Accesses++
				lat = int64(cl + c.MemLatency)
			}
			s.ready = now + lat
			s.pc++
			run.Instructions++
			issued = true
			rr = (i + 1) % c.Contexts
		}
		if issued {
			now++
			continue
		}
		// Nothing could issue: go to the next cycle in which something
		// can, an instruction completing or the coalescer freeing.
		next := int64(-1)
		for i := range ctxs {
			s := &ctxs[i]
			if !s.busy {
				continue
			}
			t := s.ready
			if t <= now { // ready, waiting for the coalescer
				t = coalFree
			}
			if next < 0 || t < next {
				next = t
			}
		}
		if next <= now {
			next = now + 1
		}
		now = next
	}
	return run, nil
}
