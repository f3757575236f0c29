// Package pipeline holds the studies of Gou and Gaydadjiev, "Elastic
// Pipeline" (001_*): Figs. 8 and 9 (pipeline stalls and speed-up of the
// elastic pipeline and the bank-conflict aware warp scheduling on the
// Table 4 kernels, with Table 4's theoretic speed-up), and Figs. 10 and 11
// (the kernels with conflicts on the elastic pipeline against their
// hand-optimized versions on the baseline, and the hand-optimized ones on
// both). The cycles come from tools/pipesim: the cycle-accurate models
// of the elastic_pipeline and warp_ready_mask units, driven by a
// round-robin scheduler, with its DRAM model for global memory.
package pipeline

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/tools/pipesim"
	"github.com/lsugen/lsugen/tools/study"
)

// Core is Table 3's core pipeline: 4 memory stages, 32 threads a warp,
// 8-wide SIMD, one access per bank a cycle (so PREMEM depth N = 3 and a
// NONMEM queue of M = 4). It is specs/pipeline_study.hcl's unit.
func Core() specs.ElasticPipeline {
	return specs.ElasticPipeline{Name: "study_pipeline", MemStages: 4, WarpSize: 32, SIMDWidth: 8,
		ShmemPorts: 1, TagBits: 16, PipeVariant: specs.PipeElastic}
}

// GPU is one of the paper's machines: a pipeline variant, with or without
// the ready mask, and the scheduling variant of §5.2.
type GPU struct {
	Name        string
	Variant     specs.PipelineVariant
	Mask        bool
	MemWhenIdle bool
}

// The machines of Figs. 8-11. The baseline GPU is Fig. 4(a)'s pipeline with
// round-robin scheduling; the enhanced GPU is Both.
var (
	Baseline  = GPU{Name: "baseline", Variant: specs.PipeUnified}
	MaskOnly  = GPU{Name: "ready mask", Variant: specs.PipeUnified, Mask: true}
	Elastic   = GPU{Name: "elastic", Variant: specs.PipeElastic}
	Both      = GPU{Name: "elastic+mask", Variant: specs.PipeElastic, Mask: true}
	Variant52 = GPU{Name: "5.2 variant", Variant: specs.PipeElastic, Mask: true, MemWhenIdle: true}
)

// System is what every run of a study shares: the DRAM model, the
// workloads' size, global-memory intensity and seed.
type System struct {
	DRAM         pipesim.DRAM
	Instructions int     // about this many per warp; 0: Table 4's kernel size
	Mem          float64 // global-memory intensity (Table 4 gives none)
	Seed         uint64
}

// systemParams are the parameters every study here takes. The DRAM
// defaults come from Table 3 and the GPUs the paper cites (docs: "The
// DRAM model"): 32 request-buffer entries on each of 4 channels shared by
// 16 cores is 8 requests in flight a core; 440 cycles is the global-memory
// latency Wong et al. [25] measured on the GT200.
func systemParams(kernels string) []study.Param {
	return []study.Param{
		{Name: "kernels", Default: kernels, Help: "Table 4 kernels, comma-separated: " + strings.Join(pipesim.PresetNames(), ", ")},
		{Name: "latency", Default: "440", Help: "DRAM latency in core cycles, 0..100000 (0: no DRAM model, a load is done when the pipeline writes it back)"},
		{Name: "outstanding", Default: "8", Help: "global loads in flight per core at most, 1..1024"},
		{Name: "mem", Default: "5", Help: "global-memory instructions, per cent of all, 0..50 (Table 4 gives none)"},
		{Name: "instructions", Default: "0", Help: "instructions per warp, about (whole trips of the kernel), 100..100000; 0: the kernel's size on one core from Table 4's total"},
		{Name: "seed", Default: "1", Help: "seed of the generated kernels, 0..2^63"},
	}
}

