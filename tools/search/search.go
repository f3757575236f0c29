// Package search chooses a bank-index hash configuration for a set of warp
// accesses, as in §5 of the configurable XOR bank hash paper (000_*):
// an exhaustive bit-vector search with the §5.1 pruning, and the Givargis
// (§5.2.1) and Minimum Imbalance (§5.2.2) heuristics over single bits or
// bit pairs, both extended to many reference sets.
//
// Every hash searched here is linear over GF(2): bank bit b is the parity
// of (addr & column b). Bank conflicts, the Givargis measures and the MIH
// imbalance are therefore unchanged when every address of an access is
// XORed with the same value, so each access is reduced once to its
// differences from its first address and identical reduced accesses are
// evaluated once, with a weight. That keeps the inner loop small on the
// repetitive traces real kernels produce.
package search

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/lsugen/lsugen/specs"
)

// Function names, as the `function` attribute of a hash block spells them.
const (
	BitvectorPerm = "bitvector_perm"
	BitvectorXor  = "bitvector_xor"
	BitwisePerm   = "bitwise_perm"
	BitwiseXor    = "bitwise_xor"
)

// Method names.
const (
	Exhaustive = "exhaustive"
	Givargis   = "givargis"
	MIH        = "mih"
)

// Size limits. Bank counts above 2^16 make no sense for a scratchpad and
// keep the per-worker count arrays small.
const (
	MaxAddrBits = 64
	MaxBankBits = 16
	// MaxExhaustive is the largest candidate space the exhaustive search
	// accepts (bitwise_xor's space is C(n(n+1)/2, m), 9.7e7 already for
	// n = 14, m = 5; the heuristics exist for it).
	MaxExhaustive = 1 << 22
)

// Config is one hash configuration, in the attribute names of the hash
// block. Bits holds bank bit b's address bits: one element for
// bitwise_perm, two (equal for a single bit) for bitwise_xor.
type Config struct {
	Function string
	K        int
	K1, K2   int
	Mask     uint64
	Bits     [][]int
	Poly     []int // ipoly: the polynomial's exponents, e.g. [5, 2, 0]
}

// Columns returns, for each bank bit b, the address bits whose parity is
// bank bit b (restricted to the n address bits, as the hardware only sees
// addr_i[n-1:0]).
func (c Config) Columns(n, m int) []uint64 {
	if c.Function == Ipoly {
		return ipolyColumns(c.Poly, n, m)
	}
	cols := make([]uint64, m)
	lowN := lowMask(n)
	for b := 0; b < m; b++ {
		var col uint64
		switch c.Function {
		case BitvectorPerm:
			col = bitAt(c.K + b)
		case BitvectorXor:
			col = bitAt(c.K1 + b)
			if c.Mask>>uint(b)&1 == 1 {
				col ^= bitAt(c.K2 + b)
			}
		case BitwisePerm, BitwiseXor:
			if b < len(c.Bits) {
				seen := uint64(0)
				for _, i := range c.Bits[b] {
					seen |= bitAt(i)
				}
				col = seen // [i, i] is the single bit i
			}
		}
		cols[b] = col & lowN
	}
	return cols
}

// String renders the configuration in HCL attribute syntax.
func (c Config) String() string {
	switch c.Function {
	case BitvectorPerm:
		return fmt.Sprintf("k = %d", c.K)
	case BitvectorXor:
		return fmt.Sprintf("k1 = %d, k2 = %d, mask = %d", c.K1, c.K2, c.Mask)
	case Ipoly:
		return "P(x) = " + specs.PolynomialString(c.Poly)
	default:
		return "bits = " + c.BitsHCL()
	}
}

