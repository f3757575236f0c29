package model

import (
	"slices"
	"testing"

	"github.com/lsugen/lsugen/specs"
)

// masked is one hand-worked example of the active-lane and request
// outputs: lane addresses, an active mask as a lane-order bit string
// ("1010" = lanes 0 and 2 active; "" for a unit without active_mask), and
// the expected outputs of one structure.
type masked struct {
	structure           specs.Structure
	addrBits, blockBits int
	addrs               []uint64
	active              string
	unique              string // expected unique_o
	mono                bool   // speculative: expected monotonic_o
	reqAddr             []uint64
	reqLanes            []string // per request, its lanes as a lane-order bit string
	laneReq             []int    // per lane
}

// maskedOut are the outputs of a masked coalescer, read bit by bit.
type maskedOut struct {
	unique   string
	mono     bool
	count    int
	reqAddr  []uint64 // all L fields
	reqLanes []string // all L fields
	laneReq  []int
}

func runMasked(t *testing.T, c *specs.Coalescer, addrs []uint64, active string) maskedOut {
	t.Helper()
	L := c.Lanes
	m := mustModel(t, c)
	in, out := newPorts(m)
	coPack(in[0], c.AddrBits, addrs)
	if c.ActiveMask {
		copy(in[1], laneWords(active))
		// Bits above the last lane must be ignored.
		for i := L; i < 64*len(in[1]); i++ {
			in[1][i/64] |= 1 << (i % 64)
		}
	}
	for _, v := range out {
		for w := range v {
			v[w] = ^uint64(0)
		}
	}
	m.Eval(in, out)
	var o maskedOut
	o.unique = laneString(out[0], L)
	k := 1
	if c.Structure == specs.Speculative {
		o.mono = out[1][0] == 1
		k = 2
	}
	if !c.Requests {
		return o
	}
	B, R := c.AddrBits-c.BlockBits, 0
	for 1<<R < L {
		R++
	}
	C := 0
	for 1<<C < L+1 {
		C++
	}
	o.count = int(fieldAt(out[k], C, 0, C))
	if out[k][0]>>C != 0 {
		t.Errorf("req_count_o has junk above bit %d: %#x", C, out[k][0])
	}
	for r := 0; r < L; r++ {
		o.reqAddr = append(o.reqAddr, fieldAt(out[k+1], L*B, r*B, B))
		var s []byte
		for i := 0; i < L; i++ {
			s = append(s, '0'+byte(bitAt(out[k+2], L*L, r*L+i)))
		}
		o.reqLanes = append(o.reqLanes, string(s))
	}
	for i := 0; i < L; i++ {
		o.laneReq = append(o.laneReq, int(fieldAt(out[k+3], L*R, i*R, R)))
	}
	for j, w := range []int{L * B, L * L, L * R} {
		v := out[k+1+j]
		for i := w; i < 64*len(v); i++ {
			if bitAt(v, 64*len(v), i) != 0 {
				t.Errorf("output %d has junk above bit %d", k+1+j, w)
				break
			}
		}
	}
	return o
}

func checkMasked(t *testing.T, w masked) {
	t.Helper()
	L := len(w.addrs)
	c := &specs.Coalescer{Name: "c", Structure: w.structure, Lanes: L, AddrBits: w.addrBits, BlockBits: w.blockBits,
		Adder: specs.AdderCLA4, ActiveMask: w.active != "", Requests: true}
	o := runMasked(t, c, w.addrs, w.active)
	w.unique = laneString(laneWords(w.unique), L)
	w.reqLanes = slices.Clone(w.reqLanes)
	for r, s := range w.reqLanes {
		w.reqLanes[r] = laneString(laneWords(s), L)
	}
	if o.unique != w.unique {
		t.Errorf("%s: unique_o = %s, want %s", w.structure, o.unique, w.unique)
	}
	if w.structure == specs.Speculative && o.mono != w.mono {
		t.Errorf("%s: monotonic_o = %v, want %v", w.structure, o.mono, w.mono)
	}
	if o.count != len(w.reqAddr) {
		t.Errorf("%s: req_count_o = %d, want %d", w.structure, o.count, len(w.reqAddr))
	}
	zero := make([]byte, L)
	for i := range zero {
		zero[i] = '0'
	}
	for r := 0; r < L; r++ {
		wantAddr, wantLanes := uint64(0), string(zero)
		if r < len(w.reqAddr) {
			wantAddr, wantLanes = w.reqAddr[r], w.reqLanes[r]
		}
		if o.reqAddr[r] != wantAddr || o.reqLanes[r] != wantLanes {
			t.Errorf("%s: request %d: block %#x lanes %s, want block %#x lanes %s",
				w.structure, r, o.reqAddr[r], o.reqLanes[r], wantAddr, wantLanes)
		}
	}
	if !slices.Equal(o.laneReq, w.laneReq) {
		t.Errorf("%s: lane_req_o = %v, want %v", w.structure, o.laneReq, w.laneReq)
	}
	// Without requests the unique_o and monotonic_o outputs are the same.
	c.Requests = false
	if o2 := runMasked(t, c, w.addrs, w.active); o2.unique != o.unique || o2.mono != o.mono {
		t.Errorf("%s: without requests unique_o = %s, monotonic_o = %v; with them %s, %v",
			w.structure, o2.unique, o2.mono, o.unique, o.mono)
	}
}

