package profile

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/tools/accelsim"
)

// testTiming has different cycle counts, so that a swapped structure
// shows: at the first clock all-to-all 2, neighbor 1, speculative fast 1
// and slow 3; at the second 1, 1, 1 and 2.
var testTiming = Timing{
	ClocksFO4:       []float64{40, 80},
	Mode:            "unsized",
	SpecTiming:      "combined",
	Spec:            "test.hcl",
	AllToAll:        UnitTiming{Unit: "a2a", Lanes: 32, AddrBits: 32, FO4: 50, Cycles: []int{2, 1}},
	Neighbor:        UnitTiming{Unit: "nbr", Lanes: 32, AddrBits: 32, FO4: 5, Cycles: []int{1, 1}},
	SpeculativeFast: UnitTiming{Unit: "spec", Lanes: 32, AddrBits: 32, FO4: 39, Cycles: []int{1, 1}},
	SpeculativeSlow: UnitTiming{Unit: "spec", Lanes: 32, AddrBits: 32, FO4: 81, Cycles: []int{3, 2}},
}

// access builds a global access of the active lanes in mask, lane i at
// addr(i).
func access(pc uint64, opcode string, mask uint32, width int, addr func(lane int) uint64) *accelsim.WarpAccess {
	a := &accelsim.WarpAccess{File: "k.traceg", Line: int(pc), Kernel: 1, KernelName: "k", PC: pc, Opcode: opcode,
		Space: accelsim.Global, Op: accelsim.Load, Mask: mask, Width: width}
	if strings.HasPrefix(opcode, "ST") {
		a.Op = accelsim.Store
	}
	for i := 0; i < 32; i++ {
		if mask>>i&1 == 1 {
			a.Addrs = append(a.Addrs, addr(i))
		}
	}
	return a
}

func mustProfile(t *testing.T, blockBytes uint64, accesses ...*accelsim.WarpAccess) *Report {
	t.Helper()
	p, err := New(Options{BlockBytes: blockBytes, Timing: testTiming})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range accesses {
		if err := p.Add("trace", a); err != nil {
			t.Fatal(err)
		}
	}
	return p.Report()
}

// The accesses of the hand-computed profile, 128-byte blocks.
func handAccesses() []*accelsim.WarpAccess {
	const base = 0x7f0000001000
	return []*accelsim.WarpAccess{
		// 0x10: stride 1 (32 x 4 bytes = one block), then reversed.
		access(0x10, "LDG.E", 0xffffffff, 4, func(i int) uint64 { return base + 4*uint64(i) }),
		access(0x10, "LDG.E", 0xffffffff, 4, func(i int) uint64 { return base + 4*uint64(31-i) }),
		// 0x20: transpose-like, lane i in block i%4 (4 blocks, 32 runs),
		// then blocks 0,0,4,4,2,2: not monotonic, yet each block's lanes
		// are contiguous (3 runs, 3 blocks).
		access(0x20, "STG.E", 0xffffffff, 4, func(i int) uint64 { return base + uint64(i%4)*1024 + uint64(i/4)*4 }),
		access(0x20, "STG.E", 0x3f, 4, func(i int) uint64 { return base + []uint64{0, 4, 0x200, 0x204, 0x100, 0x104}[i] }),
		// 0x30: 8 lanes (mask 0xff00) on one address.
		access(0x30, "LDG.E.64", 0xff00, 8, func(int) uint64 { return base + 64 }),
		// 0x40: stride of one block: 32 blocks.
		access(0x40, "LDG.E", 0xffffffff, 4, func(i int) uint64 { return base + 128*uint64(i) }),
	}
}

