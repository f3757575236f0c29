package model

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/lsugen/lsugen/specs"
)

// The helpers below are deliberately independent of the model's own lane
// extraction: they build and read port values one bit at a time.

// coPack writes the lane addresses (addrBits each, lane 0 lowest) into v
// bit by bit and sets every bit of v above the last lane, which the model
// must ignore.
func coPack(v []uint64, addrBits int, addrs []uint64) {
	clear(v)
	for k, a := range addrs {
		if addrBits < 64 && a>>addrBits != 0 {
			panic(fmt.Sprintf("lane %d address %#x does not fit in %d bits", k, a, addrBits))
		}
		for b := range addrBits {
			i := k*addrBits + b
			v[i/64] |= ((a >> b) & 1) << (i % 64)
		}
	}
	for i := len(addrs) * addrBits; i < 64*len(v); i++ {
		v[i/64] |= 1 << (i % 64)
	}
}

// coRun evaluates m on the lane addresses with every output word
// pre-filled with ones (so a model that does not overwrite them fails) and
// returns the output port values.
func coRun(m Model, addrBits int, addrs []uint64) [][]uint64 {
	in, out := newPorts(m)
	coPack(in[0], addrBits, addrs)
	for _, v := range out {
		for w := range v {
			v[w] = ^uint64(0)
		}
	}
	m.Eval(in, out)
	return out
}

// laneWords turns a lane-order bit string ("0001" = only lane 3 set; '_'
// and ' ' are ignored) into port words.
func laneWords(s string) []uint64 {
	s = strings.NewReplacer("_", "", " ", "").Replace(s)
	v := make([]uint64, (len(s)+63)/64)
	for i, c := range s {
		switch c {
		case '1':
			v[i/64] |= 1 << (i % 64)
		case '0':
		default:
			panic("bad lane string " + s)
		}
	}
	return v
}

// laneString is the inverse of laneWords for an L-lane port; bits above L
// show up as a "+junk" suffix.
func laneString(v []uint64, lanes int) string {
	var b strings.Builder
	for i := range lanes {
		b.WriteByte('0' + byte((v[i/64]>>(i%64))&1))
	}
	for i := lanes; i < 64*len(v); i++ {
		if (v[i/64]>>(i%64))&1 != 0 {
			b.WriteString("+junk")
			break
		}
	}
	return b.String()
}

// warp is one hand-worked example: the lane addresses and the expected
// outputs of every structure and of the detector.
type warp struct {
	addrBits, blockBits int
	addrs               []uint64
	allToAll            string // expected unique_o of all_to_all (and speculative)
	neighbor            string // expected unique_o of neighbor
	up, down            bool   // expected nondecreasing_o, nonincreasing_o
}

// checkWarp runs w through all three coalescer structures and the detector
// (with every adder) and checks each output against the hand-worked values.
func checkWarp(t *testing.T, w warp) {
	t.Helper()
	L := len(w.addrs)
	mono := w.up || w.down
	// Sanity of the test data itself: on a monotonic warp the neighbor
	// result must be the exact one.
	if mono && w.allToAll != w.neighbor {
		t.Fatalf("bad test data: monotonic warp with all_to_all %s != neighbor %s", w.allToAll, w.neighbor)
	}
	wantAll, wantNb := laneWords(w.allToAll), laneWords(w.neighbor)
	if len(wantAll) != (L+63)/64 || len(wantNb) != (L+63)/64 ||
		len(strings.NewReplacer("_", "", " ", "").Replace(w.allToAll)) != L {
		t.Fatalf("bad test data: lane strings do not have %d lanes", L)
	}

	for _, st := range []specs.Structure{specs.AllToAll, specs.Neighbor, specs.Speculative} {
		m := mustModel(t, &specs.Coalescer{Name: "c", Structure: st, Lanes: L, AddrBits: w.addrBits,
			BlockBits: w.blockBits, Adder: specs.AdderCLA4})
		out := coRun(m, w.addrBits, w.addrs)
		want := wantAll
		if st == specs.Neighbor {
			want = wantNb
		}
		if !slices.Equal(out[0], want) {
			t.Errorf("%s: unique_o = %s, want %s", st, laneString(out[0], L), laneString(want, L))
		}
		if st == specs.Speculative {
			if got := out[1][0]; got != b2u(mono) {
				t.Errorf("speculative: monotonic_o = %#x, want %d", got, b2u(mono))
			}
		}
	}
	for _, adder := range []specs.Adder{specs.AdderCLA4, specs.AdderRipple, specs.AdderPrefix} {
		m := mustModel(t, &specs.MonotonicityDetector{Name: "d", Lanes: L, AddrBits: w.addrBits, Adder: adder})
		out := coRun(m, w.addrBits, w.addrs)
		got := [3]uint64{out[0][0], out[1][0], out[2][0]}
		want := [3]uint64{b2u(w.up), b2u(w.down), b2u(mono)}
		if got != want {
			t.Errorf("detector (%s): nondecreasing, nonincreasing, monotonic = %v, want %v", adder, got, want)
		}
	}
}

