package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/lsugen/lsugen/flow"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/units"
	"github.com/lsugen/lsugen/verify"
)

// unitRef names one unit of one spec file: "specs/FILE.hcl:NAME".
type unitRef struct{ path, name string }

func (r unitRef) String() string { return r.path + ":" + r.name }

// parseUnitRefs reads a comma-separated list of FILE:NAME references.
func parseUnitRefs(s string) ([]unitRef, error) {
	var refs []unitRef
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		i := strings.LastIndexByte(f, ':')
		if i <= 0 || i == len(f)-1 {
			return nil, fmt.Errorf("unit %q: want FILE.hcl:NAME", f)
		}
		refs = append(refs, unitRef{f[:i], f[i+1:]})
	}
	if len(refs) == 0 {
		return nil, fmt.Errorf("no units in %q", s)
	}
	return refs, nil
}

// benchUnit is one generated unit.
type benchUnit struct {
	ref    unitRef
	spec   specs.Unit
	design *netlist.Design
	job    verify.Job // its model and directed vectors
}

// loadUnit runs lsugen's session (flow.Load) on the spec file for the
// named unit only. The diagnostics of a bad spec go to diagOut, rendered
// as lsugen renders them.
func loadUnit(ref unitRef, diagOut io.Writer) (*benchUnit, error) {
	u, err := generateUnit(ref, diagOut)
	if err != nil {
		return nil, err
	}
	job, err := units.Job(u.Spec, u.Built)
	if err != nil {
		return nil, err
	}
	return &benchUnit{ref: ref, spec: u.Spec, design: u.Design, job: job}, nil
}

// generateUnit loads the spec file and generates the named unit, as
// lsugen does (with its default budget).
func generateUnit(ref unitRef, diagOut io.Writer) (flow.Unit, error) {
	opt := flow.DefaultOptions(true)
	opt.Unit = ref.name
	s, err := flow.Load([]string{ref.path}, opt)
	if s != nil && s.Diags.HasErrors() && diagOut != nil {
		writeDiags(diagOut, s.Loader, s.Diags)
	}
	var nu *flow.NoUnitError
	switch {
	case errors.As(err, &nu):
		return flow.Unit{}, fmt.Errorf("%s: no unit %q (the file declares %s)", ref.path, ref.name, strings.Join(nu.Units, ", "))
	case errors.Is(err, flow.ErrInvalid) && diagOut != nil:
		return flow.Unit{}, fmt.Errorf("%s: the spec file has errors, or unit %s does not generate", ref.path, ref.name)
	case errors.Is(err, flow.ErrInvalid):
		return flow.Unit{}, fmt.Errorf("%s: %s", ref, s.Diags.Error())
	case err != nil:
		return flow.Unit{}, fmt.Errorf("%s: %w", ref, err)
	}
	return s.Units[0], nil
}

func writeDiags(w io.Writer, loader *specs.Loader, diags hcl.Diagnostics) {
	_ = hcl.NewDiagnosticTextWriter(w, loader.Files(), 100, false).WriteDiagnostics(diags)
}

// vectorSet is a unit's input vectors in one flat array: vector i is
// data[i*stride : (i+1)*stride], its input ports in Design.Inputs order,
// each as (width+63)/64 little-endian words. The Verilator harness reads
// the same layout from a file.
type vectorSet struct {
	n, stride int
	data      []uint64
	coverage  string
}

func words64(width int) int { return (width + 63) / 64 }

// unitVectors draws the vectors `lsugen verify` uses for the unit: the
// default plan, with the directed vectors of coalescers first.
func unitVectors(u *benchUnit) *vectorSet {
	vs, coverage := verify.DefaultPlan().JobVectors(u.job)
	return packVectors(u.design.Inputs(), vs, coverage)
}

func packVectors(ins []*netlist.Port, vs []verify.Vector, coverage string) *vectorSet {
	stride := 0
	for _, p := range ins {
		stride += words64(p.Width())
	}
	set := &vectorSet{n: len(vs), stride: stride, data: make([]uint64, len(vs)*stride), coverage: coverage}
	for i, v := range vs {
		o := i * stride
		for j, p := range ins {
			n := copy(set.data[o:o+words64(p.Width())], v[j])
			// No bits above the port's width: both simulators get the
			// value the port can hold.
			if rem := p.Width() % 64; rem != 0 {
				set.data[o+n-1] &= 1<<uint(rem) - 1
			}
			o += n
		}
	}
	return set
}

// vector returns vector i.
func (s *vectorSet) vector(i int) []uint64 { return s.data[i*s.stride : (i+1)*s.stride] }

// The checksum of a run is FNV-1a over 64-bit words: for each vector in
// order, each output port in Design.Outputs order, each 64-bit word of the
// port's value. The C++ harness computes the same.
const (
	fnvOffset = 0xcbf29ce484222325
	fnvPrime  = 0x100000001b3
)

