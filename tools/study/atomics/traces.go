package atomics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/lsugen/lsugen/plot"
	"github.com/lsugen/lsugen/tools/accelsim"
	"github.com/lsugen/lsugen/tools/study"
	"github.com/lsugen/lsugen/tools/trace"
)

// Traces is the atomics model on workloads users have: the shared-memory
// atomics (ATOMS) of Accel-Sim traces, kernel by kernel, and lsugen
// access traces, each access a warp's atomic add. Each atomic takes the
// four-state machine's cycles under each scheme (the paper's three, and
// the user's hash units); only the atomics are timed.
type Traces struct{}

// ExampleTraces are the inputs without any: Fig. 5's patterns as lsugen
// traces, read from the repository.
var ExampleTraces = []string{"specs/traces/fig5a_002.trace", "specs/traces/fig5b_002.trace", "specs/traces/fig5c_002.trace"}

func (Traces) Name() string  { return "atomics-trace" }
func (Traces) Paper() string { return "002" }
func (Traces) Summary() string {
	return "shared-memory atomics of Accel-Sim traces (ATOMS) and lsugen traces: cycles by the atomics FSM under each scheme, and your hash units"
}

func (Traces) Params() []study.Param {
	return []study.Param{
		{Name: "bank_bytes", Default: "4", Help: "Accel-Sim traces: bytes per bank word, 4 or 8 (word = byte address / N)"},
		hashParams[0], hashParams[1],
	}
}

// traceRow is one workload's atomics: count and cycles per scheme.
type traceRow struct {
	name    string
	atomics int
	cycles  []int64
}

func (s Traces) Run(ctx context.Context, opt study.Options) (*study.Result, error) {
	ps := s.Params()
	if err := opt.CheckSet(ps); err != nil {
		return nil, err
	}
	bankBytes, err := opt.Int(ps, "bank_bytes", 4, 8)
	if err != nil || bankBytes != 4 && bankBytes != 8 {
		if err == nil {
			err = study.Paramf("bank_bytes: %d: want 4 or 8", bankBytes)
		}
		return nil, err
	}
	schemes, err := runSchemes(opt, ps)
	if err != nil {
		return nil, err
	}
	inputs := opt.Inputs
	if len(inputs) == 0 {
		inputs = ExampleTraces
		for _, p := range inputs {
			if _, err := os.Stat(p); err != nil {
				return nil, fmt.Errorf("%v (the example traces are read from the repository: run in its root, or give traces)", err)
			}
		}
	}
	mems := make([]*Memory, len(schemes))
	for i, sc := range schemes {
		if mems[i], err = sc.Memory(Fermi); err != nil {
			return nil, err
		}
	}
	var rows []*traceRow
	add := func(row *traceRow, addrs []uint64) {
		row.atomics++
		for i, m := range mems {
			row.cycles[i] += int64(m.Atomic(addrs).Cycles)
		}
	}
	newRow := func(name string) *traceRow {
		r := &traceRow{name: name, cycles: make([]int64, len(schemes))}
		rows = append(rows, r)
		return r
	}
	budget := accelsim.NewBudget()
	for n, path := range inputs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if accelsim.IsTracePath(path) || accelsim.Sniff(path) != accelsim.NotAccelSim {
			err = accelSimAtomics(ctx, path, budget, uint64(bankBytes), newRow, add)
		} else {
			row := newRow(filepath.Base(path))
			err = trace.ScanFile(path, func(a *trace.Access) error {
				if len(a.Addrs) > 0 {
					add(row, a.Addrs)
				}
				return ctx.Err()
			})
		}
		if err != nil {
			return nil, err
		}
		if opt.Progress != nil {
			opt.Progress(n+1, len(inputs))
		}
	}
	return tracesResult(s, opt, ps, schemes, rows)
}

// accelSimAtomics adds the shared-memory atomics of an Accel-Sim trace,
// one row per kernel.
func accelSimAtomics(ctx context.Context, path string, budget *accelsim.Budget, bankBytes uint64,
	newRow func(string) *traceRow, add func(*traceRow, []uint64)) (err error) {
	r, err := accelsim.OpenBudget(path, budget)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := r.Close(); err == nil {
			err = cerr
		}
	}()
	byKernel := map[int]*traceRow{}
	addrs := make([]uint64, 0, 32)
	for {
		a, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		row := byKernel[a.Kernel]
		if row == nil {
			row = newRow(filepath.Base(path) + ": " + accelsim.KernelLabel(a))
			byKernel[a.Kernel] = row
		}
		if a.Space != accelsim.Shared || a.Op != accelsim.Atomic || len(a.Addrs) == 0 {
			continue
		}
		addrs = addrs[:0]
		for _, b := range a.Addrs {
			addrs = append(addrs, b/bankBytes)
		}
		add(row, addrs)
	}
}

func tracesResult(s Traces, opt study.Options, ps []study.Param, schemes []Scheme, rows []*traceRow) (*study.Result, error) {
	r := &study.Result{Study: s.Name(), Paper: s.Paper(), Params: opt.Resolved(ps),
		Title: "Shared-memory atomics of traces: cycles by the atomics FSM under each scheme, and speed-ups over the baseline"}
	t := study.Table{Title: "atomic warp instructions, their cycles (thousands) under the baseline, speed-up of each scheme over it",
		Columns: append([]string{"workload", "atomics", "baseline kcyc"}, names(schemes[1:])...)}
	total := &traceRow{name: "all", cycles: make([]int64, len(schemes))}
	var none []string
	for _, row := range rows {
		if row.atomics == 0 {
			none = append(none, row.name)
			continue
		}
		total.atomics += row.atomics
		for i, c := range row.cycles {
			total.cycles[i] += c
		}
		t.Rows = append(t.Rows, traceCells(row))
	}
	if total.atomics == 0 {
		return nil, fmt.Errorf("no shared-memory atomics in the inputs (Accel-Sim: ATOMS instructions; lsugen traces: any access)")
	}
	if len(t.Rows) > 1 {
		t.Rows = append(t.Rows, traceCells(total))
	}
	r.Tables = append(r.Tables, t)
	for i, sc := range schemes {
		r.Notes = append(r.Notes, fmt.Sprintf("%s: %s", sc.Name, sc.About))
		if i > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("%s over all workloads: %.2fx the baseline's speed", sc.Name, float64(total.cycles[0])/float64(total.cycles[i])))
		}
	}
	if len(none) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("no shared-memory atomics in %s (%s)", plot.Plural(len(none), "workload"), joinShort(none, 4)))
	}
	return r, nil
}

func traceCells(row *traceRow) []string {
	cells := []string{row.name, strconv.Itoa(row.atomics), fmt.Sprintf("%.1f", float64(row.cycles[0])/1e3)}
	for _, c := range row.cycles[1:] {
		cells = append(cells, fmt.Sprintf("%.2f", float64(row.cycles[0])/float64(c)))
	}
	return cells
}

// joinShort lists at most n of names, then how many more.
func joinShort(names []string, n int) string {
	if len(names) <= n {
		return fmt.Sprint(names)
	}
	return fmt.Sprintf("%v and %d more", names[:n], len(names)-n)
}
