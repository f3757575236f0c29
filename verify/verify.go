// Package verify proves a generated design does what its behavioural model
// says: the same vectors run through the model, lsugen's own netlist
// simulator, and the RTL and gate-level Verilog under Icarus Verilog and
// Verilator; every output is compared in Go. Combinational units run
// vectors (Run); clocked units run a stream of cycles in lockstep with
// their sequential model (RunSequential).
package verify

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/verify/hdl"
)

// Engine names a checker of the design.
type Engine string

const (
	Netlist   Engine = "netlist"
	Icarus    Engine = "icarus"
	Verilator Engine = "verilator"
)

// AllEngines is the default set, in the order they run.
var AllEngines = []Engine{Netlist, Icarus, Verilator}

// ParseEngines reads a comma-separated engine list.
func ParseEngines(s string) ([]Engine, error) {
	var out []Engine
	for _, f := range strings.Split(s, ",") {
		e := Engine(strings.TrimSpace(f))
		switch e {
		case Netlist, Icarus, Verilator:
			out = append(out, e)
		default:
			return nil, fmt.Errorf("unknown simulator %q (want netlist, icarus or verilator)", f)
		}
	}
	return out, nil
}

// Job is one unit to check.
type Job struct {
	Design *netlist.Design
	// Model is a combinational unit's model, for Run.
	Model model.Model
	// Seq is a sequential unit's model, for RunSequential.
	Seq model.Sequential
	// Directed gives a combinational unit's directed vectors, applied
	// before the planned ones; nil for none.
	Directed DirectedFunc
	// Stimulus makes a sequential unit's input stream; nil drives it with
	// RandomStimulus. The caller (package units) picks both by the
	// unit's family.
	Stimulus StimulusFunc
	// Sources are the Verilog files of the RTL and gate-level modules,
	// already written; needed by the HDL engines.
	Sources []string
	// Modules are the module names in Sources to run (RTL, gates).
	Modules []string
	// ByEngine, where it names an HDL engine, replaces Sources and
	// Modules for that engine: the test suite runs the RTL module alone
	// under Verilator for its largest units (a gate-level build is 30 s to
	// 160 s of C++ there), the gate-level module on the other engines.
	ByEngine map[Engine]HDLModules
	// Dir is a work directory for testbenches, vectors and VCDs.
	Dir string
	// Version is the lsugen version (rtl.Info's Version, "lsugen 0.1.0")
	// written into the $version of the VCDs a mismatch leaves.
	Version string
	// Rerun runs Icarus and Verilator even where the run cache holds the
	// outputs of an identical run (hdl.Bench.Rerun).
	Rerun bool
}

// HDLModules are the Verilog files and the modules in them that an HDL
// engine runs.
type HDLModules struct {
	Sources []string
	Modules []string
}

// hdlModules is what engine e runs: ByEngine's entry for it, or Sources and
// Modules.
func (j Job) hdlModules(e hdl.Engine) HDLModules {
	if m, ok := j.ByEngine[Engine(e)]; ok {
		return m
	}
	return HDLModules{Sources: j.Sources, Modules: j.Modules}
}

// Check is the outcome of one engine on one unit.
type Check struct {
	Engine   Engine
	Vectors  int // vectors, or cycles of a sequential run
	Elapsed  time.Duration
	Mismatch *Mismatch // nil when every output matched
	// Cached tells that an HDL engine's outputs came from the run cache
	// (hdl.Bench.RunCached: an identical earlier run's, compared with the
	// model as always); no simulator ran.
	Cached bool
}

// Mismatch describes the first failing vector of a check.
type Mismatch struct {
	Module string
	// Vector is the failing vector, or for a sequential run (Clocked) the
	// failing cycle, counted from 0 after the reset cycle.
	Vector   int
	Clocked  bool
	Inputs   string // port=value list (of the failing cycle)
	Port     string
	Expected string
	Actual   string
	VCD      string // path of a VCD of the failing vector (cycles), if written
}