// parseSystem reads the shared parameters; every value out of range is a
// study.ParamError, before any work.
func parseSystem(opt study.Options, ps []study.Param) ([]pipesim.Preset, System, error) {
	var sys System
	var kernels []pipesim.Preset
	for _, name := range strings.Split(opt.Value(ps, "kernels"), ",") {
		p, ok := pipesim.LookupPreset(strings.TrimSpace(name))
		if !ok {
			return nil, sys, study.Paramf("kernels: %q is not a Table 4 kernel (%s)", strings.TrimSpace(name), strings.Join(pipesim.PresetNames(), ", "))
		}
		for _, k := range kernels {
			if k.Name == p.Name {
				return nil, sys, study.Paramf("kernels: %s given twice", p.Name)
			}
		}
		kernels = append(kernels, p)
	}
	lat, err := opt.Int(ps, "latency", 0, pipesim.MaxDRAMLatency)
	if err != nil {
		return nil, sys, err
	}
	out, err := opt.Int(ps, "outstanding", 1, pipesim.MaxDRAMOutstanding)
	if err != nil {
		return nil, sys, err
	}
	mem, err := opt.Int(ps, "mem", 0, 50)
	if err != nil {
		return nil, sys, err
	}
	n, err := opt.Int(ps, "instructions", 0, 100000)
	if err != nil {
		return nil, sys, err
	}
	if n > 0 && n < 100 {
		return nil, sys, study.Paramf("instructions: %d is out of range: 0 (Table 4's) or 100..100000", n)
	}
	seed, err := opt.Int(ps, "seed", 0, math.MaxInt64)
	if err != nil {
		return nil, sys, err
	}
	sys = System{DRAM: pipesim.DRAM{Latency: int(lat), Outstanding: int(out)}, Instructions: int(n),
		Mem: float64(mem) / 100, Seed: uint64(seed)}
	return kernels, sys, nil
}

// MaxCycles bounds the cycles a study simulates, over all its runs: about
// a minute of CPU (these runs take 50 to 100 ns a simulated cycle).
const MaxCycles = 5e8

// checkWork refuses, before any work, parameters whose runs (perKernel
// runs of each kernel) would simulate more than MaxCycles cycles at
// least: a run takes a cycle a subwarp, and as long as the DRAM needs for
// its loads (loads / outstanding × latency).
func (sys System) checkWork(kernels []pipesim.Preset, perKernel int) error {
	core := Core()
	S := float64(core.WarpSize / core.SIMDWidth)
	total := 0.0
	for _, k := range kernels {
		g := sys.synthetic(k)
		instrs := float64(g.Warps) * float64(g.Instructions)
		cycles := instrs * S
		if sys.DRAM.On() {
			cycles = max(cycles, instrs*sys.Mem/float64(sys.DRAM.Outstanding)*float64(sys.DRAM.Latency))
		}
		total += cycles * float64(perKernel)
	}
	if total > MaxCycles {
		return study.Paramf("these parameters simulate at least %.3g cycles (a cycle a subwarp, and loads / outstanding x latency for the DRAM), over the limit of %.0e: fewer kernels or instructions, a lower latency or mem, or more outstanding", total, float64(MaxCycles))
	}
	return nil
}

// Workload is kernel k's synthetic workload on the core, from its Table 4
// row; optimized makes every shared-memory access conflict-free (the
// hand-optimized code: the same instructions, padded data).
func (sys System) Workload(k pipesim.Preset, optimized bool) (*pipesim.Workload, error) {
	core := Core()
	g := sys.synthetic(k)
	if optimized {
		g.Degrees = pipesim.Dist{{Degree: 1, Prob: 1}}
	}
	shape, err := pipesim.ShapeOf(&core, nil)
	if err != nil {
		return nil, err
	}
	wl, err := g.Generate(shape)
	if err != nil {
		return nil, fmt.Errorf("kernel %s: %w", k.Name, err)
	}
	return wl, nil
}

// synthetic is kernel k's description on the core: Table 4's row, the
// instructions per warp (Table 4's share when sys.Instructions is 0) and
// the global-memory intensity.
func (sys System) synthetic(k pipesim.Preset) pipesim.Synthetic {
	warpSize := Core().WarpSize
	n := sys.Instructions
	if n == 0 {
		n = k.PerWarp(warpSize, k.Synthetic(warpSize, pipesim.MaxWarps, sys.Seed).Warps)
	}
	g := k.SyntheticN(warpSize, pipesim.MaxWarps, sys.Seed, n)
	g.Mem = sys.Mem
	return g
}