// TestAllToAll_AllEqual: a warp on one address (or one block) keeps only
// the last lane, and is both non-decreasing and non-increasing.
func TestAllToAll_AllEqual(t *testing.T) {
	a := uint64(0x1000)
	checkWarp(t, warp{addrBits: 32, blockBits: 6, addrs: []uint64{a, a, a, a, a, a, a, a},
		allToAll: "0000_0001", neighbor: "0000_0001", up: true, down: true})
	checkWarp(t, warp{addrBits: 32, blockBits: 0, addrs: []uint64{a, a, a, a, a, a, a, a},
		allToAll: "0000_0001", neighbor: "0000_0001", up: true, down: true})
	// All zero and all ones at the full width.
	z, o := uint64(0), ^uint64(0)
	checkWarp(t, warp{addrBits: 64, addrs: []uint64{z, z, z}, allToAll: "001", neighbor: "001", up: true, down: true})
	checkWarp(t, warp{addrBits: 64, addrs: []uint64{o, o, o}, allToAll: "001", neighbor: "001", up: true, down: true})
}

// TestAllToAll_StrictlyMonotonic: distinct blocks in order are all unique.
func TestAllToAll_StrictlyMonotonic(t *testing.T) {
	checkWarp(t, warp{addrBits: 32, blockBits: 2, addrs: []uint64{0, 4, 8, 12, 16, 20, 24, 28},
		allToAll: "1111_1111", neighbor: "1111_1111", up: true, down: false})
	checkWarp(t, warp{addrBits: 32, blockBits: 2, addrs: []uint64{28, 24, 20, 16, 12, 8, 4, 0},
		allToAll: "1111_1111", neighbor: "1111_1111", up: false, down: true})
}

// TestAllToAll_RepeatedBlocks: runs of equal addresses keep the last lane
// of each run.
func TestAllToAll_RepeatedBlocks(t *testing.T) {
	checkWarp(t, warp{addrBits: 32, addrs: []uint64{5, 5, 5, 9, 9, 12, 12, 12},
		allToAll: "0010_1001", neighbor: "0010_1001", up: true, down: false})
	checkWarp(t, warp{addrBits: 32, addrs: []uint64{12, 12, 9, 9, 9, 5, 5, 5},
		allToAll: "0100_1001", neighbor: "0100_1001", up: false, down: true})
}

