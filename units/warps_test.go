package units

import (
	"testing"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
)

// TestWarpVectors_ActiveMasks: a unit with active_i gets every warp with
// the documented masks, and the vectors reach the cases random masks
// miss: monotonic over the active lanes only, not monotonic over the
// active lanes, all active lanes on one block.
func TestWarpVectors_ActiveMasks(t *testing.T) {
	const L, A = 8, 16
	port := func(name string, w int) *netlist.Port { return &netlist.Port{Name: name, Bits: make(netlist.Bus, w)} }
	plain := warpVectors(L, A, 5, []*netlist.Port{port("addr_i", L*A)}, 1)
	vs := warpVectors(L, A, 5, []*netlist.Port{port("addr_i", L*A), port("active_i", L)}, 1)
	if len(vs) <= len(plain) {
		t.Fatalf("%d masked vectors, %d without active_i", len(vs), len(plain))
	}
	if got := warpVectors(L, A, 5, []*netlist.Port{port("addr_i", L*A), port("other_i", L)}, 1); got != nil {
		t.Errorf("an input other than active_i: %d vectors, want none", len(got))
	}
	masks := map[uint64]bool{}
	det, err := model.ForMonotonicityDetector(&specs.MonotonicityDetector{Name: "d", Lanes: L, AddrBits: A, ActiveMask: true})
	if err != nil {
		t.Fatal(err)
	}
	all := []uint64{1<<L - 1}
	var onlyActive, notActive, oneBlock int
	mono := func(addr, act []uint64) bool {
		out := [][]uint64{{0}, {0}, {0}}
		det.Eval([][]uint64{addr, act}, out)
		return out[2][0] == 1
	}
	for _, v := range vs {
		if len(v) != 2 || len(v[0]) != 2 || len(v[1]) != 1 || v[1][0]>>L != 0 {
			t.Fatalf("bad vector shape %v", v)
		}
		masks[v[1][0]] = true
		m, whole := mono(v[0], v[1]), mono(v[0], all)
		switch {
		case m && !whole:
			onlyActive++
		case !m && v[1][0] != all[0]:
			notActive++
		}
		var blocks []uint64
		for k := 0; k < L; k++ {
			if v[1][0]>>k&1 == 1 {
				blocks = append(blocks, (v[0][k*A/64]>>(k*A%64))&(1<<A-1)>>5)
			}
		}
		same := len(blocks) > 1
		for _, b := range blocks {
			same = same && b == blocks[0]
		}
		if same && v[1][0] != all[0] {
			oneBlock++
		}
	}
	for _, m := range []uint64{0, 1, 1 << (L - 1), 1 << (L / 2), 1<<L - 1, 0x55, 0xAA} {
		if !masks[m] {
			t.Errorf("no vector with active_i = %#x", m)
		}
	}
	if onlyActive < 10 || notActive < 10 || oneBlock < 5 {
		t.Errorf("monotonic over the active lanes only: %d; not monotonic over some active lanes: %d; active lanes on one block: %d",
			onlyActive, notActive, oneBlock)
	}
}
