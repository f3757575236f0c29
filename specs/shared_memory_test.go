package specs

import (
	"slices"
	"testing"
)

// TestSharedMemory_Examples loads the shared-memory examples and checks
// the derived sizes the generator and the model use.
func TestSharedMemory_Examples(t *testing.T) {
	file, diags := NewLoader().Load("testdata/shared_memory.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	type want struct {
		lanes, addrBits, words, wordBits, banks, rows, maxW, passBits int
		row                                                           ShmemRowKind
		nAtomics                                                      int
	}
	wants := map[string]want{
		"shmem_fermi": {32, 16, 12288, 14, 32, 384, 128, 8, RowKeep, 10},
		"shmem_mod17": {16, 15, 4352, 13, 17, 256, 128, 7, RowDivide, 10},
		"shmem_wide":  {32, 16, 8192, 13, 32, 256, 128, 7, RowDivide, 10},
		"shmem_cfg":   {32, 14, 4096, 12, 32, 128, 128, 8, RowWindow, 3},
		"shmem_small": {8, 9, 128, 7, 8, 16, 128, 6, RowDivide, 10},
	}
	seen := 0
	for _, u := range file.Units {
		m, ok := u.(*SharedMemory)
		if !ok {
			continue
		}
		seen++
		w, ok := wants[m.Name]
		if !ok {
			t.Errorf("unexpected unit %s", m.Name)
			continue
		}
		got := want{m.Lanes, m.AddrBits(), m.Words(), m.WordBits(), m.NumBanks(), m.BankRows(), m.MaxWidth(), m.PassBits(), m.Row.Kind, len(m.Atomics)}
		if got != w {
			t.Errorf("%s: got %+v, want %+v", m.Name, got, w)
		}
		if p := shmemInvariant(m); p != "" {
			t.Errorf("%s: %s", m.Name, p)
		}
	}
	if seen != len(wants) {
		t.Errorf("found %d shared memories, want %d", seen, len(wants))
	}
	fermi := findUnit(file, "shmem_fermi").(*SharedMemory)
	if want := []int{5, 6, 7, 8, 9, 10, 11, 12, 13}; !slices.Equal(fermi.Row.Keep, want) {
		t.Errorf("fermi row bits %v, want %v", fermi.Row.Keep, want)
	}
	cfg := findUnit(file, "shmem_cfg").(*SharedMemory)
	if !cfg.HasAtomic(ShmemCAS) || cfg.HasAtomic(ShmemSMin) || !cfg.HasWidth(64) || cfg.HasWidth(48) {
		t.Error("shmem_cfg: HasAtomic or HasWidth wrong")
	}
}

func findUnit(f *File, name string) Unit {
	for _, u := range f.Units {
		if u.UnitName() == name {
			return u
		}
	}
	return nil
}

// TestHash_RowBits checks the pivot choice: the lowest independent
// columns of the hash matrix on the word address.
func TestHash_RowBits(t *testing.T) {
	cases := []struct {
		h        Hash
		wordBits int
		keep     []int
		ok       bool
	}{
		// bank = w[4:2]: pivots 2..4.
		{Hash{Function: BitvectorPerm, AddrBits: 8, BankBits: 3, K: 2}, 8, []int{0, 1, 5, 6, 7}, true},
		// bank bit 0 = w0^w1, bank bit 1 = w0^w1: rank 1.
		{Hash{Function: XorMatrix, AddrBits: 6, BankBits: 2, Bits: [][]int{{0, 1}, {0, 1}}}, 6, nil, false},
		// bank bit 0 = w1^w3, bit 1 = w1: column 0 is 0, pivots 1 and 3.
		{Hash{Function: XorMatrix, AddrBits: 6, BankBits: 2, Bits: [][]int{{1, 3}, {1}}}, 6, []int{0, 2, 4, 5}, true},
		// bits above the word address read 0.
		{Hash{Function: BitwisePerm, AddrBits: 8, BankBits: 2, Bits: [][]int{{0}, {7}}}, 6, nil, false},
		{Hash{Function: FixedXor, AddrBits: 6, BankBits: 2}, 6, []int{2, 3, 4, 5}, true},
		{Hash{Function: Add, AddrBits: 6, BankBits: 2}, 5, []int{2, 3, 4}, true},
		{Hash{Function: RAP, AddrBits: 4, BankBits: 2, W: 4, Configurable: true}, 6, []int{2, 3, 4, 5}, true},
		{Hash{Function: BitvectorXor, AddrBits: 8, BankBits: 2, K1: 3, K2: 0, Mask: 3}, 8, []int{2, 3, 4, 5, 6, 7}, true},
		{Hash{Function: Mod, AddrBits: 8, BankBits: 3, Banks: 5}, 8, nil, false},
		{Hash{Function: BitwiseXor, AddrBits: 8, BankBits: 2, Configurable: true}, 8, nil, false},
	}
	for i, c := range cases {
		keep, ok, why := c.h.RowBits(c.wordBits)
		if ok != c.ok || !slices.Equal(keep, c.keep) {
			t.Errorf("case %d (%s): got %v %v (%s), want %v %v", i, c.h.Function, keep, ok, why, c.keep, c.ok)
		}
		if !ok && why == "" {
			t.Errorf("case %d: refused without a reason", i)
		}
	}
}
