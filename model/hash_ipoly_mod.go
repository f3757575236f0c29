package model

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/lsugen/lsugen/specs"
)

// The ipoly and mod hashes, from their definitions: ipoly divides the
// address polynomial by P(x) over GF(2) (it never reads the XOR matrix
// the loader derives for the generator), mod uses Go's % and /.
//
//	function  inputs       outputs
//	ipoly     addr_i[A]    bank_o[d]              d = degree of P
//	mod       addr_i[A]    bank_o[B] index_o[I]   B = clog2(banks),
//	                                              I = max(1, bits of (2^A-1)/banks)

// ---------------------------------------------------------------------------
// ipoly

type ipoly struct {
	addrBits int
	deg      int
	poly     uint64 // bit e is the coefficient of x^e
	ports    []Port
}

func newIPoly(h *specs.Hash) (Model, error) {
	if h.Configurable {
		return nil, errors.New("ipoly has no configurable form")
	}
	if h.AddrBits > 64 {
		return nil, fmt.Errorf("addr_bits = %d, want at most 64", h.AddrBits)
	}
	if len(h.Polynomial) == 0 {
		return nil, errors.New("no polynomial")
	}
	var poly uint64
	for _, e := range h.Polynomial {
		if e < 0 || e > 63 {
			return nil, fmt.Errorf("polynomial exponent %d, want 0..63", e)
		}
		if poly>>e&1 != 0 {
			return nil, fmt.Errorf("polynomial lists x^%d twice", e)
		}
		poly |= 1 << e
	}
	deg := bits.Len64(poly) - 1
	if deg < 1 || poly&1 == 0 {
		return nil, fmt.Errorf("polynomial %v: want degree >= 1 and a constant term", h.Polynomial)
	}
	if h.BankBits != deg {
		return nil, fmt.Errorf("bank_bits = %d, want the degree of the polynomial, %d", h.BankBits, deg)
	}
	return &ipoly{addrBits: h.AddrBits, deg: deg, poly: poly, ports: []Port{
		{Name: "addr_i", Width: h.AddrBits},
		{Name: "bank_o", Width: deg, Output: true},
	}}, nil
}

func (h *ipoly) Ports() []Port { return h.ports }

// Eval is schoolbook long division, highest address bit first: shift the
// next coefficient into the remainder and subtract (XOR) P whenever the
// remainder reaches degree d.
func (h *ipoly) Eval(in, out [][]uint64) {
	checkLens(h.ports, in, out)
	var rem uint64
	for i := h.addrBits - 1; i >= 0; i-- {
		rem = rem<<1 | bitAt(in[0], h.addrBits, i)
		if rem>>h.deg&1 != 0 {
			rem ^= h.poly
		}
	}
	putField(out[0], h.deg, rem)
}

// ---------------------------------------------------------------------------
// mod

type mod struct {
	addrBits, banks     int
	bankBits, indexBits int
	ports               []Port
}

// ModIndexBits is the width of a mod hash's index_o over addrBits address
// bits: enough for the largest quotient (2^addrBits - 1) / banks, at least 1.
func ModIndexBits(addrBits, banks int) int {
	top := ^uint64(0)
	if addrBits < 64 {
		top = 1<<addrBits - 1
	}
	return max(1, bits.Len64(top/uint64(banks)))
}

func newMod(h *specs.Hash) (Model, error) {
	if h.Configurable {
		return nil, errors.New("mod has no configurable form")
	}
	if h.AddrBits > 64 {
		return nil, fmt.Errorf("addr_bits = %d, want at most 64", h.AddrBits)
	}
	if h.Banks < 2 || (h.AddrBits < 63 && h.Banks > 1<<h.AddrBits) {
		return nil, fmt.Errorf("banks = %d, want 2..2^addr_bits", h.Banks)
	}
	bankBits := bits.Len64(uint64(h.Banks - 1))
	if h.BankBits != bankBits {
		return nil, fmt.Errorf("bank_bits = %d, want clog2(banks) = %d", h.BankBits, bankBits)
	}
	m := &mod{addrBits: h.AddrBits, banks: h.Banks, bankBits: bankBits, indexBits: ModIndexBits(h.AddrBits, h.Banks)}
	m.ports = []Port{
		{Name: "addr_i", Width: h.AddrBits},
		{Name: "bank_o", Width: m.bankBits, Output: true},
		{Name: "index_o", Width: m.indexBits, Output: true},
	}
	return m, nil
}

func (h *mod) Ports() []Port { return h.ports }

func (h *mod) Eval(in, out [][]uint64) {
	checkLens(h.ports, in, out)
	addr := fieldAt(in[0], h.addrBits, 0, h.addrBits)
	putField(out[0], h.bankBits, addr%uint64(h.banks))
	putField(out[1], h.indexBits, addr/uint64(h.banks))
}
