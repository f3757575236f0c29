package search

import (
	"context"
	"fmt"
	"slices"
)

// Reference functions of a comparison, beside the searched ones.
const (
	// Ipoly is GPGPU-Sim's IPOLY bank hash: the word address as a
	// polynomial over GF(2), modulo an irreducible polynomial of degree m.
	Ipoly = "ipoly"
	// Mod is bank = word address mod N for any N (not linear over GF(2),
	// so it is counted directly, never searched).
	Mod = "mod"
	// FixedXor is the fixed bit-vector XOR of 000_*'s reference [17],
	// bank = addr[0..m-1] ^ addr[m..2m-1]: bitvector_xor with k1 = 0,
	// k2 = m and every mask bit.
	FixedXor = "fixed_xor"
)

// MaxModBanks is the largest bank count of a mod reference row.
const MaxModBanks = 1024

// ipolyPolynomials are GPGPU-Sim's IPOLY polynomials for 16, 32 and 64
// banks (x^4+x+1, x^5+x^2+1, x^6+x+1), as exponents.
var ipolyPolynomials = map[int][]int{4: {4, 1, 0}, 5: {5, 2, 0}, 6: {6, 1, 0}}

// IpolyPolynomial is the exponents of GPGPU-Sim's IPOLY polynomial for m
// bank bits; false when it has none (m other than 4, 5, 6).
func IpolyPolynomial(m int) ([]int, bool) {
	p, ok := ipolyPolynomials[m]
	return slices.Clone(p), ok
}

// ipolyColumns is bank bit b's address bits under bank = addr(x) mod
// P(x): address bit i contributes x^i mod P(x), whose coefficient b says
// whether bit i is in column b.
func ipolyColumns(poly []int, n, m int) []uint64 {
	var p uint64 // P(x) without its leading term x^m
	for _, e := range poly {
		if e < m && e >= 0 {
			p |= 1 << uint(e)
		}
	}
	cols := make([]uint64, m)
	r := uint64(1) // x^0 mod P
	for i := 0; i < n && i < 64; i++ {
		for b := 0; b < m; b++ {
			if r>>uint(b)&1 == 1 {
				cols[b] |= 1 << uint(i)
			}
		}
		// r·x mod P: shift, and replace x^m by the rest of P.
		r <<= 1
		if r>>uint(m)&1 == 1 {
			r = r&^(1<<uint(m)) ^ p
		}
	}
	return cols
}

// ModConflicts counts the conflicts of raw accesses under bank = word
// address mod banks (2..MaxModBanks), from the definition.
func ModConflicts(accesses [][]uint64, banks int) (int64, error) {
	if banks < 2 || banks > MaxModBanks {
		return 0, fmt.Errorf("--banks %d: want 2..%d", banks, MaxModBanks)
	}
	cnt := make([]int32, banks)
	var buf []uint64
	var total int64
	for _, acc := range accesses {
		buf = append(buf[:0], acc...)
		slices.Sort(buf)
		buf = slices.Compact(buf)
		var deg int32
		for _, a := range buf {
			b := a % uint64(banks)
			cnt[b]++
			deg = max(deg, cnt[b])
		}
		for _, a := range buf {
			cnt[a%uint64(banks)] = 0
		}
		if deg > 0 {
			total += int64(deg - 1)
		}
	}
	return total, nil
}

// Row is one line of a comparison: a function, how it was configured, and
// the conflicts it leaves.
type Row struct {
	Function string // bitvector_xor, …, or Mod, Ipoly, FixedXor
	Method   string // exhaustive, givargis, mih; "" for the fixed references
	// Config is the configuration found or used; for Mod, Banks says N.
	Config         Config
	Banks          int
	ConflictsAfter int64
}

// Label is the row's function and method as the text report prints them.
func (r Row) Label() string {
	switch r.Function {
	case Mod:
		return fmt.Sprintf("mod %d", r.Banks)
	case Ipoly:
		return "ipoly"
	case FixedXor:
		return "fixed bit-vector XOR"
	}
	return r.Function + " " + r.Method
}

// Compared is the (function, method) pairs a comparison searches, in the
// order of 000_*'s Table 6: the exhaustive bit-vector XOR search, then
// both heuristics over bitwise permutations and bitwise XORs.
var Compared = []struct{ Function, Method string }{
	{BitvectorXor, Exhaustive},
	{BitwisePerm, Givargis},
	{BitwisePerm, MIH},
	{BitwiseXor, Givargis},
	{BitwiseXor, MIH},
}

