package model

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/specs"
)

// mustModel builds the model of h or fails the test.
func mustModel(t testing.TB, h specs.Unit) Model {
	t.Helper()
	m, err := forUnit(h)
	if err != nil {
		t.Fatalf("forUnit(%s): %v", h.UnitName(), err)
	}
	return m
}

// newPorts allocates input and output port values for m.
func newPorts(m Model) (in, out [][]uint64) {
	for _, p := range m.Ports() {
		v := make([]uint64, (p.Width+63)/64)
		if p.Output {
			out = append(out, v)
		} else {
			in = append(in, v)
		}
	}
	return in, out
}

// bigToWords writes x into a port value of len(v) words.
func bigToWords(v []uint64, x *big.Int) {
	for k := range v {
		w := new(big.Int).Rsh(x, uint(64*k))
		w.And(w, new(big.Int).SetUint64(^uint64(0)))
		v[k] = w.Uint64()
	}
}

// eval evaluates m on inputs given as big integers and returns the outputs
// as big integers. Outputs are pre-filled with ones so that a model that
// does not overwrite them fails.
func eval(m Model, ins ...*big.Int) []*big.Int {
	in, out := newPorts(m)
	for k := range in {
		bigToWords(in[k], ins[k])
	}
	for _, v := range out {
		for k := range v {
			v[k] = ^uint64(0)
		}
	}
	m.Eval(in, out)
	res := make([]*big.Int, len(out))
	for k, v := range out {
		x := new(big.Int)
		for w := len(v) - 1; w >= 0; w-- {
			x.Lsh(x, 64)
			x.Or(x, new(big.Int).SetUint64(v[w]))
		}
		res[k] = x
	}
	return res
}

// eval64 is eval for ports of at most 64 bits.
func eval64(m Model, ins ...uint64) []uint64 {
	b := make([]*big.Int, len(ins))
	for k, x := range ins {
		b[k] = new(big.Int).SetUint64(x)
	}
	r := eval(m, b...)
	res := make([]uint64, len(r))
	for k, x := range r {
		res[k] = x.Uint64()
	}
	return res
}

// fastEval returns a function that evaluates a model whose ports are all at
// most 64 bits wide, reusing its buffers (for sweeps).
func fastEval(m Model) func(ins ...uint64) []uint64 {
	in, out := newPorts(m)
	res := make([]uint64, len(out))
	return func(ins ...uint64) []uint64 {
		for k := range in {
			in[k][0] = ins[k]
		}
		for _, v := range out {
			v[0] = ^uint64(0)
		}
		m.Eval(in, out)
		for k, v := range out {
			res[k] = v[0]
		}
		return res
	}
}

func bit(x uint64, i int) uint64 { return (x >> i) & 1 }

// fermiXor is the bit-vector XOR function of 000 Fig. 5 on a 14-bit address.
func fermiXor(cfg bool) *specs.Hash {
	return &specs.Hash{Name: "fig5", Function: specs.BitvectorXor, AddrBits: 14, BankBits: 5,
		Configurable: cfg, K1: 2, K2: 8, Mask: 7}
}

// TestBitvectorXor_PaperExample checks 000 Fig. 5: k1=2, k2=8, mask=7 on a
// 14-bit address gives b0=a2^a8, b1=a3^a9, b2=a4^a10, b3=a5, b4=a6.
func TestBitvectorXor_PaperExample(t *testing.T) {
	m := mustModel(t, fermiXor(false))
	cases := []struct{ addr, bank uint64 }{
		{0, 0},
		{1 << 0, 0}, {1 << 1, 0}, {1 << 7, 0}, {1 << 11, 0}, {1 << 12, 0}, {1 << 13, 0},
		{1 << 2, 1}, {1 << 8, 1}, {1<<2 | 1<<8, 0},
		{1 << 3, 2}, {1 << 9, 2}, {1<<3 | 1<<9, 0},
		{1 << 4, 4}, {1 << 10, 4},
		{1 << 5, 8}, {1 << 6, 16},
		{1<<9 | 1<<10, 6},
		{0x3FFF, 24}, // a2..a4 cancel against a8..a10; a5, a6 survive
		{0x007C, 31}, // a2..a6
		{0x0700, 7},  // a8..a10
		{0x0123, 9},  // a0 a1 a5 a8: b0 = a2^a8 = 1, b3 = a5 = 1
	}
	for _, c := range cases {
		if got := eval64(m, c.addr)[0]; got != c.bank {
			t.Errorf("addr %#x: bank %d, want %d", c.addr, got, c.bank)
		}
	}
	// Every address against the paper's bit equations.
	f := fastEval(m)
	for a := range uint64(1 << 14) {
		want := (bit(a, 2) ^ bit(a, 8)) | (bit(a, 3)^bit(a, 9))<<1 | (bit(a, 4)^bit(a, 10))<<2 |
			bit(a, 5)<<3 | bit(a, 6)<<4
		if got := f(a)[0]; got != want {
			t.Fatalf("addr %#x: bank %d, want %d", a, got, want)
		}
	}
}

