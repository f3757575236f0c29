package model

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/specs"
)

// Every expected value in these tests was worked out by hand from the
// cycle semantics (issue 4) and the paper's Figures 4 to 6; none is
// computed by the model under test.

func pipeSpec(variant specs.PipelineVariant, m, warp, simd, ports int) *specs.ElasticPipeline {
	return &specs.ElasticPipeline{
		Name: "p", MemStages: m, WarpSize: warp, SIMDWidth: simd,
		ShmemPorts: ports, TagBits: 8, PipeVariant: variant,
	}
}

func alu(tag uint64) PipeIn { return PipeIn{Valid: true, Kind: PipeALU, Tag: tag} }
func shmem(tag uint64, degree int) PipeIn {
	return PipeIn{Valid: true, Kind: PipeShmem, Degree: degree, Tag: tag}
}
func gmem(tag uint64) PipeIn { return PipeIn{Valid: true, Kind: PipeMem, Tag: tag} }

// exe drives p like an in-order EXE stage for the given number of cycles:
// it offers the next instruction of prog every cycle and keeps offering it
// while the pipeline stalls; after prog it offers nothing.
func exe(p *Pipeline, prog []PipeIn, cycles int) []PipeOut {
	outs := make([]PipeOut, cycles)
	k := 0
	for c := range outs {
		var in PipeIn
		if k < len(prog) {
			in = prog[k]
		}
		outs[c] = p.Cycle(in)
		if outs[c].Accepted(in) {
			k++
		}
	}
	return outs
}

// ev is the expected observable of one cycle: wb is the written-back tag
// (0 = no writeback), stall the stall cause (NoStall = no stall), bubble.
type ev struct {
	wb     uint64
	stall  StallCause
	bubble bool
}

func checkEvents(t *testing.T, name string, outs []PipeOut, want []ev) {
	t.Helper()
	for c, w := range want {
		o := outs[c]
		got := ev{stall: o.Cause, bubble: o.Bubble}
		if o.WBValid {
			got.wb = o.WBTag
			if o.WBTag == 0 {
				t.Errorf("%s cycle %d: writeback of tag 0 (tags start at 1)", name, c)
			}
		} else if o.WBTag != 0 {
			t.Errorf("%s cycle %d: wb tag %d without wb valid", name, c, o.WBTag)
		}
		if o.Stall != (o.Cause != NoStall) {
			t.Errorf("%s cycle %d: stall %v with cause %v", name, c, o.Stall, o.Cause)
		}
		if got != w {
			t.Errorf("%s cycle %d: got wb %d, stall %q, bubble %v; want wb %d, stall %q, bubble %v",
				name, c, got.wb, got.stall, got.bubble, w.wb, w.stall, w.bubble)
		}
	}
}

// count returns the number of cycles with a bubble and with each stall cause.
func count(outs []PipeOut) (bubbles, bank, wbc int) {
	for _, o := range outs {
		if o.Bubble {
			bubbles++
		}
		switch o.Cause {
		case BankConflictStall:
			bank++
		case WritebackConflictStall:
			wbc++
		}
	}
	return
}

// fig45 is the Figure 4/5 program: six alu instructions (tags 1..6), a
// shared-memory access of conflict degree 2 (tag 7), then alu instructions
// (tags 8, 9, ...).
func fig45() []PipeIn {
	var prog []PipeIn
	for k := uint64(1); k <= 6; k++ {
		prog = append(prog, alu(k))
	}
	prog = append(prog, shmem(7, 2))
	for k := uint64(8); k <= 40; k++ {
		prog = append(prog, alu(k))
	}
	return prog
}

const (
	bank = BankConflictStall
	wbc  = WritebackConflictStall
)

func TestPipelineFigure4Unified(t *testing.T) {
	// M = 2, S = 1, P = 1. Every instruction takes MEM0, MEM1: accepted in
	// t, written back in t+2. The shmem (accepted in 6) holds MEM0 in 7
	// and 8; tag 8 is refused in 7 (bank conflict) and taken in 8; MEM1 is
	// empty in 8 (a bubble: tag 7 was due in 6+2 = 8); tag 7 writes back
	// in 9, tag 8 in 10.
	p := NewPipeline(pipeSpec(specs.PipeUnified, 2, 8, 8, 1))
	outs := exe(p, fig45(), 30)
	checkEvents(t, "unified", outs, []ev{
		{}, {}, {wb: 1}, {wb: 2}, {wb: 3}, {wb: 4}, {wb: 5},
		{wb: 6, stall: bank},
		{bubble: true},
		{wb: 7}, {wb: 8}, {wb: 9}, {wb: 10}, {wb: 11},
	})
	if b, bc, wc := count(outs); b != 1 || bc != 1 || wc != 0 {
		t.Errorf("unified: %d bubbles, %d bank conflict stalls, %d writeback conflict stalls; want 1, 1, 0", b, bc, wc)
	}
	// MEM0: tag 6 finishes there in 6, tag 7 in 8 (two cycles), tag 8 in 9.
	for c, tag := range map[int]uint64{6: 6, 7: 0, 8: 7, 9: 8} {
		if o := outs[c]; o.MEM0Done != (tag != 0) || o.MEM0Tag != tag {
			t.Errorf("unified cycle %d: MEM0Done %v tag %d, want tag %d", c, o.MEM0Done, o.MEM0Tag, tag)
		}
	}
}