func (m *Mismatch) String() string {
	what := "vector"
	if m.Clocked {
		what = "cycle"
	}
	s := fmt.Sprintf("module %s, %s %d (%s): %s expected %s, got %s", m.Module, what, m.Vector, m.Inputs, m.Port, m.Expected, m.Actual)
	if m.VCD != "" {
		s += "; waveform in " + m.VCD
	}
	return s
}

// Result collects the checks of one unit.
type Result struct {
	Unit     string
	Vectors  int    // vectors, or cycles of a sequential run
	Coverage string // how the vectors (the stream) cover the input space
	Checks   []Check
}

// Failed reports whether any check found a mismatch.
func (r *Result) Failed() bool {
	for _, c := range r.Checks {
		if c.Mismatch != nil {
			return true
		}
	}
	return false
}

// Run checks a job with the given engines, one after another. It returns
// an error when a check could not run (a missing tool, an interface
// mismatch); mismatches are reported in the Result. RunTasks runs the
// engines of many jobs in parallel.
func Run(ctx context.Context, job Job, plan Plan, engines []Engine) (*Result, error) {
	p, err := prepareComb(job, plan)
	if err != nil {
		return nil, err
	}
	return p.runAll(ctx, engines)
}

// prepared is a job with its inputs and expected outputs computed, ready
// for any engine; the engines of one job may run concurrently.
type prepared struct {
	job      Job
	vectors  int    // vectors, or cycles
	coverage string // how they cover the input space
	// check runs one engine and says how many of the vectors it ran.
	check func(ctx context.Context, e Engine) (Check, error) // Vectors, Mismatch, Cached
}

// runAll runs the engines in turn and collects their checks.
func (p *prepared) runAll(ctx context.Context, engines []Engine) (*Result, error) {
	res := &Result{Unit: p.job.Design.Name, Vectors: p.vectors, Coverage: p.coverage}
	for _, e := range engines {
		c, err := p.run(ctx, e)
		if err != nil {
			return res, err
		}
		res.Checks = append(res.Checks, c)
	}
	return res, nil
}

// run is one engine's check, timed.
func (p *prepared) run(ctx context.Context, e Engine) (Check, error) {
	if err := ctx.Err(); err != nil {
		return Check{}, err
	}
	start := time.Now()
	c, err := p.check(ctx, e)
	if err != nil {
		return Check{}, fmt.Errorf("%s: %s: %w", p.job.Design.Name, e, err)
	}
	c.Engine, c.Elapsed = e, time.Since(start)
	return c, nil
}

// prepareComb computes a combinational job's vectors and the model's
// outputs for them.
func prepareComb(job Job, plan Plan) (*prepared, error) {
	d := job.Design
	if d.Clock != "" {
		return nil, fmt.Errorf("%s: a sequential design (clock %s): use RunSequential", d.Name, d.Clock)
	}
	if job.Model == nil {
		return nil, fmt.Errorf("%s: no model", d.Name)
	}
	ins, outs, err := matchInterface(d, job.Model)
	if err != nil {
		return nil, err
	}
	planned, coverage := plan.Vectors(ins, len(d.Gates))
	vs, coverage := withDirected(job.Directed, ins, plan.Seed, planned, coverage)
	want := expected(job.Model, outs, vs)
	// Icarus runs the directed vectors and a sample of the planned ones.
	idx := sample(len(vs), len(vs)-len(planned), len(d.Gates), plan.IcarusGateVectors)
	ivs, iwant := make([]Vector, len(idx)), make([][][]uint64, len(idx))
	for k, i := range idx {
		ivs[k], iwant[k] = vs[i], want[i]
	}
	check := func(ctx context.Context, e Engine) (Check, error) {
		switch e {
		case Netlist:
			mm, err := checkNetlist(d, ins, outs, vs, want, job.Dir, job.Version)
			return Check{Vectors: len(vs), Mismatch: mm}, err
		case Verilator:
			mm, cached, err := checkHDL(ctx, job, hdl.Verilator, ins, outs, vs, want)
			return Check{Vectors: len(vs), Mismatch: mm, Cached: cached}, err
		case Icarus:
			mm, cached, err := checkHDL(ctx, job, hdl.Icarus, ins, outs, ivs, iwant)
			if mm != nil {
				mm.Vector = idx[mm.Vector] // numbered as in the whole list
			}
			return Check{Vectors: len(ivs), Mismatch: mm, Cached: cached}, err
		}
		return Check{}, fmt.Errorf("unknown engine %q", e)
	}
	return &prepared{job: job, vectors: len(vs), coverage: coverage, check: check}, nil
}