func TestProfile_HandComputed(t *testing.T) {
	r := mustProfile(t, 128, handAccesses()...)
	if len(r.Kernels) != 1 {
		t.Fatalf("%d kernels, want 1", len(r.Kernels))
	}
	k := r.Kernels[0]
	want := []PC{
		{PC: "0x0010", Opcode: "LDG.E", Stats: Stats{Accesses: 2, ActiveLanes: 64, Monotonic: 2, Increasing: 1, Decreasing: 1,
			MonotonicFraction: 1, NeighborExact: 2, UniqueBlocks: []BlockCount{{1, 2}}, MeanUniqueBlocks: 1,
			Cycles: []Cycles{{ClockFO4: 40, AllToAll: 4, Speculative: 2, MeanAllToAll: 2, MeanSpeculative: 1, Speedup: 2},
				{ClockFO4: 80, AllToAll: 2, Speculative: 2, MeanAllToAll: 1, MeanSpeculative: 1, Speedup: 1}}}},
		{PC: "0x0020", Opcode: "STG.E", Stats: Stats{Accesses: 2, ActiveLanes: 38, NeighborExact: 1, NeighborExtraRequests: 28,
			UniqueBlocks: []BlockCount{{3, 1}, {4, 1}}, MeanUniqueBlocks: 3.5,
			Cycles: []Cycles{{ClockFO4: 40, AllToAll: 4, Speculative: 6, MeanAllToAll: 2, MeanSpeculative: 3, Speedup: 0.6667},
				{ClockFO4: 80, AllToAll: 2, Speculative: 4, MeanAllToAll: 1, MeanSpeculative: 2, Speedup: 0.5}}}},
		{PC: "0x0030", Opcode: "LDG.E.64", Stats: Stats{Accesses: 1, ActiveLanes: 8, Monotonic: 1, Uniform: 1,
			MonotonicFraction: 1, NeighborExact: 1, UniqueBlocks: []BlockCount{{1, 1}}, MeanUniqueBlocks: 1,
			Cycles: []Cycles{{ClockFO4: 40, AllToAll: 2, Speculative: 1, MeanAllToAll: 2, MeanSpeculative: 1, Speedup: 2},
				{ClockFO4: 80, AllToAll: 1, Speculative: 1, MeanAllToAll: 1, MeanSpeculative: 1, Speedup: 1}}}},
		{PC: "0x0040", Opcode: "LDG.E", Stats: Stats{Accesses: 1, ActiveLanes: 32, Monotonic: 1, Increasing: 1,
			MonotonicFraction: 1, NeighborExact: 1, UniqueBlocks: []BlockCount{{32, 1}}, MeanUniqueBlocks: 32,
			Cycles: []Cycles{{ClockFO4: 40, AllToAll: 2, Speculative: 1, MeanAllToAll: 2, MeanSpeculative: 1, Speedup: 2},
				{ClockFO4: 80, AllToAll: 1, Speculative: 1, MeanAllToAll: 1, MeanSpeculative: 1, Speedup: 1}}}},
	}
	if !reflect.DeepEqual(k.PCs, want) {
		t.Errorf("PCs:\n got %+v\nwant %+v", k.PCs, want)
	}
	// The kernel: 6 accesses, 4 monotonic, blocks 1+1+4+3+1+32 = 42,
	// at 40 FO4 all-to-all 6 x 2 = 12 cycles, speculative 4 x 1 + 2 x 3 =
	// 10; at 80 FO4 6 x 1 = 6 and 4 x 1 + 2 x 2 = 8.
	wantK := Stats{Accesses: 6, ActiveLanes: 142, Monotonic: 4, Increasing: 2, Decreasing: 1, Uniform: 1,
		MonotonicFraction: 0.6667, NeighborExact: 5, NeighborExtraRequests: 28,
		UniqueBlocks: []BlockCount{{1, 3}, {3, 1}, {4, 1}, {32, 1}}, MeanUniqueBlocks: 7,
		Cycles: []Cycles{{ClockFO4: 40, AllToAll: 12, Speculative: 10, MeanAllToAll: 2, MeanSpeculative: 1.6667, Speedup: 1.2},
			{ClockFO4: 80, AllToAll: 6, Speculative: 8, MeanAllToAll: 1, MeanSpeculative: 1.3333, Speedup: 0.75}}}
	if !reflect.DeepEqual(k.Stats, wantK) {
		t.Errorf("kernel:\n got %+v\nwant %+v", k.Stats, wantK)
	}
	if !reflect.DeepEqual(r.Total, wantK) {
		t.Errorf("total:\n got %+v\nwant %+v", r.Total, wantK)
	}
}