// TestBitvectorPerm_Constant checks bank = addr[k+m-1:k].
func TestBitvectorPerm_Constant(t *testing.T) {
	m := mustModel(t, &specs.Hash{Function: specs.BitvectorPerm, AddrBits: 14, BankBits: 5, K: 2})
	cases := []struct{ addr, bank uint64 }{
		{0, 0}, {3, 0}, {4, 1}, {0x7C, 31}, {0x80, 0}, {0x3FFF, 31}, {0x2A, 10},
	}
	for _, c := range cases {
		if got := eval64(m, c.addr)[0]; got != c.bank {
			t.Errorf("addr %#x: bank %d, want %d", c.addr, got, c.bank)
		}
	}
	// k+m beyond the address: zero fill. k=10 on 14 bits takes a10..a13.
	m = mustModel(t, &specs.Hash{Function: specs.BitvectorPerm, AddrBits: 14, BankBits: 5, K: 10})
	if got := eval64(m, 0x3FFF)[0]; got != 15 {
		t.Errorf("k=10, addr 0x3fff: bank %d, want 15", got)
	}
}

// TestFixedXor_PaperExample checks the XOR hash of 002 with m=5: address 256
// maps to bank 8, 512 to bank 16, and 0..31 map to themselves.
func TestFixedXor_PaperExample(t *testing.T) {
	m := mustModel(t, &specs.Hash{Function: specs.FixedXor, AddrBits: 14, BankBits: 5})
	if got := eval64(m, 256)[0]; got != 8 {
		t.Errorf("addr 256: bank %d, want 8", got)
	}
	if got := eval64(m, 512)[0]; got != 16 {
		t.Errorf("addr 512: bank %d, want 16", got)
	}
	for a := range uint64(32) {
		if got := eval64(m, a)[0]; got != a {
			t.Errorf("addr %d: bank %d, want %d", a, got, a)
		}
	}
	// Bits above 2m do not take part: 1024 -> 0; 33 = 1^1 -> 0; 0x3FF -> 0.
	for _, c := range []struct{ addr, bank uint64 }{{1024, 0}, {33, 0}, {0x3FF, 0}, {0x3E0, 31}, {0x2B5, 0}} {
		if got := eval64(m, c.addr)[0]; got != c.bank {
			t.Errorf("addr %#x: bank %d, want %d", c.addr, got, c.bank)
		}
	}
	// 002 Fig. 6b: m=2, stride-5 diagonal 0,5,10,15 all in bank 0.
	m = mustModel(t, &specs.Hash{Function: specs.FixedXor, AddrBits: 4, BankBits: 2})
	for _, a := range []uint64{0, 5, 10, 15} {
		if got := eval64(m, a)[0]; got != 0 {
			t.Errorf("m=2 addr %d: bank %d, want 0", a, got)
		}
	}
}

// TestAdd_PaperStride5 checks 002's ADD hash with m=2 on the stride-5
// diagonal of Fig. 6c: only half of the banks are used.
func TestAdd_PaperStride5(t *testing.T) {
	for _, adder := range []specs.Adder{specs.AdderRipple, specs.AdderCLA, ""} {
		m := mustModel(t, &specs.Hash{Function: specs.Add, AddrBits: 4, BankBits: 2, Adder: adder})
		// 0: 0+0; 5 = 01|01: 1+1; 10 = 10|10: 2+2=4 -> 0; 15 = 11|11: 3+3=6 -> 2.
		want := map[uint64]uint64{0: 0, 5: 2, 10: 0, 15: 2,
			3: 3, 7: 0, 13: 0, 14: 1, 4: 1, 11: 1}
		for a, b := range want {
			if got := eval64(m, a)[0]; got != b {
				t.Errorf("adder %q addr %d: bank %d, want %d", adder, a, got, b)
			}
		}
	}
	// m=5 on 14 bits: the bits above 2m are ignored, the carry out is dropped.
	m := mustModel(t, &specs.Hash{Function: specs.Add, AddrBits: 14, BankBits: 5})
	for _, c := range []struct{ addr, bank uint64 }{
		{256, 8}, {512, 16}, {31, 31}, {0x3FF, 30}, {0x3C00, 0}, {1<<5 | 31, 0}, {20<<5 | 15, 3},
	} {
		if got := eval64(m, c.addr)[0]; got != c.bank {
			t.Errorf("m=5 addr %#x: bank %d, want %d", c.addr, got, c.bank)
		}
	}
}

// TestAddFixedXor_ShortAddress checks that when addr_bits < 2m the missing
// high half reads as zeros, whatever lies above addr_bits in the word.
func TestAddFixedXor_ShortAddress(t *testing.T) {
	add := mustModel(t, &specs.Hash{Function: specs.Add, AddrBits: 7, BankBits: 5})
	fx := mustModel(t, &specs.Hash{Function: specs.FixedXor, AddrBits: 7, BankBits: 5})
	// 0x7F: lo = 31, hi = a6 a5 = 3. add: 34 mod 32 = 2; xor: 31 ^ 3 = 28.
	for _, a := range []uint64{0x7F, 0x3FF, ^uint64(0)} {
		if got := eval64(add, a)[0]; got != 2 {
			t.Errorf("add addr %#x: bank %d, want 2", a, got)
		}
		if got := eval64(fx, a)[0]; got != 28 {
			t.Errorf("fixed_xor addr %#x: bank %d, want 28", a, got)
		}
	}
}

