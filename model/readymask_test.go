package model

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/lsugen/lsugen/specs"
)

// paperMask is the paper's configuration (001_* section 4.4): 256 sets of 2
// ways, 14-bit PCs (6-bit tags), warp_size 32 (5-bit degrees) on 8 SIMD
// lanes (S = 4), one shared-memory port; 8 warp contexts.
func paperMask() *specs.WarpReadyMask {
	return &specs.WarpReadyMask{
		Name: "m", WarpContexts: 8, HistorySets: 256, HistoryWays: 2, PCBits: 14,
		WarpSize: 32, SIMDWidth: 8, ShmemPorts: 1,
	}
}

func schedShmem(pc uint64) ReadyIn { return ReadyIn{SchedValid: true, SchedShmem: true, SchedPC: pc} }

// resolve feeds one warp's subwarp degrees for pc, one per cycle, and
// returns the outputs of those cycles.
func resolve(m *ReadyMask, pc uint64, degrees ...int) []ReadyOut {
	var outs []ReadyOut
	for _, d := range degrees {
		outs = append(outs, m.Cycle(ReadyIn{ResValid: true, ResPC: pc, ResDegree: d}))
	}
	return outs
}

// maskRun runs idle cycles until mask_o falls and returns how many cycles
// it was 1 (at most limit).
func maskRun(m *ReadyMask, limit int) int {
	n := 0
	for n < limit && m.Cycle(ReadyIn{}).Mask {
		n++
	}
	return n
}

// expectLookup checks the cache's answer for pc without advancing it.
func expectLookup(t *testing.T, m *ReadyMask, pc uint64, pred int, hit bool) {
	t.Helper()
	if p, h := m.Lookup(pc); p != pred || h != hit {
		t.Errorf("lookup %#x: pred %d hit %v, want pred %d hit %v", pc, p, h, pred, hit)
	}
}

func TestReadyMaskPaperExample(t *testing.T) {
	spec := paperMask()
	// 256 * 2 * (6 + 5) bits = 704 bytes.
	if bits := spec.HistorySets * spec.HistoryWays * (spec.TagBits() + spec.HistoryBits()); bits != 5632 {
		t.Fatalf("history cache holds %d bits, want 5632", bits)
	}
	m := NewReadyMask(spec)
	const pc = 0x123 // set 0x23, tag 1
	ready, isMem := uint64(0xFF), uint64(0x0F)

	// A miss predicts 0: C = S - 1 = 3.
	o := m.Cycle(ReadyIn{Ready: ready, IsMem: isMem, SchedValid: true, SchedShmem: true, SchedPC: pc})
	if o.Mask || o.Hit || o.Pred != 0 || o.Ready != 0xFF {
		t.Errorf("first schedule: %+v, want no mask, miss, pred 0, all ready", o)
	}
	for c, want := range []bool{true, true, true, false, false} {
		o := m.Cycle(ReadyIn{Ready: ready, IsMem: isMem})
		wantReady := uint64(0xFF)
		if want {
			wantReady = 0xF0 // the memory warps 0..3 are masked
		}
		if o.Mask != want || o.Ready != wantReady {
			t.Errorf("cycle %d after the miss: mask %v ready %#x, want %v %#x", c+1, o.Mask, o.Ready, want, wantReady)
		}
	}

	// The warp resolves with subwarp degrees 3, 1, 2, 4: sum 10, stored
	// 10 - 4 = 6. Nothing is written before the fourth subwarp.
	resolve(m, pc, 3, 1, 2)
	expectLookup(t, m, pc, 0, false)
	resolve(m, pc, 4)
	expectLookup(t, m, pc, 6, true)

	// The next schedule of that PC: pred 6, C = 6 + 4 - 1 = 9, and mask_o
	// is 1 for exactly 9 cycles.
	o = m.Cycle(schedShmem(pc))
	if o.Mask || !o.Hit || o.Pred != 6 {
		t.Errorf("second schedule: %+v, want hit, pred 6", o)
	}
	if m.Counter() != 9 {
		t.Errorf("C = %d, want 9", m.Counter())
	}
	if n := maskRun(m, 100); n != 9 {
		t.Errorf("mask_o was 1 for %d cycles, want 9", n)
	}
}