func TestPipelineFigure4Split(t *testing.T) {
	// M = 2: alu instructions take NM0, NM1 (written back in t+2). The
	// shmem (accepted in 6) is in MEM0 in 7, 8 and MEM1 in 9. NM1 is empty
	// in 8 (NM0 was empty in 7): a bubble. In 9 the memory path and NM1
	// (tag 8) compete: NONMEM holds and tag 10 stalls; tag 8 writes back
	// in 10.
	p := NewPipeline(pipeSpec(specs.PipeSplit, 2, 8, 8, 1))
	outs := exe(p, fig45(), 30)
	checkEvents(t, "split", outs, []ev{
		{}, {}, {wb: 1}, {wb: 2}, {wb: 3}, {wb: 4}, {wb: 5},
		{wb: 6},
		{bubble: true},
		{wb: 7, stall: wbc},
		{wb: 8}, {wb: 9}, {wb: 10}, {wb: 11},
	})
	if b, bc, wc := count(outs); b != 1 || bc != 0 || wc != 1 {
		t.Errorf("split: %d bubbles, %d bank conflict stalls, %d writeback conflict stalls; want 1, 0, 1", b, bc, wc)
	}
}

func TestPipelineFigure5Elastic(t *testing.T) {
	// M = 2, S = 1 (no PREMEM). alu instructions are forwarded from EXE
	// while nothing else writes back. The shmem (accepted in 6) is in MEM0
	// in 7, 8 and MEM1 in 9; tags 8 and 9 are forwarded in 7 and 8 (out of
	// order, before tag 7); in 9 tag 10 enters the NONMEM queue and from
	// then on the queue's head writes back.
	p := NewPipeline(pipeSpec(specs.PipeElastic, 2, 8, 8, 1))
	outs := exe(p, fig45(), 30)
	checkEvents(t, "elastic", outs, []ev{
		{wb: 1}, {wb: 2}, {wb: 3}, {wb: 4}, {wb: 5}, {wb: 6},
		{}, // the shmem enters MEM0; nothing is due
		{wb: 8}, {wb: 9}, {wb: 7}, {wb: 10}, {wb: 11}, {wb: 12},
	})
	if b, bc, wc := count(outs); b != 0 || bc != 0 || wc != 0 {
		t.Errorf("elastic: %d bubbles, %d bank conflict stalls, %d writeback conflict stalls; want none", b, bc, wc)
	}
	var order []uint64
	for _, o := range outs[:14] {
		if o.WBValid {
			order = append(order, o.WBTag)
		}
	}
	if want := []uint64{1, 2, 3, 4, 5, 6, 8, 9, 7, 10, 11, 12, 13}; !slices.Equal(order, want) {
		t.Errorf("elastic writeback order %v, want %v", order, want)
	}
	if !outs[8].MEM0Done || outs[8].MEM0Tag != 7 || outs[7].MEM0Done {
		t.Errorf("elastic: MEM0Done in 7 %v, in 8 %v (tag %d); want only in 8, tag 7",
			outs[7].MEM0Done, outs[8].MEM0Done, outs[8].MEM0Tag)
	}
	// In steady state one alu instruction waits in the NONMEM queue.
	if n := p.InFlight(); n != 1 {
		t.Errorf("elastic: %d in flight at the end, want 1", n)
	}
}