// TestProfile_BlockBytes: the same accesses with 16-byte blocks and with
// lanes whose bytes span two blocks.
func TestProfile_BlockBytes(t *testing.T) {
	r := mustProfile(t, 16,
		// stride 1 of 4 bytes: 128 bytes = 8 blocks of 16.
		access(0x10, "LDG.E", 0xffffffff, 4, func(i int) uint64 { return 4 * uint64(i) }),
		// 16 bytes at 8 + 32i: each lane spans blocks 2i and 2i+1 (lanes
		// 0 and 1 only): 4 blocks; by lane address 2 blocks, 2 runs.
		access(0x20, "LDG.E.128", 0x3, 16, func(i int) uint64 { return 8 + 32*uint64(i) }),
		// width 0 counts as one byte: lanes 0..3 at 0, 15, 16, 31: 2 blocks.
		access(0x30, "LDG.E", 0xf, 0, func(i int) uint64 { return []uint64{0, 15, 16, 31}[i] }),
	)
	got := [][]BlockCount{}
	for _, p := range r.Kernels[0].PCs {
		got = append(got, p.UniqueBlocks)
	}
	want := [][]BlockCount{{{8, 1}}, {{4, 1}}, {{2, 1}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("unique blocks: got %v, want %v", got, want)
	}
}

// TestProfile_Monotonic checks 003_*'s definition case by case: full byte
// addresses over the active lanes, non-decreasing or non-increasing.
func TestProfile_Monotonic(t *testing.T) {
	cases := []struct {
		name  string
		mask  uint32
		addrs []uint64
		kind  string // incr, decr, unif or none
		exact bool   // neighbor exact at 128-byte blocks
	}{
		{"equal then rising", 0xf, []uint64{0, 0, 4, 8}, "incr", true},
		{"rising then equal", 0xf, []uint64{0, 4, 4, 4}, "incr", true},
		{"falling with repeats", 0xf, []uint64{12, 12, 8, 0}, "decr", true},
		{"one lane", 0x80000000, []uint64{0x1234}, "unif", true},
		// Within one block but not monotonic in bytes: the detector says
		// no, though the neighbor comparator is exact.
		{"one block, bytes out of order", 0x7, []uint64{8, 0, 4}, "none", true},
		{"up then down", 0x7, []uint64{0, 256, 128}, "none", true},
		{"block revisited", 0x7, []uint64{0, 256, 4}, "none", false},
		// Lanes 1..3 inactive: the active lanes 0, 4, 5 are compared.
		{"gaps in the mask", 0x31, []uint64{0, 4, 8}, "incr", true},
		// Unsigned: the top address is the largest.
		{"unsigned", 0x3, []uint64{0x7fffffffffffffff, 0xffffffffffffffff}, "incr", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := &accelsim.WarpAccess{File: "f", Line: 1, PC: 0x10, Opcode: "LDG.E", Space: accelsim.Global, Op: accelsim.Load,
				Mask: c.mask, Width: 4, Addrs: c.addrs}
			s := mustProfile(t, 128, a).Total
			got := "none"
			switch {
			case s.Increasing == 1:
				got = "incr"
			case s.Decreasing == 1:
				got = "decr"
			case s.Uniform == 1:
				got = "unif"
			}
			if got != c.kind || (s.NeighborExact == 1) != c.exact {
				t.Errorf("got %s, neighbor exact %v; want %s, %v", got, s.NeighborExact == 1, c.kind, c.exact)
			}
		})
	}
}