// checkDetector checks a masked detector against the expected flags.
func checkDetector(t *testing.T, addrBits int, addrs []uint64, active string, up, down bool) {
	t.Helper()
	m := mustModel(t, &specs.MonotonicityDetector{Name: "d", Lanes: len(addrs), AddrBits: addrBits,
		Adder: specs.AdderCLA4, ActiveMask: true})
	in, out := newPorts(m)
	coPack(in[0], addrBits, addrs)
	copy(in[1], laneWords(active))
	m.Eval(in, out)
	got := [3]uint64{out[0][0], out[1][0], out[2][0]}
	want := [3]uint64{b2u(up), b2u(down), b2u(up || down)}
	if got != want {
		t.Errorf("detector, active %s: nondecreasing, nonincreasing, monotonic = %v, want %v", active, got, want)
	}
}

var allStructures = []specs.Structure{specs.AllToAll, specs.Neighbor, specs.Speculative}

// TestMasked_NoActiveLane: nothing is unique, there are no requests, and
// an empty sequence is monotonic both ways.
func TestMasked_NoActiveLane(t *testing.T) {
	addrs := []uint64{3, 1, 4, 1, 5, 9, 2, 6}
	for _, st := range allStructures {
		checkMasked(t, masked{structure: st, addrBits: 8, addrs: addrs, active: "0000_0000",
			unique: "0000_0000", mono: true, laneReq: make([]int, 8)})
	}
	checkDetector(t, 8, addrs, "0000_0000", true, true)
}

// TestMasked_OneActiveLane: the one active lane is unique and is the one
// request, wherever it is; one lane is monotonic both ways.
func TestMasked_OneActiveLane(t *testing.T) {
	addrs := []uint64{0x31, 0x10, 0x47, 0x10, 0x52, 0x99, 0x20, 0x61}
	for _, c := range []struct {
		active string
		lane   int
	}{{"1000_0000", 0}, {"0000_0001", 7}, {"0001_0000", 3}} {
		for _, st := range allStructures {
			checkMasked(t, masked{structure: st, addrBits: 8, blockBits: 4, addrs: addrs, active: c.active,
				unique: c.active, mono: true, reqAddr: []uint64{addrs[c.lane] >> 4}, reqLanes: []string{c.active},
				laneReq: make([]int, 8)})
		}
		checkDetector(t, 8, addrs, c.active, true, true)
	}
}

// TestMasked_AllOneBlock: all active lanes on one block give one request;
// the last active lane is the unique one.
func TestMasked_AllOneBlock(t *testing.T) {
	// Block 0x12 (block_bits 4) on lanes 1, 2, 5, 6; the inactive lanes
	// hold other blocks, which must not count.
	addrs := []uint64{0xFF, 0x12, 0x1F, 0x00, 0x77, 0x10, 0x1A, 0x30}
	addrs[1], addrs[2], addrs[5], addrs[6] = 0x123, 0x12F, 0x120, 0x12A
	for _, st := range allStructures {
		checkMasked(t, masked{structure: st, addrBits: 12, blockBits: 4, addrs: addrs, active: "0110_0110",
			unique: "0000_0010", mono: false, reqAddr: []uint64{0x12}, reqLanes: []string{"0110_0110"},
			laneReq: make([]int, 8)})
	}
	// Full addresses 0x123 0x12F 0x120 0x12A: not monotonic, so the
	// speculative coalescer falls back to all_to_all (same answer).
	checkDetector(t, 12, addrs, "0110_0110", false, false)
	// Without a mask: every lane on one block.
	same := []uint64{0x40, 0x41, 0x42, 0x43}
	for _, st := range allStructures {
		checkMasked(t, masked{structure: st, addrBits: 8, blockBits: 2, addrs: same,
			unique: "0001", mono: true, reqAddr: []uint64{0x10}, reqLanes: []string{"1111"}, laneReq: []int{0, 0, 0, 0}})
	}
}