// TestRAP_PaperExample checks 004 §IV Fig. 6: w=4, r=(2,0,3,1); a[2][2]
// (address 10) is mapped to address 9 in bank 1.
func TestRAP_PaperExample(t *testing.T) {
	m := mustModel(t, &specs.Hash{Function: specs.RAP, AddrBits: 4, BankBits: 2, W: 4,
		Permutation: []int{2, 0, 3, 1}})
	got := eval64(m, 10)
	if got[0] != 1 || got[1] != 9 {
		t.Errorf("addr 10: bank %d addr_o %d, want bank 1 addr_o 9", got[0], got[1])
	}
	// The whole of Fig. 6, row by row: rows rotate by 2, 0, 3, 1.
	wantBank := []uint64{2, 3, 0, 1, 0, 1, 2, 3, 3, 0, 1, 2, 1, 2, 3, 0}
	wantAddr := []uint64{2, 3, 0, 1, 4, 5, 6, 7, 11, 8, 9, 10, 13, 14, 15, 12}
	for a := range uint64(16) {
		got := eval64(m, a)
		if got[0] != wantBank[a] || got[1] != wantAddr[a] {
			t.Errorf("addr %d: bank %d addr_o %d, want %d %d", a, got[0], got[1], wantBank[a], wantAddr[a])
		}
	}
	// Fig. 6 right: bank B[0] holds elements 2, 4, 9, 15.
	var inB0 []uint64
	for a := range uint64(16) {
		if eval64(m, a)[0] == 0 {
			inB0 = append(inB0, a)
		}
	}
	if !slices.Equal(inB0, []uint64{2, 4, 9, 15}) {
		t.Errorf("B[0] holds %v, want [2 4 9 15]", inB0)
	}
	// Address bits above 2L pass through: 0b11_1010 (58) -> 0b11_1001 (57).
	m = mustModel(t, &specs.Hash{Function: specs.RAP, AddrBits: 6, BankBits: 2, W: 4,
		Permutation: []int{2, 0, 3, 1}})
	if got := eval64(m, 58); got[0] != 1 || got[1] != 57 {
		t.Errorf("6-bit addr 58: bank %d addr_o %d, want 1 57", got[0], got[1])
	}
}

// perms32 returns a few permutations of 0..31: identity, reversal, a
// rotation and seeded random ones.
func perms32() [][]int {
	id := make([]int, 32)
	rev := make([]int, 32)
	rot := make([]int, 32)
	for i := range 32 {
		id[i], rev[i], rot[i] = i, 31-i, (i+7)%32
	}
	ps := [][]int{id, rev, rot}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5 {
		ps = append(ps, rng.Perm(32))
	}
	return ps
}

// cfgPermValue packs r into cfg_perm_i: field i (l bits) is r[i].
func cfgPermValue(r []int, l int) *big.Int {
	x := new(big.Int)
	for i := len(r) - 1; i >= 0; i-- {
		x.Lsh(x, uint(l))
		x.Or(x, big.NewInt(int64(r[i])))
	}
	return x
}

// TestRAP_ConflictFreeContiguousAndStride checks 004's guarantee: with w=32,
// any row (contiguous access) and any column (stride access) of the matrix
// hits 32 distinct banks, for any permutation, constant or configured.
func TestRAP_ConflictFreeContiguousAndStride(t *testing.T) {
	for _, cfg := range []bool{false, true} {
		for pi, r := range perms32() {
			h := &specs.Hash{Function: specs.RAP, AddrBits: 10, BankBits: 5, W: 32, Configurable: cfg}
			var cfgIn *big.Int
			if cfg {
				cfgIn = cfgPermValue(r, 5)
			} else {
				h.Permutation = r
			}
			m := mustModel(t, h)
			bankOf := func(i, j int) uint64 {
				a := big.NewInt(int64(i*32 + j))
				var got []*big.Int
				if cfg {
					got = eval(m, a, cfgIn)
				} else {
					got = eval(m, a)
				}
				b := got[0].Uint64()
				if want := uint64((j + r[i]) % 32); b != want {
					t.Fatalf("cfg=%v perm %d a[%d][%d]: bank %d, want %d", cfg, pi, i, j, b, want)
				}
				if want := uint64(i*32) + b; got[1].Uint64() != want {
					t.Fatalf("cfg=%v perm %d a[%d][%d]: addr_o %d, want %d", cfg, pi, i, j, got[1].Uint64(), want)
				}
				return b
			}
			for x := range 32 {
				row := map[uint64]bool{}
				col := map[uint64]bool{}
				for y := range 32 {
					row[bankOf(x, y)] = true
					col[bankOf(y, x)] = true
				}
				if len(row) != 32 || len(col) != 32 {
					t.Errorf("cfg=%v perm %d: row %d hits %d banks, column %d hits %d, want 32 and 32",
						cfg, pi, x, len(row), x, len(col))
				}
			}
		}
	}
}

// TestRAPConfigurable_PaperExample checks the configurable RAP with
// cfg_perm_i = (2,0,3,1) packed 2 bits a field: 0b01_11_00_10 = 114.
func TestRAPConfigurable_PaperExample(t *testing.T) {
	m := mustModel(t, &specs.Hash{Function: specs.RAP, AddrBits: 4, BankBits: 2, W: 4, Configurable: true})
	if got := eval64(m, 10, 114); got[0] != 1 || got[1] != 9 {
		t.Errorf("addr 10: bank %d addr_o %d, want 1 9", got[0], got[1])
	}
	// Not a permutation, used as-is: all r_i = 0 gives bank = column.
	for a := range uint64(16) {
		if got := eval64(m, a, 0); got[0] != a%4 || got[1] != a {
			t.Errorf("r=0 addr %d: bank %d addr_o %d, want %d %d", a, got[0], got[1], a%4, a)
		}
	}
	// All r_i = 3 (0xFF): bank = (j+3) mod 4; addr 6 (row 1, col 2) -> bank 1, addr 5.
	if got := eval64(m, 6, 0xFF); got[0] != 1 || got[1] != 5 {
		t.Errorf("r=3 addr 6: bank %d addr_o %d, want 1 5", got[0], got[1])
	}
	// w=32: cfg_perm_i is 160 bits; the last row (31) reads bits 155..159.
	m = mustModel(t, &specs.Hash{Function: specs.RAP, AddrBits: 10, BankBits: 5, W: 32, Configurable: true})
	cfgIn := new(big.Int).Lsh(big.NewInt(17), 155) // r_31 = 17, all others 0
	got := eval(m, big.NewInt(31*32+20), cfgIn)
	if got[0].Uint64() != 5 || got[1].Uint64() != 31*32+5 {
		t.Errorf("w=32 a[31][20] with r_31=17: bank %v addr_o %v, want 5 %d", got[0], got[1], 31*32+5)
	}
	got = eval(m, big.NewInt(30*32+20), cfgIn) // r_30 = 0
	if got[0].Uint64() != 20 || got[1].Uint64() != 30*32+20 {
		t.Errorf("w=32 a[30][20] with r_30=0: bank %v addr_o %v, want 20 %d", got[0], got[1], 30*32+20)
	}
}