// TestCoalescer_BlockBitsMerge: block_bits drops the offset, so distinct
// addresses in one block merge.
func TestCoalescer_BlockBitsMerge(t *testing.T) {
	// 0,1,2,3 >> 2 = one block; >> 1 = blocks 0,0,1,1; >> 0 = four blocks.
	checkWarp(t, warp{addrBits: 32, blockBits: 2, addrs: []uint64{0, 1, 2, 3},
		allToAll: "0001", neighbor: "0001", up: true})
	checkWarp(t, warp{addrBits: 32, blockBits: 1, addrs: []uint64{0, 1, 2, 3},
		allToAll: "0101", neighbor: "0101", up: true})
	checkWarp(t, warp{addrBits: 32, blockBits: 0, addrs: []uint64{0, 1, 2, 3},
		allToAll: "1111", neighbor: "1111", up: true})
	checkWarp(t, warp{addrBits: 32, blockBits: 2, addrs: []uint64{0, 1, 2, 3, 4, 5, 6, 7},
		allToAll: "0001_0001", neighbor: "0001_0001", up: true})
	// Not monotonic on full addresses but one block: the fallback gives the
	// same answer as neighbor would.
	checkWarp(t, warp{addrBits: 32, blockBits: 2, addrs: []uint64{3, 0, 2, 1},
		allToAll: "0001", neighbor: "0001"})
	// Blocks 1,0,1,0: neighbor sees no equal pair, all_to_all merges.
	checkWarp(t, warp{addrBits: 32, blockBits: 2, addrs: []uint64{4, 0, 5, 1},
		allToAll: "0011", neighbor: "1111"})
	// Full addresses monotonic, blocks too (block_bits = addr_bits - 1).
	checkWarp(t, warp{addrBits: 8, blockBits: 7, addrs: []uint64{0x00, 0x7F, 0x80, 0xFF},
		allToAll: "0101", neighbor: "0101", up: true})
}

// TestSpeculative_InversionAtFirstPair: one inversion between lanes 0 and 1
// breaks monotonicity; lane 0's block reappears at lane 2, which neighbor
// misses and the all_to_all fallback catches.
func TestSpeculative_InversionAtFirstPair(t *testing.T) {
	checkWarp(t, warp{addrBits: 32, addrs: []uint64{6, 5, 6, 7, 8, 9, 10, 11},
		allToAll: "0111_1111", neighbor: "1111_1111"})
	// The same in a decreasing warp.
	checkWarp(t, warp{addrBits: 32, addrs: []uint64{5, 6, 5, 4, 3, 2, 1, 0},
		allToAll: "0111_1111", neighbor: "1111_1111"})
}

// TestSpeculative_InversionAtLastPair: one inversion between the last two
// lanes; lane 7 repeats lane 5's block.
func TestSpeculative_InversionAtLastPair(t *testing.T) {
	checkWarp(t, warp{addrBits: 32, addrs: []uint64{1, 2, 3, 4, 5, 6, 7, 6},
		allToAll: "1111_1011", neighbor: "1111_1111"})
	checkWarp(t, warp{addrBits: 32, addrs: []uint64{7, 6, 5, 4, 3, 2, 1, 2},
		allToAll: "1111_1011", neighbor: "1111_1111"})
}

// TestNeighbor_NonAdjacentDuplicates: a scattered warp whose equal blocks
// are never adjacent: neighbor marks every lane unique, all_to_all keeps
// only the last lane of each block.
func TestNeighbor_NonAdjacentDuplicates(t *testing.T) {
	// block_bits 4: blocks 0x10 0x20 0x10 0x30 0x20 0x40 0x10 0x50.
	checkWarp(t, warp{addrBits: 32, blockBits: 4,
		addrs:    []uint64{0x103, 0x20F, 0x100, 0x300, 0x205, 0x400, 0x10C, 0x500},
		allToAll: "0001_1111", neighbor: "1111_1111"})
}

