package latency

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/lsugen/lsugen/tools/accelsim"
	"github.com/lsugen/lsugen/tools/profile"
)

// MaxInstructions bounds the instructions one trace may hold: the model
// keeps one byte per instruction.
const MaxInstructions = 1 << 24

// Op is what one instruction of a warp is to the model.
type Op uint8

const (
	// Other is any instruction that is not an LDG or STG with an active
	// lane: it takes the fixed ALU latency.
	Other Op = iota
	// Monotonic is an LDG or STG whose active lanes' addresses are
	// monotonic: the speculative coalescer's fast path.
	Monotonic
	// NonMonotonic is any other LDG or STG: the slow path.
	NonMonotonic
)

// Workload is the instruction stream of each warp of a trace.
type Workload struct {
	// Name names the trace in tables: its file name.
	Name string
	// Warps are the warps' programs in the order of their first
	// instruction in the trace.
	Warps [][]Op
	// Instructions, Accesses and MonotonicAccesses count all instructions,
	// the LDG/STG among them and the monotonic ones among those.
	Instructions, Accesses, MonotonicAccesses int
}

// FromReader reads a trace's instructions, memory or not, into a
// workload: each warp (accelsim.Instr.WarpSeq) gets its instructions in
// trace order; an LDG or STG (profile.IsCoalesced) with an active lane
// is Monotonic or NonMonotonic by profile.Monotonic, as `lsugen profile`
// counts it; everything else is Other. It honours ctx.
func FromReader(ctx context.Context, r *accelsim.Reader, name string) (*Workload, error) {
	w := &Workload{Name: name}
	bySeq := map[int]int{}
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		in, err := r.NextInstr()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if w.Instructions >= MaxInstructions {
			return nil, fmt.Errorf("%s:%d: more than %d instructions", in.File, in.Line, MaxInstructions)
		}
		op := Other
		if in.IsMemory && profile.IsCoalesced(&in.WarpAccess) && len(in.Addrs) > 0 {
			op = NonMonotonic
			if profile.Monotonic(in.Addrs) {
				op = Monotonic
				w.MonotonicAccesses++
			}
			w.Accesses++
		}
		i, ok := bySeq[in.WarpSeq]
		if !ok {
			i = len(w.Warps)
			bySeq[in.WarpSeq] = i
			w.Warps = append(w.Warps, nil)
		}
		w.Warps[i] = append(w.Warps[i], op)
		w.Instructions++
	}
	if len(w.Warps) == 0 {
		return nil, fmt.Errorf("%s: no instructions", name)
	}
	return w, nil
}

// Load reads the Accel-Sim trace at path (a kernelslist.g or a kernel
// trace, plain or xz) into a workload named after its file, its text
// taken from budget.
func Load(ctx context.Context, path string, budget *accelsim.Budget) (w *Workload, err error) {
	r, err := accelsim.OpenBudget(path, budget)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := r.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	return FromReader(ctx, r, filepath.Base(path))
}

// errNoWarps is returned for a workload without warps.
var errNoWarps = errors.New("latency: a workload without warps")
