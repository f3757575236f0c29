package specs

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
)

// MaxModBanks is the largest bank count of a mod hash.
const MaxModBanks = 1024

// decodeAddrBits decodes the required addr_bits of ipoly and mod, which
// take no bank_bits. It reports whether addr_bits is valid.
func (hd *blockDecoder) decodeAddrBits(h *Hash) bool {
	addr, ok := hd.requiredInt("addr_bits", "")
	if ok && (addr < 1 || addr > MaxAddrBits) {
		hd.errorf(hd.rng("addr_bits"), "Invalid addr_bits", "addr_bits must be between 1 and %d; got %d.", MaxAddrBits, addr)
		return false
	}
	if ok {
		h.AddrBits = int(addr)
	}
	return ok
}

// decodeIPoly decodes an ipoly unit: addr_bits and the polynomial, from
// which it derives BankBits (the degree) and Bits, the equivalent XOR
// matrix: bank bit b is the XOR of the address bits i whose residue
// x^i mod P(x) has bit b set.
func (hd *blockDecoder) decodeIPoly(h *Hash) {
	addrOK := hd.decodeAddrBits(h)
	v, ok := hd.requiredValue("polynomial", " for ipoly")
	if !ok {
		return
	}
	rng := hd.rng("polynomial")
	elems, ok := hd.list(v, rng, "polynomial", MaxBankBits+1)
	if !ok {
		return
	}
	if len(elems) == 0 {
		hd.errorf(rng, "Invalid polynomial",
			"polynomial lists no exponents; give the exponents of P(x), e.g. [5, 2, 0] for x^5 + x^2 + 1.")
		return
	}
	start := hd.nerr
	exprs := elemExprs(hd.attrs["polynomial"].Expr, len(elems))
	at := map[int]int{} // exponent -> the element that wrote it
	var exps []int
	for i, ev := range elems {
		what := fmt.Sprintf("polynomial[%d]", i)
		e, ok := hd.toInt(ev, exprs[i].Range(), what)
		switch {
		case !ok:
		case e < 0 || e > MaxBankBits:
			hd.errorf(exprs[i].Range(), "Invalid exponent",
				"%s is %d, but exponents run from 0 to %d: the degree of P(x) is the bank-index width, at most %d bits.",
				what, e, MaxBankBits, MaxBankBits)
		default:
			if j, dup := at[int(e)]; dup {
				hd.errorf(exprs[i].Range(), "Repeated exponent",
					"x^%d appears twice (polynomial[%d] and polynomial[%d]); over GF(2) the two terms cancel, so list each exponent once.",
					e, j, i)
				continue
			}
			at[int(e)] = i
			exps = append(exps, int(e))
		}
	}
	if hd.nerr != start {
		return
	}
	slices.Sort(exps)
	slices.Reverse(exps)
	poly := polyBits(exps)
	deg := exps[0]
	switch {
	case deg == 0:
		hd.errorf(rng, "Invalid polynomial",
			"P(x) = 1 has degree 0, which leaves no bank bits; the degree of P(x) is the bank-index width, 1 to %d.", MaxBankBits)
		return
	case exps[len(exps)-1] != 0:
		// x | P makes every residue of x^i, i >= deg, a multiple of x.
		hd.errorf(rng, "Missing constant term",
			"P(x) = %s has no constant term, so x divides P(x): every address bit at or above bit %d then leaves a residue that is a multiple of x, bank bit 0 is always address bit 0, and every even stride uses only half the banks. Add the exponent 0.",
			polyString(poly), deg)
		return
	case addrOK && deg > h.AddrBits:
		hd.errorf(rng, "Degree above addr_bits",
			"P(x) = %s has degree %d, so the bank index would have %d bits, more than the %d address bits; choose a polynomial of degree at most addr_bits.",
			polyString(poly), deg, deg, h.AddrBits)
		return
	case !addrOK:
		return
	}
	h.Polynomial, h.BankBits = exps, deg
	h.Bits = ipolyMatrix(poly, deg, h.AddrBits)
	if f := polySmallestFactor(poly); f != 0 {
		g, _ := polyDivMod(poly, f)
		hd.warnf(rng, "Reducible polynomial",
			"P(x) = %s = (%s)(%s) is reducible. Aligned power-of-two strides stay conflict-free (the constant term makes x invertible mod P(x)), but IPOLY's spread of other strides (Rau, ISCA 1991) assumes an irreducible P: strides that share a factor with P(x) map to fewer banks. An irreducible polynomial of degree %d is %s.",
			polyString(poly), polyString(f), polyString(g), deg, polyString(firstIrreducible(deg)))
	}
}

