package pipesim

import (
	"context"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/specs"
)

// loadUnits loads a spec file of the repository.
func loadUnits(t *testing.T, path string) (*specs.ElasticPipeline, *specs.WarpReadyMask) {
	t.Helper()
	file, diags := specs.NewLoader().Load(path)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	var p *specs.ElasticPipeline
	var m *specs.WarpReadyMask
	for _, u := range file.Units {
		switch u := u.(type) {
		case *specs.ElasticPipeline:
			p = u
		case *specs.WarpReadyMask:
			m = u
		}
	}
	if p == nil {
		t.Fatalf("%s has no elastic_pipeline", path)
	}
	return p, m
}

func shapeOf(p *specs.ElasticPipeline, m *specs.WarpReadyMask) Shape {
	s := Shape{Subwarps: p.WarpSize / p.SIMDWidth, SIMDWidth: p.SIMDWidth, PCBits: 14}
	if m != nil {
		s.PCBits, s.Warps = m.PCBits, m.WarpContexts
	}
	return s
}

type counts struct {
	cycles, bank, wb, bubbles, masked, none int64
}

func countsOf(r Run) counts {
	return counts{r.Cycles, r.Stalls.BankConflict, r.Stalls.WritebackConflict, r.WBBubbles, r.SchedFails.Masked, r.SchedFails.NoneReady}
}

// TestFigure4 runs the scenario of the paper's Figures 4 and 5 (M = 2, one
// subwarp per warp, one port; warps 0, 1 alu, warp 2 a 2-way conflicting
// shmem access, warps 3..5 alu, scheduled in cycles 0, 1, 2, ...). By hand
// from the cycle semantics (a warp accepted in cycle t is in MEM0 from t+1;
// its conflict-free writeback cycle is t+2):
//
// baseline_unified: w0, w1, w2 accepted in cycles 0, 1, 2; w2 holds MEM0 in
// cycles 3 and 4, so w3 stalls in cycle 3 (bank conflict) and is accepted
// in 4; cycle 4 has no writeback while w2 is due (2+2 <= 4): one bubble.
// Writebacks in 2, 3, 5, 6, 7, 8: 9 cycles.
//
// baseline_split: w0, w1 take NONMEM (written back in 2, 3), w2 MEM0 in 3
// and 4, w3 and w4 enter NONMEM in 3 and 4. Cycle 4: nothing to write
// back, w2 due: one bubble. Cycle 5: w2 leaves MEM1 while w3 is in NM1:
// writeback conflict, NONMEM holds and w5 stalls. Writebacks in 2, 3, 5,
// 6, 7, 8: 9 cycles.
//
// elastic: w0, w1 forwarded from EXE (written back in 0, 1), w2 into MEM0
// in 2 (cycles 3, 4), w3 and w4 forwarded in 3 and 4, w2 written back in 5
// while w5 enters the NONMEM queue, w5 written back in 6: 7 cycles, no
// stall and no bubble (cycle 2 has no writeback, but nothing is due).
//
// The ready mask changes nothing: w2's PC misses in the cold history cache
// (prediction 0, so with S = 1 the counter stays 0).
func TestFigure4(t *testing.T) {
	p, m := loadUnits(t, "../../specs/pipeline_figure4.hcl")
	if m != nil {
		t.Fatal("figure 4 spec has a warp_ready_mask")
	}
	wl, err := ParseFile("../../specs/traces/figure4.ptrace", shapeOf(p, nil))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Study(context.Background(), wl, p, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]counts{
		string(specs.PipeUnified): {cycles: 9, bank: 1, bubbles: 1},
		string(specs.PipeSplit):   {cycles: 9, wb: 1, bubbles: 1},
		string(specs.PipeElastic): {cycles: 7},
	}
	if len(rep.Runs) != 6 {
		t.Fatalf("%d runs", len(rep.Runs))
	}
	for i, r := range rep.Runs {
		if r.Variant != string(Variants[i/2]) || r.Mask != (i%2 == 1) {
			t.Errorf("run %d is %s mask %v", i, r.Variant, r.Mask)
		}
		if got := countsOf(r); got != want[r.Variant] {
			t.Errorf("%s mask %v: got %+v, want %+v", r.Variant, r.Mask, got, want[r.Variant])
		}
		if r.WarpInstructions != 6 || r.SubwarpInstructions != 6 || r.MaskCycles != 0 {
			t.Errorf("%s mask %v: %+v", r.Variant, r.Mask, r)
		}
	}
	if r := rep.Runs[4]; r.Speedup != 9.0/7 || r.IPC != 6.0/7 {
		t.Errorf("elastic speedup %v, IPC %v", r.Speedup, r.IPC)
	}
	if r := rep.Runs[1]; r.HistoryLookups != 1 || r.HistoryHits != 0 {
		t.Errorf("lookups %d, hits %d", r.HistoryLookups, r.HistoryHits)
	}
}

