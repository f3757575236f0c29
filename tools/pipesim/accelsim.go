package pipesim

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math/bits"
	"slices"

	"github.com/lsugen/lsugen/tools/accelsim"
	"github.com/lsugen/lsugen/tools/conflicts"
	"github.com/lsugen/lsugen/tools/trace"
)

// accelSimLimit is MaxInstructions; a test lowers it.
var accelSimLimit = MaxInstructions

// AccelSimOptions say how the shared-memory accesses of an Accel-Sim
// trace become conflict degrees: the bank mapping of word addresses and
// the bank width in bytes (word = byte offset / BankBytes).
type AccelSimOptions struct {
	Banks     conflicts.Mapping // from conflicts.Modulo or conflicts.HashUnit
	BankBytes int               // 4 or 8
}

// AccelSimInfo describes how a trace became a workload.
type AccelSimInfo struct {
	Banks     string `json:"banks"` // the mapping, e.g. "mod 32"
	NumBanks  int    `json:"num_banks"`
	BankBytes int    `json:"bank_bytes"`
	// TracedWarps: the "warp = N" sections of the trace with at least one
	// instruction.
	TracedWarps int `json:"traced_warps"`
	// Contexts: the warp contexts the traced warps ran on.
	Contexts int `json:"contexts"`
	// InstrBytes: the SASS instruction size a byte PC is divided by, 8
	// before Volta and 16 from Volta on: from the kernels' -binary version,
	// or for kernels without one from their PCs (16 when every PC is a
	// multiple of 16, else 8).
	InstrBytes int `json:"instr_bytes"`
	// PCWrapped: instructions whose index (byte PC / instr_bytes) was at
	// or above 2^pc_bits and was taken mod 2^pc_bits.
	PCWrapped int `json:"pc_wrapped"`
	// DegreeClamped: subwarps of shared-memory instructions whose bank
	// cycles exceeded simd_width and were taken as simd_width.
	DegreeClamped int `json:"degree_clamped"`
	// InactiveSubwarps: subwarps of shared-memory instructions without an
	// active lane, given degree 1.
	InactiveSubwarps int `json:"inactive_subwarps"`
}