// TestDetector_UnsignedWrap: comparisons are unsigned, so all ones is the
// largest address and the sign bit is an ordinary bit.
func TestDetector_UnsignedWrap(t *testing.T) {
	checkWarp(t, warp{addrBits: 32, addrs: []uint64{0, 0xFFFFFFFF},
		allToAll: "11", neighbor: "11", up: true})
	checkWarp(t, warp{addrBits: 32, addrs: []uint64{0xFFFFFFFF, 0},
		allToAll: "11", neighbor: "11", down: true})
	checkWarp(t, warp{addrBits: 32, addrs: []uint64{0, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF},
		allToAll: "1111", neighbor: "1111", up: true})
	checkWarp(t, warp{addrBits: 32, blockBits: 31, addrs: []uint64{0, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF},
		allToAll: "0101", neighbor: "0101", up: true})
	checkWarp(t, warp{addrBits: 32, addrs: []uint64{0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 0},
		allToAll: "1111", neighbor: "1111", down: true})
	checkWarp(t, warp{addrBits: 64, addrs: []uint64{0, 1 << 63, ^uint64(0)},
		allToAll: "111", neighbor: "111", up: true})
	checkWarp(t, warp{addrBits: 64, addrs: []uint64{^uint64(0), 1 << 63, 1<<63 - 1, 0},
		allToAll: "1111", neighbor: "1111", down: true})
	// 0, max, 0: not monotonic; lane 0 repeats at lane 2.
	checkWarp(t, warp{addrBits: 32, addrs: []uint64{0, 0xFFFFFFFF, 0},
		allToAll: "011", neighbor: "111"})
	// A = 1.
	checkWarp(t, warp{addrBits: 1, addrs: []uint64{0, 1, 0},
		allToAll: "011", neighbor: "111"})
	checkWarp(t, warp{addrBits: 1, addrs: []uint64{0, 0, 1, 1},
		allToAll: "0101", neighbor: "0101", up: true})
}

// TestCoalescer_A33Straddling: 33-bit lanes 1, 3, 5 and 7 straddle the
// 64-bit word boundaries (bits 33..65, 99..131, 165..197, 231..263), and
// bit 32 of each address matters.
func TestCoalescer_A33Straddling(t *testing.T) {
	// block_bits 8: blocks 0x1000000 0x1000000 0x0FFFFFF 0x1800000
	// 0x1000000 0x0000000 0x1FFFFFF 0x0FFFFFF.
	checkWarp(t, warp{addrBits: 33, blockBits: 8,
		addrs: []uint64{0x1_0000_0000, 0x1_0000_00FF, 0x0_FFFF_FFFF, 0x1_8000_0000,
			0x1_0000_0010, 0x0_0000_0000, 0x1_FFFF_FFFF, 0x0_FFFF_FF00},
		allToAll: "0001_1111", neighbor: "0111_1111"})
	// Increasing across bit 32, block_bits 4: blocks 0x0FFFFFFF 0x0FFFFFFF
	// 0x10000000 0x10000000 0x10000001 0x10000001 0x10000002 0x10000002.
	checkWarp(t, warp{addrBits: 33, blockBits: 4,
		addrs: []uint64{0x0_FFFF_FFF0, 0x0_FFFF_FFF8, 0x1_0000_0000, 0x1_0000_0008,
			0x1_0000_0010, 0x1_0000_0018, 0x1_0000_0020, 0x1_0000_0028},
		allToAll: "0101_0101", neighbor: "0101_0101", up: true})
	// Only the straddling lane 1 differs, in its top bit (bit 65 of the
	// port): 0x1_0000_0000 vs 0: not monotonic, lane 0 repeats at lane 2.
	checkWarp(t, warp{addrBits: 33, addrs: []uint64{0, 0x1_0000_0000, 0},
		allToAll: "011", neighbor: "111"})
}

