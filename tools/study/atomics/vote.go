package atomics

import (
	"context"
	"runtime"
	"sync"

	"github.com/lsugen/lsugen/tools/study"
)

// votes is a voting kernel's atomic adds: bins[i] is the bin that thread
// slot i of a segment votes for. A segment is one thread block's loop over
// its inputs (the whole image for the histogram, the edge pixels at one
// angle for the Hough transform): input i of a segment goes to thread
// i mod block, and 32 consecutive inputs are one warp's atomic add.
type votes struct {
	bins   []int32
	segLen int
	n      int // bins of the voting space
}

// config is one point of a sweep: the voting space's layout and copies,
// under one scheme.
type config struct {
	layout Layout
	copies int
	scheme int // index in the run's schemes
}

// sweep computes the cycles of every config on v, in parallel, each
// worker with its own memories. done is called after each config.
func sweep(ctx context.Context, v votes, block int, schemes []Scheme, cfgs []config, done func()) ([]int64, error) {
	out := make([]int64, len(cfgs))
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	workers := min(runtime.GOMAXPROCS(0), len(cfgs))
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mems := make([]*Memory, len(schemes))
			for i := range next {
				c := cfgs[i]
				if mems[c.scheme] == nil {
					m, err := schemes[c.scheme].Memory(Fermi)
					if err != nil {
						mu.Lock()
						firstErr = err
						mu.Unlock()
						continue
					}
					mems[c.scheme] = m
				}
				out[i] = v.cycles(ctx, mems[c.scheme], c.layout, c.copies, block)
				if done != nil {
					mu.Lock()
					done()
					mu.Unlock()
				}
			}
		}()
	}
	for i := range cfgs {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return out, ctx.Err()
}

// cycles is the sum of the warps' atomic-add cycles of v with its voting
// space in copies copies laid out by layout: the kernel's voting time on
// one SM when the warps' atomics do not overlap. (Overlap by a constant
// factor would scale every configuration alike and leave the speed-ups.)
func (v votes) cycles(ctx context.Context, m *Memory, layout Layout, copies, block int) int64 {
	var total int64
	addrs := make([]uint64, 32)
	for seg := 0; seg < len(v.bins); seg += v.segLen {
		if ctx.Err() != nil {
			return 0
		}
		bins := v.bins[seg : seg+v.segLen]
		for w := 0; w < len(bins); w += 32 {
			lanes := min(32, len(bins)-w)
			for l := range lanes {
				i := w + l
				addrs[l] = layout.Addr(int(bins[i]), (i%block)%copies, v.n, copies)
			}
			total += int64(m.Atomic(addrs[:lanes]).Cycles)
		}
	}
	return total
}

// blockParam is the threads per block: a multiple of 32 (whole warps) in
// 32..1024.
func blockParam(opt study.Options, ps []study.Param) (int, error) {
	b, err := opt.Int(ps, "block", 32, 1024)
	if err == nil && b%32 != 0 {
		err = study.Paramf("block: %d is not a multiple of 32", b)
	}
	return int(b), err
}

// MaxWarpAtomics bounds the warp atomics one run simulates (about a
// microsecond of CPU each), so that no parameters make a run of hours.
const MaxWarpAtomics = 1 << 30

// checkWork refuses a run of more than MaxWarpAtomics warp atomics:
// inputs votes in segments of segLen, each configuration of cfgs.
func checkWork(inputs, segLen, cfgs int, shrink string) error {
	warps := int64(inputs/segLen) * int64((segLen+31)/32)
	if n := warps * int64(cfgs); n > MaxWarpAtomics {
		return study.Paramf("%d warp atomics (%d per configuration, %d configurations): over the limit of %d; make %s smaller", n, warps, cfgs, MaxWarpAtomics, shrink)
	}
	return nil
}