// FromAccelSim builds a workload from the instructions of an Accel-Sim
// trace, read one at a time from r (docs/traces.md, "pipesim on a real
// kernel"); name names the trace in errors that have no line:
//
//   - The g-th warp section of the trace (counting "warp = N" sections
//     with instructions over all thread blocks and kernels in trace order,
//     from 0) runs on warp context g mod C, C = shape.Warps (MaxWarps when
//     0): a context's program is the programs of its warps concatenated in
//     trace order.
//   - A raw trace's warps (accelsim.Instr.Raw: the tracer's output before
//     post-processing, warps interleaved) are held until their file ends
//     and then added warp by warp in the order post-processing writes
//     them: by thread block (z, then y, then x) and warp.
//   - Each instruction is one instruction of its context's program:
//     shared memory (accelsim.Shared) is shmem, every other memory space
//     mem, an instruction without a memory access alu.
//   - Its PC is the byte PC / the instruction size mod 2^shape.PCBits.
//     The size is the one the kernel's -binary version implies
//     (WarpAccess.InstrBytes); for kernels without that header line it is
//     derived from their PCs once all are read: 16 when every one is a
//     multiple of 16, else 8 (a PC not a multiple of 8 is an error). All
//     kernels of a trace must have one size (they ran on one GPU).
//   - A shmem instruction's degree of subwarp s (lanes s*SIMDWidth ..
//     (s+1)*SIMDWidth-1) is the bank cycles of its active lanes: they are
//     split into accelsim.Phases, and the degrees (largest number of
//     distinct words one bank receives, conflicts.Counter) of those phases
//     added; at least 1 (a subwarp without an active lane still passes
//     MEM0) and at most SIMDWidth (counted in DegreeClamped).
//
// Errors read "FILE:LINE: message"; the instruction limit is checked
// before each instruction is added.
func FromAccelSim(r *accelsim.Reader, name string, shape Shape, opt AccelSimOptions) (*Workload, *AccelSimInfo, error) {
	if err := shape.check(); err != nil {
		return nil, nil, err
	}
	if shape.Subwarps*shape.SIMDWidth != accelsim.WarpSize {
		return nil, nil, fmt.Errorf("pipesim: Accel-Sim traces have warps of %d lanes; the pipeline's warps have %d (%d subwarps of %d)",
			accelsim.WarpSize, shape.Subwarps*shape.SIMDWidth, shape.Subwarps, shape.SIMDWidth)
	}
	if opt.Banks.Map == nil || opt.Banks.Size < 1 || opt.Banks.Size > conflicts.MaxMapSize {
		return nil, nil, errors.New("pipesim: no bank mapping")
	}
	if opt.BankBytes != 4 && opt.BankBytes != 8 {
		return nil, nil, fmt.Errorf("pipesim: bank width %d bytes: want 4 or 8", opt.BankBytes)
	}
	contexts, pcBits := shape.Warps, shape.PCBits
	if contexts == 0 {
		contexts = MaxWarps
	}
	if pcBits == 0 {
		pcBits = 32
	}
	pcMask := uint64(1)<<uint(pcBits) - 1
	info := &AccelSimInfo{Banks: opt.Banks.Name, NumBanks: opt.Banks.Size, BankBytes: opt.BankBytes}
	wl := NewWorkload(shape.Subwarps, shape.SIMDWidth)
	counter := conflicts.NewCounter(opt.Banks)
	var (
		phases  [][]uint64
		degrees = make([]int, shape.Subwarps)
		sub     accelsim.WarpAccess
		lastSeq = -1
		ctx     int
		// instructions of kernels without -binary version, whose PC holds
		// byte PC / 8 until the size their PCs imply is known: runs of
		// consecutive ones in a context (about one per warp section)
		pending   []pendingRun
		pending16 = true // every pending PC is a multiple of 16
		// a raw file's instructions by warp (WarpSeq), held until the file
		// ends, then added warp by warp; their degrees in rawDegs
		raw      = map[int]*rawWarp{}
		rawDegs  []int
		rawCount int
		curFile  string
	)
	setSize := func(size int, file string, line int) error {
		if info.InstrBytes != 0 && info.InstrBytes != size {
			return fmt.Errorf("%s:%d: %d-byte instructions after kernels of %d-byte instructions: trace the kernels of one GPU", file, line, size, info.InstrBytes)
		}
		info.InstrBytes = size
		return nil
	}
	// add appends one instruction to its warp's context, the g-th traced
	// warp's (g counted at each new warp) being context g mod contexts.
	add := func(x rawInstr, file string, degs []int) error {
		errorf := func(format string, a ...any) error {
			return fmt.Errorf("%s:%d: %s", file, x.line, fmt.Sprintf(format, a...))
		}
		if int(x.seq) != lastSeq {
			lastSeq = int(x.seq)
			ctx = info.TracedWarps % contexts
			info.TracedWarps++
		}
		var idx uint64
		if x.instrBytes != 0 {
			if err := setSize(int(x.instrBytes), file, int(x.line)); err != nil {
				return err
			}
			idx = x.pc / uint64(x.instrBytes)
			if idx > pcMask {
				info.PCWrapped++
				idx &= pcMask
			}
		} else {
			if x.pc%accelsim.InstrBytesPreVolta != 0 {
				return errorf("PC 0x%x is not a multiple of %d: SASS instructions are %d or %d bytes", x.pc, accelsim.InstrBytesPreVolta, accelsim.InstrBytesPreVolta, accelsim.InstrBytesVolta)
			}
			if idx = x.pc / accelsim.InstrBytesPreVolta; idx > MaxPC {
				return errorf("PC 0x%x is beyond the 32-bit instruction index pipesim holds", x.pc)
			}
			pending16 = pending16 && x.pc%accelsim.InstrBytesVolta == 0
		}
		if err := wl.Add(ctx, x.kind, idx, degs); err != nil {
			return errorf("%v", err)
		}
		p := wl.Programs[ctx]
		p[len(p)-1].Line = x.line
		if pos := int32(len(p) - 1); x.instrBytes == 0 {
			if n := len(pending); n > 0 && pending[n-1].ctx == int32(ctx) && pending[n-1].to == pos {
				pending[n-1].to++
			} else {
				pending = append(pending, pendingRun{ctx: int32(ctx), from: pos, to: pos + 1})
			}
		}
		return nil
	}
	// flushRaw adds the held instructions of a raw file, warp by warp in
	// the order post-processing writes them (thread block z, y, x, warp).
	flushRaw := func() error {
		warps := slices.SortedFunc(maps.Values(raw), func(a, b *rawWarp) int {
			return slices.Compare(a.key[:], b.key[:])
		})
		for _, w := range warps {
			for _, x := range w.instrs {
				var degs []int
				if x.kind == Shmem {
					degs = rawDegs[x.deg : int(x.deg)+shape.Subwarps]
				}
				if err := add(x, curFile, degs); err != nil {
					return err
				}
			}
		}
		clear(raw)
		rawDegs, rawCount = rawDegs[:0], 0
		return nil
	}
	for {
		in, err := r.NextInstr()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		errorf := func(format string, a ...any) error {
			return fmt.Errorf("%s:%d: %s", in.File, in.Line, fmt.Sprintf(format, a...))
		}
		if in.File != curFile {
			if err := flushRaw(); err != nil {
				return nil, nil, err
			}
			curFile = in.File
		}
		if wl.Instructions()+rawCount >= accelSimLimit {
			return nil, nil, errorf("more than %d warp instructions, pipesim's limit: trace fewer thread blocks or kernels", accelSimLimit)
		}
		kind := ALU
		var degs []int
		switch {
		case in.IsMemory && in.Space == accelsim.Shared:
			kind, degs = Shmem, degrees
			for s := range degrees {
				lo := s * shape.SIMDWidth
				laneBits := uint32((uint64(1)<<uint(shape.SIMDWidth) - 1) << uint(lo))
				first := bits.OnesCount32(in.Mask & (uint32(1)<<uint(lo) - 1))
				n := bits.OnesCount32(in.Mask & laneBits)
				if first+n > len(in.Addrs) { // the reader matches addresses to the mask
					return nil, nil, errorf("%d addresses for active mask %08x", len(in.Addrs), in.Mask)
				}
				if n == 0 {
					info.InactiveSubwarps++
					degrees[s] = 1
					continue
				}
				sub = accelsim.WarpAccess{Mask: in.Mask & laneBits, Width: in.Width, Addrs: in.Addrs[first : first+n]}
				if phases, err = accelsim.Phases(&sub, opt.BankBytes, opt.Banks.Size, phases); err != nil {
					return nil, nil, errorf("%v", err)
				}
				// Atomics count every lane (no broadcast), as the banks
				// serve them and lsugen conflicts counts them.
				d, acc := 0, trace.Access{Kind: in.Op.Kind()}
				for _, p := range phases {
					acc.Addrs = p
					d += counter.AccessDegree(&acc)
				}
				if d > shape.SIMDWidth {
					info.DegreeClamped++
					d = shape.SIMDWidth
				}
				degrees[s] = max(d, 1)
			}
		case in.IsMemory:
			kind = Mem
		}
		x := rawInstr{line: int32(min(in.Line, 1<<31-1)), seq: int64(in.WarpSeq), kind: kind, pc: in.PC, instrBytes: uint8(in.InstrBytes)}
		if in.Raw {
			if kind == Shmem {
				x.deg = int32(len(rawDegs))
				rawDegs = append(rawDegs, degs...)
			}
			w := raw[in.WarpSeq]
			if w == nil {
				w = &rawWarp{key: [4]int{in.Block[2], in.Block[1], in.Block[0], in.Warp}}
				raw[in.WarpSeq] = w
			}
			w.instrs = append(w.instrs, x)
			rawCount++
			continue
		}
		if err := add(x, in.File, degs); err != nil {
			return nil, nil, err
		}
	}
	if err := flushRaw(); err != nil {
		return nil, nil, err
	}
	if wl.Instructions() == 0 {
		return nil, nil, fmt.Errorf("%s: the Accel-Sim trace holds no instructions", name)
	}
	if len(pending) > 0 {
		size := accelsim.InstrBytesVolta
		if !pending16 {
			size = accelsim.InstrBytesPreVolta
		}
		if info.InstrBytes != 0 && info.InstrBytes != size && !(info.InstrBytes == accelsim.InstrBytesPreVolta && pending16) {
			return nil, nil, fmt.Errorf("%s: kernels without -binary version have %d-byte PCs, the others %d-byte instructions: trace the kernels of one GPU", name, size, info.InstrBytes)
		}
		if info.InstrBytes == 0 {
			info.InstrBytes = size
		}
		shift := uint(0) // the held byte PC / 8 becomes byte PC / size
		if info.InstrBytes == accelsim.InstrBytesVolta {
			shift = 1
		}
		for _, run := range pending {
			prog := wl.Programs[run.ctx][run.from:run.to]
			for i := range prog {
				idx := uint64(prog[i].PC) >> shift
				if idx > pcMask {
					info.PCWrapped++
					idx &= pcMask
				}
				prog[i].PC = uint32(idx)
			}
		}
	}
	info.Contexts = len(wl.Programs)
	return wl, info, nil
}

// pendingRun is the instructions from..to-1 of a context's program whose
// PC index waits for the instruction size.
type pendingRun struct {
	ctx, from, to int32
}

// rawWarp is one warp of a raw file: its thread block z, y, x and warp,
// the order post-processing writes warps in, and its instructions.
type rawWarp struct {
	key    [4]int
	instrs []rawInstr
}

// rawInstr is a converted instruction on its way to the workload: held
// while its raw file is read, added at once otherwise.
type rawInstr struct {
	pc         uint64 // byte PC
	line       int32
	seq        int64 // its warp, accelsim.Instr.WarpSeq
	deg        int32 // Shmem: offset of its degrees in the held degrees
	kind       Kind
	instrBytes uint8 // 0: from the PCs
}