// TestCoalescer_A20Straddling: 20-bit lanes 3, 6, 9 and 12 straddle word
// boundaries (bits 60..79, 120..139, 180..199, 240..259).
func TestCoalescer_A20Straddling(t *testing.T) {
	// Decreasing in pairs; block_bits 12: blocks 0xFF 0xFF 0xFE 0xFE ... 0xF8 0xF8.
	checkWarp(t, warp{addrBits: 20, blockBits: 12,
		addrs: []uint64{0xFFFFF, 0xFFFFE, 0xFEFFF, 0xFEFFE, 0xFDFFF, 0xFDFFE, 0xFCFFF, 0xFCFFE,
			0xFBFFF, 0xFBFFE, 0xFAFFF, 0xFAFFE, 0xF9FFF, 0xF9FFE, 0xF8FFF, 0xF8FFE},
		allToAll: "0101_0101_0101_0101", neighbor: "0101_0101_0101_0101", down: true})
	// Scattered; block_bits 8: blocks 000 123 000 ABC 543 000 FFF 000
	// 000 800 000 7FF ABC 000 FFF 000. Straddling lanes 3 and 12 share
	// block ABC, straddling lane 6 shares FFF with lane 14.
	checkWarp(t, warp{addrBits: 20, blockBits: 8,
		addrs: []uint64{0x00010, 0x12345, 0x00020, 0xABCDE, 0x54321, 0x00030, 0xFFFFF, 0x00040,
			0x0000F, 0x80000, 0x00050, 0x7FFFF, 0xABC00, 0x00060, 0xFFF00, 0x00070},
		allToAll: "0100_1000_0101_1011", neighbor: "1111_1110_1111_1111"})
}

// TestCoalescer_64Lanes: unique_o fills exactly one word.
func TestCoalescer_64Lanes(t *testing.T) {
	const L = 64
	same := make([]uint64, L)
	for k := range same {
		same[k] = 0xDEADBEEF
	}
	checkWarp(t, warp{addrBits: 32, addrs: same,
		allToAll: strings.Repeat("0", 63) + "1", neighbor: strings.Repeat("0", 63) + "1", up: true, down: true})

	// 63, 1, 2, ..., 63: inversion at the first pair; lane 0 repeats at lane 63.
	inv := make([]uint64, L)
	inv[0] = 63
	for k := 1; k < L; k++ {
		inv[k] = uint64(k)
	}
	checkWarp(t, warp{addrBits: 32, addrs: inv,
		allToAll: "0" + strings.Repeat("1", 63), neighbor: strings.Repeat("1", 64)})

	// 0x7FFFFFF0 + 8k across the sign bit, block_bits 4: blocks in pairs.
	pairs := make([]uint64, L)
	for k := range pairs {
		pairs[k] = 0x7FFFFFF0 + 8*uint64(k)
	}
	checkWarp(t, warp{addrBits: 32, blockBits: 4, addrs: pairs,
		allToAll: strings.Repeat("01", 32), neighbor: strings.Repeat("01", 32), up: true})
}

// TestCoalescer_128Lanes: 128 lanes of 64 bits, the widest port (8192 bits);
// unique_o spans two words.
func TestCoalescer_128Lanes(t *testing.T) {
	const L = 128
	base := uint64(0xFFFF_FFFF_0000_0000)
	// base+1 .. base+127, then base+64: inversion at the last pair; lane 63
	// (bit 63 of word 0) repeats at lane 127.
	a := make([]uint64, L)
	for k := range L - 1 {
		a[k] = base + uint64(k) + 1
	}
	a[L-1] = base + 64
	checkWarp(t, warp{addrBits: 64, addrs: a,
		allToAll: strings.Repeat("1", 63) + "0" + strings.Repeat("1", 64), neighbor: strings.Repeat("1", 128)})

	// ^0 - k<<56, block_bits 57: blocks (255-k)>>1 in pairs, decreasing.
	d := make([]uint64, L)
	for k := range d {
		d[k] = ^uint64(0) - uint64(k)<<56
	}
	checkWarp(t, warp{addrBits: 64, blockBits: 57, addrs: d,
		allToAll: strings.Repeat("01", 64), neighbor: strings.Repeat("01", 64), down: true})

	// One-bit lanes: 127 zeros then a one.
	z := make([]uint64, L)
	z[L-1] = 1
	checkWarp(t, warp{addrBits: 1, addrs: z,
		allToAll: strings.Repeat("0", 126) + "11", neighbor: strings.Repeat("0", 126) + "11", up: true})
}