func mix(h, w uint64) uint64 { return (h ^ w) * fnvPrime }

// simRunner drives netlist.Sim over a vectorSet 64 vectors at a time, as a
// user with vectors in the usual one-value-per-vector form would: moving
// the vectors into bit lanes and the outputs back is part of the work it
// times. The input ports of a vector are concatenated into one bit string
// (the first port in the least significant bits), cut into 64-bit chunks;
// chunk c of 64 vectors is one 64×64 block, transposed into the lanes of
// concatenated bits 64c to 64c+63. Outputs go the same way back.
type simRunner struct {
	sim           *netlist.Sim
	ins, outs     []*netlist.Port
	inIdx, outIdx []int
	inBit, outBit []int    // bit offset of each port in its concatenation
	in, out       []uint64 // chunks*64 words: vector rows, then bit lanes
	inMoves       []move   // vector words into the input rows
	outMoves      []move   // output rows into port words, in checksum order
	vals          []uint64 // per output move, the 64 vectors' words
	set           *vectorSet
}

// move places one 64-bit word of a port value in the concatenation: at
// bit sh of the rows starting at row (64 × its chunk), and, when it
// straddles two chunks (spill), the rest in the next chunk's rows.
type move struct {
	word  int // input: word of the vector; output: unused
	row   int
	sh    uint
	spill bool
	mask  uint64 // output: the word's valid bits
}

func movesOf(off, width int) []move {
	var ms []move
	for k := 0; k*64 < width; k++ {
		bit := off + 64*k
		n := min(64, width-64*k)
		m := move{word: k, row: 64 * (bit / 64), sh: uint(bit % 64), mask: ^uint64(0)}
		m.spill = int(m.sh)+n > 64
		if n < 64 {
			m.mask = 1<<uint(n) - 1
		}
		ms = append(ms, m)
	}
	return ms
}

func newSimRunner(d *netlist.Design, set *vectorSet) *simRunner {
	r := &simRunner{sim: netlist.NewSim(d), ins: d.Inputs(), outs: d.Outputs(), set: set}
	index := func(p *netlist.Port) int {
		for i := range d.Ports {
			if &d.Ports[i] == p {
				return i
			}
		}
		panic("port not in design")
	}
	word, bit := 0, 0
	for _, p := range r.ins {
		r.inIdx = append(r.inIdx, index(p))
		r.inBit = append(r.inBit, bit)
		for _, m := range movesOf(bit, p.Width()) {
			m.word += word
			r.inMoves = append(r.inMoves, m)
		}
		word += words64(p.Width())
		bit += p.Width()
	}
	r.in = make([]uint64, 64*words64(bit))
	bit = 0
	for _, p := range r.outs {
		r.outIdx = append(r.outIdx, index(p))
		r.outBit = append(r.outBit, bit)
		r.outMoves = append(r.outMoves, movesOf(bit, p.Width())...)
		bit += p.Width()
	}
	r.out = make([]uint64, 64*words64(bit))
	r.vals = make([]uint64, 64*len(r.outMoves))
	return r
}

// pass runs every vector once and returns the checksum of the outputs.
func (r *simRunner) pass() uint64 {
	h := uint64(fnvOffset)
	set := r.set
	in, out := r.in, r.out
	vals := r.vals
	for base := 0; base < set.n; base += 64 {
		n := min(64, set.n-base)
		clear(in)
		// Move-major loops: one tight loop per word over the vectors.
		for _, m := range r.inMoves {
			src := set.data[base*set.stride+m.word:]
			dst := in[m.row : m.row+n]
			for l := range dst {
				dst[l] |= src[l*set.stride] << m.sh
			}
			if m.spill {
				dst := in[m.row+64 : m.row+64+n]
				for l := range dst {
					dst[l] |= src[l*set.stride] >> (64 - m.sh)
				}
			}
		}
		for c := 0; c < len(in); c += 64 {
			netlist.Transpose64((*[64]uint64)(in[c : c+64]))
		}
		for j, p := range r.ins {
			r.sim.SetInput(r.inIdx[j], in[r.inBit[j]:r.inBit[j]+p.Width()])
		}
		r.sim.Eval()
		clear(out)
		for j, p := range r.outs {
			r.sim.Output(r.outIdx[j], out[r.outBit[j]:r.outBit[j]+p.Width()])
		}
		for c := 0; c < len(out); c += 64 {
			netlist.Transpose64((*[64]uint64)(out[c : c+64]))
		}
		for k, m := range r.outMoves {
			dst := vals[k*64 : k*64+n]
			src := out[m.row : m.row+n]
			for l := range dst {
				dst[l] = src[l] >> m.sh & m.mask
			}
			if m.spill {
				src := out[m.row+64 : m.row+64+n]
				for l := range dst {
					dst[l] |= src[l] << (64 - m.sh) & m.mask
				}
			}
		}
		k := len(r.outMoves)
		for l := 0; l < n; l++ {
			for i := l; i < k*64; i += 64 {
				h = mix(h, vals[i])
			}
		}
	}
	return h
}