func TestPipelinePremem(t *testing.T) {
	// M = 4, warp 32, simd 8: S = 4, N = 3. Back-to-back degree-4
	// subwarps (4 MEM0 cycles each). Tag 1 is in MEM0 in 1..4; tags 2, 3,
	// 4 fill the PREMEM in 1, 2, 3; in 4 MEM0 frees, tag 2 moves to MEM0
	// (5..8) and tag 5 takes its PREMEM slot; in 5 the PREMEM is full and
	// MEM0 busy: the first stall. Thereafter one subwarp is taken every 4
	// cycles (8, 12, ...). Writeback: MEM0 finish + 3: 7, 11, 15, 19.
	spec := pipeSpec(specs.PipeElastic, 4, 32, 8, 1)
	var prog []PipeIn
	for k := uint64(1); k <= 12; k++ {
		prog = append(prog, shmem(k, 4))
	}
	p := NewPipeline(spec)
	outs := exe(p, prog, 20)
	var stalls, wbCycles, doneCycles []int
	for c, o := range outs {
		if o.Stall {
			stalls = append(stalls, c)
			if o.Cause != BankConflictStall {
				t.Errorf("cycle %d: cause %v, want bank conflict", c, o.Cause)
			}
		}
		if o.WBValid {
			wbCycles = append(wbCycles, c)
			if want := uint64(len(wbCycles)); o.WBTag != want {
				t.Errorf("cycle %d: wb tag %d, want %d", c, o.WBTag, want)
			}
		}
		if o.MEM0Done {
			doneCycles = append(doneCycles, c)
			if want := uint64(len(doneCycles)); o.MEM0Tag != want {
				t.Errorf("cycle %d: MEM0 tag %d, want %d", c, o.MEM0Tag, want)
			}
		}
	}
	if want := []int{5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19}; !slices.Equal(stalls, want) {
		t.Errorf("stall cycles %v, want %v", stalls, want)
	}
	if want := []int{7, 11, 15, 19}; !slices.Equal(wbCycles, want) {
		t.Errorf("writeback cycles %v, want %v", wbCycles, want)
	}
	if want := []int{4, 8, 12, 16}; !slices.Equal(doneCycles, want) {
		t.Errorf("MEM0 done cycles %v, want %v", doneCycles, want)
	}
	// Bubbles: tag 1 (accepted 0) is due in 4 and written back in 7; tag 2
	// (accepted 1) is due in 5 and written back in 11.
	var bubbles []int
	for c, o := range outs[:12] {
		if o.Bubble {
			bubbles = append(bubbles, c)
		}
	}
	if want := []int{4, 5, 6, 8, 9, 10}; !slices.Equal(bubbles, want) {
		t.Errorf("bubble cycles %v, want %v", bubbles, want)
	}

	// One whole warp (4 subwarps) followed by alu instructions: no stall;
	// the alu instructions are forwarded while the memory path is busy.
	p.Reset()
	prog = nil
	for k := uint64(1); k <= 4; k++ {
		prog = append(prog, shmem(k, 4))
	}
	for k := uint64(5); k <= 30; k++ {
		prog = append(prog, alu(k))
	}
	outs = exe(p, prog, 24)
	if _, bc, wc := count(outs); bc+wc != 0 {
		t.Errorf("one warp then alu: %d + %d stalls, want 0", bc, wc)
	}
	if !outs[4].WBValid || outs[4].WBTag != 5 {
		t.Errorf("one warp then alu: cycle 4 wb %v tag %d, want tag 5 forwarded", outs[4].WBValid, outs[4].WBTag)
	}

	// The same subwarps on the unified baseline stall from cycle 1.
	u := NewPipeline(pipeSpec(specs.PipeUnified, 4, 32, 8, 1))
	outs = exe(u, prog, 8)
	for c, want := range []bool{false, true, true, true, false, true, true, true} {
		if outs[c].Stall != want {
			t.Errorf("unified: cycle %d stall %v, want %v", c, outs[c].Stall, want)
		}
	}
}

func TestPipelinePrememFullBoundary(t *testing.T) {
	// M = 2, warp 16, simd 8: N = 1. A degree-3 shmem (tag 1, MEM0 in
	// 1..3), then one-cycle memory instructions.
	//  1: MEM0 busy, PREMEM empty: tag 2 is appended.
	//  2: MEM0 busy, PREMEM full (1 - 0 = 1, not < 1): tag 3 stalls.
	//  3: tag 1 finishes MEM0; tag 2 moves from PREMEM to MEM0 and tag 3
	//     takes its slot (1 - 1 = 0 < 1).
	//  4..6: likewise tag 3, 4, 5 move into MEM0 (MEM0 in 5, 6, 7).
	// Writeback is one cycle after the last MEM0 cycle: 4, 5, 6, 7, 8.
	spec := pipeSpec(specs.PipeElastic, 2, 16, 8, 1)
	p := NewPipeline(spec)
	prog := []PipeIn{shmem(1, 3), gmem(2), gmem(3), gmem(4), gmem(5)}
	outs := exe(p, prog, 12)
	var stalls []int
	for c, o := range outs {
		if o.Stall {
			stalls = append(stalls, c)
		}
	}
	if want := []int{2}; !slices.Equal(stalls, want) {
		t.Errorf("stall cycles %v, want %v", stalls, want)
	}
	for c, tag := range map[int]uint64{3: 0, 4: 1, 5: 2, 6: 3, 7: 4, 8: 5, 9: 0} {
		if o := outs[c]; o.WBValid != (tag != 0) || o.WBTag != tag {
			t.Errorf("cycle %d: wb %v tag %d, want tag %d", c, o.WBValid, o.WBTag, tag)
		}
	}
}