// Run simulates wl on gpu.
func (sys System) Run(ctx context.Context, wl *pipesim.Workload, gpu GPU) (pipesim.Run, error) {
	core := Core()
	core.PipeVariant = gpu.Variant
	var mask *specs.WarpReadyMask
	if gpu.Mask {
		mask = pipesim.DefaultMask(&core, len(wl.Programs))
	}
	return pipesim.Simulate(ctx, wl, core, mask, pipesim.Options{DRAM: sys.DRAM, MemWhenIdle: gpu.MemWhenIdle})
}

// runAll runs every workload on every gpu: out[i][j] is wls[i] on gpus[j].
// It reports progress per run and stops at the first error.
func (sys System) runAll(ctx context.Context, wls []*pipesim.Workload, gpus []GPU, progress func(done, total int)) ([][]pipesim.Run, error) {
	out := make([][]pipesim.Run, len(wls))
	total, done := len(wls)*len(gpus), 0
	for i, wl := range wls {
		out[i] = make([]pipesim.Run, len(gpus))
		for j, g := range gpus {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			r, err := sys.Run(ctx, wl, g)
			if err != nil {
				return nil, err
			}
			out[i][j] = r
			done++
			if progress != nil {
				progress(done, total)
			}
		}
	}
	return out, nil
}

// Stalls are a run's pipeline stalls in Fig. 8's three kinds: cycles the
// scheduler found no warp to issue (Fails), cycles the pipeline refused a
// subwarp because of a bank conflict (Bank: at MEM0 or the PREMEM queue,
// and in the split and elastic pipelines the NONMEM path it backed up),
// and cycles the pipeline stopped for data from the interconnect (Other).
type Stalls struct{ Fails, Bank, Other int64 }

// StallsOf sorts r's stalls into Fig. 8's kinds.
func StallsOf(r pipesim.Run) Stalls {
	s := Stalls{Fails: r.SchedFails.Total, Bank: r.Stalls.Total}
	if r.System != nil {
		s.Other = r.System.ReturnStalls
	}
	return s
}

// Total is all stalls.
func (s Stalls) Total() int64 { return s.Fails + s.Bank + s.Other }

// Theoretic is Table 4's theoretic speed-up of a workload: with every
// instruction one cycle a subwarp but shared-memory ones, which take
// their conflict degree (one port: cycles = degree), the speed-up of
// removing every stall: 1 + f(d-1), f the shared-memory intensity and d
// the mean degree.
func Theoretic(st pipesim.Stats) float64 {
	if st.Shmem == 0 {
		return 1
	}
	return 1 + st.ShmemIntensity*(st.MeanDegree-1)
}

// speedup is base's cycles over r's.
func speedup(base, r pipesim.Run) float64 {
	if r.Cycles == 0 {
		return 0
	}
	return float64(base.Cycles) / float64(r.Cycles)
}

func pct(x float64) string { return fmt.Sprintf("%.1f", 100*x) }

// plus is speed-up x as a signed percentage; one that rounds to zero is
// "+0.0", whichever side of it x is.
func plus(x float64) string {
	v := math.Round(1000*(x-1)) / 10
	if v == 0 {
		v = 0 // not -0
	}
	return fmt.Sprintf("%+.1f", v)
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(max(len(xs), 1))
}

// argmax is the index of the largest of xs (the first of equals).
func argmax(xs []float64) int {
	m := 0
	for i, x := range xs {
		if x > xs[m] {
			m = i
		}
	}
	return m
}

// systemNote says what the runs assumed, for a result's notes.
func systemNote(sys System) string {
	if !sys.DRAM.On() {
		return fmt.Sprintf("no DRAM model (latency=0): a global load is done when the pipeline writes it back; %.0f%% global-memory instructions", 100*sys.Mem)
	}
	return fmt.Sprintf("DRAM model: %d-cycle latency, %d loads in flight per core, returned data written back through the pipeline's port (it wins; the pipeline stops); %.0f%% global-memory instructions, all loads",
		sys.DRAM.Latency, sys.DRAM.Outstanding, 100*sys.Mem)
}
