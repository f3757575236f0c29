package model

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lsugen/lsugen/specs"
)

// shmReq is one instruction offered to the model.
type shmReq struct {
	op     specs.ShmemOp
	wc     specs.ShmemWidth
	active uint64
	addr   []int       // per lane (byte address)
	data   [][2]uint64 // per lane: low and high 64 bits
	cmp    []uint32    // per lane (cas)
}

// shmRsp is one response as the model put it on rsp_*.
type shmRsp struct {
	cycle  int
	data   []uint64
	active uint64
	err    bool
	passes int
}

type shmRig struct {
	t       *testing.T
	u       *specs.SharedMemory
	m       *SharedMemoryModel
	in, out [][]uint64
	cycle   int
}

func newShmRig(t *testing.T, u *specs.SharedMemory) *shmRig {
	t.Helper()
	m, err := NewSharedMemory(u)
	if err != nil {
		t.Fatal(err)
	}
	r := &shmRig{t: t, u: u, m: m}
	for _, p := range m.Ports() {
		v := make([]uint64, (p.Width+63)/64)
		if p.Output {
			r.out = append(r.out, v)
		} else {
			r.in = append(r.in, v)
		}
	}
	m.Reset()
	return r
}

// shmUnit is a shared memory with banks = N (no hash).
func shmUnit(lanes, bytes, bankBytes, banks int) *specs.SharedMemory {
	return &specs.SharedMemory{Name: "t", Lanes: lanes, Bytes: bytes, BankBytes: bankBytes, Banks: banks,
		Widths: []int{32, 64, 128}, Atomics: slices.Clone(specs.ShmemAtomics)}
}

func putBits(v []uint64, lo, n int, x uint64) {
	for k := 0; k < n; k++ {
		i := lo + k
		v[i/64] = v[i/64]&^(1<<(i%64)) | (x>>k&1)<<(i%64)
	}
}

func (r *shmRig) offer(q *shmReq) {
	for k := 1; k < 8; k++ {
		clear(r.in[k])
	}
	if q == nil {
		return
	}
	a := r.m.addrBits
	r.in[1][0] = 1
	r.in[2][0] = uint64(q.op)
	r.in[3][0] = uint64(q.wc)
	r.in[4][0] = q.active
	for i := 0; i < r.u.Lanes; i++ {
		if i < len(q.addr) {
			putBits(r.in[5], i*a, a, uint64(q.addr[i]))
		}
		if i < len(q.data) {
			w := r.m.maxW
			putBits(r.in[6], i*w, min(w, 64), q.data[i][0])
			if w == 128 {
				putBits(r.in[6], i*w+64, 64, q.data[i][1])
			}
		}
		if i < len(q.cmp) {
			putBits(r.in[7], i*32, 32, uint64(q.cmp[i]))
		}
	}
}

// run offers reqs in order, one per cycle while accepted, with
// rsp_ready_i = ready(cycle) and rst = rst(cycle) (either may be nil:
// always 1, never). It returns the cycles each request was accepted in
// and the responses, after every accepted one has come out (or limit
// cycles).
func (r *shmRig) run(reqs []shmReq, ready, rst func(int) bool, limit int) (acc []int, rsps []shmRsp) {
	next := 0
	for n := 0; n < limit; n++ {
		if next < len(reqs) {
			r.offer(&reqs[next])
		} else {
			r.offer(nil)
		}
		r.in[8][0] = 1
		if ready != nil && !ready(r.cycle) {
			r.in[8][0] = 0
		}
		r.in[0][0] = 0
		if rst != nil && rst(r.cycle) {
			r.in[0][0] = 1
		}
		r.m.Cycle(r.in, r.out)
		if r.out[1][0] == 1 && r.in[8][0] == 1 && r.in[0][0] == 0 {
			rsps = append(rsps, shmRsp{cycle: r.cycle, data: slices.Clone(r.out[2]), active: r.out[3][0],
				err: r.out[4][0] == 1, passes: int(r.out[5][0])})
		}
		if r.out[0][0] == 1 && next < len(reqs) {
			acc = append(acc, r.cycle)
			next++
		}
		r.cycle++
		if next == len(reqs) && len(rsps) >= len(acc) && r.m.cur < 0 && r.m.s2 < 0 && r.m.qn == 0 {
			break
		}
	}
	return acc, rsps
}

// lane returns lane i's n-bit response field.
func (r *shmRig) lane(rsp shmRsp, i int) [2]uint64 {
	w := r.m.maxW
	lo := field(rsp.data, i*w, min(w, 64))
	var hi uint64
	if w == 128 {
		hi = field(rsp.data, i*w+64, 64)
	}
	return [2]uint64{lo, hi}
}

func allLanes(n int) uint64 { return lowMask(n) }

func strided(lanes, base, stride int) []int {
	a := make([]int, lanes)
	for i := range a {
		a[i] = base + i*stride
	}
	return a
}

