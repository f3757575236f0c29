package model

import (
	"slices"
	"testing"

	"github.com/lsugen/lsugen/specs"
)

// TestSpeculativeClocked_Schedule drives the model with fast 2, slow 4
// cycles: a monotonic warp answered fast, a non-monotonic one slow, a
// monotonic one held behind it, one answered fast again after a gap, a
// reset that drops one in flight and one presented with it.
func TestSpeculativeClocked_Schedule(t *testing.T) {
	c := &specs.Coalescer{Name: "s", Structure: specs.Speculative, Lanes: 4, AddrBits: 8, Adder: specs.AdderCLA4}
	m, err := ForSpeculativeClocked(c, 2, 4)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range m.Ports() {
		names = append(names, p.Name)
	}
	if want := []string{"rst", "valid_i", "addr_i", "ready_o", "unique_o", "monotonic_o", "fast_o", "valid_o"}; !slices.Equal(names, want) {
		t.Fatalf("ports %v, want %v", names, want)
	}
	pack := func(a ...uint64) uint64 { return a[0] | a[1]<<8 | a[2]<<16 | a[3]<<24 }
	mono, mixed := pack(1, 1, 3, 4), pack(3, 1, 3, 0) // unique 1110 (neighbor) and 1110 (all-to-all: lane 0 repeats lane 2)
	type cyc struct {
		rst, valid bool
		addr       uint64
		// expected: answer (valid_o), fast_o, monotonic_o, unique_o
		answer, fast, monoO bool
		unique              uint64
	}
	steps := []cyc{
		{valid: true, addr: mono},  // 0: A, fast at 2
		{valid: true, addr: mixed}, // 1: B, slow at 5
		{valid: true, addr: mono, answer: true, fast: true, monoO: true, unique: 0b1110}, // 2: C held behind B: slow at 6; A answers
		{},
		{},
		{valid: true, addr: mono, answer: true, unique: 0b1110},                         // 5: D, fast at 7; B answers
		{rst: true, valid: true, addr: mono, answer: true, monoO: true, unique: 0b1110}, // 6: drops D and E; C answers
		{valid: true, addr: mixed},     // 7: F, slow at 11
		{valid: true, addr: mono},      // 8: G, held: slow at 12
		{},                             // 9
		{},                             // 10
		{answer: true, unique: 0b1110}, // 11: F
		{answer: true, monoO: true, unique: 0b1110}, // 12: G
		{valid: true, addr: mono},                   // 13: H, fast at 15
		{},                                          // 14
		{answer: true, fast: true, monoO: true, unique: 0b1110}, // 15: H
		{},
	}
	in := [][]uint64{{0}, {0}, {0}}
	out := [][]uint64{{0}, {0}, {0}, {0}, {0}}
	m.Reset()
	for i, s := range steps {
		in[0][0], in[1][0], in[2][0] = b2u(s.rst), b2u(s.valid), s.addr
		m.Cycle(in, out)
		got := []uint64{out[0][0], out[1][0], out[2][0], out[3][0], out[4][0]}
		want := []uint64{1, s.unique, b2u(s.monoO), b2u(s.fast), b2u(s.answer)}
		if !slices.Equal(got, want) {
			t.Errorf("cycle %d: ready, unique, monotonic, fast, valid = %v, want %v", i, got, want)
		}
	}
}

func TestSpeculativeClocked_Refuses(t *testing.T) {
	c := &specs.Coalescer{Name: "s", Structure: specs.Speculative, Lanes: 4, AddrBits: 8, Adder: specs.AdderCLA4}
	for _, l := range [][2]int{{0, 2}, {3, 2}} {
		if _, err := ForSpeculativeClocked(c, l[0], l[1]); err == nil {
			t.Errorf("fast %d slow %d: want an error", l[0], l[1])
		}
	}
	if _, err := ForSpeculativeClocked(nil, 1, 2); err == nil {
		t.Error("nil: want an error")
	}
	a2a := *c
	a2a.Structure = specs.AllToAll
	if _, err := ForSpeculativeClocked(&a2a, 1, 2); err == nil {
		t.Error("all_to_all: want an error")
	}
	m, err := ForSpeculativeClocked(&specs.Coalescer{Name: "r", Structure: specs.Speculative, Lanes: 4, AddrBits: 8, Adder: specs.AdderCLA4, ActiveMask: true, Requests: true}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range m.Ports() {
		names = append(names, p.Name)
	}
	if want := []string{"rst", "valid_i", "addr_i", "active_i", "ready_o", "unique_o", "monotonic_o", "req_count_o", "req_addr_o", "req_mask_o", "lane_req_o", "fast_o", "valid_o"}; !slices.Equal(names, want) {
		t.Errorf("ports %v, want %v", names, want)
	}
}