func TestReadyMaskWarpReady(t *testing.T) {
	m := NewReadyMask(paperMask())
	m.Cycle(schedShmem(7))
	// Masked: only warps that are ready and memory warps lose their bit;
	// bits above warp_contexts = 8 are dropped.
	in := ReadyIn{Ready: 0xF0B6, IsMem: 0x65}
	if o := m.Cycle(in); !o.Mask || o.Ready != 0x92 {
		t.Errorf("masked: %+v, want mask, ready 0x92", o)
	}
	m.Reset()
	if o := m.Cycle(in); o.Mask || o.Ready != 0xB6 {
		t.Errorf("unmasked: %+v, want no mask, ready 0xb6", o)
	}
}

func TestReadyMaskCounter(t *testing.T) {
	m := NewReadyMask(paperMask())
	resolve(m, 0x40, 3, 3, 3, 3) // stored 8
	m.Cycle(schedShmem(0x40))    // C = 11
	// A scheduled non-shmem warp (memory or not) lets C count down.
	for range 4 {
		m.Cycle(ReadyIn{SchedValid: true, SchedPC: 0x40})
	}
	if m.Counter() != 7 {
		t.Errorf("C = %d, want 7", m.Counter())
	}
	// sched_shmem_i without sched_valid_i is no schedule either.
	m.Cycle(ReadyIn{SchedShmem: true, SchedPC: 0x40})
	if m.Counter() != 6 {
		t.Errorf("C = %d, want 6", m.Counter())
	}
	// Scheduling a shmem warp reloads C even when that lowers it: a miss
	// gives 3.
	m.Cycle(schedShmem(0x41))
	if m.Counter() != 3 {
		t.Errorf("C = %d after a reload with a miss, want 3", m.Counter())
	}
	if n := maskRun(m, 100); n != 3 {
		t.Errorf("mask for %d cycles, want 3", n)
	}
	// Degree 0 counts as 1.
	resolve(m, 0x42, 0, 0, 1, 0)
	expectLookup(t, m, 0x42, 0, true)
}

func TestReadyMaskPorts(t *testing.T) {
	// C = ceil((pred + S) / P) - 1 = (pred + S - 1) >> log2 P.
	cases := []struct {
		warp, simd, ports int
		degrees           []int // one resolved warp (S entries)
		missC, hitC       int
	}{
		{32, 8, 2, []int{3, 1, 2, 4}, 1, 4},                                           // (0+3)>>1, (6+3)>>1
		{32, 8, 4, []int{3, 1, 2, 4}, 0, 2},                                           // (0+3)>>2, (6+3)>>2
		{32, 8, 8, []int{8, 8, 8, 8}, 0, 3},                                           // stored 28: (28+3)>>3
		{8, 8, 1, []int{3}, 0, 2},                                                     // S = 1: stored 2
		{16, 4, 2, []int{4, 4, 4, 4}, 1, 7},                                           // S = 4, stored 12: 15>>1
		{64, 8, 1, []int{1, 1, 1, 1, 1, 1, 1, 8}, 7, 14},                              // S = 8: stored 7, C = 7 + 7
		{64, 8, 4, []int{2, 2, 2, 2, 2, 2, 2, 2}, 1, 3},                               // stored 8: (8+7)>>2
		{4, 2, 2, []int{2, 2}, 0, 1},                                                  // HB = 2: stored 2, (2+1)>>1
		{4, 1, 1, []int{1, 1, 1, 1}, 3, 3},                                            // simd 1: stored 0
		{2, 2, 1, []int{3}, 0, 0},                                                     // HB = 1: d = 2, stored 2 mod 2 = 0
		{2, 1, 1, []int{1, 1}, 1, 1},                                                  // S = 2, stored 0
		{32, 32, 1, []int{32}, 0, 31},                                                 // S = 1: stored 31
		{32, 32, 16, []int{32}, 0, 1},                                                 // 31 >> 4
		{32, 32, 1, []int{63}, 0, 30},                                                 // DB = 6: d = 62 = 30 mod 32
		{1024, 64, 1, []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 65}, 15, 79}, // 64 + 15
	}
	for _, tc := range cases {
		spec := &specs.WarpReadyMask{Name: "m", WarpContexts: 4, HistorySets: 16, HistoryWays: 2, PCBits: 10,
			WarpSize: tc.warp, SIMDWidth: tc.simd, ShmemPorts: tc.ports}
		name := fmt.Sprintf("warp %d simd %d P %d", tc.warp, tc.simd, tc.ports)
		if len(tc.degrees) != tc.warp/tc.simd {
			t.Fatalf("%s: test case has %d degrees", name, len(tc.degrees))
		}
		m := NewReadyMask(spec)
		m.Cycle(schedShmem(0x3A5))
		if m.Counter() != tc.missC {
			t.Errorf("%s: C after a miss = %d, want %d", name, m.Counter(), tc.missC)
		}
		if n := maskRun(m, 1000); n != tc.missC {
			t.Errorf("%s: mask for %d cycles after a miss, want %d", name, n, tc.missC)
		}
		resolve(m, 0x3A5, tc.degrees...)
		m.Cycle(schedShmem(0x3A5))
		if m.Counter() != tc.hitC {
			t.Errorf("%s: C after a hit = %d, want %d", name, m.Counter(), tc.hitC)
		}
	}
}

