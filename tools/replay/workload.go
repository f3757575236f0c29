// Package replay drives the shared-memory instructions of traces (Accel-Sim
// traces and lsugen traces) through a generated shared_memory unit, in
// lockstep with its behavioural model on a simulation engine, and measures
// each instruction's passes and cycles beside what `lsugen conflicts`
// predicts under the unit's hash and bank width (docs/shared-memory.md,
// Replay).
package replay

import (
	"errors"
	"fmt"
	"io"
	"math/bits"
	"strings"

	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/tools/accelsim"
	"github.com/lsugen/lsugen/tools/conflicts"
	"github.com/lsugen/lsugen/tools/trace"
)

// MaxInstrs bounds the warp instructions one replay holds (with their
// addresses, about 140 bytes each for 32 lanes).
const MaxInstrs = 1 << 23

// Instr is one warp instruction as the unit gets it.
type Instr struct {
	Group     int32 // index into Workload.Groups; -1 for the fill
	Line      int32 // line in its trace file
	Op        specs.ShmemOp
	Width     specs.ShmemWidth
	Active    uint64   // unit lanes
	Addrs     []uint32 // byte address of each active lane, lowest lane first
	Predicted int32    // the passes lsugen conflicts predicts
}

// Group is one instruction group of a trace: one PC of one kernel for
// Accel-Sim traces ("k<id> <kernel> <opcode> 0x<pc>"), one @name for lsugen
// traces.
type Group struct {
	Input  int    // index into Workload.Inputs
	Name   string // as lsugen conflicts names it
	Kernel string // "k<id> <kernel>"; the file for lsugen traces
}

// Input is one trace file and what of it was not replayed.
type Input struct {
	File string
	// SkippedNotShared counts memory instructions not on shared memory,
	// SkippedInactive shared ones without an active lane, as lsugen
	// conflicts counts them.
	SkippedNotShared, SkippedInactive int
}

// Workload is the instructions of the traces, ready for one unit: first
// the fill (stores of every byte, so that no instruction reads storage
// without a reset value), then the traces' instructions in trace order.
type Workload struct {
	Unit    *specs.SharedMemory
	Banks   conflicts.Mapping
	Inputs  []Input
	Groups  []Group
	Fill    []Instr
	Instrs  []Instr
	counter *conflicts.Counter
	groupOf map[groupKey]int
	// byteAddressed: an input is an Accel-Sim trace, whose byte addresses
	// --bank-bytes divides.
	byteAddressed bool
}

// groupKey names a group: its input and name.
type groupKey struct {
	input int
	name  string
}

// NewWorkload prepares an empty workload for u: its bank mapping is the
// one lsugen conflicts uses with --hash on u's hash unit (or --banks N).
// A configurable hash is refused: its banks depend on inputs the traces do
// not give.
func NewWorkload(u *specs.SharedMemory) (*Workload, error) {
	w := &Workload{Unit: u, groupOf: map[groupKey]int{}}
	var err error
	if u.Hash != nil {
		h := u.Hash.Hash()
		if h == nil {
			return nil, fmt.Errorf("%s: hash %s is not resolved", u.Name, u.Hash.Name)
		}
		w.Banks, err = conflicts.HashUnit(h)
	} else {
		w.Banks, err = conflicts.Modulo(u.Banks)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", u.Name, err)
	}
	if w.Banks.Size != u.NumBanks() {
		return nil, fmt.Errorf("%s: %d banks, but its mapping %s has %d", u.Name, u.NumBanks(), w.Banks.Name, w.Banks.Size)
	}
	w.counter = conflicts.NewCounter(w.Banks)
	w.fill()
	return w, nil
}

// ConflictsFlags are the flags of `lsugen conflicts` that predict under
// the unit's mapping and bank width (SPEC stands for the unit's spec),
// --bank-bytes only with an Accel-Sim input: conflicts refuses it on word
// addresses.
func (w *Workload) ConflictsFlags() string {
	width := ""
	if w.byteAddressed {
		width = fmt.Sprintf(" --bank-bytes %d", w.Unit.BankBytes)
	}
	if w.Unit.Hash != nil {
		return fmt.Sprintf("--hash SPEC:%s%s", w.Unit.Hash.Name, width)
	}
	return fmt.Sprintf("--banks %d%s", w.Unit.Banks, width)
}

// fill makes the stores that write every byte once, lanes on consecutive
// words of the narrowest width, so the storage holds known values before
// the trace runs. The fill is measured apart and predicts nothing.
func (w *Workload) fill() {
	u := w.Unit
	wc, _ := specs.ShmemWidthOf(u.Widths[0])
	n := u.Widths[0] / 8
	for a := 0; a < u.Bytes; {
		x := Instr{Group: -1, Op: specs.ShmemStore, Width: wc}
		for l := 0; l < u.Lanes && a < u.Bytes; l++ {
			x.Active |= 1 << uint(l)
			x.Addrs = append(x.Addrs, uint32(a))
			a += n
		}
		w.Fill = append(w.Fill, x)
	}
}