// TestBitvectorXorConfigurable_MatchesConstant checks that the configurable
// bit-vector XOR configured with k1=2, k2=8, mask=7 equals the constant one
// (and the paper's equations) on all 2^14 addresses, and that every in-range
// configuration agrees with the matching constant unit.
func TestBitvectorXorConfigurable_MatchesConstant(t *testing.T) {
	cm := mustModel(t, fermiXor(true))
	want := []Port{{"addr_i", 14, false}, {"cfg_k1_i", 4, false}, {"cfg_k2_i", 4, false},
		{"cfg_mask_i", 5, false}, {"bank_o", 5, true}}
	if !slices.Equal(cm.Ports(), want) {
		t.Fatalf("ports %v, want %v", cm.Ports(), want)
	}
	cf := fastEval(cm)
	kf := fastEval(mustModel(t, fermiXor(false)))
	for a := range uint64(1 << 14) {
		got, exp := cf(a, 2, 8, 7)[0], kf(a)[0]
		if got != exp {
			t.Fatalf("addr %#x: configurable %d, constant %d", a, got, exp)
		}
	}
	if got := cf(0x3FFF, 2, 8, 7)[0]; got != 24 {
		t.Errorf("addr 0x3fff: bank %d, want 24", got)
	}
	// Other in-range configurations, on a sample of addresses.
	for k1 := range 14 {
		for k2 := range 14 {
			for _, mask := range []uint64{0, 1, 7, 21, 31} {
				kf := fastEval(mustModel(t, &specs.Hash{Function: specs.BitvectorXor, AddrBits: 14,
					BankBits: 5, K1: k1, K2: k2, Mask: mask}))
				for a := uint64(0); a < 1<<14; a += 97 {
					if got, exp := cf(a, uint64(k1), uint64(k2), mask)[0], kf(a)[0]; got != exp {
						t.Fatalf("k1=%d k2=%d mask=%d addr %#x: configurable %d, constant %d",
							k1, k2, mask, a, got, exp)
					}
				}
			}
		}
	}
	// Out of range shifts read zeros: k1 = k2 = 15 -> 0; k1 = 14 -> only the
	// masked k2 term; k1 = 12 on 0x3FFF -> a12, a13 -> 3.
	for _, c := range []struct{ addr, k1, k2, mask, bank uint64 }{
		{0x3FFF, 15, 15, 31, 0}, {0x3FFF, 14, 15, 31, 0}, {0x3FFF, 14, 0, 5, 5},
		{0x3FFF, 12, 15, 31, 3}, {0x3FFF, 12, 13, 31, 2}, {0x1234, 14, 2, 31, 0x1234 >> 2 & 31},
	} {
		if got := cf(c.addr, c.k1, c.k2, c.mask)[0]; got != c.bank {
			t.Errorf("addr %#x k1=%d k2=%d mask=%d: bank %d, want %d", c.addr, c.k1, c.k2, c.mask, got, c.bank)
		}
	}
}

// TestBitvectorPermConfigurable_MatchesConstant checks cfg_k_i against the
// constant unit for every k < addr_bits, and zero fill beyond.
func TestBitvectorPermConfigurable_MatchesConstant(t *testing.T) {
	cm := mustModel(t, &specs.Hash{Function: specs.BitvectorPerm, AddrBits: 14, BankBits: 5, Configurable: true})
	want := []Port{{"addr_i", 14, false}, {"cfg_k_i", 4, false}, {"bank_o", 5, true}}
	if !slices.Equal(cm.Ports(), want) {
		t.Fatalf("ports %v, want %v", cm.Ports(), want)
	}
	cf := fastEval(cm)
	for k := range 14 {
		kf := fastEval(mustModel(t, &specs.Hash{Function: specs.BitvectorPerm, AddrBits: 14, BankBits: 5, K: k}))
		for a := range uint64(1 << 14) {
			if got, exp := cf(a, uint64(k))[0], kf(a)[0]; got != exp {
				t.Fatalf("k=%d addr %#x: configurable %d, constant %d", k, a, got, exp)
			}
		}
	}
	for _, c := range []struct{ addr, k, bank uint64 }{
		{0x3FFF, 14, 0}, {0x3FFF, 15, 0}, {0x3FFF, 10, 15}, {0x3FFF, 13, 1}, {0x2A, 1, 21},
	} {
		if got := cf(c.addr, c.k)[0]; got != c.bank {
			t.Errorf("addr %#x k=%d: bank %d, want %d", c.addr, c.k, got, c.bank)
		}
	}
}

