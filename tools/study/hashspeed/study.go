// Package hashspeed is the study hash-speedup of 000_* ("Configurable
// XOR hash functions for banked scratchpad memories in GPUs", Fig. 9 and
// Table 6): each workload's execution time in cycles under the mod-N
// bank mapping and under each hash method of the paper, configured per
// workload by the search (tools/search) and evaluated through the hash
// units' behavioural models, with the configurable hashes' extra
// pipeline cycle charged.
package hashspeed

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lsugen/lsugen/plot"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/tools/accelsim"
	"github.com/lsugen/lsugen/tools/conflicts"
	"github.com/lsugen/lsugen/tools/search"
	"github.com/lsugen/lsugen/tools/study"
)

// Study is hash-speedup.
type Study struct{}

// Name is the study's name on the command line.
func (Study) Name() string { return "hash-speedup" }

// Paper is 000_*.
func (Study) Paper() string { return "000" }

// Summary is the study's line in the list.
func (Study) Summary() string {
	return "execution time and speed-up over mod-N of each bank hash method, per workload (Fig. 9), and conflicts removed per benchmark (Table 6)"
}

// intParam is an integer parameter's allowed range.
type intParam struct {
	name     string
	def      int
	min, max int
	help     string
}

var intParams = []intParam{
	{"addr_bits", 14, 2, 24, "word-address bits n the hashes see (14: Fermi's 48 KB of 4-byte words); at least 2·bank_bits, for the fixed XOR"},
	{"bank_bits", 5, 1, 10, "bank bits m: 2^m banks of 4 bytes"},
	{"warps", 8, 1, 64, "warps resident on the SM at a time; access traces are dealt to this many warps"},
	{"shm_latency", 24, 1, 1000, "cycles from issue to result of a conflict-free shared-memory access"},
	{"other_latency", 8, 1, 1000, "cycles from issue to result of any other instruction"},
	{"hash_cycles", 1, 0, 8, "extra pipeline cycles of a configurable hash on every shared-memory access (000_* §4.5: 1)"},
	{"other_per_access", 3, 0, 1000, "other instructions before each access of an access trace or pattern (Accel-Sim traces have their own)"},
}

// Params are the study's parameters.
func (Study) Params() []study.Param {
	var ps []study.Param
	for _, p := range intParams {
		ps = append(ps, study.Param{Name: p.name, Default: strconv.Itoa(p.def),
			Help: fmt.Sprintf("%s (%d..%d)", p.help, p.min, p.max)})
	}
	return append(ps, study.Param{Name: "examples", Default: "specs",
		Help: "directory of lsugen's example workloads (patterns_000.hcl, traces/, traces/accelsim/), or none: the inputs only"})
}

// Examples are the example workloads, under the examples directory: the
// 000_* patterns, the lsugen access traces and the Accel-Sim traces
// (kernelslist.g names kernel-1 and kernel-2, which are not read again).
// traces/figure4.ptrace is pipesim's trace of conflict degrees, without
// addresses: no hash applies to it.
var Examples = []string{
	"patterns_000.hcl",
	"traces/transpose.trace",
	"traces/fig5a_002.trace",
	"traces/fig5b_002.trace",
	"traces/fig5c_002.trace",
	"traces/accelsim/kernelslist.g",
	"traces/accelsim/pipesim_example.traceg",
	"traces/accelsim/profile_copy.traceg",
	"traces/accelsim/profile_spmv.traceg",
	"traces/accelsim/profile_transpose.traceg",
}

// method is one column of Fig. 9: a hash method against mod N.
type method struct {
	label            string // as the tables print it
	function, search string // the search.Compare row it is
}

// methods are Fig. 9's, in its order.
var methods = []method{
	{"fixed XOR", search.FixedXor, ""},
	{"bv XOR", search.BitvectorXor, search.Exhaustive},
	{"bw perm GH", search.BitwisePerm, search.Givargis},
	{"bw perm MIH", search.BitwisePerm, search.MIH},
	{"bw XOR GH", search.BitwiseXor, search.Givargis},
	{"bw XOR MIH", search.BitwiseXor, search.MIH},
}