// Compare counts the accesses' conflicts under bank = addr mod 2^m
// (before), then under the reference functions (mod banks, ipoly where
// GPGPU-Sim has a polynomial for m, the fixed bit-vector XOR when
// n ≥ 2m) and under the configuration each of Compared finds for these
// accesses. full searches bitvector_xor's whole space instead of the §5.1
// pruned one.
func Compare(accesses [][]uint64, n, m, banks int, full bool) (before int64, rows []Row, err error) {
	if err := CheckSizes(n, m); err != nil {
		return 0, nil, err
	}
	modAfter, err := ModConflicts(accesses, banks)
	if err != nil {
		return 0, nil, err
	}
	p, err := Prepare(accesses, n, m)
	if err != nil {
		return 0, nil, err
	}
	before = p.Conflicts(Config{Function: BitvectorPerm})
	rows = append(rows, Row{Function: Mod, Banks: banks, ConflictsAfter: modAfter})
	if poly, ok := IpolyPolynomial(m); ok {
		c := Config{Function: Ipoly, Poly: poly}
		rows = append(rows, Row{Function: Ipoly, Config: c, ConflictsAfter: p.Conflicts(c)})
	}
	if n >= 2*m {
		c := Config{Function: BitvectorXor, K1: 0, K2: m, Mask: 1<<uint(m) - 1}
		rows = append(rows, Row{Function: FixedXor, Config: c, ConflictsAfter: p.Conflicts(c)})
	}
	for _, fm := range Compared {
		res, err := Search(p, fm.Function, fm.Method, full && fm.Function == BitvectorXor)
		if err != nil {
			return 0, nil, err
		}
		rows = append(rows, Row{Function: fm.Function, Method: fm.Method, Config: res.Config, ConflictsAfter: res.ConflictsAfter})
	}
	return before, rows, nil
}

// KernelComparison is Compare's result for one kernel.
type KernelComparison struct {
	Name     string
	Accesses int
	Before   int64 // conflicts under addr mod 2^m
	Rows     []Row
}

// Total is one row of a comparison over several kernels: the row's
// function and method (Row.ConflictsAfter summed over the kernels) and
// the conflicts it removes, as 000_* Table 6 averages them and pooled.
type Total struct {
	Row
	Before int64 // conflicts under addr mod 2^m, summed over the kernels
	// MeanRemoved is the mean, over the Averaged kernels that have
	// conflicts under addr mod 2^m, of the percentage each kernel's
	// configuration removes: Table 6's average of Fig. 8's per-benchmark
	// bars. nil when no kernel has conflicts.
	MeanRemoved *float64
	Averaged    int
	// PooledRemoved is the percentage of all the kernels' conflicts
	// removed, 100·(Σ before − Σ after)/Σ before: heavy kernels weigh
	// more. nil when no kernel has conflicts.
	PooledRemoved *float64
}

// KernelsCompared is every kernel's comparison and the totals.
type KernelsCompared struct {
	Kernels []KernelComparison
	Totals  []Total // one per row of Compare, in its order
}

// CompareKernels runs Compare for each kernel on its own (the paper
// configures a hash per kernel, §5) and totals each row over the kernels.
// It stops between kernels when ctx is cancelled.
func CompareKernels(ctx context.Context, kernels []Kernel, n, m, banks int, full bool) (*KernelsCompared, error) {
	out := &KernelsCompared{}
	sums := make([]float64, 0, 8)
	for _, k := range kernels {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		before, rows, err := Compare(k.Accesses, n, m, banks, full)
		if err != nil {
			return nil, err
		}
		out.Kernels = append(out.Kernels, KernelComparison{Name: k.Name, Accesses: len(k.Accesses), Before: before, Rows: rows})
		for i, r := range rows {
			if len(out.Totals) <= i {
				// Every kernel has the same rows: they depend on n, m
				// and banks only.
				out.Totals = append(out.Totals, Total{Row: Row{Function: r.Function, Method: r.Method, Banks: r.Banks,
					Config: Config{Function: r.Function, Poly: r.Config.Poly}}})
				sums = append(sums, 0)
			}
			t := &out.Totals[i]
			t.ConflictsAfter += r.ConflictsAfter
			t.Before += before
			if p := RemovedPercent(before, r.ConflictsAfter); p != nil {
				sums[i] += *p
				t.Averaged++
			}
		}
	}
	for i := range out.Totals {
		t := &out.Totals[i]
		t.PooledRemoved = RemovedPercent(t.Before, t.ConflictsAfter)
		if t.Averaged > 0 {
			mean := sums[i] / float64(t.Averaged)
			t.MeanRemoved = &mean
		}
	}
	return out, nil
}

// RemovedPercent is 100·(before − after)/before, the percentage of
// before's conflicts a hash removes (negative when it adds some); nil
// when there were none before.
func RemovedPercent(before, after int64) *float64 {
	if before == 0 {
		return nil
	}
	r := 100 * float64(before-after) / float64(before)
	return &r
}
