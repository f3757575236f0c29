package model

import (
	"math/big"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/lsugen/lsugen/specs"
)

func evalHash(t *testing.T, m Model, addr uint64) [][]uint64 {
	t.Helper()
	var in, out [][]uint64
	for _, p := range m.Ports() {
		v := make([]uint64, (p.Width+63)/64)
		if p.Output {
			out = append(out, v)
		} else {
			in = append(in, v)
		}
	}
	in[0][0] = addr
	m.Eval(in, out)
	return out
}

// TestIPoly_HandResidues: x^5 + x^2 + 1 over 14 address bits, with
// residues worked by hand: x^5 = x^2 + 1, x^6 = x^3 + x, x^7 = x^4 + x^2,
// x^8 = x^5 + x^3 = x^3 + x^2 + 1, and low bits passing unchanged.
func TestIPoly_HandResidues(t *testing.T) {
	m, err := ForHash(&specs.Hash{Name: "ip", Function: specs.IPoly, AddrBits: 14, BankBits: 5, Polynomial: []int{5, 2, 0}})
	if err != nil {
		t.Fatal(err)
	}
	for addr, want := range map[uint64]uint64{
		0: 0, 1: 1, 0b10110: 0b10110, 1 << 5: 0b00101, 1 << 6: 0b01010, 1 << 7: 0b10100,
		1 << 8: 0b01101, 1<<5 | 0b00101: 0, 1<<8 | 1<<5: 0b01000,
	} {
		if got := evalHash(t, m, addr)[0][0]; got != want {
			t.Errorf("address %#b: bank %#b, want %#b", addr, got, want)
		}
	}
}

// TestIPoly_MatchesResidueSum checks the long division against the
// definition read the other way: bank = XOR over the address's set bits i
// of x^i mod P(x), the residues stepped by multiplying by x. Every address
// up to 2^12 and random 64-bit ones, for polynomials of degree 1 to 16.
func TestIPoly_MatchesResidueSum(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 2))
	polys := [][]int{{1, 0}, {2, 1, 0}, {3, 1, 0}, {4, 1, 0}, {4, 3, 2, 1, 0}, {5, 2, 0}, {6, 1, 0}, {8, 4, 3, 1, 0}, {16, 5, 3, 1, 0}, {4, 0}}
	for _, exps := range polys {
		deg := exps[0]
		var p uint64
		for _, e := range exps {
			p |= 1 << e
		}
		residues := make([]uint64, 64)
		x := uint64(1)
		for i := range residues {
			residues[i] = x
			x <<= 1
			if x>>deg&1 != 0 {
				x ^= p
			}
		}
		for _, addrBits := range []int{max(deg, 12), 64} {
			m, err := ForHash(&specs.Hash{Name: "ip", Function: specs.IPoly, AddrBits: addrBits, BankBits: deg, Polynomial: exps})
			if err != nil {
				t.Fatal(err)
			}
			check := func(addr uint64) {
				var want uint64
				for a := addr; a != 0; a &= a - 1 {
					want ^= residues[bits.TrailingZeros64(a)]
				}
				if got := evalHash(t, m, addr)[0][0]; got != want {
					t.Fatalf("P = %v, %d bits: address %#x gives %#x, want %#x", exps, addrBits, addr, got, want)
				}
			}
			if addrBits <= 16 {
				for a := range uint64(1) << addrBits {
					check(a)
				}
				continue
			}
			for range 2000 {
				check(r.Uint64())
			}
		}
	}
}

// TestMod_MatchesBigIntReference: every bank count 2..1024 at 11, 16, 33
// and 64 address bits, on the corners (0, all ones, multiples of banks and
// their neighbours near the top) and random addresses, against math/big's
// QuoRem; the index port is exactly as wide as the largest quotient.
func TestMod_MatchesBigIntReference(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 17))
	for _, addrBits := range []int{11, 16, 33, 64} {
		top := ^uint64(0) >> (64 - addrBits)
		for banks := 2; banks <= 1024; banks++ {
			m, err := ForHash(&specs.Hash{Name: "md", Function: specs.Mod, AddrBits: addrBits, Banks: banks, BankBits: bits.Len(uint(banks - 1))})
			if err != nil {
				t.Fatal(err)
			}
			ports := m.Ports()
			if len(ports) != 3 || ports[1].Name != "bank_o" || ports[1].Width != bits.Len(uint(banks-1)) || ports[2].Name != "index_o" {
				t.Fatalf("%d banks: ports %+v", banks, ports)
			}
			maxQuo := new(big.Int).Quo(new(big.Int).SetUint64(top), big.NewInt(int64(banks)))
			if want := max(1, maxQuo.BitLen()); ports[2].Width != want {
				t.Fatalf("%d banks, %d bits: index_o has %d bits, want %d", banks, addrBits, ports[2].Width, want)
			}
			k := top / uint64(banks) * uint64(banks)
			addrs := []uint64{0, 1, top, top - 1, k, k - 1, uint64(banks), uint64(banks) - 1, uint64(banks) + 1}
			if k+1 <= top {
				addrs = append(addrs, k+1)
			}
			for range 24 {
				addrs = append(addrs, r.Uint64()&top)
			}
			for _, a := range addrs {
				out := evalHash(t, m, a)
				quo, rem := new(big.Int).QuoRem(new(big.Int).SetUint64(a), big.NewInt(int64(banks)), new(big.Int))
				if out[0][0] != rem.Uint64() || out[1][0] != quo.Uint64() {
					t.Fatalf("%d banks, %d bits: address %d gives bank %d index %d, want %s and %s", banks, addrBits, a, out[0][0], out[1][0], rem, quo)
				}
			}
		}
	}
}

// TestIPolyMod_RefusesBadUnits: what the loader never produces is refused,
// not modelled wrongly.
func TestIPolyMod_RefusesBadUnits(t *testing.T) {
	for name, h := range map[string]specs.Hash{
		"ipoly without constant term": {Function: specs.IPoly, AddrBits: 8, BankBits: 3, Polynomial: []int{3, 1}},
		"ipoly bank_bits not degree":  {Function: specs.IPoly, AddrBits: 8, BankBits: 4, Polynomial: []int{3, 1, 0}},
		"ipoly repeated exponent":     {Function: specs.IPoly, AddrBits: 8, BankBits: 3, Polynomial: []int{3, 3, 0}},
		"ipoly no polynomial":         {Function: specs.IPoly, AddrBits: 8, BankBits: 3},
		"ipoly configurable":          {Function: specs.IPoly, AddrBits: 8, BankBits: 3, Polynomial: []int{3, 1, 0}, Configurable: true},
		"mod one bank":                {Function: specs.Mod, AddrBits: 8, BankBits: 0, Banks: 1},
		"mod more banks than words":   {Function: specs.Mod, AddrBits: 3, BankBits: 4, Banks: 9},
		"mod bank_bits not clog2":     {Function: specs.Mod, AddrBits: 8, BankBits: 3, Banks: 9},
		"mod addr_bits over 64":       {Function: specs.Mod, AddrBits: 65, BankBits: 2, Banks: 3},
	} {
		h.Name = "x"
		if _, err := ForHash(&h); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