func TestPipelineOccupancy(t *testing.T) {
	// A shmem of degree d enters an empty pipeline in cycle 0 (MEM0 in
	// 1 .. c); a memory instruction offered from cycle 1 on is taken in
	// cycle c. simd 8 (DB = 4): degrees up to 15 are representable.
	cases := []struct {
		ports  int
		kind   PipeKind
		degree int
		occ    int
	}{
		{1, PipeShmem, 0, 1}, {1, PipeShmem, 1, 1}, {1, PipeShmem, 2, 2}, {1, PipeShmem, 8, 8},
		{1, PipeShmem, 15, 15}, {1, PipeShmem, -3, 1},
		{2, PipeShmem, 0, 1}, {2, PipeShmem, 1, 1}, {2, PipeShmem, 2, 1}, {2, PipeShmem, 3, 2},
		{2, PipeShmem, 4, 2}, {2, PipeShmem, 7, 4}, {2, PipeShmem, 8, 4}, {2, PipeShmem, 15, 8},
		{4, PipeShmem, 0, 1}, {4, PipeShmem, 3, 1}, {4, PipeShmem, 4, 1}, {4, PipeShmem, 5, 2},
		{4, PipeShmem, 8, 2}, {4, PipeShmem, 9, 3}, {4, PipeShmem, 15, 4},
		// The degree is read for shmem only; kind 3 is kind 2.
		{1, PipeMem, 8, 1}, {1, 3, 8, 1}, {1, PipeALU, 8, 1}, {2, 3, 15, 1},
	}
	for _, variant := range []specs.PipelineVariant{specs.PipeUnified, specs.PipeSplit, specs.PipeElastic} {
		for _, m := range []int{1, 3} {
			for _, tc := range cases {
				if tc.kind == PipeALU && variant != specs.PipeUnified {
					continue // alu does not take MEM0 there
				}
				name := fmt.Sprintf("%s M=%d P=%d kind %d degree %d", variant, m, tc.ports, tc.kind, tc.degree)
				p := NewPipeline(pipeSpec(variant, m, 8, 8, tc.ports))
				first := PipeIn{Valid: true, Kind: tc.kind, Degree: tc.degree, Tag: 1}
				prog := []PipeIn{first, gmem(2)}
				outs := exe(p, prog, tc.occ+m+3)
				taken := -1
				for c := 1; c < len(outs); c++ {
					if !outs[c].Stall {
						taken = c
						break
					}
				}
				if taken != tc.occ {
					t.Errorf("%s: second instruction taken in cycle %d, want %d", name, taken, tc.occ)
				}
				for c, o := range outs {
					if o.MEM0Done != (c == tc.occ || c == tc.occ+1) {
						t.Errorf("%s cycle %d: MEM0Done %v", name, c, o.MEM0Done)
					}
					// Written back in the cycle it leaves MEM(M-1).
					if wantWB := c == tc.occ+m-1 || c == tc.occ+m; o.WBValid != wantWB {
						t.Errorf("%s cycle %d: wb %v, want %v", name, c, o.WBValid, wantWB)
					}
				}
			}
		}
	}
}