// fill stores 32-bit zeros over the whole memory.
func (r *shmRig) fill() {
	var reqs []shmReq
	L := r.u.Lanes
	for base := 0; base < r.u.Bytes; base += 4 * L {
		act := uint64(0)
		for i := 0; i < L && base+4*i < r.u.Bytes; i++ {
			act |= 1 << i
		}
		reqs = append(reqs, shmReq{op: specs.ShmemStore, wc: specs.ShmemW32, active: act, addr: strided(L, base, 4), data: make([][2]uint64, L)})
	}
	acc, rsps := r.run(reqs, nil, nil, 100*len(reqs)+100)
	if len(acc) != len(reqs) || len(rsps) != len(reqs) {
		r.t.Fatalf("fill: %d accepted, %d responses, want %d", len(acc), len(rsps), len(reqs))
	}
	if !r.m.Known(0, r.u.Bytes) {
		r.t.Fatal("fill left unknown bytes")
	}
}

// TestSharedMemory_PassTable holds the model to issue 29's table (32
// lanes, 32 four-byte banks, mod 32, all lanes active): rsp_passes_o and
// the response cycle T0 + (P0 + ... + Pk) - 1 + 3 of back-to-back
// instructions from an idle unit.
func TestSharedMemory_PassTable(t *testing.T) {
	r := newShmRig(t, shmUnit(32, 16384, 4, 32))
	r.fill()
	all := allLanes(32)
	ld := func(wc specs.ShmemWidth, addr []int) shmReq {
		return shmReq{op: specs.ShmemLoad, wc: wc, active: all, addr: addr}
	}
	oneOff := make([]int, 32)
	oneOff[31] = 32 * 4
	cases := []struct {
		name string
		req  shmReq
		want int
	}{
		{"stride 4", ld(specs.ShmemW32, strided(32, 0, 4)), 1},
		{"stride 8", ld(specs.ShmemW32, strided(32, 0, 8)), 2},
		{"stride 16", ld(specs.ShmemW32, strided(32, 0, 16)), 4},
		{"stride 32", ld(specs.ShmemW32, strided(32, 0, 32)), 8},
		{"stride 64", ld(specs.ShmemW32, strided(32, 0, 64)), 16},
		{"stride 128", ld(specs.ShmemW32, strided(32, 0, 128)), 32},
		{"stride 132", ld(specs.ShmemW32, strided(32, 0, 132)), 1},
		{"one word", ld(specs.ShmemW32, strided(32, 40, 0)), 1},
		{"31 on word 0, one on word 32", ld(specs.ShmemW32, oneOff), 2},
		{"64-bit stride 8", ld(specs.ShmemW64, strided(32, 0, 8)), 2},
		{"128-bit stride 16", ld(specs.ShmemW128, strided(32, 0, 16)), 4},
		{"atomic add on one word", shmReq{op: specs.ShmemAdd, wc: specs.ShmemW32, active: all, addr: strided(32, 0, 0),
			data: slices.Repeat([][2]uint64{{1, 0}}, 32)}, 32},
		{"stores stride 8", shmReq{op: specs.ShmemStore, wc: specs.ShmemW32, active: all, addr: strided(32, 1024, 8), data: make([][2]uint64, 32)}, 2},
	}
	var reqs []shmReq
	for _, c := range cases {
		reqs = append(reqs, c.req)
	}
	acc, rsps := r.run(reqs, nil, nil, 10000)
	if len(acc) != len(cases) || len(rsps) != len(cases) {
		t.Fatalf("%d accepted, %d responses, want %d", len(acc), len(rsps), len(cases))
	}
	t0, sum := acc[0], 0
	for k, c := range cases {
		sum += c.want
		if rsps[k].passes != c.want {
			t.Errorf("%s: %d passes, want %d", c.name, rsps[k].passes, c.want)
		}
		if want := t0 + sum - 1 + specs.ShmemLatency; rsps[k].cycle != want {
			t.Errorf("%s: response in cycle %d, want %d", c.name, rsps[k].cycle, want)
		}
		if rsps[k].err {
			t.Errorf("%s: refused", c.name)
		}
	}
	add := rsps[11]
	for i := 0; i < 32; i++ {
		if got := r.lane(add, i); got != [2]uint64{uint64(i), 0} {
			t.Errorf("atomic add lane %d returned %v, want %d", i, got, i)
		}
	}
	_, rsps = r.run([]shmReq{ld(specs.ShmemW32, []int{0})}, nil, nil, 100)
	if got := r.lane(rsps[0], 0)[0]; got != 32 {
		t.Errorf("word after 32 adds of 1: %d, want 32", got)
	}
}