// modelChecksum is the checksum of the behavioural model's outputs on the
// vectors: the reference both simulators must match.
func modelChecksum(u *benchUnit, set *vectorSet) (uint64, error) {
	m := u.job.Model
	if m == nil {
		return 0, fmt.Errorf("%s: no combinational model", u.design.Name)
	}
	mp := m.Ports()
	// Map the model's ports onto the design's by name.
	pos := map[string]int{}
	for j, p := range u.design.Inputs() {
		pos["in "+p.Name] = j
	}
	for j, p := range u.design.Outputs() {
		pos["out "+p.Name] = j
	}
	var mIn, mOut []int // model port index -> design port index
	for _, p := range mp {
		dir := "in "
		if p.Output {
			dir = "out "
		}
		j, ok := pos[dir+p.Name]
		if !ok {
			return 0, fmt.Errorf("%s: the model's port %s is not in the design", u.design.Name, p.Name)
		}
		dp := u.design.Inputs()
		if p.Output {
			dp = u.design.Outputs()
		}
		if dp[j].Width() != p.Width {
			return 0, fmt.Errorf("%s: port %s is %d bits wide, the model's %d", u.design.Name, p.Name, dp[j].Width(), p.Width)
		}
		if p.Output {
			mOut = append(mOut, j)
		} else {
			mIn = append(mIn, j)
		}
	}
	ins, outs := u.design.Inputs(), u.design.Outputs()
	if len(mIn) != len(ins) || len(mOut) != len(outs) {
		return 0, fmt.Errorf("%s: the model has %d inputs and %d outputs, the design %d and %d",
			u.design.Name, len(mIn), len(mOut), len(ins), len(outs))
	}
	inOff := make([]int, len(ins))
	for j := 1; j < len(ins); j++ {
		inOff[j] = inOff[j-1] + words64(ins[j-1].Width())
	}
	in := make([][]uint64, len(mIn))
	out := make([][]uint64, len(mOut))
	byDesign := make([][]uint64, len(outs))
	for k, j := range mOut {
		out[k] = make([]uint64, words64(outs[j].Width()))
		byDesign[j] = out[k]
	}
	h := uint64(fnvOffset)
	for i := 0; i < set.n; i++ {
		v := set.vector(i)
		for k, j := range mIn {
			in[k] = v[inOff[j] : inOff[j]+words64(ins[j].Width())]
		}
		for _, o := range out {
			clear(o)
		}
		m.Eval(in, out)
		for _, o := range byDesign {
			for _, w := range o {
				h = mix(h, w)
			}
		}
	}
	return h, nil
}

// trialTime is the result of timing one pass of some work several times.
type trialTime struct {
	passes int           // passes per trial
	trials int           // trials
	cpu    time.Duration // the best trial's CPU time per pass
	wall   time.Duration // the best trial's wall time per pass
}

// measure times pass the way the C++ harness does: one pass to warm up and
// calibrate, then trials of enough passes to fill minTime each; the best
// trial counts, the one least disturbed by other work on the machine.
// Times are CPU time of the process (user + system, all threads), which
// other processes on a shared machine do not inflate as they do wall time.
// With oneThread, the Go scheduler runs on one thread meanwhile, so that
// the work (and its garbage collection) is one thread's.
func measure(minTime time.Duration, trials int, oneThread bool, pass func()) trialTime {
	if oneThread {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	}
	c0 := processCPU()
	pass()
	first := max(processCPU()-c0, time.Microsecond)
	n := int(minTime/first) + 1
	t := trialTime{passes: n, trials: max(1, trials)}
	for range t.trials {
		w0, c0 := time.Now(), processCPU()
		for range n {
			pass()
		}
		cpu, wall := (processCPU()-c0)/time.Duration(n), time.Since(w0)/time.Duration(n)
		if t.cpu == 0 || cpu < t.cpu {
			t.cpu = cpu
		}
		if t.wall == 0 || wall < t.wall {
			t.wall = wall
		}
	}
	return t
}

// machine describes the host for the report.
func machine() string {
	cpu := "unknown CPU"
	cores := runtime.NumCPU()
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		if _, err := fmt.Sscanf(string(b), "MemTotal: %d kB", &kb); err == nil {
			mem = fmt.Sprintf(", %.0f GiB", float64(kb)/(1<<20))
		}
	}
	load := ""
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			load = ", load average " + f[0] + " at start"
		}
	}
	return fmt.Sprintf("%s, %d cores%s; %s %s/%s%s", cpu, cores, mem, runtime.Version(), runtime.GOOS, runtime.GOARCH, load)
}