func TestPipelineM1(t *testing.T) {
	// M = 1: the instruction finishing MEM0 is written back in the same
	// cycle. Program: alu 1..4 (cycles 0..3), shmem 5 of degree 2
	// (cycle 4), then alu 6, 7, ...
	prog := []PipeIn{alu(1), alu(2), alu(3), alu(4), shmem(5, 2)}
	for k := uint64(6); k <= 20; k++ {
		prog = append(prog, alu(k))
	}

	// Unified: wb in t+1. Tag 5 is in MEM0 in 5, 6; tag 6 stalls in 5
	// (a bubble too: tag 5 was due in 5) and is taken in 6.
	p := NewPipeline(pipeSpec(specs.PipeUnified, 1, 8, 8, 1))
	checkEvents(t, "unified M=1", exe(p, prog, 12), []ev{
		{}, {wb: 1}, {wb: 2}, {wb: 3}, {wb: 4},
		{stall: bank, bubble: true},
		{wb: 5}, {wb: 6}, {wb: 7}, {wb: 8},
	})

	// Split: alu through NM0, wb in t+1. Cycle 5: no memory writeback, NM0
	// empty (the shmem took cycle 4): a bubble, tag 6 enters NM0. Cycle 6:
	// tag 5 finishes MEM0 and wins; NM0 (tag 6) holds; tag 7 stalls.
	p = NewPipeline(pipeSpec(specs.PipeSplit, 1, 8, 8, 1))
	checkEvents(t, "split M=1", exe(p, prog, 12), []ev{
		{}, {wb: 1}, {wb: 2}, {wb: 3}, {wb: 4},
		{bubble: true},
		{wb: 5, stall: wbc},
		{wb: 6}, {wb: 7}, {wb: 8},
	})

	// Elastic, S = 1: forwarded alu instructions; tag 6 forwarded in 5;
	// tag 5 writes back in 6 and tag 7 enters the one-entry NONMEM queue.
	p = NewPipeline(pipeSpec(specs.PipeElastic, 1, 8, 8, 1))
	checkEvents(t, "elastic M=1", exe(p, prog, 12), []ev{
		{wb: 1}, {wb: 2}, {wb: 3}, {wb: 4}, {},
		{wb: 6}, {wb: 5}, {wb: 7}, {wb: 8}, {wb: 9},
	})

	// Elastic, M = 1, warp 16, simd 8 (N = 1): shmem 1 of degree 3 (MEM0
	// 1..3); shmem 2 waits in the PREMEM (1); alu 3 is forwarded (2); mem
	// 4 (3) is appended to the PREMEM as shmem 2 enters MEM0; alu 5 (4)
	// goes to NONMEM because shmem 2 writes back; alu 6 (5) stalls: mem 4
	// writes back and the one-entry NONMEM is full; (6) alu 5 writes back
	// from NONMEM and alu 6 is appended; (7) alu 6 writes back. Cycle 1 is
	// a bubble: shmem 1, accepted in 0, was due in 1.
	p = NewPipeline(pipeSpec(specs.PipeElastic, 1, 16, 8, 1))
	prog2 := []PipeIn{shmem(1, 3), shmem(2, 1), alu(3), gmem(4), alu(5), alu(6)}
	checkEvents(t, "elastic M=1 N=1", exe(p, prog2, 9), []ev{
		{}, {bubble: true}, {wb: 3}, {wb: 1}, {wb: 2},
		{wb: 4, stall: wbc},
		{wb: 5}, {wb: 6}, {},
	})
}

func TestPipelineElasticNonmemFull(t *testing.T) {
	// M = 2, warp 32, simd 8 (N = 3). A degree-2 shmem and three memory
	// instructions queue up in PREMEM, so the memory path writes back in
	// four consecutive cycles while EXE offers alu instructions:
	//  0: m1 -> MEM0 (1, 2)          1: m2 -> PREMEM
	//  2: m1 done, m2 -> MEM0, m3 -> PREMEM; no writeback, m1 (accepted
	//     in 0) was due in 2: a bubble
	//  3: wb m1; m3 -> MEM0, m4 -> PREMEM
	//  4: wb m2; m4 -> MEM0; alu 5 -> NONMEM [5]
	//  5: wb m3; alu 6 -> NONMEM [5 6]
	//  6: wb m4; NONMEM full (2 - 0 = 2, not < 2): alu 7 stalls
	//  7: wb 5 (NONMEM head); alu 7 -> [6 7]
	//  8: wb 6; 9: wb 7; 10: wb 8 ...
	p := NewPipeline(pipeSpec(specs.PipeElastic, 2, 32, 8, 1))
	prog := []PipeIn{shmem(1, 2), gmem(2), gmem(3), gmem(4)}
	for k := uint64(5); k <= 20; k++ {
		prog = append(prog, alu(k))
	}
	checkEvents(t, "elastic nonmem full", exe(p, prog, 11), []ev{
		{}, {}, {bubble: true}, {wb: 1}, {wb: 2}, {wb: 3},
		{wb: 4, stall: wbc},
		{wb: 5}, {wb: 6}, {wb: 7}, {wb: 8},
	})
	// NONMEM holds two alu instructions from here on.
	if n := p.InFlight(); n != 2 {
		t.Errorf("in flight %d, want 2", n)
	}
}

