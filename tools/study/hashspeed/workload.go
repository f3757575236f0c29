package hashspeed

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/lsugen/lsugen/internal/inputfile"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/tools/accelsim"
	"github.com/lsugen/lsugen/tools/search"
	"github.com/lsugen/lsugen/tools/trace"
)

// Instr is one warp instruction: a shared-memory access, as the word
// addresses of each of its phases (one pass through the banks each,
// accelsim.Phases), or any other instruction (no phases).
type Instr struct {
	Phases [][]uint64
	Atomic bool // an atomic's lanes on one word serialise (no broadcast)
}

// Workload is one benchmark: the instruction streams of its warps, in
// the order they are started.
type Workload struct {
	Name   string
	Source string // "pattern", "trace" or "accelsim"
	Warps  [][]Instr
	// Traced: the other instructions are the trace's (Accel-Sim); else
	// the study puts other_per_access before each access.
	Traced bool
}

// Counts are the workload's shared-memory and other instructions.
func (w *Workload) Counts() (shared, other int) {
	for _, p := range w.Warps {
		for _, in := range p {
			if len(in.Phases) > 0 {
				shared++
			} else {
				other++
			}
		}
	}
	return shared, other
}

// Kernel is the workload's shared-memory accesses as the search takes
// them: one access per phase.
func (w *Workload) Kernel() search.Kernel {
	k := search.Kernel{Name: w.Name}
	for _, p := range w.Warps {
		for _, in := range p {
			kind := trace.KindAny
			if in.Atomic {
				kind = trace.KindAtomic
			}
			for _, ph := range in.Phases {
				k.Accesses = append(k.Accesses, ph)
				k.Kinds = append(k.Kinds, kind)
			}
		}
	}
	return k
}

// MaxInstructions bounds the warp instructions of one run, all workloads
// together, so that no input makes the run's memory unbounded.
const MaxInstructions = 1 << 22

// loader builds workloads from input files; it counts the instructions
// of the run.
type loader struct {
	banks  int // phases split over this many 4-byte banks (Accel-Sim)
	warps  int // warps an access trace is dealt to
	other  int // other instructions before each access of an access trace
	instrs int
	budget *accelsim.Budget
}

func (l *loader) count(n int) error {
	if l.instrs += n; l.instrs > MaxInstructions {
		return fmt.Errorf("more than %d warp instructions in the run's workloads", MaxInstructions)
	}
	return nil
}

// load reads one input: a spec's pattern blocks (*.hcl), an Accel-Sim
// trace (one workload per kernel) or an lsugen access trace.
func (l *loader) load(path string) ([]*Workload, error) {
	// Only a regular file: a FIFO would block the spec loader's open.
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %s, not a regular file", path, inputfile.Kind(fi.Mode()))
	}
	switch {
	case strings.EqualFold(filepath.Ext(path), ".hcl"):
		return l.patterns(path)
	case accelsim.IsTracePath(path):
		return l.accelSim(path)
	}
	f, err := inputfile.Open(path) // never blocks, whatever path became since
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := trace.Parse(f, path)
	if err != nil {
		return nil, err
	}
	w, err := l.fromAccesses(filepath.Base(path), "trace", t.Accesses)
	if err != nil {
		return nil, err
	}
	return []*Workload{w}, nil
}

// patterns expands a spec's pattern blocks into one workload per
// benchmark: a pattern named BENCH_PART belongs to benchmark BENCH
// (transpose_load and transpose_store to transpose), as a hash is
// configured per kernel, for all its accesses.
func (l *loader) patterns(path string) ([]*Workload, error) {
	ld := specs.NewLoader()
	file, diags := ld.Load(path)
	if diags.HasErrors() {
		var msgs []string // every error, not only the first
		for _, d := range diags {
			if d.Severity == hcl.DiagError {
				msgs = append(msgs, d.Error())
			}
		}
		return nil, errors.New(strings.Join(msgs, "; "))
	}
	if len(file.Patterns) == 0 {
		return nil, fmt.Errorf("%s declares no pattern blocks", path)
	}
	var order []string
	byBench := map[string][]trace.Access{}
	for _, p := range file.Patterns {
		bench := p.Name
		if i := strings.LastIndexByte(bench, '_'); i > 0 {
			bench = bench[:i]
		}
		if _, ok := byBench[bench]; !ok {
			order = append(order, bench)
		}
		byBench[bench] = append(byBench[bench], trace.FromPattern(p)...)
	}
	var out []*Workload
	for _, b := range order {
		w, err := l.fromAccesses(filepath.Base(path)+": "+b, "pattern", byBench[b])
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, nil
}

// fromAccesses deals the accesses of an access trace (which holds no
// other instructions) to the study's warps in trace order, access j to
// warp j mod warps, each after other_per_access other instructions.
func (l *loader) fromAccesses(name, source string, accs []trace.Access) (*Workload, error) {
	if len(accs) == 0 {
		return nil, fmt.Errorf("%s: no accesses", name)
	}
	if err := l.count(len(accs) * (1 + l.other)); err != nil {
		return nil, err
	}
	w := &Workload{Name: name, Source: source, Warps: make([][]Instr, min(l.warps, len(accs)))}
	for j, a := range accs {
		p := &w.Warps[j%len(w.Warps)]
		for range l.other {
			*p = append(*p, Instr{})
		}
		*p = append(*p, Instr{Phases: [][]uint64{a.Addrs}, Atomic: a.Kind == trace.KindAtomic})
	}
	return w, nil
}

// accelSim reads an Accel-Sim trace, every instruction of every warp:
// one workload per kernel, a warp per traced warp section
// (accelsim.Instr.WarpSeq) in trace order. A shared-memory instruction
// with an active lane is an access split into phases over the banks
// (4-byte words); every other instruction, global memory included, is an
// other instruction.
func (l *loader) accelSim(path string) (_ []*Workload, err error) {
	r, err := accelsim.OpenBudget(path, l.budget)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := r.Close(); err == nil {
			err = cerr
		}
	}()
	var out []*Workload
	byKernel := map[int]*Workload{}
	warpOf := map[int]int{} // WarpSeq -> index in its kernel's Warps
	for {
		in, err := r.NextInstr()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := l.count(1); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", in.File, in.Line, err)
		}
		w := byKernel[in.Kernel]
		if w == nil {
			w = &Workload{Name: filepath.Base(path) + ": " + accelsim.KernelLabel(&in.WarpAccess), Source: "accelsim", Traced: true}
			byKernel[in.Kernel] = w
			out = append(out, w)
		}
		i, ok := warpOf[in.WarpSeq]
		if !ok {
			i = len(w.Warps)
			warpOf[in.WarpSeq] = i
			w.Warps = append(w.Warps, nil)
		}
		var ins Instr
		if in.IsMemory && in.Space == accelsim.Shared && in.Mask != 0 {
			// A fresh slice each time: the workload keeps the phases.
			if ins.Phases, err = accelsim.Phases(&in.WarpAccess, 4, l.banks, nil); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", in.File, in.Line, err)
			}
			ins.Atomic = in.Op == accelsim.Atomic
		}
		w.Warps[i] = append(w.Warps[i], ins)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no instructions", path)
	}
	return out, nil
}