func TestReadyMaskAccumulatorWrap(t *testing.T) {
	m := NewReadyMask(paperMask())
	// res_degree_i is 4 bits wide: 15 is the largest, d = 14. The running
	// sum 14, 28, 42 = 10 (mod 32), 24: stored 24, C = 24 + 3 = 27.
	resolve(m, 0x200, 15, 15, 15, 15)
	expectLookup(t, m, 0x200, 24, true)
	m.Cycle(schedShmem(0x200))
	if n := maskRun(m, 100); n != 27 {
		t.Errorf("mask for %d cycles, want 27", n)
	}
	// 14 + 14 + 3 + 0 = 31: the largest stored degree; C = 31 + 3 = 34
	// is not wrapped to HistoryBits (it counts 34 cycles).
	resolve(m, 0x201, 15, 15, 4, 1)
	expectLookup(t, m, 0x201, 31, true)
	m.Cycle(schedShmem(0x201))
	if n := maskRun(m, 100); n != 34 {
		t.Errorf("mask for %d cycles, want 34", n)
	}
	// 14 * 3 + 6 = 48 = 16 (mod 32).
	resolve(m, 0x202, 15, 15, 15, 7)
	expectLookup(t, m, 0x202, 16, true)
	// Through the struct API, degrees beyond the port width are taken as
	// they are: d = 99, 0, 0, 0 -> 99 mod 32 = 3.
	resolve(m, 0x203, 100, 1, 1, 1)
	expectLookup(t, m, 0x203, 3, true)
}

func TestReadyMaskReplacement(t *testing.T) {
	m := NewReadyMask(paperMask())
	// Three PCs in set 5 with tags 1, 2, 3; one PC in set 6.
	const a, b, c, other = 0x105, 0x205, 0x305, 0x106
	store := func(pc uint64, v int) { resolve(m, pc, v+1, 1, 1, 1) } // stores v

	store(a, 1) // way 0 (lowest invalid)
	store(b, 2) // way 1
	expectLookup(t, m, a, 1, true)
	expectLookup(t, m, b, 2, true)
	expectLookup(t, m, c, 0, false)

	store(c, 3) // set full: the pointer (0) names way 0 = a; pointer -> 1
	expectLookup(t, m, a, 0, false)
	expectLookup(t, m, b, 2, true)
	expectLookup(t, m, c, 3, true)

	store(a, 4) // miss: way 1 = b is replaced; pointer -> 0
	expectLookup(t, m, a, 4, true)
	expectLookup(t, m, b, 0, false)
	expectLookup(t, m, c, 3, true)

	store(c, 5) // hit in way 0: updated, the pointer stays 0
	expectLookup(t, m, c, 5, true)
	expectLookup(t, m, a, 4, true)

	store(b, 7) // miss: way 0 = c is replaced; pointer -> 1
	expectLookup(t, m, a, 4, true)
	expectLookup(t, m, b, 7, true)
	expectLookup(t, m, c, 0, false)

	store(c, 0) // miss: way 1 = a; pointer -> 0. c hits with degree 0.
	expectLookup(t, m, a, 0, false)
	expectLookup(t, m, b, 7, true)
	expectLookup(t, m, c, 0, true)
	expectLookup(t, m, other, 0, false)

	// PC bits above pc_bits = 14 are ignored: 0x4305 is c.
	expectLookup(t, m, 0x4305|1<<40, 0, true)

	// Only the PC of the last subwarp names the entry.
	resolve(m, a, 2, 2, 2) // accumulated for "a" ...
	resolve(m, other, 2)   // ... but written for "other": 1+1+1+1 = 4
	expectLookup(t, m, other, 4, true)
	expectLookup(t, m, a, 0, false)
}