func TestPipelineResetAndInFlight(t *testing.T) {
	// Random streams on every variant: tags are unique, every accepted
	// instruction is written back exactly once, InFlight = accepted -
	// written back, and Reset empties the pipeline.
	rng := rand.New(rand.NewPCG(1, 2))
	for _, variant := range []specs.PipelineVariant{specs.PipeUnified, specs.PipeSplit, specs.PipeElastic} {
		for _, cfg := range [][3]int{{1, 8, 8}, {2, 32, 8}, {4, 32, 8}, {3, 64, 4}} {
			spec := pipeSpec(variant, cfg[0], cfg[1], cfg[2], 1)
			p := NewPipeline(spec)
			seen := map[uint64]int{} // tag -> 1 accepted, 2 written back
			accepted, written := 0, 0
			tag := uint64(1)
			for c := range 3000 {
				in := PipeIn{Valid: rng.IntN(4) != 0, Kind: PipeKind(rng.IntN(4)), Degree: rng.IntN(10), Tag: tag}
				o := p.Cycle(in)
				if o.WBValid {
					if seen[o.WBTag] != 1 && o.WBTag != in.Tag {
						t.Fatalf("%s %v cycle %d: tag %d written back but not in flight", variant, cfg, c, o.WBTag)
					}
					seen[o.WBTag] = 2
					written++
				}
				if o.Accepted(in) {
					if seen[in.Tag] == 0 {
						seen[in.Tag] = 1
					}
					accepted++
					tag++
				}
				if p.InFlight() != accepted-written {
					t.Fatalf("%s %v cycle %d: InFlight %d, want %d", variant, cfg, c, p.InFlight(), accepted-written)
				}
			}
			p.Reset()
			if p.InFlight() != 0 {
				t.Errorf("%s %v: InFlight after Reset = %d", variant, cfg, p.InFlight())
			}
			if o := p.Cycle(PipeIn{}); o != (PipeOut{}) {
				t.Errorf("%s %v: first cycle after Reset = %+v, want nothing", variant, cfg, o)
			}
		}
	}
}

func TestPipelineNoAllocs(t *testing.T) {
	for _, variant := range []specs.PipelineVariant{specs.PipeUnified, specs.PipeSplit, specs.PipeElastic} {
		p := NewPipeline(pipeSpec(variant, 4, 32, 8, 1))
		ins := randomPipeIns(1024)
		k := 0
		allocs := testing.AllocsPerRun(2000, func() {
			p.Cycle(ins[k%len(ins)])
			k++
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per cycle", variant, allocs)
		}
	}
}

func randomPipeIns(n int) []PipeIn {
	rng := rand.New(rand.NewPCG(7, 8))
	ins := make([]PipeIn, n)
	for k := range ins {
		ins[k] = PipeIn{Valid: rng.IntN(8) != 0, Kind: PipeKind(rng.IntN(3)), Degree: rng.IntN(9), Tag: uint64(k)}
	}
	return ins
}

func TestNewPipelinePanics(t *testing.T) {
	bad := []*specs.ElasticPipeline{
		nil,
		pipeSpec(specs.PipeElastic, 0, 8, 8, 1),
		pipeSpec(specs.PipeElastic, 2, 8, 16, 1),
		pipeSpec(specs.PipeElastic, 2, 8, 6, 1),
		pipeSpec(specs.PipeElastic, 2, 8, 8, 3),
		pipeSpec("", 2, 8, 8, 1),
		pipeSpec("other", 2, 8, 8, 1),
	}
	for _, s := range bad {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewPipeline(%+v) did not panic", s)
				}
			}()
			NewPipeline(s)
		}()
		if _, err := forSequential(s); err == nil {
			t.Errorf("forSequential(%+v) gave no error", s)
		}
	}
}

// ---------------------------------------------------------------------------
// Port-level wrappers.

func mustSeq(t testing.TB, u specs.Unit) Sequential {
	t.Helper()
	s, err := forSequential(u)
	if err != nil {
		t.Fatalf("forSequential(%s): %v", u.UnitName(), err)
	}
	return s
}

func seqPorts(s Sequential) (in, out [][]uint64) {
	for _, p := range s.Ports() {
		v := make([]uint64, (p.Width+63)/64)
		if p.Output {
			out = append(out, v)
		} else {
			in = append(in, v)
		}
	}
	return in, out
}

func portList(s Sequential) string {
	var b strings.Builder
	for _, p := range s.Ports() {
		dir := "i"
		if p.Output {
			dir = "o"
		}
		fmt.Fprintf(&b, "%s:%s[%d] ", dir, p.Name, p.Width)
	}
	return strings.TrimSpace(b.String())
}