// TestSharedMemory_RoundTrips stores at every width and loads back at
// every width, with 8-byte banks too.
func TestSharedMemory_RoundTrips(t *testing.T) {
	for _, bb := range []int{4, 8} {
		r := newShmRig(t, shmUnit(8, 1024, bb, 8))
		rng := rand.New(rand.NewPCG(1, uint64(bb)))
		ref := make([]byte, 1024)
		for it := 0; it < 200; it++ {
			wc := specs.ShmemWidth(rng.IntN(3))
			n := wc.Bits() / 8
			q := shmReq{op: specs.ShmemStore, wc: wc, active: rng.Uint64() & 0xff, addr: make([]int, 8), data: make([][2]uint64, 8)}
			if it < 8 {
				q = shmReq{op: specs.ShmemStore, wc: specs.ShmemW128, active: 0xff, addr: strided(8, it*128, 16), data: make([][2]uint64, 8)}
				wc, n = specs.ShmemW128, 16
			}
			for i := range 8 {
				if it >= 8 {
					q.addr[i] = rng.IntN(1024/n) * n
				}
				q.data[i] = [2]uint64{rng.Uint64(), rng.Uint64()}
			}
			_, rsps := r.run([]shmReq{q}, nil, nil, 100)
			if len(rsps) != 1 || rsps[0].err || slices.ContainsFunc(rsps[0].data, func(x uint64) bool { return x != 0 }) {
				t.Fatalf("store %d: %+v", it, rsps)
			}
			for i := range 8 {
				if q.active>>i&1 == 1 {
					for b := 0; b < n; b++ {
						ref[q.addr[i]+b] = byte(q.data[i][b/8] >> (8 * (b % 8)))
					}
				}
			}
			// Load back at a random width.
			lc := specs.ShmemWidth(rng.IntN(3))
			ln := lc.Bits() / 8
			l := shmReq{op: specs.ShmemLoad, wc: lc, active: 0xff, addr: make([]int, 8)}
			for i := range 8 {
				l.addr[i] = rng.IntN(1024/ln) * ln
			}
			_, rsps = r.run([]shmReq{l}, nil, nil, 100)
			for i := range 8 {
				got := r.lane(rsps[0], i)
				var want [2]uint64
				for b := 0; b < ln; b++ {
					want[b/8] |= uint64(ref[l.addr[i]+b]) << (8 * (b % 8))
				}
				if got != want {
					t.Fatalf("bank_bytes %d: load %d lane %d at %d (%d bits): %x, want %x", bb, it, i, l.addr[i], lc.Bits(), got, want)
				}
			}
		}
	}
}

// TestSharedMemory_OverlappingStores: the highest lane keeps each byte;
// lanes on different bytes of one word all take effect.
func TestSharedMemory_OverlappingStores(t *testing.T) {
	r := newShmRig(t, shmUnit(4, 256, 8, 4))
	r.fill()
	// Lanes 0..3: 64-bit at 0, 32-bit at 4 (inactive), 32-bit at 0... use
	// one width per instruction: 32-bit lanes 0 and 2 on byte 0, lanes 1
	// and 3 on bytes 4 and 8.
	q := shmReq{op: specs.ShmemStore, wc: specs.ShmemW32, active: 0xf, addr: []int{0, 4, 0, 8},
		data: [][2]uint64{{0x11111111, 0}, {0x22222222, 0}, {0x33333333, 0}, {0x44444444, 0}}}
	r.run([]shmReq{q}, nil, nil, 100)
	q = shmReq{op: specs.ShmemStore, wc: specs.ShmemW64, active: 0x5, addr: []int{16, 0, 16, 0},
		data: [][2]uint64{{0xaaaaaaaaaaaaaaaa, 0}, {0xbbbbbbbbbbbbbbbb, 0}, {0xcccccccccccccccc, 0}, {0, 0}}}
	r.run([]shmReq{q}, nil, nil, 100)
	l := shmReq{op: specs.ShmemLoad, wc: specs.ShmemW32, active: 0xf, addr: []int{0, 4, 8, 16}}
	_, rsps := r.run([]shmReq{l}, nil, nil, 100)
	want := []uint64{0x33333333, 0x22222222, 0x44444444, 0xcccccccc}
	for i, w := range want {
		if got := r.lane(rsps[0], i)[0]; got != w {
			t.Errorf("lane %d: %#x, want %#x", i, got, w)
		}
	}
	// Lanes 0 and 2 store to the same word: broadcast makes that one pass
	// with lane 1 and 3 on the other banks.
	if rsps[0].passes != 1 {
		t.Errorf("load passes %d, want 1", rsps[0].passes)
	}
}