// decodeMod decodes a mod unit: addr_bits and banks.
func (hd *blockDecoder) decodeMod(h *Hash) {
	addrOK := hd.decodeAddrBits(h)
	banks, ok := hd.requiredInt("banks", " for mod")
	switch {
	case !ok:
	case banks < 2 || banks > MaxModBanks:
		hd.errorf(hd.rng("banks"), "Invalid banks", "banks must be between 2 and %d; got %d.", MaxModBanks, banks)
	case addrOK && h.AddrBits < 11 && banks > 1<<h.AddrBits:
		hd.errorf(hd.rng("banks"), "Invalid banks",
			"%d address bits reach only %d words, fewer than the %d banks; give at most %d banks or widen addr_bits to at least %d.",
			h.AddrBits, 1<<h.AddrBits, banks, 1<<h.AddrBits, bits.Len64(uint64(banks-1)))
	default:
		h.Banks = int(banks)
		h.BankBits = bits.Len64(uint64(banks - 1))
	}
}

// Polynomials over GF(2) as bit masks: bit i is the coefficient of x^i.

// polyBits turns a list of exponents into a mask.
func polyBits(exps []int) uint64 {
	var p uint64
	for _, e := range exps {
		p |= 1 << e
	}
	return p
}

func polyDegree(p uint64) int { return bits.Len64(p) - 1 }

// polyDivMod divides a by b (b != 0) over GF(2).
func polyDivMod(a, b uint64) (quo, rem uint64) {
	db := polyDegree(b)
	for rem = a; rem != 0 && polyDegree(rem) >= db; {
		s := polyDegree(rem) - db
		quo |= 1 << s
		rem ^= b << s
	}
	return quo, rem
}

// polySmallestFactor returns the smallest non-trivial factor of p (degree
// at least 1), or 0 when p is irreducible. Trial division by every
// polynomial up to half p's degree: at most 2^9 divisions for degree 16.
func polySmallestFactor(p uint64) uint64 {
	d := polyDegree(p)
	for f := uint64(2); polyDegree(f) <= d/2; f++ {
		if _, r := polyDivMod(p, f); r == 0 {
			return f
		}
	}
	return 0
}

// firstIrreducible returns the smallest irreducible polynomial of degree
// d >= 1 with a constant term (x + 1 for d = 1).
func firstIrreducible(d int) uint64 {
	for p := uint64(1)<<d | 1; ; p += 2 {
		if polySmallestFactor(p) == 0 {
			return p
		}
	}
}

// polyString writes p as "x^5 + x^2 + 1".
func polyString(p uint64) string {
	var terms []string
	for e := polyDegree(p); e >= 0; e-- {
		if p>>e&1 == 0 {
			continue
		}
		switch e {
		case 0:
			terms = append(terms, "1")
		case 1:
			terms = append(terms, "x")
		default:
			terms = append(terms, fmt.Sprintf("x^%d", e))
		}
	}
	return strings.Join(terms, " + ")
}

// ipolyMatrix returns, per bank bit b < deg, the address bits i <
// addrBits whose residue x^i mod p has bit b set, lowest first.
func ipolyMatrix(p uint64, deg, addrBits int) [][]int {
	rows := make([][]int, deg)
	for b := range rows {
		rows[b] = []int{}
	}
	r := uint64(1) // x^0
	for i := range addrBits {
		for b := range deg {
			if r>>b&1 != 0 {
				rows[b] = append(rows[b], i)
			}
		}
		r <<= 1
		if r>>deg&1 != 0 {
			r ^= p
		}
	}
	return rows
}

// PolynomialString writes a polynomial given by its exponents, highest
// first, as "x^5 + x^2 + 1".
func PolynomialString(exps []int) string {
	terms := make([]string, len(exps))
	for i, e := range exps {
		switch e {
		case 0:
			terms[i] = "1"
		case 1:
			terms[i] = "x"
		default:
			terms[i] = fmt.Sprintf("x^%d", e)
		}
	}
	return strings.Join(terms, " + ")
}