// selValue packs selections, s bits a field, field 0 lowest.
func selValue(sel []int, s int) *big.Int {
	x := new(big.Int)
	for b := len(sel) - 1; b >= 0; b-- {
		x.Lsh(x, uint(s))
		x.Or(x, big.NewInt(int64(sel[b])))
	}
	return x
}

// TestBitwisePerm_Constant checks bank bit b = addr bit Bits[b][0].
func TestBitwisePerm_Constant(t *testing.T) {
	m := mustModel(t, &specs.Hash{Function: specs.BitwisePerm, AddrBits: 14, BankBits: 5,
		Bits: [][]int{{13}, {0}, {7}, {2}, {2}}})
	for _, c := range []struct{ addr, bank uint64 }{
		{0, 0}, {1 << 13, 1}, {1, 2}, {1 << 7, 4}, {1 << 2, 24}, {0x3FFF, 31}, {0x3FFF &^ (1 << 7), 27},
	} {
		if got := eval64(m, c.addr)[0]; got != c.bank {
			t.Errorf("addr %#x: bank %d, want %d", c.addr, got, c.bank)
		}
	}
}

// TestBitwisePermConfigurable_MatchesConstant checks cfg_sel_i: in-range
// selections agree with the constant unit, out-of-range ones read 0, and
// fields that straddle a 64-bit word boundary are read whole.
func TestBitwisePermConfigurable_MatchesConstant(t *testing.T) {
	cm := mustModel(t, &specs.Hash{Function: specs.BitwisePerm, AddrBits: 14, BankBits: 5, Configurable: true})
	want := []Port{{"addr_i", 14, false}, {"cfg_sel_i", 20, false}, {"bank_o", 5, true}}
	if !slices.Equal(cm.Ports(), want) {
		t.Fatalf("ports %v, want %v", cm.Ports(), want)
	}
	sels := [][]int{{2, 3, 4, 5, 6}, {13, 0, 7, 2, 2}, {0, 1, 2, 3, 4}, {9, 11, 13, 8, 1}}
	for _, sel := range sels {
		bits := make([][]int, len(sel))
		for b, s := range sel {
			bits[b] = []int{s}
		}
		kf := fastEval(mustModel(t, &specs.Hash{Function: specs.BitwisePerm, AddrBits: 14, BankBits: 5, Bits: bits}))
		cf := fastEval(cm)
		cfg := selValue(sel, 4).Uint64()
		for a := range uint64(1 << 14) {
			if got, exp := cf(a, cfg)[0], kf(a)[0]; got != exp {
				t.Fatalf("sel %v addr %#x: configurable %d, constant %d", sel, a, got, exp)
			}
		}
	}
	// sel (2..6) packed: 0x65432 equals bitvector_perm k=2: 0x7C -> 31.
	if got := eval64(cm, 0x7C, 0x65432)[0]; got != 31 {
		t.Errorf("sel 2..6 addr 0x7c: bank %d, want 31", got)
	}
	// Out of range (14, 15) reads 0.
	if got := eval64(cm, 0x3FFF, 0xFFFFF)[0]; got != 0 {
		t.Errorf("sel all 15: bank %d, want 0", got)
	}
	if got := eval64(cm, 0x3FFF, selValue([]int{14, 0, 15, 13, 14}, 4).Uint64())[0]; got != 0b01010 {
		t.Errorf("sel (14,0,15,13,14): bank %d, want %d", got, 0b01010)
	}

	// 64-bit address, 16 bank bits: S=6, cfg_sel_i is 96 bits and field 10
	// (bits 60..65) straddles words 0 and 1.
	wm := mustModel(t, &specs.Hash{Function: specs.BitwisePerm, AddrBits: 64, BankBits: 16, Configurable: true})
	want = []Port{{"addr_i", 64, false}, {"cfg_sel_i", 96, false}, {"bank_o", 16, true}}
	if !slices.Equal(wm.Ports(), want) {
		t.Fatalf("wide ports %v, want %v", wm.Ports(), want)
	}
	rev := make([]int, 16)
	for b := range rev {
		rev[b] = 63 - b
	}
	cfg := selValue(rev, 6)
	for _, c := range []struct{ addr, bank uint64 }{
		{1 << 63, 1}, {1 << 53, 1 << 10}, {1 << 48, 1 << 15}, {1 << 47, 0}, {^uint64(0), 0xFFFF},
		{0xA5A5 << 48, 0xA5A5}, // 0xA5A5 reversed bitwise is 0xA5A5
		{0x8001 << 48, 0x8001}, {0xF000 << 48, 0x000F},
	} {
		got := eval(wm, new(big.Int).SetUint64(c.addr), cfg)[0].Uint64()
		if got != c.bank {
			t.Errorf("reversed sel addr %#x: bank %#x, want %#x", c.addr, got, c.bank)
		}
	}
}

// TestBitwiseXor_Constant checks bank bit b = XOR of the listed bits, one
// element meaning that bit alone.
func TestBitwiseXor_Constant(t *testing.T) {
	m := mustModel(t, &specs.Hash{Function: specs.BitwiseXor, AddrBits: 14, BankBits: 3,
		Bits: [][]int{{0, 5}, {3}, {13, 1}}})
	for _, c := range []struct{ addr, bank uint64 }{
		{0, 0}, {1, 1}, {1 << 5, 1}, {1 | 1<<5, 0}, {1 << 3, 2}, {1 << 13, 4}, {1 << 1, 4},
		{1<<13 | 1<<1, 0}, {0x3FFF, 2}, {1<<13 | 1<<3 | 1<<5, 7},
	} {
		if got := eval64(m, c.addr)[0]; got != c.bank {
			t.Errorf("addr %#x: bank %d, want %d", c.addr, got, c.bank)
		}
	}
}

