// Package accelsim reads the instruction traces written by the NVBit-based
// Accel-Sim tracer (a kernelslist.g and its kernel-N.traceg files) and
// yields their memory instructions one warp access at a time, so that
// traces of hundreds of megabytes stream through in bounded memory.
package accelsim

import (
	"fmt"

	"github.com/lsugen/lsugen/tools/trace"
)

// Space is the memory space an instruction addresses.
type Space uint8

const (
	Global Space = iota + 1 // LDG, STG, ATOMG, RED, generic LD/ST
	Shared                  // LDS, STS, ATOMS, LDSM
	Local                   // LDL, STL
	Other                   // texture, constant and the rest
)

// Op is what a memory instruction does.
type Op uint8

const (
	Load   Op = iota + 1
	Store     // STG, STS, STL, ST
	Atomic    // ATOM*, RED
)

// WarpAccess is one executed memory instruction of one warp.
type WarpAccess struct {
	File       string // trace file it came from
	Line       int    // 1-based line of the instruction in File
	Kernel     int    // "-kernel id" of the kernel
	KernelName string // "-kernel name" of the kernel
	PC         uint64
	Opcode     string // as traced, e.g. "LDS.U.128"
	Space      Space
	Op         Op
	Mask       uint32   // active lanes: bit i is lane i
	Width      int      // bytes each active lane accesses (mem_width)
	Addrs      []uint64 // byte address of each active lane, lowest lane first; for Shared the offset in shared memory
	Block      [3]int   // "thread block = X,Y,Z" of the warp
	Warp       int      // "warp = N" within its thread block
	SourceLine int      // CUDA source line (traces with -enable lineinfo = 1), else 0
	// InstrBytes is the SASS instruction size the header's -binary version
	// implies (8 before Volta, 16 from Volta on), 0 without that line.
	InstrBytes int
}

// KernelLabel names w's kernel "k<id> <name>" ("k<id>" without a name),
// as every report of Accel-Sim traces labels kernels.
func KernelLabel(w *WarpAccess) string {
	if w.KernelName == "" {
		return fmt.Sprintf("k%d", w.Kernel)
	}
	return fmt.Sprintf("k%d %s", w.Kernel, w.KernelName)
}

// InstrName names w's instruction group, one PC of one kernel:
// "<kernel label> <opcode> 0x<pc>".
func InstrName(label string, w *WarpAccess) string {
	return fmt.Sprintf("%s %s 0x%04x", label, w.Opcode, w.PC)
}

// Kind is what an instruction of op does, as lsugen's accesses say it.
func (op Op) Kind() trace.Kind {
	switch op {
	case Load:
		return trace.KindLoad
	case Store:
		return trace.KindStore
	case Atomic:
		return trace.KindAtomic
	}
	return trace.KindAny
}