func TestProfile_SkipsOtherInstructions(t *testing.T) {
	mk := func(op string, space accelsim.Space, kind accelsim.Op) *accelsim.WarpAccess {
		return &accelsim.WarpAccess{File: "f", Line: 1, Kernel: 2, KernelName: "k2", PC: 0x10, Opcode: op, Space: space, Op: kind,
			Mask: 1, Width: 4, Addrs: []uint64{0}}
	}
	r := mustProfile(t, 128,
		mk("ATOMG.E.ADD", accelsim.Global, accelsim.Atomic),
		mk("RED.E.ADD", accelsim.Global, accelsim.Atomic),
		mk("LD.E", accelsim.Global, accelsim.Load),
		mk("ST.E", accelsim.Global, accelsim.Store),
		mk("LDS.U", accelsim.Shared, accelsim.Load),
		mk("STL", accelsim.Local, accelsim.Store),
		mk("STG.E", accelsim.Global, accelsim.Store),
		&accelsim.WarpAccess{File: "f", Line: 2, Kernel: 2, KernelName: "k2", PC: 0x20, Opcode: "LDG.E", Space: accelsim.Global, Op: accelsim.Load, Width: 4},
	)
	want := Skipped{GlobalAtomics: 2, OtherGlobal: 2, OtherSpaces: 2, NoActiveLanes: 1}
	if r.Skipped != want || r.Kernels[0].Skipped != want {
		t.Errorf("skipped: got %+v and %+v, want %+v", r.Skipped, r.Kernels[0].Skipped, want)
	}
	if r.Total.Accesses != 1 || len(r.Kernels[0].PCs) != 1 || r.Kernels[0].PCs[0].Opcode != "STG.E" {
		t.Errorf("profiled: %d accesses, PCs %+v; want the one STG", r.Total.Accesses, r.Kernels[0].PCs)
	}
}

// TestProfile_KernelsInOrder: kernels keep their order of appearance,
// PCs are sorted, and the same kernel id in two traces is two kernels.
func TestProfile_KernelsInOrder(t *testing.T) {
	p, err := New(Options{BlockBytes: 128, Timing: testTiming})
	if err != nil {
		t.Fatal(err)
	}
	add := func(trace string, id int, pc uint64) {
		a := access(pc, "LDG.E", 1, 4, func(int) uint64 { return 0 })
		a.Kernel, a.KernelName = id, "k"
		if err := p.Add(trace, a); err != nil {
			t.Fatal(err)
		}
	}
	add("b", 3, 0x30)
	add("b", 3, 0x10)
	add("a", 1, 0x20)
	add("a", 3, 0x20)
	add("b", 3, 0x20)
	r := p.Report()
	var got []string
	for _, k := range r.Kernels {
		var pcs []string
		for _, pc := range k.PCs {
			pcs = append(pcs, pc.PC)
		}
		got = append(got, k.Trace+":"+k.Name+":"+strings.Join(pcs, ","))
		_ = k.ID
	}
	want := []string{"b:k:0x0010,0x0020,0x0030", "a:k:0x0020", "a:k:0x0020"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if r.Kernels[1].ID != 1 || r.Kernels[2].ID != 3 || r.Total.Accesses != 5 {
		t.Errorf("ids %d %d, total %d; want 1 3, 5", r.Kernels[1].ID, r.Kernels[2].ID, r.Total.Accesses)
	}
}

func TestProfile_Errors(t *testing.T) {
	bad := []struct {
		opt  Options
		want string
	}{
		{Options{BlockBytes: 96, Timing: testTiming}, "power of two"},
		{Options{BlockBytes: 0, Timing: testTiming}, "power of two"},
		{Options{BlockBytes: 2 * MaxBlockBytes, Timing: testTiming}, "power of two"},
		{Options{BlockBytes: 128, Timing: Timing{}}, "0 clocks"},
		{Options{BlockBytes: 128, Timing: Timing{ClocksFO4: []float64{40}}}, "0 cycle counts for 1 clocks"},
		{Options{BlockBytes: 128, Timing: func() Timing { t := testTiming; t.ClocksFO4 = []float64{40, -1}; return t }()}, "clock -1 FO4"},
	}
	for _, c := range bad {
		if _, err := New(c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v): error %v, want %q", c.opt, err, c.want)
		}
	}
	p, err := New(Options{BlockBytes: 128, Timing: testTiming})
	if err != nil {
		t.Fatal(err)
	}
	a := access(0x10, "LDG.E", 0x3, 4, func(int) uint64 { return 0 })
	a.Addrs = a.Addrs[:1]
	a.File, a.Line = "x.traceg", 7
	if err := p.Add("t", a); err == nil || !strings.Contains(err.Error(), "x.traceg:7: 1 addresses for 2 active lanes") {
		t.Errorf("mask and addresses disagree: error %v", err)
	}
	a = access(0x10, "LDG.E", 0x1, MaxWidth+1, func(int) uint64 { return 0 })
	if err := p.Add("t", a); err == nil || !strings.Contains(err.Error(), "width") {
		t.Errorf("width: error %v", err)
	}
	// A lane at the top of memory: no overflow, no panic.
	a = access(0x10, "LDG.E.128", 0x1, 16, func(int) uint64 { return ^uint64(0) - 7 })
	if err := p.Add("t", a); err != nil {
		t.Fatal(err)
	}
	if got := p.Report().Total.UniqueBlocks; !reflect.DeepEqual(got, []BlockCount{{2, 1}}) {
		t.Errorf("top of memory: %v", got)
	}
}