// TestCoalescer_TwoLanes: the smallest warp.
func TestCoalescer_TwoLanes(t *testing.T) {
	checkWarp(t, warp{addrBits: 32, addrs: []uint64{7, 7}, allToAll: "01", neighbor: "01", up: true, down: true})
	checkWarp(t, warp{addrBits: 32, addrs: []uint64{7, 8}, allToAll: "11", neighbor: "11", up: true})
	checkWarp(t, warp{addrBits: 32, blockBits: 4, addrs: []uint64{7, 8}, allToAll: "01", neighbor: "01", up: true})
	checkWarp(t, warp{addrBits: 32, blockBits: 3, addrs: []uint64{8, 7}, allToAll: "11", neighbor: "11", down: true})
}

// TestCoalescer_Ports checks the documented port order and widths.
func TestCoalescer_Ports(t *testing.T) {
	in := func(n string, w int) Port { return Port{Name: n, Width: w} }
	outp := func(n string, w int) Port { return Port{Name: n, Width: w, Output: true} }
	cases := []struct {
		u    specs.Unit
		want []Port
	}{
		{&specs.Coalescer{Structure: specs.AllToAll, Lanes: 32, AddrBits: 32, BlockBits: 7},
			[]Port{in("addr_i", 1024), outp("unique_o", 32)}},
		{&specs.Coalescer{Structure: specs.Neighbor, Lanes: 3, AddrBits: 33},
			[]Port{in("addr_i", 99), outp("unique_o", 3)}},
		{&specs.Coalescer{Structure: specs.Speculative, Lanes: 128, AddrBits: 64, Adder: specs.AdderPrefix},
			[]Port{in("addr_i", 8192), outp("unique_o", 128), outp("monotonic_o", 1)}},
		{&specs.MonotonicityDetector{Lanes: 64, AddrBits: 20, Adder: specs.AdderRipple},
			[]Port{in("addr_i", 1280), outp("nondecreasing_o", 1), outp("nonincreasing_o", 1), outp("monotonic_o", 1)}},
	}
	for _, c := range cases {
		m := mustModel(t, c.u)
		if got := m.Ports(); !slices.Equal(got, c.want) {
			t.Errorf("%s %s: ports %v, want %v", c.u.UnitKind(), c.u.Variant(), got, c.want)
		}
	}
}

// TestForUnit_CoalescerErrors checks the refused field values, and that the
// limits themselves are accepted.
func TestForUnit_CoalescerErrors(t *testing.T) {
	co := func(st specs.Structure, lanes, addrBits, blockBits int) *specs.Coalescer {
		return &specs.Coalescer{Name: "c", Structure: st, Lanes: lanes, AddrBits: addrBits, BlockBits: blockBits}
	}
	det := func(lanes, addrBits int) *specs.MonotonicityDetector {
		return &specs.MonotonicityDetector{Name: "d", Lanes: lanes, AddrBits: addrBits}
	}
	bad := []struct {
		u    specs.Unit
		want string
	}{
		{(*specs.Coalescer)(nil), "nil coalescer"},
		{(*specs.MonotonicityDetector)(nil), "nil monotonicity_detector"},
		{co(specs.AllToAll, 1, 32, 0), "lanes = 1"},
		{co(specs.AllToAll, 0, 32, 0), "lanes = 0"},
		{co(specs.Neighbor, 129, 32, 0), "lanes = 129"},
		{co(specs.Speculative, 32, 0, 0), "addr_bits = 0"},
		{co(specs.Speculative, 32, 65, 0), "addr_bits = 65"},
		{co(specs.AllToAll, 32, 32, -1), "block_bits = -1"},
		{co(specs.AllToAll, 32, 32, 32), "block_bits = 32"},
		{co(specs.AllToAll, 32, 1, 1), "block_bits = 1"},
		{co("sorted", 32, 32, 4), `unknown coalescer structure "sorted"`},
		{co("", 32, 32, 4), `unknown coalescer structure ""`},
		{det(1, 32), "lanes = 1"},
		{det(129, 32), "lanes = 129"},
		{det(32, 0), "addr_bits = 0"},
		{det(32, 65), "addr_bits = 65"},
	}
	for _, c := range bad {
		m, err := forUnit(c.u)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("forUnit(%#v): error %v, want one containing %q", c.u, err, c.want)
		}
		if m != nil {
			t.Errorf("forUnit(%#v): non-nil model %#v with error", c.u, m)
		}
	}
	for _, u := range []specs.Unit{
		co(specs.AllToAll, 2, 1, 0), co(specs.Neighbor, 128, 64, 63), co(specs.Speculative, 2, 64, 0),
		det(2, 1), det(128, 64),
		&specs.MonotonicityDetector{Lanes: 4, AddrBits: 8, Adder: "anything"},
	} {
		if _, err := forUnit(u); err != nil {
			t.Errorf("forUnit(%#v): %v, want no error", u, err)
		}
	}
}