func TestReadyMaskDirectMappedNoTag(t *testing.T) {
	// history_sets 4, 1 way, pc_bits 2: no tag bits (TB = 0), each PC its
	// own set, the pointer always 0; warp_size = simd_width = 4: S = 1.
	m := NewReadyMask(&specs.WarpReadyMask{Name: "m", WarpContexts: 1, HistorySets: 4, HistoryWays: 1,
		PCBits: 2, WarpSize: 4, SIMDWidth: 4, ShmemPorts: 1})
	resolve(m, 1, 3) // stored 2
	resolve(m, 2, 4) // stored 3
	expectLookup(t, m, 1, 2, true)
	expectLookup(t, m, 2, 3, true)
	expectLookup(t, m, 5, 2, true) // bit 2 is above pc_bits
	expectLookup(t, m, 0, 0, false)
	resolve(m, 1, 1) // hit: stored 0
	expectLookup(t, m, 1, 0, true)
}

func TestReadyMaskOneWayReplacement(t *testing.T) {
	// 1 way: every miss in a full set replaces way 0; the pointer stays 0.
	m := NewReadyMask(&specs.WarpReadyMask{Name: "m", WarpContexts: 1, HistorySets: 2, HistoryWays: 1,
		PCBits: 4, WarpSize: 2, SIMDWidth: 2, ShmemPorts: 1})
	resolve(m, 0x1, 2) // set 1 tag 0: d = 1
	resolve(m, 0x3, 1) // set 1 tag 1: replaces
	expectLookup(t, m, 0x1, 0, false)
	expectLookup(t, m, 0x3, 0, true)
	resolve(m, 0x1, 2) // HB = 1: d = 1
	expectLookup(t, m, 0x1, 1, true)
	expectLookup(t, m, 0x3, 0, false)
}

func TestReadyMaskSameCycle(t *testing.T) {
	m := NewReadyMask(paperMask())
	const pc = 0x0AB
	resolve(m, pc, 2, 2, 2)
	// The fourth subwarp resolves in the cycle the PC is scheduled again:
	// the lookup sees the cache before the write (a miss).
	o := m.Cycle(ReadyIn{SchedValid: true, SchedShmem: true, SchedPC: pc, ResValid: true, ResPC: pc, ResDegree: 2})
	if o.Hit || o.Pred != 0 || m.Counter() != 3 {
		t.Errorf("same-cycle: hit %v pred %d C %d, want miss, 0, 3", o.Hit, o.Pred, m.Counter())
	}
	o = m.Cycle(schedShmem(pc))
	if !o.Hit || o.Pred != 4 || m.Counter() != 7 {
		t.Errorf("next cycle: hit %v pred %d C %d, want hit, 4, 7", o.Hit, o.Pred, m.Counter())
	}
	// The same on a hit: the old degree 4 is predicted while 0 is written.
	resolve(m, pc, 1, 1, 1)
	o = m.Cycle(ReadyIn{SchedValid: true, SchedShmem: true, SchedPC: pc, ResValid: true, ResPC: pc, ResDegree: 1})
	if !o.Hit || o.Pred != 4 {
		t.Errorf("same-cycle hit: hit %v pred %d, want 4", o.Hit, o.Pred)
	}
	expectLookup(t, m, pc, 0, true)
}