// predict is what lsugen conflicts counts for one warp access: the sum of
// its phases' bank degrees (accelsim.Phases, conflicts.Counter.AccessDegree),
// at least 1 (an instruction takes one pass).
func (w *Workload) predict(wa *accelsim.WarpAccess, kind trace.Kind) (int, error) {
	phases, err := accelsim.Phases(wa, w.Unit.BankBytes, w.Banks.Size, nil)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, p := range phases {
		total += w.counter.AccessDegree(&trace.Access{Addrs: p, Kind: kind})
	}
	return max(total, 1), nil
}

// group is the index of the group named name in kernel of input in.
func (w *Workload) group(in int, name, kernel string) int32 {
	key := groupKey{in, name}
	g, ok := w.groupOf[key]
	if !ok {
		g = len(w.Groups)
		w.groupOf[key] = g
		w.Groups = append(w.Groups, Group{Input: in, Name: name, Kernel: kernel})
	}
	return int32(g)
}

// AddFile reads a trace: an Accel-Sim input (kernelslist.g, a kernel
// trace, by name or content: accelsim.Sniff) or an lsugen trace.
func (w *Workload) AddFile(path string) error {
	w.Inputs = append(w.Inputs, Input{File: path})
	if accelsim.IsTracePath(path) {
		w.byteAddressed = true
		return w.addAccelSim(path)
	}
	return w.addTrace(path)
}

var errTooMany = fmt.Errorf("more than %d warp instructions to replay at once", MaxInstrs)

// addAccelSim reads the shared-memory instructions of an Accel-Sim input.
func (w *Workload) addAccelSim(path string) error {
	r, err := accelsim.Open(path)
	if err != nil {
		return err
	}
	defer r.Close()
	in := len(w.Inputs) - 1
	labels := map[int]string{}
	for {
		a, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch {
		case a.Space != accelsim.Shared:
			w.Inputs[in].SkippedNotShared++
			continue
		case a.Mask == 0:
			w.Inputs[in].SkippedInactive++
			continue
		}
		label, ok := labels[a.Kernel]
		if !ok {
			label = accelsim.KernelLabel(a)
			labels[a.Kernel] = label
		}
		x, err := w.fromAccelSim(a)
		if err != nil {
			return fmt.Errorf("%s:%d: %s: %w", a.File, a.Line, a.Opcode, err)
		}
		x.Group = w.group(in, accelsim.InstrName(label, a), label)
		if len(w.Instrs) >= MaxInstrs {
			return fmt.Errorf("%s:%d: %w", a.File, a.Line, errTooMany)
		}
		w.Instrs = append(w.Instrs, x)
	}
}

// fromAccelSim maps one shared-memory warp access onto the unit: trace
// lane i is unit lane i; a 1- or 2-byte access is a 32-bit access of the
// aligned word holding it (the same bank word, so the same passes). A lane
// the unit lacks, a width or atomic it does not support, a misaligned
// address or one at or past its capacity is refused: replaying it would
// measure something other than the trace.
func (w *Workload) fromAccelSim(a *accelsim.WarpAccess) (Instr, error) {
	u := w.Unit
	x := Instr{Line: int32(min(a.Line, 1<<31-1)), Active: uint64(a.Mask), Addrs: make([]uint32, 0, len(a.Addrs))}
	if hi := bits.Len32(a.Mask) - 1; hi >= u.Lanes {
		return x, fmt.Errorf("lane %d is active, but %s has %d lanes", hi, u.Name, u.Lanes)
	}
	width := 32
	switch a.Width {
	case 1, 2, 4:
	case 8, 16:
		width = 8 * a.Width
	default:
		return x, fmt.Errorf("%d-byte accesses: the unit does 4, 8 and 16 bytes (1 and 2 as 4)", a.Width)
	}
	if !u.HasWidth(width) {
		return x, fmt.Errorf("%d-bit accesses: %s supports %v", width, u.Name, u.Widths)
	}
	x.Width, _ = specs.ShmemWidthOf(width)
	switch a.Op {
	case accelsim.Load:
		x.Op = specs.ShmemLoad
	case accelsim.Store:
		x.Op = specs.ShmemStore
	case accelsim.Atomic:
		if width != 32 {
			return x, fmt.Errorf("%d-bit atomic: the unit's atomics are 32-bit", 8*a.Width)
		}
		op, err := atomicOp(u, a.Opcode)
		if err != nil {
			return x, err
		}
		x.Op = op
	default:
		return x, fmt.Errorf("not a load, store or atomic")
	}
	align := uint64(max(a.Width, 1))
	for _, addr := range a.Addrs {
		if addr%align != 0 {
			return x, fmt.Errorf("address 0x%x is not a multiple of the width %d", addr, a.Width)
		}
		if addr >= uint64(u.Bytes) {
			return x, fmt.Errorf("address 0x%x is at or past the %d bytes of %s", addr, u.Bytes, u.Name)
		}
		x.Addrs = append(x.Addrs, uint32(addr&^3))
	}
	p, err := w.predict(a, a.Op.Kind())
	if err != nil {
		return x, err
	}
	x.Predicted = int32(p)
	return x, nil
}