// DirectedFunc gives the vectors that matter for a unit beyond what
// random vectors reach, over the design's inputs.
type DirectedFunc func(ins []*netlist.Port, seed uint64) []Vector

// JobVectors are the vectors Run applies to a combinational job: its
// directed vectors, then the plan's.
func (p Plan) JobVectors(job Job) (vs []Vector, coverage string) {
	ins := job.Design.Inputs()
	vs, coverage = p.Vectors(ins, len(job.Design.Gates))
	return withDirected(job.Directed, ins, p.Seed, vs, coverage)
}

// withDirected puts the directed vectors, if any, before vs.
func withDirected(directed DirectedFunc, ins []*netlist.Port, seed uint64, vs []Vector, coverage string) ([]Vector, string) {
	if directed == nil {
		return vs, coverage
	}
	dv := directed(ins, seed)
	if len(dv) == 0 {
		return vs, coverage
	}
	return append(dv, vs...), fmt.Sprintf("%d directed + %s", len(dv), coverage)
}

// stimulus is the job's stimulus with the given seed.
func (job Job) stimulus(ports []model.Port, seed uint64) (Stimulus, error) {
	if job.Stimulus == nil {
		return RandomStimulus(ports, seed)
	}
	return job.Stimulus(ports, seed)
}

// matchInterface checks that the design has exactly the ports the model
// expects: the port names are the interface.
func matchInterface(d *netlist.Design, m model.Model) (ins, outs []*netlist.Port, err error) {
	mp := m.Ports()
	if len(mp) != len(d.Ports) {
		return nil, nil, fmt.Errorf("%s: interface mismatch: model has %d ports, design has %d", d.Name, len(mp), len(d.Ports))
	}
	for i, p := range mp {
		dp := &d.Ports[i]
		if p.Name != dp.Name || p.Width != dp.Width() || p.Output != (dp.Dir == netlist.Out) {
			return nil, nil, fmt.Errorf("%s: interface mismatch at port %d: model %s[%d] output=%v, design %s[%d] output=%v",
				d.Name, i, p.Name, p.Width, p.Output, dp.Name, dp.Width(), dp.Dir == netlist.Out)
		}
		if p.Output {
			outs = append(outs, dp)
		} else {
			ins = append(ins, dp)
		}
	}
	return ins, outs, nil
}

// expected evaluates the model on every vector.
func expected(m model.Model, outs []*netlist.Port, vs []Vector) [][][]uint64 {
	want := make([][][]uint64, len(vs))
	for i, v := range vs {
		o := make([][]uint64, len(outs))
		for j, p := range outs {
			o[j] = make([]uint64, words(p.Width()))
		}
		m.Eval(v, o)
		want[i] = o
	}
	return want
}