// randWarp draws L addresses of A bits from a small pool (so that blocks
// repeat), optionally sorted up or down.
func randWarp(r *rand.Rand, L, A int, order int) []uint64 {
	mask := lowMask(A)
	pool := make([]uint64, 1+r.IntN(L))
	for i := range pool {
		pool[i] = r.Uint64() & mask
	}
	a := make([]uint64, L)
	for k := range a {
		a[k] = pool[r.IntN(len(pool))]
		if r.IntN(4) == 0 { // perturb the low bits: same block, different address
			a[k] = (a[k] ^ uint64(r.IntN(16))) & mask
		}
	}
	switch order {
	case 1:
		slices.Sort(a)
	case -1:
		slices.Sort(a)
		slices.Reverse(a)
	}
	return a
}

var randShapes = []struct{ L, A int }{
	{2, 1}, {3, 2}, {4, 64}, {5, 33}, {16, 20}, {31, 7}, {32, 32}, {64, 32}, {65, 17}, {127, 63}, {128, 64},
}

// TestCoalescer_RandomProperties checks, on random warps, properties that
// follow from the definitions without recomputing them the model's way:
//   - speculative unique_o always equals all_to_all's;
//   - all_to_all keeps exactly one lane per distinct block, and it is the
//     last lane of that block;
//   - neighbor equals all_to_all on sorted (either way) warps;
//   - the detector and monotonic_o agree with slices.IsSorted.
func TestCoalescer_RandomProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 17))
	for _, sh := range randShapes {
		for _, bb := range []int{0, sh.A / 2, sh.A - 1} {
			mk := func(st specs.Structure) Model {
				return mustModel(t, &specs.Coalescer{Structure: st, Lanes: sh.L, AddrBits: sh.A, BlockBits: bb})
			}
			all, nb, spec := mk(specs.AllToAll), mk(specs.Neighbor), mk(specs.Speculative)
			det := mustModel(t, &specs.MonotonicityDetector{Lanes: sh.L, AddrBits: sh.A})
			for iter := range 300 {
				order := iter%3 - 1
				a := randWarp(r, sh.L, sh.A, order)
				name := fmt.Sprintf("L=%d A=%d bb=%d %#x", sh.L, sh.A, bb, a)

				uAll := coRun(all, sh.A, a)[0]
				uNb := coRun(nb, sh.A, a)[0]
				so := coRun(spec, sh.A, a)
				do := coRun(det, sh.A, a)

				// One lane per block, the last.
				last := map[uint64]int{}
				for k, x := range a {
					last[x>>bb] = k
				}
				want := make([]uint64, len(uAll))
				for _, k := range last {
					want[k/64] |= 1 << (k % 64)
				}
				if !slices.Equal(uAll, want) {
					t.Fatalf("%s: all_to_all %s, want %s", name, laneString(uAll, sh.L), laneString(want, sh.L))
				}
				if !slices.Equal(so[0], uAll) {
					t.Fatalf("%s: speculative %s != all_to_all %s", name, laneString(so[0], sh.L), laneString(uAll, sh.L))
				}
				up := slices.IsSorted(a)
				rev := slices.Clone(a)
				slices.Reverse(rev)
				down := slices.IsSorted(rev)
				if order != 0 && !(up || down) {
					t.Fatalf("%s: sorted warp not sorted", name)
				}
				if (up || down) && !slices.Equal(uNb, uAll) {
					t.Fatalf("%s: monotonic warp, neighbor %s != all_to_all %s", name, laneString(uNb, sh.L), laneString(uAll, sh.L))
				}
				got := [4]uint64{do[0][0], do[1][0], do[2][0], so[1][0]}
				if w := [4]uint64{b2u(up), b2u(down), b2u(up || down), b2u(up || down)}; got != w {
					t.Fatalf("%s: detector up, down, mono, speculative mono = %v, want %v", name, got, w)
				}
				n := 0
				for _, w := range uAll {
					n += bits.OnesCount64(w)
				}
				if n != len(last) {
					t.Fatalf("%s: %d unique lanes, want %d blocks", name, n, len(last))
				}
			}
		}
	}
}