// TestSharedMemory_Atomics checks every atomic op, in lane order on one
// word, and their return values.
func TestSharedMemory_Atomics(t *testing.T) {
	r := newShmRig(t, shmUnit(4, 256, 4, 4))
	r.fill()
	neg := func(x int32) uint64 { return uint64(uint32(x)) }
	cases := []struct {
		op      specs.ShmemOp
		init    uint64
		ops     []uint64
		cmp     []uint32
		returns []uint64
		final   uint64
	}{
		{specs.ShmemAdd, 5, []uint64{1, 2, neg(-3), 10}, nil, []uint64{5, 6, 8, 5}, 15},
		{specs.ShmemSMin, 5, []uint64{7, neg(-2), 3, neg(-9)}, nil, []uint64{5, 5, neg(-2), neg(-2)}, neg(-9)},
		{specs.ShmemSMax, neg(-5), []uint64{neg(-7), neg(-2), 3, 1}, nil, []uint64{neg(-5), neg(-5), neg(-2), 3}, 3},
		{specs.ShmemUMin, 5, []uint64{7, neg(-2), 3, 4}, nil, []uint64{5, 5, 5, 3}, 3},
		{specs.ShmemUMax, 5, []uint64{7, neg(-2), 3, 4}, nil, []uint64{5, 7, neg(-2), neg(-2)}, neg(-2)},
		{specs.ShmemAnd, 0xff, []uint64{0xf0, 0x3c, 0xff, 0x0f}, nil, []uint64{0xff, 0xf0, 0x30, 0x30}, 0},
		{specs.ShmemOr, 1, []uint64{2, 4, 8, 1}, nil, []uint64{1, 3, 7, 15}, 15},
		{specs.ShmemXor, 1, []uint64{3, 5, 9, 1}, nil, []uint64{1, 2, 7, 14}, 15},
		{specs.ShmemExch, 9, []uint64{1, 2, 3, 4}, nil, []uint64{9, 1, 2, 3}, 4},
		{specs.ShmemCAS, 9, []uint64{1, 2, 3, 4}, []uint32{9, 9, 2, 3}, []uint64{9, 1, 1, 1}, 1},
	}
	for _, c := range cases {
		st := shmReq{op: specs.ShmemStore, wc: specs.ShmemW32, active: 1, addr: []int{64}, data: [][2]uint64{{c.init, 0}}}
		a := shmReq{op: c.op, wc: specs.ShmemW32, active: 0xf, addr: strided(4, 64, 0), cmp: c.cmp}
		for _, x := range c.ops {
			a.data = append(a.data, [2]uint64{x | 0xdead<<32, 7}) // high bits ignored
		}
		l := shmReq{op: specs.ShmemLoad, wc: specs.ShmemW32, active: 1, addr: []int{64}}
		_, rsps := r.run([]shmReq{st, a, l}, nil, nil, 100)
		if len(rsps) != 3 {
			t.Fatalf("%v: %d responses", c.op, len(rsps))
		}
		for i, w := range c.returns {
			if got := r.lane(rsps[1], i); got != [2]uint64{w, 0} {
				t.Errorf("%v lane %d returned %#x, want %#x", c.op, i, got, w)
			}
		}
		if got := r.lane(rsps[2], 0)[0]; got != c.final {
			t.Errorf("%v: word %#x afterwards, want %#x", c.op, got, c.final)
		}
		if rsps[1].passes != 4 {
			t.Errorf("%v: %d passes, want 4 (no broadcast for atomics)", c.op, rsps[1].passes)
		}
	}
}

// TestSharedMemory_Refused: every reason to refuse, each with one pass,
// an error, no data and no effect.
func TestSharedMemory_Refused(t *testing.T) {
	u := shmUnit(4, 240, 4, 4)
	u.Widths = []int{32, 64}
	u.Atomics = []specs.ShmemOp{specs.ShmemAdd}
	r := newShmRig(t, u)
	r.fill()
	st := shmReq{op: specs.ShmemStore, wc: specs.ShmemW32, active: 0xf, addr: strided(4, 0, 4), data: slices.Repeat([][2]uint64{{7, 0}}, 4)}
	bad := []struct {
		why string
		q   shmReq
	}{
		{"op 12", shmReq{op: 12, wc: specs.ShmemW32, active: 1, addr: []int{0}}},
		{"op 15", shmReq{op: 15, wc: specs.ShmemW32, active: 1, addr: []int{0}}},
		{"unsupported atomic", shmReq{op: specs.ShmemExch, wc: specs.ShmemW32, active: 1, addr: []int{0}, data: [][2]uint64{{9, 0}}}},
		{"64-bit atomic", shmReq{op: specs.ShmemAdd, wc: specs.ShmemW64, active: 1, addr: []int{0}, data: [][2]uint64{{9, 0}}}},
		{"width code 3", shmReq{op: specs.ShmemLoad, wc: 3, active: 1, addr: []int{0}}},
		{"unsupported width", shmReq{op: specs.ShmemLoad, wc: specs.ShmemW128, active: 1, addr: []int{0}}},
		{"misaligned", shmReq{op: specs.ShmemStore, wc: specs.ShmemW64, active: 0x3, addr: []int{8, 4}, data: slices.Repeat([][2]uint64{{9, 9}}, 2)}},
		{"past bytes", shmReq{op: specs.ShmemStore, wc: specs.ShmemW32, active: 0x3, addr: []int{0, 240}, data: slices.Repeat([][2]uint64{{9, 0}}, 2)}},
		{"64-bit past bytes", shmReq{op: specs.ShmemLoad, wc: specs.ShmemW64, active: 0x2, addr: []int{0, 248}}},
	}
	reqs := []shmReq{st}
	for _, b := range bad {
		reqs = append(reqs, b.q)
	}
	// Inactive lanes' addresses are never checked.
	ok := shmReq{op: specs.ShmemLoad, wc: specs.ShmemW32, active: 0x1, addr: []int{0, 3, 250, 255}}
	reqs = append(reqs, ok)
	acc, rsps := r.run(reqs, nil, nil, 1000)
	if len(rsps) != len(reqs) {
		t.Fatalf("%d responses, want %d", len(rsps), len(reqs))
	}
	for k, b := range bad {
		p := rsps[k+1]
		if !p.err || p.passes != 1 || slices.ContainsFunc(p.data, func(x uint64) bool { return x != 0 }) || p.active != b.q.active {
			t.Errorf("%s: %+v, want refused with one pass", b.why, p)
		}
		if want := acc[0] + 1 + k + 1 - 1 + 3; p.cycle != want {
			t.Errorf("%s: response in cycle %d, want %d", b.why, p.cycle, want)
		}
	}
	if p := rsps[len(rsps)-1]; p.err || r.lane(p, 0)[0] != 7 {
		t.Errorf("load with bad inactive addresses: %+v", p)
	}
	_, rsps = r.run([]shmReq{{op: specs.ShmemLoad, wc: specs.ShmemW32, active: 0xf, addr: strided(4, 0, 4)}}, nil, nil, 100)
	for i := range 4 {
		if got := r.lane(rsps[0], i)[0]; got != 7 {
			t.Errorf("lane %d: %d after refused instructions, want 7", i, got)
		}
	}
}

