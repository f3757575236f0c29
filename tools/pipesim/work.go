package pipesim

import (
	"math"
	"time"

	"github.com/lsugen/lsugen/specs"
)

// Calibration of the work estimate: CPU time per simulated cycle and per
// subwarp instruction, fitted to lsugen pipesim runs on the 2-core AMD EPYC
// VM (the aes_encrypt and transpose presets at 20,000 instructions per
// warp, 53 ns per cycle in all; a 64-warp, 16-subwarp kernel of 64-way
// conflicts, 42 ns per cycle, nearly all of them stalls).
const (
	CycleNs   = 42
	SubwarpNs = 17
)

// Work is the expected size of a study (Study: every variant without and
// with the mask), known before it runs.
type Work struct {
	Runs             int           // runs, simulated in parallel
	WarpInstructions int64         // of all runs: what Options.Progress counts
	Cycles           int64         // estimated simulated cycles of all runs
	CPU              time.Duration // estimated CPU time, at the calibration above
	Longest          time.Duration // estimated CPU time of the longest run
}

// load is what the estimate needs of a workload.
type load struct {
	instrs  float64 // warp instructions
	alu     float64 // of which alu
	longest float64 // instructions of the longest warp program
	mem0    float64 // MEM0 cycles of the memory subwarps: ceil(degree/ports) for shmem, 1 for mem
}

// StudyWork estimates the work of Study(wl, p, ...). A run takes at least
// as many cycles as its busiest resource needs (EXE takes one subwarp a
// cycle; MEM0 holds a shared-memory subwarp ceil(degree/ports) cycles and
// other subwarps one, and in baseline_unified every subwarp passes MEM0)
// and as its longest warp needs alone (S + mem_stages cycles an
// instruction, one in flight per warp); the estimate is the largest of
// these: 0.78 to 1.03 times the simulated cycles on the cases of
// TestStudyWork_NearSimulated (the presets, one warp, 64-way conflicts).
func StudyWork(wl *Workload, p *specs.ElasticPipeline) Work {
	var l load
	ports := max(p.ShmemPorts, 1)
	for _, prog := range wl.Programs {
		l.longest = max(l.longest, float64(len(prog)))
		for _, in := range prog {
			l.instrs++
			switch in.Kind {
			case ALU:
				l.alu++
			case Mem:
				l.mem0 += float64(wl.Subwarps)
			case Shmem:
				for _, d := range wl.Degrees(in) {
					l.mem0 += float64((int(d) + ports - 1) / ports)
				}
			}
		}
	}
	return l.work(wl.Subwarps, p.MemStages)
}

// StudyWork estimates the work of a study of the workload g describes on
// pipeline p, from g alone (without generating it): the expected counts of
// each kind and the mean MEM0 occupancy of Degrees.
func (g *Synthetic) StudyWork(shape Shape, p *specs.ElasticPipeline) Work {
	S := shape.Subwarps
	ports := max(p.ShmemPorts, 1)
	nShmem, nMem := g.counts()
	static := float64(max(g.Static, 1))
	occ := 0.0
	for _, e := range g.Degrees {
		occ += e.Prob * float64((e.Degree+ports-1)/ports)
	}
	l := load{instrs: float64(g.Warps) * float64(g.Instructions), longest: float64(g.Instructions)}
	l.alu = l.instrs * float64(max(g.Static-nShmem-nMem, 0)) / static
	l.mem0 = l.instrs * float64(S) * (float64(nShmem)*occ + float64(nMem)) / static
	return l.work(S, p.MemStages)
}

func (l load) work(S, M int) Work {
	subwarps := l.instrs * float64(S)
	latency := l.longest * float64(S+M)
	wk := Work{Runs: 2 * len(Variants), WarpInstructions: int64(l.instrs) * 2 * int64(len(Variants))}
	for _, v := range Variants {
		cycles := max(subwarps, l.mem0, latency)
		if v == specs.PipeUnified {
			cycles = max(cycles, l.alu*float64(S)+l.mem0)
		}
		cpu := time.Duration(math.Round(cycles*CycleNs + subwarps*SubwarpNs))
		wk.Cycles += 2 * int64(cycles)
		wk.CPU += 2 * cpu
		wk.Longest = max(wk.Longest, cpu)
	}
	return wk
}