// coAllModels is one model of every structure at the harness's typical
// size (64 lanes of 32 bits).
func coAllModels(t testing.TB) map[string]Model {
	ms := map[string]Model{}
	for _, st := range []specs.Structure{specs.AllToAll, specs.Neighbor, specs.Speculative} {
		ms[string(st)] = mustModel(t, &specs.Coalescer{Name: string(st), Structure: st, Lanes: 64, AddrBits: 32, BlockBits: 5})
	}
	ms["detector"] = mustModel(t, &specs.MonotonicityDetector{Name: "d", Lanes: 64, AddrBits: 32})
	ms["speculative_128x64"] = mustModel(t, &specs.Coalescer{Name: "s", Structure: specs.Speculative,
		Lanes: 128, AddrBits: 64, BlockBits: 7})
	ms["all_to_all_33"] = mustModel(t, &specs.Coalescer{Name: "a", Structure: specs.AllToAll,
		Lanes: 7, AddrBits: 33, BlockBits: 1})
	return ms
}

// TestCoalescer_NoAllocs checks that Eval does not allocate.
func TestCoalescer_NoAllocs(t *testing.T) {
	for name, m := range coAllModels(t) {
		in, out := newPorts(m)
		x := uint64(0)
		if n := testing.AllocsPerRun(100, func() {
			for w := range in[0] {
				in[0][w] = x
				x = x*6364136223846793005 + 1442695040888963407
			}
			m.Eval(in, out)
		}); n != 0 {
			t.Errorf("%s: %v allocations per Eval, want 0", name, n)
		}
	}
}

// TestCoalescer_Concurrent runs one model from several goroutines (run with
// -race): Eval keeps no shared scratch.
func TestCoalescer_Concurrent(t *testing.T) {
	m := mustModel(t, &specs.Coalescer{Structure: specs.Speculative, Lanes: 16, AddrBits: 20, BlockBits: 8})
	warps := [][]uint64{
		{0x00010, 0x12345, 0x00020, 0xABCDE, 0x54321, 0x00030, 0xFFFFF, 0x00040,
			0x0000F, 0x80000, 0x00050, 0x7FFFF, 0xABC00, 0x00060, 0xFFF00, 0x00070},
		{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
	}
	wants := [][2]uint64{{0b1101_1010_0001_0010, 0}, {1 << 15, 1}}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				k := (g + i) % 2
				out := coRun(m, 20, warps[k])
				if got := [2]uint64{out[0][0], out[1][0]}; got != wants[k] {
					t.Errorf("goroutine %d warp %d: %#x, want %#x", g, k, got, wants[k])
					return
				}
			}
		})
	}
	wg.Wait()
}

func BenchmarkCoalescerEval(b *testing.B) {
	for name, m := range coAllModels(b) {
		b.Run(name, func(b *testing.B) {
			in, out := newPorts(m)
			x := uint64(1)
			for b.Loop() {
				for w := range in[0] {
					x = x*6364136223846793005 + 1442695040888963407
					in[0][w] = x
				}
				m.Eval(in, out)
			}
		})
	}
}