// TestSharedMemory_Backpressure: with rsp_ready_i low for stretches, no
// response is lost or reordered, the queue holds two and the stall rule
// holds the bank stage.
func TestSharedMemory_Backpressure(t *testing.T) {
	r := newShmRig(t, shmUnit(8, 1024, 4, 8))
	r.fill()
	rng := rand.New(rand.NewPCG(3, 4))
	var reqs []shmReq
	for k := 0; k < 300; k++ {
		q := shmReq{op: specs.ShmemAdd, wc: specs.ShmemW32, active: rng.Uint64() & 0xff, addr: make([]int, 8), data: make([][2]uint64, 8)}
		for i := range 8 {
			q.addr[i] = 4 * rng.IntN(3) * 8 // words 0, 8, 16: one bank
			q.data[i] = [2]uint64{1, 0}
		}
		reqs = append(reqs, q)
	}
	ready := func(c int) bool { return (c/17)%3 != 1 && rng.IntN(4) != 0 }
	acc, rsps := r.run(reqs, ready, nil, 100000)
	if len(acc) != len(reqs) || len(rsps) != len(reqs) {
		t.Fatalf("%d accepted, %d responses of %d", len(acc), len(rsps), len(reqs))
	}
	// Counters: each response's old values continue the running count.
	count := map[int]uint64{}
	for k, q := range reqs {
		for i := range 8 {
			if q.active>>i&1 == 1 {
				if got := r.lane(rsps[k], i)[0]; got != count[q.addr[i]] {
					t.Fatalf("instruction %d lane %d: %d, want %d (order lost)", k, i, got, count[q.addr[i]])
				}
				count[q.addr[i]]++
			}
		}
		if rsps[k].active != q.active {
			t.Fatalf("instruction %d: active %x, want %x", k, rsps[k].active, q.active)
		}
	}
}