// TestMasked_Alternating: blocks A B A B ... with the masks 1010 and 0101
// leave one block each; all lanes active give two requests, which only
// all_to_all gets right (the warp is not monotonic).
func TestMasked_Alternating(t *testing.T) {
	addrs := []uint64{0x50, 0x90, 0x51, 0x91, 0x52, 0x92, 0x53, 0x93} // block_bits 4: 5 9 5 9 ...
	for _, st := range allStructures {
		checkMasked(t, masked{structure: st, addrBits: 8, blockBits: 4, addrs: addrs, active: "1010_1010",
			unique: "0000_0010", mono: true, reqAddr: []uint64{5}, reqLanes: []string{"1010_1010"},
			laneReq: make([]int, 8)})
		checkMasked(t, masked{structure: st, addrBits: 8, blockBits: 4, addrs: addrs, active: "0101_0101",
			unique: "0000_0001", mono: true, reqAddr: []uint64{9}, reqLanes: []string{"0101_0101"},
			laneReq: make([]int, 8)})
	}
	checkDetector(t, 8, addrs, "1010_1010", true, false)
	checkDetector(t, 8, addrs, "0101_0101", true, false)
	checkDetector(t, 8, addrs, "1111_1111", false, false)
	a2a := masked{structure: specs.AllToAll, addrBits: 8, blockBits: 4, addrs: addrs, active: "1111_1111",
		unique: "0000_0011", reqAddr: []uint64{5, 9}, reqLanes: []string{"1010_1010", "0101_0101"},
		laneReq: []int{0, 1, 0, 1, 0, 1, 0, 1}}
	checkMasked(t, a2a)
	a2a.structure = specs.Speculative // not monotonic: the all_to_all result
	checkMasked(t, a2a)
	// neighbor starts a request at every lane: eight requests.
	checkMasked(t, masked{structure: specs.Neighbor, addrBits: 8, blockBits: 4, addrs: addrs, active: "1111_1111",
		unique: "1111_1111", reqAddr: []uint64{5, 9, 5, 9, 5, 9, 5, 9},
		reqLanes: []string{"1000_0000", "0100_0000", "0010_0000", "0001_0000", "0000_1000", "0000_0100", "0000_0010", "0000_0001"},
		laneReq:  []int{0, 1, 2, 3, 4, 5, 6, 7}})
}

// TestMasked_MaskMakesMonotonic: a warp that is not monotonic over all
// lanes is over its active lanes, and the other way round.
func TestMasked_MaskMakesMonotonic(t *testing.T) {
	// Active lanes 0, 2, 4, 6 hold 10 20 20 40: non-decreasing; the
	// inactive lanes break it.
	addrs := []uint64{10, 99, 20, 0, 20, 77, 40, 1}
	checkDetector(t, 8, addrs, "1010_1010", true, false)
	checkDetector(t, 8, addrs, "1111_1111", false, false)
	want := masked{addrBits: 8, addrs: addrs, active: "1010_1010", unique: "1000_1010", mono: true,
		reqAddr: []uint64{10, 20, 40}, reqLanes: []string{"1000_0000", "0010_1000", "0000_0010"},
		laneReq: []int{0, 0, 1, 0, 1, 0, 2, 0}}
	for _, st := range allStructures {
		want.structure = st
		checkMasked(t, want)
	}
	// Lanes 0..3 active: 10 99 20 0 is not monotonic; 10 20 20 40 with
	// lane 1 = 20 is, until lane 7 (= 5) is also active.
	w2 := []uint64{10, 20, 20, 40, 50, 60, 70, 5}
	checkDetector(t, 8, w2, "1111_1110", true, false)
	checkDetector(t, 8, w2, "1111_1111", false, false)
	checkDetector(t, 8, w2, "1000_0001", false, true)
	// Lanes 0 and 7 hold blocks 1 and 0 (block_bits 3), lanes 1..6 block
	// 2..8: with lane 7 active the warp is not monotonic; neighbor still
	// finds the right answer since lane 0's block does not reappear.
	spec := masked{structure: specs.Speculative, addrBits: 8, blockBits: 3, addrs: w2, active: "1111_1111",
		unique: "1011_1111", mono: false,
		reqAddr:  []uint64{1, 2, 5, 6, 7, 8, 0},
		reqLanes: []string{"1000_0000", "0110_0000", "0001_0000", "0000_1000", "0000_0100", "0000_0010", "0000_0001"},
		laneReq:  []int{0, 1, 1, 2, 3, 4, 5, 6}}
	checkMasked(t, spec)
	spec.active, spec.unique, spec.mono = "1111_1110", "1011_1110", true
	spec.reqAddr, spec.reqLanes = spec.reqAddr[:6], []string{"1000_0000", "0110_0000", "0001_0000", "0000_1000", "0000_0100", "0000_0010"}
	spec.laneReq = []int{0, 1, 1, 2, 3, 4, 5, 0}
	checkMasked(t, spec)
}