func TestForSequentialPorts(t *testing.T) {
	cases := []struct {
		u    specs.Unit
		want string
	}{
		{&specs.ElasticPipeline{Name: "a", MemStages: 2, WarpSize: 8, SIMDWidth: 8, ShmemPorts: 1, TagBits: 8, PipeVariant: specs.PipeElastic},
			"i:rst[1] i:in_valid_i[1] i:in_kind_i[2] i:in_degree_i[4] i:in_tag_i[8] o:stall_o[1] o:wb_valid_o[1] o:wb_tag_o[8]"},
		{&specs.ElasticPipeline{Name: "b", MemStages: 4, WarpSize: 32, SIMDWidth: 16, ShmemPorts: 2, TagBits: 64, PipeVariant: specs.PipeSplit},
			"i:rst[1] i:in_valid_i[1] i:in_kind_i[2] i:in_degree_i[5] i:in_tag_i[64] o:stall_o[1] o:wb_valid_o[1] o:wb_tag_o[64]"},
		{&specs.ElasticPipeline{Name: "c", MemStages: 1, WarpSize: 4, SIMDWidth: 1, ShmemPorts: 1, TagBits: 1, PipeVariant: specs.PipeUnified},
			"i:rst[1] i:in_valid_i[1] i:in_kind_i[2] i:in_degree_i[1] i:in_tag_i[1] o:stall_o[1] o:wb_valid_o[1] o:wb_tag_o[1]"},
		{paperMask(),
			"i:rst[1] i:launch_i[1] i:warp_ready_i[8] i:warp_is_mem_i[8] i:sched_valid_i[1] i:sched_shmem_i[1] i:sched_pc_i[14] " +
				"i:res_valid_i[1] i:res_pc_i[14] i:res_degree_i[4] o:warp_ready_o[8] o:mask_o[1]"},
		{&specs.WarpReadyMask{Name: "m", WarpContexts: 64, HistorySets: 1, HistoryWays: 1, PCBits: 32, WarpSize: 2, SIMDWidth: 2, ShmemPorts: 2},
			"i:rst[1] i:launch_i[1] i:warp_ready_i[64] i:warp_is_mem_i[64] i:sched_valid_i[1] i:sched_shmem_i[1] i:sched_pc_i[32] " +
				"i:res_valid_i[1] i:res_pc_i[32] i:res_degree_i[2] o:warp_ready_o[64] o:mask_o[1]"},
	}
	for _, tc := range cases {
		if got := portList(mustSeq(t, tc.u)); got != tc.want {
			t.Errorf("%s ports:\n got  %s\n want %s", tc.u.UnitName(), got, tc.want)
		}
	}

	if _, err := forSequential(nil); err == nil {
		t.Error("forSequential(nil) gave no error")
	}
	if _, err := forSequential((*specs.WarpReadyMask)(nil)); err == nil {
		t.Error("forSequential(nil *WarpReadyMask) gave no error")
	}
	if _, err := forSequential(&specs.Coalescer{Name: "c", Lanes: 4, AddrBits: 8}); err == nil {
		t.Error("forSequential(coalescer) gave no error")
	}
	if _, err := forUnit(pipeSpec(specs.PipeElastic, 2, 8, 8, 1)); err == nil {
		t.Error("forUnit(elastic_pipeline) gave no error")
	}
}

func TestSeqPipelineMatchesStruct(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, variant := range []specs.PipelineVariant{specs.PipeUnified, specs.PipeSplit, specs.PipeElastic} {
		spec := pipeSpec(variant, 3, 32, 8, 2)
		spec.TagBits = 5
		s := mustSeq(t, spec)
		p := NewPipeline(spec)
		in, out := seqPorts(s)
		for c := range 20000 {
			// Random words, garbage above every port width.
			rst := rng.IntN(500) == 0
			for k := range in {
				in[k][0] = rng.Uint64()
			}
			in[0][0] = in[0][0]&^1 | b2u(rst)
			if rng.IntN(3) != 0 {
				in[1][0] |= 1 // mostly valid
			}
			want := p.Cycle(PipeIn{
				Valid:  in[1][0]&1 == 1,
				Kind:   PipeKind(in[2][0] & 3),
				Degree: int(in[3][0] & 15), // DB = 4 for simd 8
				Tag:    in[4][0] & 31,      // T = 5
			})
			if rst {
				p.Reset()
			}
			for k := range out {
				out[k][0] = ^uint64(0)
			}
			s.Cycle(in, out)
			got := [3]uint64{out[0][0], out[1][0], out[2][0]}
			exp := [3]uint64{b2u(want.Stall), b2u(want.WBValid), want.WBTag}
			if got != exp {
				t.Fatalf("%s cycle %d: ports %v, struct %v", variant, c, got, exp)
			}
			if got[2] > 31 {
				t.Fatalf("%s cycle %d: wb_tag_o %#x above 5 bits", variant, c, got[2])
			}
		}
	}
}