// TestSharedMemory_ResetInFlight: rst drops what is in flight: no
// response comes out, instructions whose passes had not landed have no
// effect, partial ones leave their bytes unknown, and the rest stays.
func TestSharedMemory_ResetInFlight(t *testing.T) {
	r := newShmRig(t, shmUnit(4, 256, 4, 4))
	r.fill()
	st := func(addr int, v uint64, active uint64, stride int) shmReq {
		return shmReq{op: specs.ShmemStore, wc: specs.ShmemW32, active: active, addr: strided(4, addr, stride), data: slices.Repeat([][2]uint64{{v, 0}}, 4)}
	}
	// A: one pass. B: 4 passes (stride 16 on 4 banks: one bank). C:
	// waits for B. A is accepted in cycle s, passes in s+1; B is accepted
	// in s+1 and passes in s+2, s+3; rst in s+4 drops B after one landed
	// pass, so B's bytes become unknown and B never responds; C goes
	// after the reset.
	reqs := []shmReq{st(0, 1, 0xf, 4), st(64, 2, 0xf, 16), st(32, 3, 0xf, 4)}
	rstAt := r.cycle + 4
	acc, rsps := r.run(reqs, nil, func(c int) bool { return c == rstAt }, 20)
	if len(acc) != 3 || acc[2] <= rstAt {
		t.Fatalf("accepted in %v, reset in %d", acc, rstAt)
	}
	if len(rsps) != 2 || rsps[0].cycle >= rstAt || rsps[1].cycle <= rstAt {
		t.Errorf("responses %+v around a reset in %d: want A before, C after, no B", rsps, rstAt)
	}
	if !r.m.Known(0, 16) || r.m.Known(64, 4) || r.m.Known(64+48, 4) || !r.m.Known(32, 16) || !r.m.Known(68, 12) {
		t.Errorf("known bytes wrong after the reset")
	}
	_, rsps = r.run([]shmReq{{op: specs.ShmemLoad, wc: specs.ShmemW32, active: 0xf, addr: []int{0, 12, 32, 44}}}, nil, nil, 100)
	for i, w := range []uint64{1, 1, 3, 3} {
		if got := r.lane(rsps[0], i)[0]; got != w {
			t.Errorf("lane %d: %d, want %d", i, got, w)
		}
	}
	// A four-pass store at 128 (accepted in c0, passes c0+1..c0+4): rst in
	// c0+2 finds one pass made, none landed (exact undo); rst in c0+5, the
	// cycle after its last pass, finds three landed (unknown).
	for _, c := range []struct {
		at    int
		known bool
	}{{2, true}, {5, false}} {
		at := r.cycle + c.at
		_, rsps := r.run([]shmReq{st(128, 77, 0xf, 16)}, nil, func(cy int) bool { return cy == at }, 10)
		if len(rsps) != 0 {
			t.Errorf("rst %d cycles in: response %+v", c.at, rsps)
		}
		for i := range 4 {
			if r.m.Known(128+16*i, 4) != c.known {
				t.Errorf("rst %d cycles in: lane %d known = %v, want %v", c.at, i, !c.known, c.known)
			}
		}
		if c.known {
			_, rsps = r.run([]shmReq{{op: specs.ShmemLoad, wc: specs.ShmemW32, active: 0xf, addr: strided(4, 128, 16)}}, nil, nil, 100)
			for i := range 4 {
				if got := r.lane(rsps[0], i)[0]; got != 0 {
					t.Errorf("rst 2 cycles in: lane %d reads %d, want 0 (undone)", i, got)
				}
			}
		}
	}
	r.fill()
	// A reset in the cycle after a one-pass store's only pass undoes it
	// exactly; in the cycle after that, it has landed.
	for _, after := range []int{1, 2} {
		at := r.cycle + 1 + after
		r.run([]shmReq{st(128, uint64(10+after), 0x1, 4)}, nil, func(c int) bool { return c == at }, 10)
		_, rsps = r.run([]shmReq{{op: specs.ShmemLoad, wc: specs.ShmemW32, active: 1, addr: []int{128}}}, nil, nil, 100)
		want := uint64(0)
		if after == 2 {
			want = 12
		}
		if got := r.lane(rsps[0], 0)[0]; got != want || !r.m.Known(128, 4) {
			t.Errorf("reset %d cycles after the pass: %d, want %d", after, got, want)
		}
	}
}