// TestMasked_RequestOrder: requests are numbered by their lowest active
// lane, whatever the block values; neighbor on a non-monotonic warp splits
// a block that comes back.
func TestMasked_RequestOrder(t *testing.T) {
	// Blocks 7 3 7 1 3 - 1 7 (lane 5 inactive, block_bits 0).
	addrs := []uint64{7, 3, 7, 1, 3, 0, 1, 7}
	active := "1111_1011"
	a2a := masked{structure: specs.AllToAll, addrBits: 4, addrs: addrs, active: active,
		unique: "0000_1011", reqAddr: []uint64{7, 3, 1}, reqLanes: []string{"1010_0001", "0100_1000", "0001_0010"},
		laneReq: []int{0, 1, 0, 2, 1, 0, 2, 0}}
	checkMasked(t, a2a)
	a2a.structure = specs.Speculative
	checkMasked(t, a2a)
	checkMasked(t, masked{structure: specs.Neighbor, addrBits: 4, addrs: addrs, active: active,
		unique: "1111_1011", reqAddr: []uint64{7, 3, 7, 1, 3, 1, 7},
		reqLanes: []string{"1000_0000", "0100_0000", "0010_0000", "0001_0000", "0000_1000", "0000_0010", "0000_0001"},
		laneReq:  []int{0, 1, 2, 3, 4, 0, 5, 6}})
	// Runs of a monotonic warp: 2 2 2 5 5 9 (two lanes 2 inactive).
	run := []uint64{2, 2, 2, 4, 5, 5, 9, 9}
	want := masked{addrBits: 4, addrs: run, active: "1110_1101", unique: "0010_0101", mono: true,
		reqAddr: []uint64{2, 5, 9}, reqLanes: []string{"1110_0000", "0000_1100", "0000_0001"},
		laneReq: []int{0, 0, 0, 0, 1, 1, 0, 2}}
	for _, st := range allStructures {
		want.structure = st
		checkMasked(t, want)
	}
}

// TestMasked_Ports checks the port order and widths of the options.
func TestMasked_Ports(t *testing.T) {
	in := func(n string, w int) Port { return Port{Name: n, Width: w} }
	outp := func(n string, w int) Port { return Port{Name: n, Width: w, Output: true} }
	cases := []struct {
		u    specs.Unit
		want []Port
	}{
		{&specs.Coalescer{Structure: specs.AllToAll, Lanes: 32, AddrBits: 32, BlockBits: 7, ActiveMask: true},
			[]Port{in("addr_i", 1024), in("active_i", 32), outp("unique_o", 32)}},
		{&specs.Coalescer{Structure: specs.Neighbor, Lanes: 8, AddrBits: 16, BlockBits: 5, Requests: true},
			[]Port{in("addr_i", 128), outp("unique_o", 8), outp("req_count_o", 4), outp("req_addr_o", 88),
				outp("req_mask_o", 64), outp("lane_req_o", 24)}},
		{&specs.Coalescer{Structure: specs.Speculative, Lanes: 32, AddrBits: 32, ActiveMask: true, Requests: true},
			[]Port{in("addr_i", 1024), in("active_i", 32), outp("unique_o", 32), outp("monotonic_o", 1),
				outp("req_count_o", 6), outp("req_addr_o", 1024), outp("req_mask_o", 1024), outp("lane_req_o", 160)}},
		{&specs.Coalescer{Structure: specs.AllToAll, Lanes: 2, AddrBits: 1, Requests: true},
			[]Port{in("addr_i", 2), outp("unique_o", 2), outp("req_count_o", 2), outp("req_addr_o", 2),
				outp("req_mask_o", 4), outp("lane_req_o", 2)}},
		{&specs.MonotonicityDetector{Lanes: 32, AddrBits: 32, ActiveMask: true},
			[]Port{in("addr_i", 1024), in("active_i", 32), outp("nondecreasing_o", 1), outp("nonincreasing_o", 1), outp("monotonic_o", 1)}},
	}
	for _, c := range cases {
		if got := mustModel(t, c.u).Ports(); !slices.Equal(got, c.want) {
			t.Errorf("%s %s: ports %v, want %v", c.u.UnitKind(), c.u.Variant(), got, c.want)
		}
	}
}