// atomicOps name the unit's atomics by the opcode's parts (ATOMS.ADD,
// ATOMS.MIN.S32, ATOMS.CAS, ...).
var atomicOps = map[string]specs.ShmemOp{
	"ADD": specs.ShmemAdd, "AND": specs.ShmemAnd, "OR": specs.ShmemOr, "XOR": specs.ShmemXor,
	"EXCH": specs.ShmemExch, "CAS": specs.ShmemCAS, "CAST": specs.ShmemCAS,
}

// atomicOp is the unit's operation for an atomic opcode: the one it names
// when the unit supports it, else the unit's first atomic (an atomic's
// passes do not depend on its operation, and INC, DEC, POPC have no unit
// op). A unit without atomics refuses the trace.
func atomicOp(u *specs.SharedMemory, opcode string) (specs.ShmemOp, error) {
	if len(u.Atomics) == 0 {
		return 0, fmt.Errorf("%s has no atomics", u.Name)
	}
	parts := strings.Split(opcode, ".")
	signed := strings.Contains(opcode, ".S32")
	for _, p := range parts[1:] {
		op, ok := atomicOps[p]
		switch p {
		case "MIN":
			op, ok = specs.ShmemUMin, true
			if signed {
				op = specs.ShmemSMin
			}
		case "MAX":
			op, ok = specs.ShmemUMax, true
			if signed {
				op = specs.ShmemSMax
			}
		}
		if ok && u.HasAtomic(op) {
			return op, nil
		}
	}
	return u.Atomics[0], nil
}

// addTrace reads an lsugen trace: each line one warp access whose word
// addresses (of bank_bytes bytes, as lsugen conflicts reads them) go to
// lanes 0, 1, ... as loads of the bank width (32-bit for 4-byte banks;
// 64-bit for 8-byte banks when the unit has them, else 32-bit at the
// word's first byte). The kind of access is not given, so lsugen conflicts
// counts broadcast, as for loads.
func (w *Workload) addTrace(path string) error {
	u := w.Unit
	in := len(w.Inputs) - 1
	width := 32
	if u.BankBytes == 8 && u.HasWidth(64) {
		width = 64
	}
	if !u.HasWidth(width) {
		return fmt.Errorf("%s: %d-bit accesses: %s supports %v", path, width, u.Name, u.Widths)
	}
	wc, _ := specs.ShmemWidthOf(width)
	var slab []uint32 // the instructions' addresses, carved from blocks
	return trace.ScanFile(path, func(a *trace.Access) error {
		if len(a.Addrs) > u.Lanes {
			return fmt.Errorf("%s:%d: %d lanes, but %s has %d", path, a.Line, len(a.Addrs), u.Name, u.Lanes)
		}
		if len(w.Instrs) >= MaxInstrs {
			return fmt.Errorf("%s:%d: %w", path, a.Line, errTooMany)
		}
		if cap(slab)-len(slab) < len(a.Addrs) {
			slab = make([]uint32, 0, max(1<<16, len(a.Addrs)))
		}
		x := Instr{Line: int32(min(a.Line, 1<<31-1)), Op: specs.ShmemLoad, Width: wc, Addrs: slab[len(slab) : len(slab) : len(slab)+len(a.Addrs)]}
		slab = slab[:len(slab)+len(a.Addrs)]
		for l, word := range a.Addrs {
			if word >= uint64(u.Words()) {
				return fmt.Errorf("%s:%d: word address %d is at or past the %d words of %s", path, a.Line, word, u.Words(), u.Name)
			}
			x.Active |= 1 << uint(l)
			x.Addrs = append(x.Addrs, uint32(word)*uint32(u.BankBytes))
		}
		x.Predicted = int32(max(1, w.counter.AccessDegree(a)))
		name := a.Instr
		if name == "" {
			name = "(unnamed)"
		}
		x.Group = w.group(in, name, path)
		w.Instrs = append(w.Instrs, x)
		return nil
	})
}