// settings are a run's parsed parameters.
type settings struct {
	n, m     int
	timing   Timing
	other    int
	examples string
}

// parse checks every parameter, naming it and its range, before work.
func parse(opt study.Options, params []study.Param) (settings, error) {
	if err := opt.CheckSet(params); err != nil {
		return settings{}, err
	}
	v := map[string]int{}
	for _, p := range intParams {
		s := opt.Value(params, p.name)
		x, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || x < p.min || x > p.max {
			return settings{}, fmt.Errorf("parameter %s = %q: want an integer from %d to %d", p.name, s, p.min, p.max)
		}
		v[p.name] = x
	}
	s := settings{n: v["addr_bits"], m: v["bank_bits"], other: v["other_per_access"],
		timing: Timing{Warps: v["warps"], ShmLatency: v["shm_latency"], OtherLatency: v["other_latency"],
			HashCycles: v["hash_cycles"]},
		examples: opt.Value(params, "examples")}
	if s.n < 2*s.m {
		return settings{}, fmt.Errorf("parameter addr_bits = %d: want at least 2·bank_bits = %d (the fixed XOR folds bits %d..%d onto the bank bits), up to 24", s.n, 2*s.m, s.m, 2*s.m-1)
	}
	if s.examples == "none" && len(opt.Inputs) == 0 {
		return settings{}, fmt.Errorf("parameter examples = none and no input: no workload")
	}
	return s, nil
}

// row is one workload's results; the slices have one entry per method.
type row struct {
	w              *Workload
	shared, other  int
	before         int64 // conflicts under mod N
	base, baseHash int64 // cycles under mod N, without and with the hash cycles
	cycles         []int64
	conflictsAfter []int64
	configs        []string
	removed        []*float64 // percent of before; nil when before is 0
	speedups       []float64  // base / cycles
}

// Run computes the study.
func (st Study) Run(ctx context.Context, opt study.Options) (*study.Result, error) {
	params := st.Params()
	s, err := parse(opt, params)
	if err != nil {
		return nil, err
	}
	wls, skipped, err := s.workloads(ctx, opt.Inputs)
	if err != nil {
		return nil, err
	}
	kernels := make([]search.Kernel, len(wls))
	for i, w := range wls {
		kernels[i] = w.Kernel()
	}
	cmp, err := search.CompareKernels(ctx, kernels, s.n, s.m, 1<<s.m, false)
	if err != nil {
		return nil, err
	}
	var rows []*row
	for i, w := range wls {
		if opt.Progress != nil {
			opt.Progress(i, len(wls))
		}
		r, err := s.measure(ctx, w, cmp.Kernels[i])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", w.Name, err)
		}
		rows = append(rows, r)
	}
	if opt.Progress != nil {
		opt.Progress(len(wls), len(wls))
	}
	res := &study.Result{Study: st.Name(), Paper: st.Paper(), Params: opt.Resolved(params),
		Title: "Execution time under each bank hash, and speed-up over mod N"}
	res.Tables = append(res.Tables, speedupTable(rows, s), cyclesTable(rows, s), removedTable(rows, cmp), priceTable(rows, s), configTable(rows))
	res.Notes = notes(rows, s)
	if len(skipped) > 0 {
		res.Notes = append(res.Notes, "left out, without shared-memory accesses: "+strings.Join(skipped, ", "))
	}
	res.Charts = []plot.LineChart{chart(rows)}
	return res, nil
}