// TestBitwiseXorConfigurable_MatchesConstant checks cfg_sel_a_i/cfg_sel_b_i:
// distinct selections XOR, equal ones give the bit, out-of-range ones read 0.
func TestBitwiseXorConfigurable_MatchesConstant(t *testing.T) {
	cm := mustModel(t, &specs.Hash{Function: specs.BitwiseXor, AddrBits: 14, BankBits: 3, Configurable: true})
	want := []Port{{"addr_i", 14, false}, {"cfg_sel_a_i", 12, false}, {"cfg_sel_b_i", 12, false}, {"bank_o", 3, true}}
	if !slices.Equal(cm.Ports(), want) {
		t.Fatalf("ports %v, want %v", cm.Ports(), want)
	}
	cf := fastEval(cm)
	kf := fastEval(mustModel(t, &specs.Hash{Function: specs.BitwiseXor, AddrBits: 14, BankBits: 3,
		Bits: [][]int{{0, 5}, {3}, {13, 1}}}))
	// [3] is configured as sel_a = sel_b = 3.
	selA := selValue([]int{0, 3, 13}, 4).Uint64()
	selB := selValue([]int{5, 3, 1}, 4).Uint64()
	for a := range uint64(1 << 14) {
		if got, exp := cf(a, selA, selB)[0], kf(a)[0]; got != exp {
			t.Fatalf("addr %#x: configurable %d, constant %d", a, got, exp)
		}
	}
	// Out of range: (15, 3) -> a3; (14, 15) -> 0; (3, 14) -> a3.
	selA = selValue([]int{15, 14, 3}, 4).Uint64()
	selB = selValue([]int{3, 15, 14}, 4).Uint64()
	for _, c := range []struct{ addr, bank uint64 }{{0x3FFF, 5}, {1 << 3, 5}, {0x3FF7, 0}} {
		if got := cf(c.addr, selA, selB)[0]; got != c.bank {
			t.Errorf("out-of-range sel addr %#x: bank %d, want %d", c.addr, got, c.bank)
		}
	}
	// Equal out-of-range selections (15, 15) read 0.
	if got := cf(0x3FFF, 0xFFF, 0xFFF)[0]; got != 0 {
		t.Errorf("sel 15/15: bank %d, want 0", got)
	}
}

// TestXorMatrix_Constant checks arbitrary XOR rows: empty rows give 0 and a
// bit listed twice cancels; bits at or above addr_bits read 0.
func TestXorMatrix_Constant(t *testing.T) {
	m := mustModel(t, &specs.Hash{Function: specs.XorMatrix, AddrBits: 8, BankBits: 4,
		Bits: [][]int{{0, 1, 2, 3}, {}, {4, 4}, {7, 6, 5, 4, 9}}})
	for _, c := range []struct{ addr, bank uint64 }{
		{0, 0}, {1, 1}, {3, 0}, {7, 1}, {0x0F, 0}, {0x10, 8}, {0x30, 0}, {0xF0, 0}, {0x80, 8}, {0xFF, 0}, {0x8E, 9},
	} {
		if got := eval64(m, c.addr)[0]; got != c.bank {
			t.Errorf("addr %#x: bank %d, want %d", c.addr, got, c.bank)
		}
	}
	// A full 64-term row: parity of a 64-bit address.
	all := make([]int, 64)
	for i := range all {
		all[i] = i
	}
	m = mustModel(t, &specs.Hash{Function: specs.XorMatrix, AddrBits: 64, BankBits: 1, Bits: [][]int{all}})
	for _, c := range []struct{ addr, bank uint64 }{{0, 0}, {1 << 63, 1}, {^uint64(0), 0}, {0x8000000000000001, 0}, {0x7, 1}} {
		if got := eval64(m, c.addr)[0]; got != c.bank {
			t.Errorf("parity addr %#x: bank %d, want %d", c.addr, got, c.bank)
		}
	}
}

// TestXorMatrix_MatchesBitLoop checks wide rows (64-bit address, up to 64
// terms with repeats and out-of-range bits) against a plain bit-by-bit XOR.
func TestXorMatrix_MatchesBitLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, addrBits := range []int{5, 63, 64} {
		rows := make([][]int, 16)
		for b := range rows {
			for range rng.IntN(65) {
				rows[b] = append(rows[b], rng.IntN(addrBits+3))
			}
		}
		rows[0] = nil
		rows[1] = []int{addrBits - 1, addrBits - 1, addrBits - 1}
		m := mustModel(t, &specs.Hash{Function: specs.XorMatrix, AddrBits: addrBits, BankBits: 16, Bits: rows})
		f := fastEval(m)
		for range 2000 {
			a := rng.Uint64() & (^uint64(0) >> (64 - addrBits))
			var want uint64
			for b, row := range rows {
				var x uint64
				for _, i := range row {
					if i < addrBits {
						x ^= bit(a, i)
					}
				}
				want |= x << b
			}
			if got := f(a)[0]; got != want {
				t.Fatalf("addr_bits %d addr %#x: bank %#x, want %#x", addrBits, a, got, want)
			}
			if got := f(a)[0] >> 1 & 1; got != bit(a, addrBits-1) {
				t.Fatalf("addr_bits %d addr %#x: bank bit 1 = %d, want a[%d] = %d", addrBits, a, got, addrBits-1, bit(a, addrBits-1))
			}
		}
	}
}