func TestSeqPipelineRstAndTagMask(t *testing.T) {
	// T = 3: tag 0b11110101 reads as 0b101. M = 1 unified: accepted in 0,
	// written back in 1. rst in cycle 1: the outputs of cycle 1 stand,
	// but the instruction accepted in 1 is gone in 2.
	spec := pipeSpec(specs.PipeUnified, 1, 8, 8, 1)
	spec.TagBits = 3
	s := mustSeq(t, spec)
	in, out := seqPorts(s)
	set := func(rst, valid, kind, degree, tag uint64) {
		in[0][0], in[1][0], in[2][0], in[3][0], in[4][0] = rst, valid, kind, degree, tag
	}
	step := func() [3]uint64 {
		s.Cycle(in, out)
		return [3]uint64{out[0][0], out[1][0], out[2][0]}
	}
	set(0, 1, 0, 0, 0xF5)
	if got := step(); got != [3]uint64{0, 0, 0} {
		t.Errorf("cycle 0: %v", got)
	}
	set(1, 1, 1, 3, 0x06) // rst, with a 3-cycle shmem offered and accepted
	if got := step(); got != [3]uint64{0, 1, 5} {
		t.Errorf("cycle 1: %v, want wb tag 5", got)
	}
	set(0, 1, 0, 0, 0x07) // MEM0 is empty after the reset: accepted
	if got := step(); got != [3]uint64{0, 0, 0} {
		t.Errorf("cycle 2: %v, want nothing (rst dropped the shmem)", got)
	}
	set(0, 0, 0, 0, 0)
	if got := step(); got != [3]uint64{0, 1, 7} {
		t.Errorf("cycle 3: %v, want wb tag 7", got)
	}
	s.Reset()
	set(0, 1, 1, 15, 1) // 15 with DB = 4: 15 MEM0 cycles
	step()
	set(0, 1, 2, 0, 2)
	for c := 1; c < 15; c++ {
		if got := step(); got[0] != 1 {
			t.Fatalf("after degree 15: cycle %d not stalled", c)
		}
	}
	if got := step(); got != [3]uint64{0, 1, 1} {
		t.Errorf("cycle 15: %v, want accepted and wb tag 1", got)
	}
}

func BenchmarkPipelineCycle(b *testing.B) {
	ins := randomPipeIns(4096)
	for _, variant := range []specs.PipelineVariant{specs.PipeUnified, specs.PipeSplit, specs.PipeElastic} {
		b.Run(string(variant), func(b *testing.B) {
			p := NewPipeline(pipeSpec(variant, 4, 32, 8, 1))
			k := 0
			for b.Loop() {
				p.Cycle(ins[k&4095])
				k++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/cycle")
		})
	}
}

func TestPipelineBubbleAfterMEM0(t *testing.T) {
	// M = 3: a bubble can be caused by an instruction already past MEM0.
	// A degree-2 shmem accepted in 0 is in MEM0 in 1, 2, MEM1 in 3, MEM2
	// in 4 and written back in 4; it was due in 0 + 3 = 3: cycle 3 is the
	// one bubble (in 1 and 2 it is not yet due).
	for _, variant := range []specs.PipelineVariant{specs.PipeUnified, specs.PipeSplit, specs.PipeElastic} {
		p := NewPipeline(pipeSpec(variant, 3, 8, 8, 1))
		checkEvents(t, string(variant)+" M=3", exe(p, []PipeIn{shmem(1, 2)}, 6), []ev{
			{}, {}, {}, {bubble: true}, {wb: 1}, {},
		})
	}
	// Elastic, N = 1: shmem 1 of degree 3 (MEM0 1..3, MEM1 4, MEM2 5, wb
	// 5, due 3); mem 2 waits in PREMEM (1..3), MEM0 in 4, wb 6, due 4.
	// Bubbles in 3 (shmem 1 in MEM0) and 4 (shmem 1 in MEM1, mem 2 in MEM0).
	p := NewPipeline(pipeSpec(specs.PipeElastic, 3, 16, 8, 1))
	checkEvents(t, "elastic M=3 N=1", exe(p, []PipeIn{shmem(1, 3), gmem(2)}, 8), []ev{
		{}, {}, {}, {bubble: true}, {bubble: true}, {wb: 1}, {wb: 2}, {},
	})
}