func TestReport_WriteTable(t *testing.T) {
	r := mustProfile(t, 128, handAccesses()...)
	var b bytes.Buffer
	if err := r.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Coalescers of test.hcl at a clock of 40 / 80 FO4 (unsized timing, speculative paths combined); blocks of 128 bytes:",
		"speculative  spec    39.00 FO4  1 / 1 cycles  fast path: monotonic accesses",
		"a2a@40  spec@40   x@40  a2a@80  spec@80   x@80",
		"kernel 1 k (trace)",
		"0x0020  STG.E",
		"unique blocks (blocks:accesses)",
		"3:1 4:1\n",
		"66.7%",
		"1.20x    1.00     1.33  0.75x",
		"total, 1 kernels",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

// BenchmarkProfiler_Add: one 32-lane access per iteration, cycling
// through the hand-computed set (coalesced, reversed, transpose-like,
// partial, strided).
func BenchmarkProfiler_Add(b *testing.B) {
	p, err := New(Options{BlockBytes: 128, Timing: testTiming})
	if err != nil {
		b.Fatal(err)
	}
	acc := handAccesses()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := p.Add("t", acc[i%len(acc)]); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzProfiler_Add: any access, however malformed, is profiled or refused
// with an error, never a panic, and the report stays consistent.
func FuzzProfiler_Add(f *testing.F) {
	f.Add(uint32(0xffffffff), 4, uint64(0x1000), int64(4), uint64(128), "LDG.E")
	f.Add(uint32(0x0f0f), 16, ^uint64(0)-3, int64(-1), uint64(1), "STG.E.128")
	f.Add(uint32(1), 0, uint64(0), int64(0), uint64(1<<20), "ATOMG.E.ADD")
	f.Fuzz(func(t *testing.T, mask uint32, width int, base uint64, stride int64, blockBytes uint64, opcode string) {
		p, err := New(Options{BlockBytes: blockBytes, Timing: testTiming})
		if err != nil {
			return
		}
		a := &accelsim.WarpAccess{File: "f", Line: 1, PC: 0x10, Opcode: opcode, Mask: mask, Width: width}
		a.Space, a.Op = accelsim.Classify(opcode)
		for i := 0; i < 32; i++ {
			if mask>>i&1 == 1 {
				a.Addrs = append(a.Addrs, base+uint64(int64(i)*stride))
			}
		}
		if err := p.Add("t", a); err != nil {
			return
		}
		r := p.Report()
		s := r.Total
		if s.Monotonic > s.Accesses || s.NeighborExact > s.Accesses || s.Monotonic > s.NeighborExact {
			t.Errorf("inconsistent: %+v", s)
		}
		var hist int64
		for _, b := range s.UniqueBlocks {
			hist += b.Accesses
		}
		if hist != s.Accesses {
			t.Errorf("histogram of %d accesses for %d", hist, s.Accesses)
		}
	})
}