// TestPorts_Order checks the documented port order and widths of every
// unit kind.
func TestPorts_Order(t *testing.T) {
	const A, M = 14, 5 // S = 4
	in := func(n string, w int) Port { return Port{Name: n, Width: w} }
	outp := func(n string, w int) Port { return Port{Name: n, Width: w, Output: true} }
	cases := []struct {
		h    specs.Hash
		want []Port
	}{
		{specs.Hash{Function: specs.BitvectorPerm, K: 1}, []Port{in("addr_i", A), outp("bank_o", M)}},
		{specs.Hash{Function: specs.BitvectorPerm, Configurable: true}, []Port{in("addr_i", A), in("cfg_k_i", 4), outp("bank_o", M)}},
		{specs.Hash{Function: specs.BitvectorXor}, []Port{in("addr_i", A), outp("bank_o", M)}},
		{specs.Hash{Function: specs.BitvectorXor, Configurable: true}, []Port{in("addr_i", A), in("cfg_k1_i", 4),
			in("cfg_k2_i", 4), in("cfg_mask_i", M), outp("bank_o", M)}},
		{specs.Hash{Function: specs.BitwisePerm, Bits: [][]int{{0}, {1}, {2}, {3}, {4}}}, []Port{in("addr_i", A), outp("bank_o", M)}},
		{specs.Hash{Function: specs.BitwisePerm, Configurable: true}, []Port{in("addr_i", A), in("cfg_sel_i", 20), outp("bank_o", M)}},
		{specs.Hash{Function: specs.BitwiseXor, Bits: [][]int{{0, 1}, {1}, {2}, {3}, {4}}}, []Port{in("addr_i", A), outp("bank_o", M)}},
		{specs.Hash{Function: specs.BitwiseXor, Configurable: true}, []Port{in("addr_i", A), in("cfg_sel_a_i", 20),
			in("cfg_sel_b_i", 20), outp("bank_o", M)}},
		{specs.Hash{Function: specs.XorMatrix, Bits: [][]int{{}, {}, {}, {}, {}}}, []Port{in("addr_i", A), outp("bank_o", M)}},
		{specs.Hash{Function: specs.FixedXor}, []Port{in("addr_i", A), outp("bank_o", M)}},
		{specs.Hash{Function: specs.Add, Adder: specs.AdderCLA}, []Port{in("addr_i", A), outp("bank_o", M)}},
		{specs.Hash{Function: specs.RAP, W: 32, Permutation: perms32()[0]}, []Port{in("addr_i", A), outp("bank_o", 5), outp("addr_o", A)}},
		{specs.Hash{Function: specs.RAP, W: 32, Configurable: true}, []Port{in("addr_i", A), in("cfg_perm_i", 160),
			outp("bank_o", 5), outp("addr_o", A)}},
	}
	for _, c := range cases {
		h := c.h
		h.Name, h.AddrBits, h.BankBits = string(h.Function), A, M
		m := mustModel(t, &h)
		if got := m.Ports(); !slices.Equal(got, c.want) {
			t.Errorf("%s configurable=%v: ports %v, want %v", h.Function, h.Configurable, got, c.want)
		}
	}
	// S = clog2(addr_bits), at least 1.
	for _, c := range []struct{ addrBits, s int }{{1, 1}, {2, 1}, {3, 2}, {4, 2}, {5, 3}, {16, 4}, {17, 5}, {32, 5}, {33, 6}, {64, 6}} {
		m := mustModel(t, &specs.Hash{Function: specs.BitvectorPerm, AddrBits: c.addrBits, BankBits: 1, Configurable: true})
		if got := m.Ports()[1]; got != in("cfg_k_i", c.s) {
			t.Errorf("addr_bits %d: %v, want cfg_k_i of width %d", c.addrBits, got, c.s)
		}
	}
}

// otherUnit is a unit kind the models do not know.
type otherUnit struct{ specs.Hash }

func (otherUnit) UnitKind() string { return "lock" }

// TestForUnit_Errors checks that unmodelled and inconsistent units are
// refused with a message naming the problem.
func TestForUnit_Errors(t *testing.T) {
	cases := []struct {
		u    specs.Unit
		want string
	}{
		{nil, "nil unit"},
		{(*specs.Hash)(nil), "nil hash"},
		{&otherUnit{specs.Hash{Name: "l"}}, `kind "lock" is not modelled`},
		{&specs.Hash{Function: "crc", AddrBits: 8, BankBits: 2}, "unknown hash function"},
		{&specs.Hash{Function: specs.XorMatrix, AddrBits: 8, BankBits: 2, Configurable: true}, "no configurable form"},
		{&specs.Hash{Function: specs.FixedXor, AddrBits: 8, BankBits: 2, Configurable: true}, "no configurable form"},
		{&specs.Hash{Function: specs.Add, AddrBits: 8, BankBits: 2, Configurable: true}, "no configurable form"},
		{&specs.Hash{Function: specs.FixedXor, AddrBits: 0, BankBits: 2}, "addr_bits"},
		{&specs.Hash{Function: specs.FixedXor, AddrBits: 8, BankBits: 0}, "bank_bits"},
		{&specs.Hash{Function: specs.BitvectorPerm, AddrBits: 8, BankBits: 2, K: -1}, "k = -1"},
		{&specs.Hash{Function: specs.BitwisePerm, AddrBits: 8, BankBits: 2, Bits: [][]int{{1}}}, "1 entries"},
		{&specs.Hash{Function: specs.BitwisePerm, AddrBits: 8, BankBits: 2, Bits: [][]int{{1}, {}}}, "bits[1] has 0 elements"},
		{&specs.Hash{Function: specs.BitwiseXor, AddrBits: 8, BankBits: 1, Bits: [][]int{{1, 2, 3}}}, "bits[0] has 3 elements"},
		{&specs.Hash{Function: specs.BitwiseXor, AddrBits: 8, BankBits: 1, Bits: [][]int{{2, 2}}}, "twice"},
		{&specs.Hash{Function: specs.XorMatrix, AddrBits: 8, BankBits: 1, Bits: [][]int{{-1}}}, "address bit -1"},
		{&specs.Hash{Function: specs.RAP, AddrBits: 8, BankBits: 2, W: 6, Permutation: []int{0, 1, 2, 3, 4, 5}}, "power of two"},
		{&specs.Hash{Function: specs.RAP, AddrBits: 8, BankBits: 3, W: 4, Permutation: []int{0, 1, 2, 3}}, "log2(w) = 2"},
		{&specs.Hash{Function: specs.RAP, AddrBits: 8, BankBits: 2, W: 4, Permutation: []int{0, 1, 2}}, "3 entries"},
		{&specs.Hash{Function: specs.RAP, AddrBits: 8, BankBits: 2, W: 4, Permutation: []int{0, 1, 2, 4}}, "permutation[3] = 4"},
	}
	for _, c := range cases {
		_, err := forUnit(c.u)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("forUnit(%#v): error %v, want one containing %q", c.u, err, c.want)
		}
	}
}

