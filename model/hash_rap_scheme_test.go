package model

import (
	"strings"
	"testing"

	"github.com/lsugen/lsugen/specs"
)

// TestRAPSchemes checks R1P, 3P and RAS (004_* §VII) on addresses worked
// by hand. w = 4: a[i][j][k][l] at i*64 + j*16 + k*4 + l.
func TestRAPSchemes(t *testing.T) {
	p3 := mustModel(t, &specs.Hash{Function: specs.RAP, Scheme: specs.RAP3P, AddrBits: 8, BankBits: 2, W: 4,
		Permutations: [][]int{{2, 0, 3, 1}, {1, 3, 0, 2}, {3, 2, 1, 0}}})
	r1p := mustModel(t, &specs.Hash{Function: specs.RAP, Scheme: specs.RAPR1P, AddrBits: 8, BankBits: 2, W: 4,
		Permutation: []int{2, 0, 3, 1}})
	ras := mustModel(t, &specs.Hash{Function: specs.RAP, Scheme: specs.RAPRAS, AddrBits: 6, BankBits: 2, W: 4,
		Shifts: []int{3, 3, 0, 1, 2, 2, 2, 0}})
	cases := []struct {
		name        string
		m           Model
		addr        uint64
		bank, addrO uint64
	}{
		// i=1, j=3, k=2, l=1: 3P shift r0[2]+r1[3]+r2[1] = 3+2+2 = 7, bank (1+7) mod 4 = 0.
		{"3P", p3, 121, 0, 120},
		// R1P: r[2]+r[3]+r[1] = 3+1+0 = 4, bank (1+4) mod 4 = 1.
		{"R1P", r1p, 121, 1, 121},
		// i=j=k=0, l=3: shift 2+1+3 = 6 (3P), 2+2+2 = 6 (R1P): bank 1.
		{"3P zero row", p3, 3, 1, 1},
		{"R1P zero row", r1p, 3, 1, 1},
		// RAS: j = addr[1:0] = 2, x = addr[4:2] = 5, shift 2: bank 0; bit 5 passes through.
		{"RAS", ras, 0b110110, 0, 0b110100},
		{"RAS x=3", ras, 0b01101, 2, 0b01110},
	}
	for _, c := range cases {
		got := eval64(c.m, c.addr)
		if got[0] != c.bank || got[1] != c.addrO {
			t.Errorf("%s addr %d: bank %d addr_o %d, want %d %d", c.name, c.addr, got[0], got[1], c.bank, c.addrO)
		}
	}
	// 3P on a stride along j (k, i fixed): every bank once.
	seen := map[uint64]bool{}
	for j := range uint64(4) {
		seen[eval64(p3, 64*2+16*j+4*1+3)[0]] = true
	}
	if len(seen) != 4 {
		t.Errorf("3P stride along j reaches %d banks, want 4", len(seen))
	}
}

func TestRAPSchemes_Refused(t *testing.T) {
	bad := []struct {
		h    specs.Hash
		want string
	}{
		{specs.Hash{Function: specs.RAP, Scheme: specs.RAP3P, AddrBits: 8, W: 4, Configurable: true}, "constant only"},
		{specs.Hash{Function: specs.RAP, Scheme: specs.RAP3P, AddrBits: 8, W: 4, Permutations: [][]int{{0, 1, 2, 3}}}, "want 3"},
		{specs.Hash{Function: specs.RAP, Scheme: specs.RAP3P, AddrBits: 8, W: 4, Permutations: [][]int{{0, 1, 2, 3}, {0, 1, 1, 3}, {0, 1, 2, 3}}}, "permutations[1] repeats 1"},
		{specs.Hash{Function: specs.RAP, Scheme: specs.RAPR1P, AddrBits: 8, W: 4, Permutation: []int{0, 1, 2}}, "3 entries"},
		{specs.Hash{Function: specs.RAP, Scheme: specs.RAPRAS, AddrBits: 8, W: 4, Shifts: []int{0, 1, 2}}, "3 shifts"},
		{specs.Hash{Function: specs.RAP, Scheme: specs.RAPRAS, AddrBits: 8, W: 4, Shifts: []int{0, 4}}, "shifts[1] = 4"},
		{specs.Hash{Function: specs.RAP, Scheme: "9P", AddrBits: 8, W: 4}, "unknown rap scheme"},
	}
	for _, b := range bad {
		_, err := ForHash(&b.h)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: error %v, want one containing %q", b.h.Scheme, err, b.want)
		}
	}
}