// BitsHCL renders Bits as an HCL list: [3, 4] for bitwise_perm, [[0, 0],
// [1, 5]] for bitwise_xor.
func (c Config) BitsHCL() string {
	parts := make([]string, len(c.Bits))
	for i, e := range c.Bits {
		if c.Function == BitwisePerm && len(e) == 1 {
			parts[i] = strconv.Itoa(e[0])
			continue
		}
		pair := make([]string, len(e))
		for j, v := range e {
			pair[j] = strconv.Itoa(v)
		}
		parts[i] = "[" + strings.Join(pair, ", ") + "]"
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func bitAt(i int) uint64 {
	if i < 0 || i >= 64 {
		return 0
	}
	return 1 << uint(i)
}

func lowMask(n int) uint64 {
	if n >= 64 {
		return ^uint64(0)
	}
	return 1<<uint(n) - 1
}

// CheckSizes refuses address and bank widths the search does not handle,
// before any work starts.
func CheckSizes(n, m int) error {
	switch {
	case n < 2 || n > MaxAddrBits:
		return fmt.Errorf("--addr-bits %d: want 2..%d", n, MaxAddrBits)
	case m < 1 || m > MaxBankBits:
		return fmt.Errorf("--bank-bits %d: want 1..%d", m, MaxBankBits)
	case m >= n:
		return fmt.Errorf("--bank-bits %d must be below --addr-bits %d", m, n)
	}
	return nil
}

// Prepared is a set of warp accesses reduced for evaluation: each access
// keeps its distinct addresses XORed with its first one and masked to the
// n address bits (addresses that differ only above bit n stay separate
// entries: they are distinct words in the same bank), and identical
// reduced accesses are stored once with a weight.
type Prepared struct {
	N, M     int
	addrs    []uint64 // reduced addresses of every unique access, concatenated
	off      []int32  // access u is addrs[off[u]:off[u+1]]
	weight   []int64
	Accesses int // accesses given, including those of one address
	// lowVar and highVar are the lowest and highest address bit (below n)
	// that varies within some access of two or more reduced addresses;
	// -1 when none does. They drive the §5.1 pruning.
	kSet    []int // lowest varying bit of each varying access, sorted, unique
	highVar int
}

// Unique is the number of distinct reduced accesses.
func (p *Prepared) Unique() int { return len(p.weight) }

// Prepare reduces the accesses (each a list of word addresses) for a hash of
// n address bits and m bank bits.
func Prepare(accesses [][]uint64, n, m int) (*Prepared, error) {
	if err := CheckSizes(n, m); err != nil {
		return nil, err
	}
	pr := newPreparer(n, m, accesses)
	for _, acc := range accesses {
		if err := pr.add(acc); err != nil {
			return nil, err
		}
	}
	slices.Sort(pr.p.kSet)
	return pr.p, nil
}

// preparer reduces accesses one at a time into p. Identical reduced
// accesses are found by a 64-bit hash of their sorted addresses, then
// compared in full (chain holds the earlier accesses of one hash).
type preparer struct {
	p     *Prepared
	lowN  uint64
	index map[uint64]int32
	chain []int32
	buf   []uint64
	kseen [MaxAddrBits]bool
}

func newPreparer(n, m int, accesses [][]uint64) *preparer {
	// Room for every address up front (up to a bound): growing the slice
	// copied and collected it over and over, most of the time of a random
	// trace, where no access repeats. Pages never written cost nothing.
	total := 0
	for _, acc := range accesses {
		total += len(acc)
	}
	return &preparer{
		p: &Prepared{N: n, M: m, off: make([]int32, 1, len(accesses)+1), Accesses: len(accesses), highVar: -1,
			addrs: make([]uint64, 0, min(total, maxReservedAddrs))},
		lowN:  lowMask(n),
		index: map[uint64]int32{},
	}
}

// maxReservedAddrs bounds the addresses Prepare reserves room for at once
// (512 MiB).
const maxReservedAddrs = 1 << 26

// add reduces one access.
func (pr *preparer) add(acc []uint64) error {
	// One sort: each address XOR the base, rotated so that its low n bits
	// lead, sorts by the reduced address and then by the bits above n; XOR
	// and rotation are bijections, so compacting drops exactly the
	// repeated addresses.
	if len(acc) == 0 {
		return nil
	}
	n := pr.p.N
	base := acc[0]
	buf := pr.buf[:0]
	for _, a := range acc {
		buf = append(buf, bits.RotateLeft64(a^base, -n))
	}
	slices.Sort(buf)
	buf = slices.Compact(buf)
	pr.buf = buf
	if len(buf) < 2 {
		return nil // one distinct address never conflicts
	}
	var varying uint64
	for i, r := range buf {
		buf[i] = bits.RotateLeft64(r, n) & pr.lowN
		varying |= buf[i]
	}
	if varying != 0 {
		pr.varies(bits.TrailingZeros64(varying), 63-bits.LeadingZeros64(varying))
	}
	h := uint64(len(buf))
	for _, a := range buf {
		h = (h ^ a) * 0x9e3779b97f4a7c15
		h ^= h >> 29
	}
	return pr.insert(buf, h, 1)
}

// varies records the lowest and highest varying bit of one access.
func (pr *preparer) varies(low, high int) {
	if !pr.kseen[low] {
		pr.kseen[low] = true
		pr.p.kSet = append(pr.p.kSet, low)
	}
	pr.p.highVar = max(pr.p.highVar, high)
}

// insert adds weight w to the reduced access as (hash h), stored once.
func (pr *preparer) insert(as []uint64, h uint64, w int64) error {
	p := pr.p
	u, ok := pr.index[h]
	for ok && u >= 0 {
		if slices.Equal(p.addrs[p.off[u]:p.off[u+1]], as) {
			p.weight[u] += w
			return nil
		}
		u = pr.chain[u]
	}
	if len(p.addrs)+len(as) > 1<<31-1 {
		return errors.New("trace too large: more than 2^31 distinct reduced addresses")
	}
	prev, had := pr.index[h]
	if !had {
		prev = -1
	}
	pr.index[h] = int32(len(p.weight))
	pr.chain = append(pr.chain, prev)
	p.addrs = append(p.addrs, as...)
	p.off = append(p.off, int32(len(p.addrs)))
	p.weight = append(p.weight, w)
	return nil
}

// StrideAccess is the reference warp access of a stride: lane i of a warp
// of t lanes reads word i·S (Eq. 5 of §3 with offset 0).
func StrideAccess(stride uint64, lanes int) []uint64 {
	a := make([]uint64, lanes)
	for i := range a {
		a[i] = uint64(i) * stride
	}
	return a
}

// Result is the outcome of a search.
type Result struct {
	Config              Config
	Method              string
	Full                bool  // exhaustive: the whole space, not the §5.1 pruned one
	CandidatesEvaluated int64 // candidates whose conflicts were computed (or bounded above the best)
	ConflictsBefore     int64 // under bank = addr mod 2^m
	ConflictsAfter      int64
}

// Search runs method for function over the prepared accesses.
func Search(p *Prepared, function, method string, full bool) (*Result, error) {
	var (
		res *Result
		err error
	)
	switch method {
	case Exhaustive:
		res, err = exhaustive(p, function, full)
	case Givargis, MIH:
		if function != BitwisePerm && function != BitwiseXor {
			return nil, fmt.Errorf("--method %s selects individual bits or bit pairs: use --function bitwise_perm or bitwise_xor (bit-vector functions are searched exhaustively)", method)
		}
		if full {
			return nil, errors.New("--full applies to --method exhaustive only")
		}
		var cfg Config
		if method == Givargis {
			cfg = givargis(p, function)
		} else {
			cfg = mih(p, function)
		}
		res = &Result{Config: cfg, CandidatesEvaluated: int64(len(columnSet(p.N, function))), ConflictsAfter: p.Conflicts(cfg)}
	default:
		return nil, fmt.Errorf("unknown method %q: want exhaustive, givargis or mih", method)
	}
	if err != nil {
		return nil, err
	}
	res.Method = method
	res.Full = full
	res.ConflictsBefore = p.Conflicts(Config{Function: BitvectorPerm, K: 0})
	return res, nil
}

// Conflicts is Σ over accesses of (degree − 1), degree being the largest
// number of distinct addresses one bank receives in the access.
func (p *Prepared) Conflicts(c Config) int64 {
	ev := newEvaluator(p)
	return ev.columns(c.Columns(p.N, p.M), -1)
}

// Conflicts counts the bank conflicts of raw accesses under a configuration,
// straight from the definition; it is the reference the reduced evaluation
// is tested against.
func Conflicts(accesses [][]uint64, n, m int, c Config) int64 {
	cols := c.Columns(n, m)
	var total int64
	for _, acc := range accesses {
		d := slices.Clone(acc)
		slices.Sort(d)
		d = slices.Compact(d)
		count := map[uint64]int64{}
		var deg int64
		for _, a := range d {
			b := BankOf(cols, a)
			count[b]++
			deg = max(deg, count[b])
		}
		if deg > 0 {
			total += deg - 1
		}
	}
	return total
}

// BankOf is the bank of addr under the columns.
func BankOf(cols []uint64, addr uint64) uint64 {
	var bank uint64
	for b, c := range cols {
		bank |= uint64(bits.OnesCount64(addr&c)&1) << uint(b)
	}
	return bank
}