// TestSharedMemory_HashedBanks: a constant XOR hash and a configurable one
// give the passes of their banks, and the ports of the configuration.
func TestSharedMemory_HashedBanks(t *testing.T) {
	file, diags := specs.NewLoader().Load("../specs/testdata/shared_memory.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	byName := map[string]*specs.SharedMemory{}
	for _, u := range file.Units {
		if m, ok := u.(*specs.SharedMemory); ok {
			byName[m.Name] = m
		}
	}
	fermi := newShmRig(t, byName["shmem_fermi"])
	fermi.fill()
	// Stride 32 words: without the hash one bank (32 passes); the XOR
	// spreads it over every bank.
	_, rsps := fermi.run([]shmReq{{op: specs.ShmemLoad, wc: specs.ShmemW32, active: allLanes(32), addr: strided(32, 0, 128)}}, nil, nil, 100)
	if rsps[0].passes != 1 {
		t.Errorf("fermi stride 128 bytes: %d passes, want 1", rsps[0].passes)
	}
	cfg := byName["shmem_cfg"]
	m, err := NewSharedMemory(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range m.Ports() {
		names = append(names, fmt.Sprintf("%s[%d]", p.Name, p.Width))
	}
	want := []string{"rst[1]", "req_valid_i[1]", "req_op_i[4]", "req_width_i[2]", "req_active_i[32]", "req_addr_i[448]",
		"req_data_i[4096]", "req_cmp_i[1024]", "rsp_ready_i[1]", "hash_cfg_k1_i[4]", "hash_cfg_k2_i[4]", "hash_cfg_mask_i[5]",
		"req_ready_o[1]", "rsp_valid_o[1]", "rsp_data_o[4096]", "rsp_active_o[32]", "rsp_error_o[1]", "rsp_passes_o[8]"}
	if !slices.Equal(names, want) {
		t.Errorf("ports\n %v\nwant\n %v", names, want)
	}
	r := newShmRig(t, cfg)
	// k1 = 5, k2 = 0, mask = 31: bank = w[9:5] ^ w[4:0].
	r.in[9][0], r.in[10][0], r.in[11][0] = 5, 0, 31
	// The first instructions evaluate the hash lane by lane (no table yet).
	_, rsps = r.run([]shmReq{{op: specs.ShmemLoad, wc: specs.ShmemW32, active: 3, addr: []int{0, 33 * 4}}}, nil, nil, 100)
	if rsps[0].passes != 2 || r.m.tableOK {
		t.Errorf("cfg words 0 and 33 before a table: %d passes (table %v), want 2", rsps[0].passes, r.m.tableOK)
	}
	if b := r.m.Bank(97); b != 3^1 { // w[9:5] = 3, w[4:0] = 1
		t.Errorf("Bank(97) = %d, want 2", b)
	}
	r.fill()
	if !r.m.tableOK {
		t.Error("no bank table after a held configuration")
	}
	_, rsps = r.run([]shmReq{{op: specs.ShmemLoad, wc: specs.ShmemW32, active: allLanes(32), addr: strided(32, 0, 4)}}, nil, nil, 100)
	if rsps[0].passes != 1 {
		t.Errorf("cfg stride 4: %d passes, want 1", rsps[0].passes)
	}
	// Stride 33 words: w[9:5] = w[4:0] = i, every lane in bank 0 (one
	// pass under mod 32).
	_, rsps = r.run([]shmReq{{op: specs.ShmemLoad, wc: specs.ShmemW32, active: allLanes(32), addr: strided(32, 0, 132)}}, nil, nil, 100)
	if rsps[0].passes != 32 {
		t.Errorf("cfg stride 33 words: %d passes, want 32", rsps[0].passes)
	}
	// Words 0 and 33 share bank 0 ^ 0 = 0 and 1 ^ 1 = 0.
	_, rsps = r.run([]shmReq{{op: specs.ShmemLoad, wc: specs.ShmemW32, active: 3, addr: []int{0, 33 * 4}}}, nil, nil, 100)
	if rsps[0].passes != 2 {
		t.Errorf("cfg words 0 and 33: %d passes, want 2", rsps[0].passes)
	}
}

// TestSharedMemory_RowBijection proves, exhaustively over the word
// addresses of every example, that (bank, row) is a bijection onto the
// banks' rows, with the banks from the hash model.
func TestSharedMemory_RowBijection(t *testing.T) {
	var all []specs.Unit
	for _, path := range []string{"../specs/testdata/shared_memory.hcl", "../specs/shared_memory.hcl", "../specs/large/shared_memory_fermi.hcl"} {
		file, diags := specs.NewLoader().Load(path)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		all = append(all, file.Units...)
	}
	checked := 0
	for _, u := range all {
		sm, ok := u.(*specs.SharedMemory)
		if !ok {
			continue
		}
		m, err := NewSharedMemory(sm)
		if err != nil {
			t.Fatal(err)
		}
		rows := sm.BankRows()
		n := m.NumBanks()
		seen := make([]bool, n*rows)
		configs := [][3]uint64{{}}
		bankBits := 0
		if sm.Row.Kind == specs.RowWindow {
			// Configurations that keep rows apart: the window k1..k1+m-1
			// inside the word address, k2 != k1 where the mask is set.
			bankBits = sm.Hash.Hash().BankBits
			top, ones := uint64(sm.WordBits()-bankBits), uint64(1)<<bankBits-1
			configs = [][3]uint64{{0, uint64(bankBits), ones}, {1, 0, 1}, {top, 1, ones}, {top / 2, top, ones >> 1}}
		}
		checked++
		for _, c := range configs {
			clear(seen)
			in := make([][]uint64, 12)
			for k := range in {
				in[k] = make([]uint64, 1)
			}
			if sm.Row.Kind == specs.RowWindow {
				in[9][0], in[10][0], in[11][0] = c[0], c[1], c[2]
				m.buildTable(in)
			}
			for w := 0; w < sm.Words(); w++ {
				var row int
				switch sm.Row.Kind {
				case specs.RowDivide:
					row = w / n
				case specs.RowKeep:
					for j, b := range sm.Row.Keep {
						row |= (w >> b & 1) << j
					}
				case specs.RowWindow:
					k := int(c[0])
					row = w&(1<<k-1) | w>>(k+bankBits)<<k
				}
				if row >= rows {
					t.Fatalf("%s: word %d at row %d of %d", sm.Name, w, row, rows)
				}
				i := m.Bank(w)*rows + row
				if seen[i] {
					t.Fatalf("%s (config %v): word %d shares bank %d row %d", sm.Name, c, w, m.Bank(w), row)
				}
				seen[i] = true
			}
		}
	}
	if checked != 11 {
		t.Errorf("%d shared memories checked, want the 5 of testdata, the 5 examples and the Fermi-like one", checked)
	}
}

// BenchmarkSharedMemory_Replay replays warp instructions through the
// Fermi-like example (32 lanes, 48 KB, XOR-hashed banks) back to back:
// random loads, stores and atomics at every width over random, strided
// and broadcast addresses. ns/op is per warp instruction (issue 29 asks
// for 1 M in at most 5 s on one core).
func BenchmarkSharedMemory_Replay(b *testing.B) {
	file, diags := specs.NewLoader().Load("../specs/testdata/shared_memory.hcl")
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	var u *specs.SharedMemory
	for _, x := range file.Units {
		if x.UnitName() == "shmem_fermi" {
			u = x.(*specs.SharedMemory)
		}
	}
	m, err := NewSharedMemory(u)
	if err != nil {
		b.Fatal(err)
	}
	r := &shmRig{u: u, m: m}
	rng := rand.New(rand.NewPCG(5, 6))
	var inputs [][][]uint64
	for k := 0; k < 512; k++ {
		r.in = nil
		for _, p := range m.Ports() {
			if !p.Output {
				r.in = append(r.in, make([]uint64, (p.Width+63)/64))
			}
		}
		wc := specs.ShmemWidth(rng.IntN(3))
		op := specs.ShmemOp(rng.IntN(2))
		if rng.IntN(4) == 0 {
			op, wc = specs.ShmemAtomics[rng.IntN(len(specs.ShmemAtomics))], specs.ShmemW32
		}
		n := wc.Bits() / 8
		q := shmReq{op: op, wc: wc, active: rng.Uint64() | rng.Uint64(), addr: make([]int, 32), data: make([][2]uint64, 32)}
		stride, base := []int{1, 2, 3, 8, 32, 33}[rng.IntN(6)]*n, rng.IntN(u.Bytes/n/2)*n
		for i := range 32 {
			switch rng.IntN(8) {
			case 0:
				q.addr[i] = rng.IntN(u.Bytes/n) * n
			case 1:
				q.addr[i] = base
			default:
				q.addr[i] = (base + i*stride) % u.Bytes
			}
			q.data[i] = [2]uint64{rng.Uint64(), rng.Uint64()}
		}
		r.offer(&q)
		r.in[8][0] = 1
		inputs = append(inputs, r.in)
	}
	out := make([][]uint64, 0)
	for _, p := range m.Ports() {
		if p.Output {
			out = append(out, make([]uint64, (p.Width+63)/64))
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for k := 0; k < b.N; {
		m.Cycle(inputs[k%len(inputs)], out)
		if out[0][0] == 1 {
			k++
		}
	}
}

// TestSharedMemory_ResetCycleOutputs: in a cycle with rst the outputs
// still show the queue's head and req_ready_o is 0; from the next cycle
// the queue is empty.
func TestSharedMemory_ResetCycleOutputs(t *testing.T) {
	r := newShmRig(t, shmUnit(4, 256, 4, 4))
	r.fill()
	st := shmReq{op: specs.ShmemStore, wc: specs.ShmemW32, active: 1, addr: []int{0}, data: [][2]uint64{{5, 0}}}
	// rsp_ready_i low: the response waits in the queue.
	r.run([]shmReq{st}, func(int) bool { return false }, nil, 6)
	if r.out[1][0] != 1 {
		t.Fatal("no response queued")
	}
	r.offer(&st)
	r.in[0][0], r.in[8][0] = 1, 0
	r.m.Cycle(r.in, r.out)
	if r.out[1][0] != 1 || r.out[0][0] != 0 || r.out[3][0] != 1 {
		t.Errorf("rst cycle: rsp_valid_o %d req_ready_o %d rsp_active_o %d, want 1 0 1", r.out[1][0], r.out[0][0], r.out[3][0])
	}
	r.offer(nil)
	r.in[0][0] = 0
	r.m.Cycle(r.in, r.out)
	if r.out[1][0] != 0 || r.out[0][0] != 1 || r.out[2][0] != 0 || r.out[5][0] != 0 {
		t.Errorf("after rst: rsp_valid_o %d req_ready_o %d data %x passes %d, want an empty idle unit", r.out[1][0], r.out[0][0], r.out[2][0], r.out[5][0])
	}
}

// TestSharedMemory_StallRule: with rsp_ready_i low, two responses fill
// the queue and a third instruction's last pass waits, holding
// req_ready_o low, until a response leaves.
func TestSharedMemory_StallRule(t *testing.T) {
	r := newShmRig(t, shmUnit(4, 256, 4, 4))
	r.fill()
	var reqs []shmReq
	for k := range 5 {
		reqs = append(reqs, shmReq{op: specs.ShmemLoad, wc: specs.ShmemW32, active: 1, addr: []int{4 * k}})
	}
	c0 := r.cycle
	h := c0 + 20
	acc, rsps := r.run(reqs, func(c int) bool { return c >= h }, nil, 100)
	if want := []int{c0, c0 + 1, c0 + 2, h, h + 1}; !slices.Equal(acc, want) {
		t.Errorf("accepted in %v, want %v", acc, want)
	}
	// The queued two leave in h and h+1; the held one enters the queue at
	// the end of h+1 and leaves in h+2, the last two follow one a cycle.
	var cycles []int
	for _, p := range rsps {
		cycles = append(cycles, p.cycle)
	}
	if want := []int{h, h + 1, h + 2, h + 3, h + 4}; !slices.Equal(cycles, want) {
		t.Errorf("responses in %v, want %v", cycles, want)
	}
}