// maskTrace: a 3-cycle shmem warp runs twice from the same PC, so the
// second execution hits in the history cache, with a memory warp that
// would be stalled behind it and an alu warp.
const maskTrace = `
0 shmem 0x20 3
1 mem   0x21
2 alu   0x22
0 shmem 0x20 3
1 mem   0x21
2 alu   0x22
`

// TestMask_HandDerived runs maskTrace on the elastic pipeline with M = 2,
// one subwarp per warp (N = 0), one port. By hand:
//
// Without the mask: cycle 0 w0 (shmem, MEM0 in 1..3); 1, 2 w1 (mem) stalls
// (bank conflict), accepted in 3; 2 and 3 are bubbles (w0 due in 2, written
// back in 4); 4 w2 queued in NONMEM (w0 has writeback priority); 5 w0 again
// (MEM0 6..8), w1 written back; 6, 7 w1 stalls, w2 written back in 6; 7 and
// 8 are bubbles; 9 w2 queued (w0 written back); 10 w1, 11 w2 written back:
// 12 cycles, 4 bank-conflict stalls, 4 bubbles.
//
// With the mask: the first w0 misses (counter 0), w0's degree 3 is stored
// as 2 when it leaves MEM0 in cycle 3. The second w0 (cycle 5) hits,
// prediction 2, so the counter masks memory warps in cycles 6 and 7. Cycle
// 6: only w1 (memory) is ready: a masked scheduling fail. 7: w2 is
// forwarded (accepted and written back at once). 8: w1 goes straight into
// MEM0 as w0 finishes (a bubble: w0 was due in 7). 9: w0, 10: w1 written
// back: 11 cycles, 2 bank stalls, 3 bubbles, 1 masked fail. The mask
// turned two stalls into one fail and let w2 use the gap.
func TestMask_HandDerived(t *testing.T) {
	p := specs.ElasticPipeline{Name: "t", MemStages: 2, WarpSize: 8, SIMDWidth: 8, ShmemPorts: 1, TagBits: 8, PipeVariant: specs.PipeElastic}
	wl, err := Parse(strings.NewReader(maskTrace), "mask", Shape{Subwarps: 1, SIMDWidth: 8, PCBits: 14})
	if err != nil {
		t.Fatal(err)
	}
	off, err := Simulate(context.Background(), wl, p, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := countsOf(off), (counts{cycles: 12, bank: 4, bubbles: 4}); got != want {
		t.Errorf("without the mask: got %+v, want %+v", got, want)
	}
	on, err := Simulate(context.Background(), wl, p, DefaultMask(&p, 3), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := countsOf(on), (counts{cycles: 11, bank: 2, bubbles: 3, masked: 1}); got != want {
		t.Errorf("with the mask: got %+v, want %+v", got, want)
	}
	if on.MaskCycles != 2 || on.HistoryLookups != 2 || on.HistoryHits != 1 {
		t.Errorf("mask cycles %d, lookups %d, hits %d; want 2, 2, 1", on.MaskCycles, on.HistoryLookups, on.HistoryHits)
	}
}

// TestSimulate_ConflictFree: without bank conflicts nothing stalls and
// nothing is late, in every variant, and the mask never masks.
func TestSimulate_ConflictFree(t *testing.T) {
	p, m := loadUnits(t, "../../specs/pipeline_study.hcl")
	g := Synthetic{Warps: 16, Instructions: 200, Shmem: 0.3, Mem: 0.2, Degrees: Dist{{1, 1}}, Static: 50, Seed: 2}
	wl, err := g.Generate(shapeOf(p, m))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Study(context.Background(), wl, p, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Runs {
		if r.Stalls.Total != 0 || r.WBBubbles != 0 || r.SchedFails.Masked != 0 {
			t.Errorf("%s mask %v: %+v", r.Variant, r.Mask, r)
		}
		// One subwarp per cycle, S per warp instruction, plus the drain.
		if r.Cycles < r.SubwarpInstructions || r.Cycles > r.SubwarpInstructions+int64(4*p.MemStages) {
			t.Errorf("%s mask %v: %d cycles for %d subwarps", r.Variant, r.Mask, r.Cycles, r.SubwarpInstructions)
		}
	}
	if rep.ReadyMask.Unit != "study_mask" || rep.Workload.Warps != 16 {
		t.Errorf("%+v %+v", rep.ReadyMask, rep.Workload.Stats)
	}
}

// TestSimulate_Invariants: over random workloads and configurations, every
// run completes every instruction and the counters are consistent.
func TestSimulate_Invariants(t *testing.T) {
	for _, cfg := range []struct{ m, warp, simd, ports int }{
		{1, 8, 8, 1}, {2, 16, 8, 2}, {4, 32, 8, 1}, {3, 64, 4, 4}, {16, 32, 2, 1},
	} {
		p := specs.ElasticPipeline{Name: "t", MemStages: cfg.m, WarpSize: cfg.warp, SIMDWidth: cfg.simd, ShmemPorts: cfg.ports, TagBits: 4}
		shape := Shape{Subwarps: cfg.warp / cfg.simd, SIMDWidth: cfg.simd, PCBits: 14}
		for seed := uint64(1); seed <= 3; seed++ {
			g := Synthetic{Warps: int(seed * 7), Instructions: 150, Shmem: 0.4, Mem: 0.2, Degrees: MeanDist(float64(cfg.simd+1) / 2), Static: 30, Irregular: seed == 2, Seed: seed}
			wl, err := g.Generate(shape)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Study(context.Background(), wl, &p, nil, Options{})
			if err != nil {
				t.Fatalf("%+v seed %d: %v", cfg, seed, err)
			}
			for _, r := range rep.Runs {
				where := func() string { return r.Variant + map[bool]string{true: " +mask", false: ""}[r.Mask] }
				if r.WarpInstructions != int64(wl.Instructions()) || r.Cycles < r.SubwarpInstructions {
					t.Errorf("%+v %s: %d instructions in %d cycles", cfg, where(), r.WarpInstructions, r.Cycles)
				}
				if r.Stalls.Total != r.Stalls.BankConflict+r.Stalls.WritebackConflict || r.SchedFails.Total != r.SchedFails.Masked+r.SchedFails.NoneReady {
					t.Errorf("%+v %s: totals %+v %+v", cfg, where(), r.Stalls, r.SchedFails)
				}
				if r.Variant == string(specs.PipeUnified) && r.Stalls.WritebackConflict != 0 {
					t.Errorf("%+v %s: writeback conflicts in the unified pipeline", cfg, where())
				}
				if !r.Mask && (r.SchedFails.Masked != 0 || r.MaskCycles != 0 || r.HistoryLookups != 0) {
					t.Errorf("%+v %s: mask statistics without the mask: %+v", cfg, where(), r)
				}
				if r.Mask && r.HistoryLookups != int64(wl.Stats().Shmem) {
					t.Errorf("%+v %s: %d lookups for %d shmem instructions", cfg, where(), r.HistoryLookups, wl.Stats().Shmem)
				}
			}
		}
	}
}

// TestStudy_MaskHelpsElastic: on a regular, conflicting kernel the mask
// removes most bank-conflict stalls of the elastic pipeline (the history
// cache predicts every execution after the first of each PC). Not all of
// them: the warps run the kernel nearly in lockstep, so often only
// shared-memory warps are ready; when a warp reaches MEM0 late (behind a
// mispredicted one), the next is scheduled when the counter, which counts
// from scheduling, runs out, while the PREMEM queue is still full, and
// the lag persists until an alu warp fills the gap.
func TestStudy_MaskHelpsElastic(t *testing.T) {
	p, m := loadUnits(t, "../../specs/pipeline_study.hcl")
	g := Synthetic{Warps: 32, Instructions: 500, Shmem: 0.3, Degrees: MeanDist(3), Static: 100, Seed: 5}
	wl, err := g.Generate(shapeOf(p, m))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Study(context.Background(), wl, p, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	off, on := rep.Runs[4], rep.Runs[5]
	if on.Stalls.BankConflict*3 > off.Stalls.BankConflict || on.Cycles*5 > off.Cycles*4 || on.HistoryHits < on.HistoryLookups-int64(g.Static) {
		t.Errorf("elastic without mask %+v\nwith mask %+v", off, on)
	}
}

func TestSimulate_Errors(t *testing.T) {
	p := specs.ElasticPipeline{Name: "t", MemStages: 2, WarpSize: 32, SIMDWidth: 8, ShmemPorts: 1, TagBits: 8, PipeVariant: specs.PipeUnified}
	wl, err := Parse(strings.NewReader("0 shmem 1 8\n5 alu 2\n"), "f", Shape{Subwarps: 4, SIMDWidth: 8})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Simulate(context.Background(), wl, p, nil, Options{MaxCycles: 5})
	if err == nil || err.Error() != "pipesim: baseline_unified: 2 of 2 warp instructions not written back after 5 cycles (the cycle limit)" {
		t.Errorf("cycle limit: %v", err)
	}
	small := DefaultMask(&p, 4)
	if _, err = Simulate(context.Background(), wl, p, small, Options{}); err == nil || !strings.Contains(err.Error(), "6 warps, warp_ready_mask default has 4 warp contexts") {
		t.Errorf("contexts: %v", err)
	}
	q := p
	q.SIMDWidth = 4
	if _, err = Simulate(context.Background(), wl, q, nil, Options{}); err == nil || !strings.Contains(err.Error(), "4 subwarps of 8 lanes") {
		t.Errorf("shape: %v", err)
	}
	other := DefaultMask(&p, 8)
	other.ShmemPorts = 2
	if _, err = Simulate(context.Background(), wl, p, other, Options{}); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Errorf("mask sizes: %v", err)
	}
	q = p
	q.PipeVariant = "bogus"
	if _, err = Simulate(context.Background(), wl, q, nil, Options{}); err == nil || !strings.Contains(err.Error(), `unknown variant "bogus"`) {
		t.Errorf("variant: %v", err)
	}
	odd := DefaultMask(&p, 8)
	odd.HistorySets = 3
	if _, err = Simulate(context.Background(), wl, p, odd, Options{}); err == nil || !strings.Contains(err.Error(), "history_sets = 3") {
		t.Errorf("history sets: %v", err)
	}
	if r, err := Simulate(context.Background(), wl, p, nil, Options{}); err != nil || r.Cycles >= CycleLimit(wl, &p) {
		t.Errorf("%+v %v", r, err)
	}
}

// TestSimulate_NoneReady: one warp of two alu instructions, M = 2, one
// subwarp. Unified: accepted in 0, written back in 2, the second scheduled
// in 3 and written back in 5: 6 cycles, and in cycles 1 and 2 the front end
// is free but the only warp waits for its writeback: two "none ready"
// fails. Elastic: both forwarded from EXE, in cycles 0 and 1.
func TestSimulate_NoneReady(t *testing.T) {
	p := specs.ElasticPipeline{Name: "t", MemStages: 2, WarpSize: 8, SIMDWidth: 8, ShmemPorts: 1, TagBits: 8, PipeVariant: specs.PipeUnified}
	wl, err := Parse(strings.NewReader("0 alu 0\n0 alu 1\n"), "f", Shape{Subwarps: 1, SIMDWidth: 8})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		variant specs.PipelineVariant
		want    counts
	}{
		{specs.PipeUnified, counts{cycles: 6, none: 2}},
		{specs.PipeSplit, counts{cycles: 6, none: 2}},
		{specs.PipeElastic, counts{cycles: 2}},
	} {
		p.PipeVariant = c.variant
		r, err := Simulate(context.Background(), wl, p, DefaultMask(&p, 1), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := countsOf(r); got != c.want {
			t.Errorf("%s: got %+v, want %+v", c.variant, got, c.want)
		}
	}
}
