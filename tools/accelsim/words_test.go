package accelsim

import (
	"fmt"
	"slices"
	"testing"
)

// lanes returns the mask and per-lane byte addresses of the given lanes,
// lane i at addr(i).
func lanes(ls []int, addr func(int) uint64) (uint32, []uint64) {
	var mask uint32
	var out []uint64
	for _, l := range ls {
		mask |= 1 << l
		out = append(out, addr(l))
	}
	return mask, out
}

func seq(lo, hi int) []int {
	var s []int
	for i := lo; i < hi; i++ {
		s = append(s, i)
	}
	return s
}

func words(lo, hi uint64) []uint64 {
	var s []uint64
	for w := lo; w < hi; w++ {
		s = append(s, w)
	}
	return s
}

// TestPhases_HandComputed checks the wide-access rule on cases worked by
// hand: k = width / bank bytes words per lane, phases of max(1, banks/k)
// consecutive lanes, empty phases left out.
func TestPhases_HandComputed(t *testing.T) {
	cases := []struct {
		name             string
		width, bb, banks int
		lanes            []int
		addr             func(int) uint64
		want             [][]uint64
	}{
		{"32-bit: one phase, word = byte / 4", 4, 4, 32, seq(0, 4), func(l int) uint64 { return uint64(128 * l) },
			[][]uint64{{0, 32, 64, 96}}},
		{"16-bit: two lanes share a word", 2, 4, 32, seq(0, 3), func(l int) uint64 { return uint64(2 * l) },
			[][]uint64{{0, 0, 1}}},
		{"64-bit on 4-byte banks: half-warps", 8, 4, 32, seq(0, 32), func(l int) uint64 { return uint64(8 * l) },
			[][]uint64{words(0, 32), words(32, 64)}},
		{"128-bit: quarter-warps, lanes 0, 9, 31", 16, 4, 32, []int{0, 9, 31}, func(l int) uint64 { return uint64(16 * l) },
			[][]uint64{{0, 1, 2, 3}, {36, 37, 38, 39}, {124, 125, 126, 127}}},
		{"128-bit on 8-byte banks: half-warps", 16, 8, 32, []int{3, 16}, func(l int) uint64 { return uint64(16 * l) },
			[][]uint64{{6, 7}, {32, 33}}},
		{"64-bit on 8-byte banks: one phase", 8, 8, 32, seq(0, 2), func(l int) uint64 { return uint64(8 * l) },
			[][]uint64{{0, 1}}},
		{"64-bit on 17 banks: phases of 8 lanes", 8, 4, 17, []int{7, 8, 31}, func(l int) uint64 { return uint64(8 * l) },
			[][]uint64{{14, 15}, {16, 17}, {62, 63}}},
		{"128-bit on 2 banks: a lane per phase", 16, 4, 2, []int{0, 1}, func(l int) uint64 { return uint64(16 * l) },
			[][]uint64{{0, 1, 2, 3}, {4, 5, 6, 7}}},
	}
	for _, c := range cases {
		mask, addrs := lanes(c.lanes, c.addr)
		got, err := Phases(&WarpAccess{Mask: mask, Width: c.width, Addrs: addrs}, c.bb, c.banks, nil)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s:\n got %v\nwant %v", c.name, got, c.want)
		}
	}
	// Reused storage gives the same phases.
	a := &WarpAccess{Mask: 0xffffffff, Width: 8, Addrs: slices.Collect(func(yield func(uint64) bool) {
		for l := range 32 {
			yield(uint64(8 * l))
		}
	})}
	first, _ := Phases(a, 4, 32, nil)
	keep := fmt.Sprint(first)
	again, _ := Phases(a, 4, 32, first)
	if fmt.Sprint(again) != keep {
		t.Errorf("reused storage: %v", again)
	}
	if _, err := Phases(a, 16, 32, nil); err == nil {
		t.Error("16-byte banks accepted")
	}
}