// workloads loads the examples and the inputs, and keeps those with a
// shared-memory access; skipped names the others, which run the same
// under every bank mapping.
func (s settings) workloads(ctx context.Context, inputs []string) (wls []*Workload, skipped []string, err error) {
	var paths []string
	if s.examples != "none" {
		for _, e := range Examples {
			paths = append(paths, filepath.Join(s.examples, e))
		}
	}
	examples := len(paths)
	paths = append(paths, inputs...)
	ld := &loader{banks: 1 << s.m, warps: s.timing.Warps, other: s.other, budget: accelsim.NewBudget()}
	for i, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		ws, err := ld.load(p)
		if err != nil {
			if i < examples {
				return nil, nil, fmt.Errorf("example workload %s: %w (run from lsugen's checkout, or --set examples=DIR or none)", p, err)
			}
			return nil, nil, err
		}
		for _, w := range ws {
			if shared, _ := w.Counts(); shared == 0 {
				skipped = append(skipped, w.Name)
			} else {
				wls = append(wls, w)
			}
		}
	}
	if len(wls) == 0 {
		return nil, nil, fmt.Errorf("no workload has a shared-memory access (%s)", strings.Join(skipped, ", "))
	}
	return wls, skipped, nil
}

// measure is one workload's execution time under mod N and each method,
// each configured as the search configured it for the workload (k).
func (s settings) measure(ctx context.Context, w *Workload, k search.KernelComparison) (*row, error) {
	mod, err := conflicts.Modulo(1 << s.m)
	if err != nil {
		return nil, err
	}
	r := &row{w: w, before: k.Before}
	r.shared, r.other = w.Counts()
	progs := degrees(w, mod)
	if r.base, err = simulate(ctx, progs, s.timing.with(0)); err != nil {
		return nil, err
	}
	if r.baseHash, err = simulate(ctx, progs, s.timing.with(s.timing.HashCycles)); err != nil {
		return nil, err
	}
	for _, m := range methods {
		var found *search.Row
		for i := range k.Rows {
			if k.Rows[i].Function == m.function && k.Rows[i].Method == m.search {
				found = &k.Rows[i]
			}
		}
		if found == nil {
			return nil, fmt.Errorf("the search compared no %s", m.label)
		}
		mapping, configurable, err := s.mapping(found)
		if err != nil {
			return nil, err
		}
		// The unit's model must leave the conflicts the search counted.
		if got := conflictsOf(w, mapping); got != found.ConflictsAfter {
			return nil, fmt.Errorf("%s at %s: the hash unit's model leaves %d conflicts, the search %d", m.label, found.Config, got, found.ConflictsAfter)
		}
		hc := 0
		if configurable {
			hc = s.timing.HashCycles
		}
		c, err := simulate(ctx, degrees(w, mapping), s.timing.with(hc))
		if err != nil {
			return nil, err
		}
		r.cycles = append(r.cycles, c)
		r.conflictsAfter = append(r.conflictsAfter, found.ConflictsAfter)
		r.configs = append(r.configs, found.Config.String())
		r.removed = append(r.removed, search.RemovedPercent(k.Before, found.ConflictsAfter))
		r.speedups = append(r.speedups, float64(r.base)/float64(c))
	}
	return r, nil
}

func (t Timing) with(hashCycles int) Timing {
	t.HashCycles = hashCycles
	return t
}

// mapping is a compared row's hash as a hash unit's behavioural model
// (the fixed XOR a fixed_xor unit; a searched function a configurable
// unit of that function at the configuration's register values), and
// whether the unit is configurable.
func (s settings) mapping(r *search.Row) (conflicts.Mapping, bool, error) {
	h := &specs.Hash{Name: "study_" + r.Function, AddrBits: s.n, BankBits: s.m}
	if r.Function == search.FixedXor {
		h.Function = specs.FixedXor
		m, err := conflicts.HashUnit(h)
		return m, false, err
	}
	h.Function, h.Configurable = specs.HashFunction(r.Function), true
	cfg, err := search.RegistersOf(h, r.Config)
	if err != nil {
		return conflicts.Mapping{}, false, err
	}
	m, err := conflicts.HashUnitAt(h, cfg)
	return m, true, err
}