// allModels returns one model of every kind, with a sample input for each.
func allModels(t testing.TB) map[string]Model {
	bits5 := [][]int{{0, 9}, {1}, {12, 2}, {3, 4}, {13}}
	hs := []*specs.Hash{
		{Function: specs.BitvectorPerm, K: 3},
		{Function: specs.BitvectorPerm, Configurable: true},
		fermiXor(false), fermiXor(true),
		{Function: specs.BitwisePerm, Bits: [][]int{{0}, {9}, {12}, {3}, {13}}},
		{Function: specs.BitwisePerm, Configurable: true},
		{Function: specs.BitwiseXor, Bits: bits5},
		{Function: specs.BitwiseXor, Configurable: true},
		{Function: specs.XorMatrix, Bits: bits5},
		{Function: specs.FixedXor},
		{Function: specs.Add},
	}
	ms := map[string]Model{}
	for _, h := range hs {
		h.AddrBits, h.BankBits = 14, 5
		ms[string(h.Function)+map[bool]string{true: "_cfg"}[h.Configurable]] = mustModel(t, h)
	}
	ms["rap"] = mustModel(t, &specs.Hash{Function: specs.RAP, AddrBits: 14, BankBits: 5, W: 32, Permutation: perms32()[4]})
	ms["rap_cfg"] = mustModel(t, &specs.Hash{Function: specs.RAP, AddrBits: 14, BankBits: 5, W: 32, Configurable: true})
	return ms
}

// TestEval_OverwritesOutputsAndIgnoresHighBits checks that Eval clears
// stale output bits and ignores input bits above each port's width.
func TestEval_OverwritesOutputsAndIgnoresHighBits(t *testing.T) {
	for name, m := range allModels(t) {
		in, out := newPorts(m)
		in[0][0] = 0x1234
		for k := 1; k < len(in); k++ {
			for w := range in[k] {
				in[k][w] = 0x0123456789ABCDEF
			}
		}
		m.Eval(in, out)
		want := make([][]uint64, len(out))
		for k := range out {
			want[k] = slices.Clone(out[k])
			for w := range out[k] {
				out[k][w] = ^uint64(0)
			}
		}
		// Set every input bit above the port width: the result must not move.
		nIn := 0
		for _, p := range m.Ports() {
			if p.Output {
				continue
			}
			v := in[nIn]
			for i := p.Width; i < 64*len(v); i++ {
				v[i/64] |= 1 << (i % 64)
			}
			nIn++
		}
		m.Eval(in, out)
		for k := range out {
			if !slices.Equal(out[k], want[k]) {
				t.Errorf("%s: output %d = %#x after stale fill and high input bits, want %#x", name, k, out[k], want[k])
			}
		}
	}
	// A concrete case: fixed_xor m=5 on 0x1234 = 0b1_0010_0011_0100:
	// addr[4:0] = 0b10100, addr[9:5] = 0b10001 -> 0b00101 = 5.
	m := mustModel(t, &specs.Hash{Function: specs.FixedXor, AddrBits: 14, BankBits: 5})
	in, out := newPorts(m)
	in[0][0] = 0x1234 | 1<<20 | 1<<63
	out[0][0] = ^uint64(0)
	m.Eval(in, out)
	if out[0][0] != 5 {
		t.Errorf("fixed_xor 0x1234 with high junk: bank %#x, want 5", out[0][0])
	}
}

// TestEval_NoAllocs checks that Eval does not allocate.
func TestEval_NoAllocs(t *testing.T) {
	for name, m := range allModels(t) {
		in, out := newPorts(m)
		a := uint64(0)
		if n := testing.AllocsPerRun(100, func() {
			in[0][0] = a
			a += 77
			m.Eval(in, out)
		}); n != 0 {
			t.Errorf("%s: %v allocations per Eval, want 0", name, n)
		}
	}
}

func BenchmarkEval(b *testing.B) {
	for name, m := range allModels(b) {
		b.Run(name, func(b *testing.B) {
			in, out := newPorts(m)
			for k := 1; k < len(in); k++ {
				for w := range in[k] {
					in[k][w] = 0x0123456789ABCDEF
				}
			}
			for i := 0; b.Loop(); i++ {
				in[0][0] = uint64(i) & 0x3FFF
				m.Eval(in, out)
			}
		})
	}
}