func TestReadyMaskLaunch(t *testing.T) {
	m := NewReadyMask(paperMask())
	resolve(m, 0x10, 5, 5, 5, 5) // stored 16
	m.Cycle(schedShmem(0x10))    // C = 19
	resolve(m, 0x11, 9, 9)       // A = 16, K = 2
	// Launch with a schedule and a resolve in the same cycle: the outputs
	// are those of the state (mask 1, the hit), the next state is reset.
	o := m.Cycle(ReadyIn{Launch: true, Ready: 0xFF, IsMem: 0xFF, SchedValid: true, SchedShmem: true,
		SchedPC: 0x10, ResValid: true, ResPC: 0x10, ResDegree: 3})
	if !o.Mask || o.Ready != 0 || !o.Hit || o.Pred != 16 {
		t.Errorf("launch cycle: %+v, want mask, nothing ready, hit 16", o)
	}
	if m.Counter() != 0 {
		t.Errorf("C = %d after launch", m.Counter())
	}
	expectLookup(t, m, 0x10, 0, false)
	// A and K were cleared: the next four subwarps make one warp.
	resolve(m, 0x11, 2, 2, 2)
	expectLookup(t, m, 0x11, 0, false)
	resolve(m, 0x11, 2)
	expectLookup(t, m, 0x11, 4, true)
	// After a launch the replacement pointers are 0 again: fill set 0x11
	// then overwrite.
	resolve(m, 0x111, 1, 1, 1, 1) // way 1
	resolve(m, 0x211, 1, 1, 1, 1) // pointer 0: replaces 0x11
	expectLookup(t, m, 0x11, 0, false)
	expectLookup(t, m, 0x111, 0, true)
}

func TestReadyMaskNoAllocs(t *testing.T) {
	m := NewReadyMask(paperMask())
	rng := rand.New(rand.NewPCG(5, 6))
	ins := make([]ReadyIn, 1024)
	for k := range ins {
		ins[k] = ReadyIn{Ready: rng.Uint64(), IsMem: rng.Uint64(), SchedValid: rng.IntN(2) == 0,
			SchedShmem: rng.IntN(2) == 0, SchedPC: uint64(rng.IntN(64)), ResValid: rng.IntN(2) == 0,
			ResPC: uint64(rng.IntN(64)), ResDegree: rng.IntN(9)}
	}
	k := 0
	if a := testing.AllocsPerRun(2000, func() { m.Cycle(ins[k%len(ins)]); k++ }); a != 0 {
		t.Errorf("%v allocations per cycle", a)
	}
}

func TestSeqReadyMaskMatchesStruct(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	spec := paperMask()
	s := mustSeq(t, spec)
	m := NewReadyMask(spec)
	in, out := seqPorts(s)
	pcs := []uint64{0x105, 0x205, 0x305, 0x106, 0x3FFF, 0}
	hits := 0
	for c := range 30000 {
		for k := range in {
			in[k][0] = rng.Uint64() // garbage above every port width
		}
		rst, launch := rng.IntN(3000) == 0, rng.IntN(2000) == 0
		in[0][0] = in[0][0]&^1 | b2u(rst)
		in[1][0] = in[1][0]&^1 | b2u(launch)
		schedPC := pcs[rng.IntN(len(pcs))]
		resPC := pcs[rng.IntN(len(pcs))]
		in[6][0] = in[6][0]&^0x3FFF | schedPC
		in[8][0] = in[8][0]&^0x3FFF | resPC
		want := m.Cycle(ReadyIn{
			Launch:     launch || rst,
			Ready:      in[2][0] & 0xFF,
			IsMem:      in[3][0] & 0xFF,
			SchedValid: in[4][0]&1 == 1,
			SchedShmem: in[5][0]&1 == 1,
			SchedPC:    schedPC,
			ResValid:   in[7][0]&1 == 1,
			ResPC:      resPC,
			ResDegree:  int(in[9][0] & 15),
		})
		if want.Hit {
			hits++
		}
		out[0][0], out[1][0] = ^uint64(0), ^uint64(0)
		s.Cycle(in, out)
		if out[0][0] != want.Ready || out[1][0] != b2u(want.Mask) {
			t.Fatalf("cycle %d: ports %#x %d, struct %#x %v", c, out[0][0], out[1][0], want.Ready, want.Mask)
		}
		if out[0][0] > 0xFF {
			t.Fatalf("cycle %d: warp_ready_o %#x above 8 bits", c, out[0][0])
		}
	}
	if hits < 1000 {
		t.Errorf("only %d hits: the stream does not exercise the cache", hits)
	}
}