// checkNetlist runs the vectors through the bit-parallel simulator, 64 at
// a time, and leaves a VCD of the first failing vector.
func checkNetlist(d *netlist.Design, ins, outs []*netlist.Port, vs []Vector, want [][][]uint64, dir, version string) (*Mismatch, error) {
	sim := netlist.NewSim(d)
	inIdx, outIdx := portIndices(d, ins), portIndices(d, outs)
	lanes := make([][]uint64, len(ins))
	for j, p := range ins {
		lanes[j] = make([]uint64, p.Width())
	}
	got := make([][]uint64, len(outs))
	for j, p := range outs {
		got[j] = make([]uint64, p.Width())
	}
	for base := 0; base < len(vs); base += 64 {
		n := min(64, len(vs)-base)
		for j, p := range ins {
			for bit := 0; bit < p.Width(); bit++ {
				var w uint64
				for l := 0; l < n; l++ {
					w |= (vs[base+l][j][bit/64] >> uint(bit%64) & 1) << uint(l)
				}
				lanes[j][bit] = w
			}
			sim.SetInput(inIdx[j], lanes[j])
		}
		sim.Eval()
		for j := range outs {
			sim.Output(outIdx[j], got[j])
		}
		for l := 0; l < n; l++ {
			for j, p := range outs {
				val := make([]uint64, words(p.Width()))
				for bit := 0; bit < p.Width(); bit++ {
					val[bit/64] |= (got[j][bit] >> uint(l) & 1) << uint(bit%64)
				}
				if !equalWords(val, want[base+l][j]) {
					mm := mismatch(d.Name+" (netlist)", base+l, ins, vs[base+l], p, want[base+l][j], val)
					if dir != "" {
						path, err := writeNetlistVCDExpected(d, ins, outs, vs[base+l], want[base+l], version, filepath.Join(dir, d.Name+"_netlist_fail.vcd"))
						if err != nil {
							return nil, err
						}
						mm.VCD = path
					}
					return mm, nil
				}
			}
		}
	}
	return nil, nil
}

func portIndices(d *netlist.Design, ps []*netlist.Port) []int {
	idx := make([]int, len(ps))
	for i, p := range ps {
		for j := range d.Ports {
			if &d.Ports[j] == p {
				idx[i] = j
			}
		}
	}
	return idx
}

// checkHDL runs the vectors through the RTL and gate-level modules under
// one HDL simulator and compares every output with the model; cached tells
// that the outputs came from the run cache.
func checkHDL(ctx context.Context, job Job, e hdl.Engine, ins, outs []*netlist.Port, vs []Vector, want [][][]uint64) (*Mismatch, bool, error) {
	dir := filepath.Join(job.Dir, string(e))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, false, err
	}
	run := job.hdlModules(e)
	bench := &hdl.Bench{Dir: dir, Sources: run.Sources, Modules: run.Modules, Ports: job.Design.Ports, Version: job.Version, Rerun: job.Rerun}
	raw := make([][][]uint64, len(vs))
	for i, v := range vs {
		raw[i] = v
	}
	got, cached, err := bench.RunCached(ctx, e, raw)
	if err != nil {
		return nil, false, err
	}
	for m, mod := range run.Modules {
		if len(got[m]) != len(vs) {
			return nil, false, fmt.Errorf("module %s returned %d results for %d vectors", mod, len(got[m]), len(vs))
		}
		for v := range vs {
			for o, p := range outs {
				if equalWords(got[m][v][o], want[v][o]) {
					continue
				}
				mm := mismatch(mod+" ("+string(e)+")", v, ins, vs[v], p, want[v][o], got[m][v][o])
				path, err := bench.DumpVCDExpected(ctx, e, [][][]uint64{raw[v]}, [][][]uint64{want[v]}, fmt.Sprintf("%s_fail_%d", mod, v))
				if err != nil {
					return nil, false, fmt.Errorf("mismatch (%s) and the VCD rerun failed: %w", mm, err)
				}
				mm.VCD = path
				return mm, cached, nil
			}
		}
	}
	return nil, cached, nil
}

func mismatch(module string, v int, ins []*netlist.Port, vec Vector, p *netlist.Port, want, got []uint64) *Mismatch {
	var parts []string
	for j, in := range ins {
		parts = append(parts, fmt.Sprintf("%s=%s", in.Name, hexWords(vec[j], in.Width())))
	}
	return &Mismatch{Module: module, Vector: v, Inputs: strings.Join(parts, " "), Port: p.Name,
		Expected: hexWords(want, p.Width()), Actual: hexWords(got, p.Width())}
}

func equalWords(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// hexWords prints a port value as Verilog-style sized hex.
func hexWords(w []uint64, width int) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d'h", width)
	started := false
	for i := len(w) - 1; i >= 0; i-- {
		switch {
		case started:
			fmt.Fprintf(&sb, "%016x", w[i])
		case w[i] != 0 || i == 0:
			fmt.Fprintf(&sb, "%x", w[i])
			started = true
		}
	}
	return sb.String()
}
