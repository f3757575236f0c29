package pipesim

import (
	"fmt"
	"math/bits"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/specs"
)

// Run is the outcome of one simulation: one pipeline variant, with or
// without the bank-conflict-aware warp ready mask.
type Run struct {
	Variant string `json:"variant"`
	Mask    bool   `json:"mask"`
	// Cycles from the first scheduling cycle to the last writeback,
	// both included.
	Cycles              int64   `json:"cycles"`
	WarpInstructions    int64   `json:"warp_instructions"`
	SubwarpInstructions int64   `json:"subwarp_instructions"`
	IPC                 float64 `json:"ipc"`         // warp instructions per cycle
	SubwarpIPC          float64 `json:"subwarp_ipc"` // subwarp instructions per cycle
	Stalls              Stalls  `json:"stalls"`
	SchedFails          Fails   `json:"sched_fails"`
	WBBubbles           int64   `json:"wb_bubbles"`
	// MaskCycles: cycles in which the mask was on (memory warps masked).
	MaskCycles int64 `json:"mask_cycles"`
	// HistoryLookups and HistoryHits: shared-memory warps scheduled, and
	// how many of them found their PC in the bank conflict history cache.
	HistoryLookups int64 `json:"history_lookups"`
	HistoryHits    int64 `json:"history_hits"`
	// Speedup is the baseline_unified run without the mask's cycles over
	// this run's (set by Study).
	Speedup float64 `json:"speedup"`
}

// Stalls counts the cycles in which the pipeline refused EXE's subwarp.
type Stalls struct {
	BankConflict      int64 `json:"bank_conflict"`
	WritebackConflict int64 `json:"writeback_conflict"`
	Total             int64 `json:"total"`
}

// Fails counts the cycles in which the scheduler could issue (the front
// end was free and some warp had instructions left) but no warp was ready:
// Masked when some warp was ready before the mask, NoneReady otherwise.
type Fails struct {
	Masked    int64 `json:"masked"`
	NoneReady int64 `json:"none_ready"`
	Total     int64 `json:"total"`
}

// Options tune Simulate.
type Options struct {
	// MaxCycles stops a run that has not finished after this many cycles
	// with an error; 0 chooses CycleLimit.
	MaxCycles int64
}

// CycleLimit is the default cycle limit of a workload on a pipeline: a
// bound no terminating run can reach (every subwarp alone in the pipeline,
// at its longest MEM0 occupancy, plus slack).
func CycleLimit(wl *Workload, p *specs.ElasticPipeline) int64 {
	occ := int64((p.SIMDWidth + p.ShmemPorts - 1) / p.ShmemPorts)
	per := occ + 2*int64(p.MemStages) + int64(wl.Subwarps) + 4
	return 1000 + int64(wl.Instructions())*int64(wl.Subwarps)*per
}

// DefaultMask is the paper's ready mask (§4.2: 256 sets x 2 ways, 14-bit
// PCs) for pipeline p and a workload of warps warps.
func DefaultMask(p *specs.ElasticPipeline, warps int) *specs.WarpReadyMask {
	return &specs.WarpReadyMask{
		Name: "default", WarpContexts: max(1, min(warps, MaxWarps)),
		HistorySets: 256, HistoryWays: 2, PCBits: 14,
		WarpSize: p.WarpSize, SIMDWidth: p.SIMDWidth, ShmemPorts: p.ShmemPorts,
	}
}

// Subwarps in flight are kept in slots, reused once written back. A tag
// is seq<<slotBits | slot, seq the subwarp's sequence number: unique for
// the whole run, and it names its slot. The pipeline holds a few dozen
// subwarps at most, so the slots stay few; an instruction may stay long in
// a NONMEM path that loses writeback to the memory path every cycle, so
// slots are not reused in a fixed order.
const slotBits = 20

type inflight struct {
	tag  uint64
	used bool
	warp uint8
	kind Kind
	pc   uint32
	deg  uint8
}