func TestSeqReadyMaskRst(t *testing.T) {
	s := mustSeq(t, paperMask())
	in, out := seqPorts(s)
	// Cycle 0: schedule a shmem warp (miss: C = 3). Cycle 1: mask_o = 1;
	// rst with another schedule: the next state is reset, mask_o = 0.
	in[4][0], in[5][0], in[6][0] = 1, 1, 0x77
	in[2][0], in[3][0] = 0xFF, 0x01
	s.Cycle(in, out)
	if out[1][0] != 0 || out[0][0] != 0xFF {
		t.Errorf("cycle 0: ready %#x mask %d", out[0][0], out[1][0])
	}
	in[0][0] = 1
	s.Cycle(in, out)
	if out[1][0] != 1 || out[0][0] != 0xFE {
		t.Errorf("cycle 1 (rst): ready %#x mask %d, want 0xfe 1", out[0][0], out[1][0])
	}
	in[0][0], in[4][0] = 0, 0
	s.Cycle(in, out)
	if out[1][0] != 0 || out[0][0] != 0xFF {
		t.Errorf("cycle 2: ready %#x mask %d, want 0xff 0", out[0][0], out[1][0])
	}
}

func TestNewReadyMaskPanics(t *testing.T) {
	good := *paperMask()
	mod := func(f func(w *specs.WarpReadyMask)) *specs.WarpReadyMask { w := good; f(&w); return &w }
	bad := []*specs.WarpReadyMask{
		nil,
		mod(func(w *specs.WarpReadyMask) { w.WarpContexts = 0 }),
		mod(func(w *specs.WarpReadyMask) { w.WarpContexts = 65 }),
		mod(func(w *specs.WarpReadyMask) { w.HistorySets = 3 }),
		mod(func(w *specs.WarpReadyMask) { w.HistoryWays = 0 }),
		mod(func(w *specs.WarpReadyMask) { w.PCBits = 7 }),
		mod(func(w *specs.WarpReadyMask) { w.WarpSize = 1; w.SIMDWidth = 1 }),
		mod(func(w *specs.WarpReadyMask) { w.SIMDWidth = 64 }),
		mod(func(w *specs.WarpReadyMask) { w.ShmemPorts = 3 }),
	}
	for _, w := range bad {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewReadyMask(%+v) did not panic", w)
				}
			}()
			NewReadyMask(w)
		}()
		if _, err := forSequential(w); err == nil {
			t.Errorf("forSequential(%+v) gave no error", w)
		}
	}
}

func BenchmarkReadyMaskCycle(b *testing.B) {
	m := NewReadyMask(paperMask())
	rng := rand.New(rand.NewPCG(5, 6))
	ins := make([]ReadyIn, 4096)
	for k := range ins {
		ins[k] = ReadyIn{Ready: rng.Uint64(), IsMem: rng.Uint64(), SchedValid: true,
			SchedShmem: rng.IntN(4) == 0, SchedPC: uint64(rng.IntN(1 << 14)), ResValid: rng.IntN(2) == 0,
			ResPC: uint64(rng.IntN(1 << 14)), ResDegree: rng.IntN(9)}
	}
	k := 0
	for b.Loop() {
		m.Cycle(ins[k&4095])
		k++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/cycle")
}
