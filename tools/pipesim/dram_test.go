package pipesim

import (
	"context"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/specs"
)

// fig4Pipe is the pipeline of specs/pipeline_figure4.hcl: M = 2, one
// subwarp per warp, one port.
func fig4Pipe(v specs.PipelineVariant) specs.ElasticPipeline {
	return specs.ElasticPipeline{Name: "t", MemStages: 2, WarpSize: 8, SIMDWidth: 8, ShmemPorts: 1, TagBits: 8, PipeVariant: v}
}

func parseTrace(t *testing.T, trace string) *Workload {
	t.Helper()
	wl, err := Parse(strings.NewReader(trace), "t", Shape{Subwarps: 1, SIMDWidth: 8, PCBits: 14})
	if err != nil {
		t.Fatal(err)
	}
	return wl
}

func simulate(t *testing.T, wl *Workload, p specs.ElasticPipeline, mask *specs.WarpReadyMask, opt Options) Run {
	t.Helper()
	r, err := Simulate(context.Background(), wl, p, mask, opt)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestDRAM_HandDerived: one warp, a load then an alu instruction, on the
// unified pipeline (accepted in t, written back in t+2). Without DRAM the
// load is written back in 2, the alu accepted in 3 and written back in 5:
// 6 cycles. With a 10-cycle DRAM the request goes in 2 and its data is
// back in 12, a cycle without a pipeline writeback, so it is written back
// then; the alu goes in 13, out in 15: 16 cycles, and the scheduler finds
// no warp ready in cycles 1 to 12. With two warps' loads
// and one request in flight at most, the second (sent in 3) starts when
// the first's data is back, in 12, and is back in 22: 23 cycles, 9 of
// queueing.
func TestDRAM_HandDerived(t *testing.T) {
	p := fig4Pipe(specs.PipeUnified)
	wl := parseTrace(t, "0 mem 0\n0 alu 1\n")
	if r := simulate(t, wl, p, nil, Options{}); r.Cycles != 6 || r.System != nil {
		t.Errorf("without DRAM: %d cycles, system %+v; want 6, nil", r.Cycles, r.System)
	}
	d := DRAM{Latency: 10, Outstanding: 1}
	r := simulate(t, wl, p, nil, Options{DRAM: d})
	if r.Cycles != 16 || r.SchedFails.NoneReady != 12 || *r.System != (System{Requests: 1}) {
		t.Errorf("one load: %d cycles, %d fails, %+v; want 16, 12, one request", r.Cycles, r.SchedFails.NoneReady, r.System)
	}
	two := parseTrace(t, "0 mem 0\n1 mem 0\n")
	r = simulate(t, two, p, nil, Options{DRAM: d})
	if r.Cycles != 23 || *r.System != (System{Requests: 2, QueueCycles: 9}) {
		t.Errorf("two loads, one in flight: %d cycles, %+v; want 23, 2 requests, 9 queue cycles", r.Cycles, r.System)
	}
	if r = simulate(t, two, p, nil, Options{DRAM: DRAM{Latency: 10, Outstanding: 2}}); r.Cycles != 14 {
		t.Errorf("two loads, two in flight: %d cycles, want 14 (back in 12 and 13)", r.Cycles)
	}
}

// TestDRAM_ReturnStopsBusyPipeline: seven alu warps keep the writeback
// port busy every cycle (strict barrel, a warp every third cycle), so
// the one load's data stops the pipeline for exactly one cycle, and the
// run is one cycle longer than without DRAM. Without the alu warps its
// data finds the port free: no stop.
func TestDRAM_ReturnStopsBusyPipeline(t *testing.T) {
	var b strings.Builder
	b.WriteString("0 mem 0\n")
	for w := 1; w <= 7; w++ {
		for range 20 {
			b.WriteString(string(rune('0'+w)) + " alu 1\n")
		}
	}
	wl := parseTrace(t, b.String())
	for _, v := range Variants {
		p := fig4Pipe(v)
		plain := simulate(t, wl, p, nil, Options{})
		r := simulate(t, wl, p, nil, Options{DRAM: DRAM{Latency: 10, Outstanding: 1}})
		if r.System.ReturnStalls != 1 || r.Cycles != plain.Cycles+1 || r.WarpInstructions != 141 {
			t.Errorf("%s: %d return stalls, %d cycles (%d without DRAM), %d instructions; want 1, +1, 141", v, r.System.ReturnStalls, r.Cycles, plain.Cycles, r.WarpInstructions)
		}
	}
}

// TestDRAM_Presets: every load of a preset kernel is sent once, the run
// completes every instruction, and the DRAM's waits make the baseline
// longer. They also take the warps out of the lockstep in which they run
// the kernel without DRAM (every warp in turn at the same instruction, so
// shared-memory warps come in bursts that fill the PREMEM queue): the
// elastic pipeline without the mask stalls on less than half as many bank
// conflicts.
func TestDRAM_Presets(t *testing.T) {
	p, _ := loadUnits(t, "../../specs/pipeline_study.hcl")
	pr, _ := LookupPreset("dct")
	g := pr.Synthetic(p.WarpSize, MaxWarps, 1)
	wl, err := g.Generate(Shape{Subwarps: 4, SIMDWidth: 8, PCBits: 14})
	if err != nil {
		t.Fatal(err)
	}
	d := DRAM{Latency: 440, Outstanding: 8}
	q := *p
	q.PipeVariant = specs.PipeUnified
	plain := simulate(t, wl, q, nil, Options{})
	r := simulate(t, wl, q, nil, Options{DRAM: d})
	if r.System.Requests != int64(wl.Stats().Mem) || r.WarpInstructions != int64(wl.Instructions()) || r.Cycles <= plain.Cycles || r.SchedFails.NoneReady <= plain.SchedFails.NoneReady {
		t.Errorf("baseline with DRAM %+v %+v\nwithout %+v", r, *r.System, plain)
	}
	q.PipeVariant = specs.PipeElastic
	plain, r = simulate(t, wl, q, nil, Options{}), simulate(t, wl, q, nil, Options{DRAM: d})
	if 2*r.Stalls.BankConflict >= plain.Stalls.BankConflict {
		t.Errorf("elastic: %d bank stalls with DRAM, %d without", r.Stalls.BankConflict, plain.Stalls.BankConflict)
	}
}

// TestMemWhenIdle: §5.2's variant never fails to schedule because of the
// mask; it issues memory warps instead, and without the mask it changes
// nothing.
func TestMemWhenIdle(t *testing.T) {
	p, m := loadUnits(t, "../../specs/pipeline_study.hcl")
	g := Synthetic{Warps: 32, Instructions: 500, Shmem: 0.3, Degrees: MeanDist(3), Static: 100, Seed: 5}
	wl, err := g.Generate(shapeOf(p, m))
	if err != nil {
		t.Fatal(err)
	}
	q := *p
	q.PipeVariant = specs.PipeElastic
	orig := simulate(t, wl, q, m, Options{})
	v := simulate(t, wl, q, m, Options{MemWhenIdle: true})
	if orig.SchedFails.Masked == 0 || v.SchedFails.Masked != 0 || v.System.MemIssuedMasked == 0 {
		t.Errorf("original masked fails %d; variant masked fails %d, memory warps issued under the mask %d", orig.SchedFails.Masked, v.SchedFails.Masked, v.System.MemIssuedMasked)
	}
	a, b := simulate(t, wl, q, nil, Options{}), simulate(t, wl, q, nil, Options{MemWhenIdle: true})
	if b.System.MemIssuedMasked != 0 || countsOf(a) != countsOf(b) {
		t.Errorf("without the mask the variant changed the run: %+v against %+v", b, a)
	}
}

func TestDRAM_Check(t *testing.T) {
	wl := parseTrace(t, "0 mem 0\n")
	for _, d := range []DRAM{{Latency: -1}, {Latency: MaxDRAMLatency + 1, Outstanding: 1}, {Latency: 10}, {Latency: 10, Outstanding: MaxDRAMOutstanding + 1}} {
		if _, err := Simulate(context.Background(), wl, fig4Pipe(specs.PipeElastic), nil, Options{DRAM: d}); err == nil || !strings.Contains(err.Error(), "DRAM") {
			t.Errorf("%+v: err %v, want a DRAM error", d, err)
		}
	}
}