// Simulate runs the workload on the model of pipeline p, variant and all
// (not its tag width: tags are 64-bit, unique for the run), with the
// ready mask mask, or without one when mask is nil. See the package
// documentation for the system model.
func Simulate(wl *Workload, p specs.ElasticPipeline, mask *specs.WarpReadyMask, opt Options) (Run, error) {
	S := wl.Subwarps
	if p.WarpSize < 1 || p.SIMDWidth < 1 || p.WarpSize/p.SIMDWidth != S || p.SIMDWidth != wl.SIMDWidth {
		return Run{}, fmt.Errorf("pipesim: the workload has %d subwarps of %d lanes, pipeline %s has warp_size %d, simd_width %d",
			S, wl.SIMDWidth, p.Name, p.WarpSize, p.SIMDWidth)
	}
	nw := len(wl.Programs)
	if nw == 0 || nw > MaxWarps {
		return Run{}, fmt.Errorf("pipesim: %d warps: want 1..%d", nw, MaxWarps)
	}
	p.TagBits = 64
	// The model constructors panic on configurations ForSequential refuses
	// with an error; ask it first.
	if _, err := model.ForSequential(&p); err != nil {
		return Run{}, fmt.Errorf("pipesim: elastic_pipeline %s: %w", p.Name, err)
	}
	run := Run{Variant: p.PipeVariant, Mask: mask != nil}
	pipe := model.NewPipeline(&p)
	pipe.Reset()

	var rm *model.ReadyMask
	var log2P, maskContexts uint
	var pcMask uint64
	if mask != nil {
		if mask.WarpSize != p.WarpSize || mask.SIMDWidth != p.SIMDWidth || mask.ShmemPorts != p.ShmemPorts {
			return Run{}, fmt.Errorf("pipesim: warp_ready_mask %s (warp_size %d, simd_width %d, shmem_ports %d) does not match elastic_pipeline %s (%d, %d, %d)",
				mask.Name, mask.WarpSize, mask.SIMDWidth, mask.ShmemPorts, p.Name, p.WarpSize, p.SIMDWidth, p.ShmemPorts)
		}
		if nw > mask.WarpContexts {
			return Run{}, fmt.Errorf("pipesim: the workload has %d warps, warp_ready_mask %s has %d warp contexts", nw, mask.Name, mask.WarpContexts)
		}
		if mask.WarpSize < 2 {
			return Run{}, fmt.Errorf("pipesim: the warp ready mask needs warp_size >= 2")
		}
		if _, err := model.ForSequential(mask); err != nil {
			return Run{}, fmt.Errorf("pipesim: warp_ready_mask %s: %w", mask.Name, err)
		}
		rm = model.NewReadyMask(mask)
		rm.Reset()
		rm.Cycle(model.ReadyIn{Launch: true}) // the kernel launch, before cycle 0
		log2P = uint(bits.TrailingZeros(uint(mask.ShmemPorts)))
		maskContexts = uint(mask.WarpContexts)
		pcMask = 1<<uint(mask.PCBits) - 1
	}
	limit := opt.MaxCycles
	if limit <= 0 {
		limit = CycleLimit(wl, &p)
	}

	// Warp state: next[w] is the index of w's next instruction to issue,
	// wbDone[w] the subwarps of its instruction in flight written back.
	next := make([]int, nw)
	wbDone := make([]int, nw)
	var ready, isMem uint64 // bit w: warp w ready; its next instruction is a memory one
	setNext := func(w int) {
		bit := uint64(1) << uint(w)
		isMem &^= bit
		if next[w] < len(wl.Programs[w]) && wl.Programs[w][next[w]].Kind != ALU {
			isMem |= bit
		}
	}
	for w, prog := range wl.Programs {
		if len(prog) > 0 {
			ready |= 1 << uint(w)
		}
		setNext(w)
	}
	remaining := int64(wl.Instructions()) // not yet written back
	unissued := remaining                 // not yet scheduled

	// The front end: the warp instruction being offered, subwarp by subwarp.
	cur := -1
	var curIn Instr
	var curDeg []uint8
	curSub := 0
	rr := 0 // round robin: the first warp to consider next

	var slots []inflight
	var free []uint32
	var seq uint64
	counter := 0 // mirror of the mask's last_warp_bkconf_degree counter

	for t := int64(0); remaining > 0; t++ {
		if t >= limit {
			return run, fmt.Errorf("pipesim: %s: %d of %d warp instructions not written back after %d cycles (the cycle limit)",
				p.PipeVariant, remaining, wl.Instructions(), limit)
		}
		readyIn, isMemIn := ready, isMem
		maskOn := rm != nil && counter != 0
		avail := ready
		if maskOn {
			avail &^= isMem
			run.MaskCycles++
		}
		var sched, schedShmem bool
		var schedPC uint64
		if cur < 0 && unissued > 0 {
			if avail == 0 {
				if ready != 0 {
					run.SchedFails.Masked++
				} else {
					run.SchedFails.NoneReady++
				}
			} else {
				w := (bits.TrailingZeros64(bits.RotateLeft64(avail, -rr)) + rr) & 63
				cur, curSub = w, 0
				curIn = wl.Programs[w][next[w]]
				curDeg = wl.Degrees(curIn)
				next[w]++
				unissued--
				wbDone[w] = 0
				ready &^= 1 << uint(w)
				setNext(w)
				rr = (w + 1) % nw
				sched, schedShmem, schedPC = true, curIn.Kind == Shmem, uint64(curIn.PC)
			}
		}

		var in model.PipeIn
		var slot uint32
		if cur >= 0 {
			if len(free) > 0 {
				slot = free[len(free)-1]
			} else {
				slot = uint32(len(slots))
			}
			in = model.PipeIn{Valid: true, Kind: model.PipeKind(curIn.Kind), Tag: seq<<slotBits | uint64(slot)}
			if curDeg != nil {
				in.Degree = int(curDeg[curSub])
			}
		}
		out := pipe.Cycle(in)
		switch {
		case out.Stall && !in.Valid:
			return run, fmt.Errorf("pipesim: cycle %d: the pipeline model stalled with nothing offered", t)
		case out.Stall && out.Cause == model.BankConflictStall:
			run.Stalls.BankConflict++
		case out.Stall && out.Cause == model.WritebackConflictStall:
			run.Stalls.WritebackConflict++
		case out.Stall:
			return run, fmt.Errorf("pipesim: cycle %d: the pipeline model stalled with cause %v", t, out.Cause)
		case in.Valid:
			if int(slot) == len(slots) {
				if slot == 1<<slotBits {
					return run, fmt.Errorf("pipesim: cycle %d: more than %d subwarps in flight", t, 1<<slotBits)
				}
				slots = append(slots, inflight{})
			} else {
				free = free[:len(free)-1]
			}
			e := &slots[slot]
			*e = inflight{tag: in.Tag, used: true, warp: uint8(cur), kind: curIn.Kind, pc: curIn.PC}
			if curDeg != nil {
				e.deg = curDeg[curSub]
			}
			seq++
			curSub++
			if curSub == S {
				cur = -1
			}
		}
		if out.Bubble {
			run.WBBubbles++
		}

		var res model.ReadyIn
		if out.MEM0Done {
			e, err := lookup(slots, out.MEM0Tag, t, "MEM0")
			if err != nil {
				return run, err
			}
			if e.kind == Shmem {
				res.ResValid, res.ResPC, res.ResDegree = true, uint64(e.pc), int(e.deg)
			}
		}
		if out.WBValid {
			e, err := lookup(slots, out.WBTag, t, "writeback")
			if err != nil {
				return run, err
			}
			w := int(e.warp)
			e.used = false
			free = append(free, uint32(out.WBTag&(1<<slotBits-1)))
			wbDone[w]++
			if wbDone[w] == S {
				// The warp's instruction is complete: ready next cycle.
				remaining--
				run.WarpInstructions++
				if next[w] < len(wl.Programs[w]) {
					ready |= 1 << uint(w)
				}
			}
		}

		if rm != nil {
			res.Ready, res.IsMem = readyIn, isMemIn
			res.SchedValid, res.SchedShmem, res.SchedPC = sched, schedShmem, schedPC&pcMask
			ro := rm.Cycle(res)
			want := readyIn
			if maskOn {
				want &^= isMemIn
			}
			if maskContexts < 64 {
				want &= 1<<maskContexts - 1
			}
			if ro.Mask != maskOn || ro.Ready != want {
				return run, fmt.Errorf("pipesim: cycle %d: the ready mask model gave mask %v, ready %#x; the scheduler expected mask %v, ready %#x",
					t, ro.Mask, ro.Ready, maskOn, want)
			}
			// Mirror the counter C: the mask of the next cycle is C != 0.
			switch {
			case sched && schedShmem:
				run.HistoryLookups++
				if ro.Hit {
					run.HistoryHits++
				}
				pred := max(ro.Pred, 0)
				counter = (pred + S - 1) >> log2P
			case counter > 0:
				counter--
			}
		}
		run.Cycles = t + 1
	}
	run.SubwarpInstructions = run.WarpInstructions * int64(S)
	if run.Cycles > 0 {
		run.IPC = float64(run.WarpInstructions) / float64(run.Cycles)
		run.SubwarpIPC = float64(run.SubwarpInstructions) / float64(run.Cycles)
	}
	run.Stalls.Total = run.Stalls.BankConflict + run.Stalls.WritebackConflict
	run.SchedFails.Total = run.SchedFails.Masked + run.SchedFails.NoneReady
	return run, nil
}

func lookup(slots []inflight, tag uint64, t int64, where string) (*inflight, error) {
	i := tag & (1<<slotBits - 1)
	if i >= uint64(len(slots)) || !slots[i].used || slots[i].tag != tag {
		return nil, fmt.Errorf("pipesim: cycle %d: the pipeline model reports tag %#x at %s, which is not in flight", t, tag, where)
	}
	return &slots[i], nil
}
