package conflicts

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/tools/trace"
)

func mod(t testing.TB, n int) Mapping {
	m, err := Modulo(n)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func hashUnit(t testing.TB, fn specs.HashFunction, addrBits, bankBits int) Mapping {
	m, err := HashUnit(&specs.Hash{Name: string(fn), Function: fn, AddrBits: addrBits, BankBits: bankBits, Adder: specs.AdderRipple})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func pattern(t testing.TB, name string) *specs.Pattern {
	f, diags := specs.NewLoader().Load("../../specs/patterns_000.hcl")
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	for _, p := range f.Patterns {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no pattern %s", name)
	return nil
}

// TestDegree_Paper000 checks the §3.2 examples of 000_*: with 32 banks the
// transpose store (TILE_DIM 16) is 8-way, the load conflict-free, the FWT
// at stride 8 4-way.
func TestDegree_Paper000(t *testing.T) {
	c := NewCounter(mod(t, 32))
	for _, tc := range []struct {
		name string
		want int
	}{{"transpose_store", 8}, {"transpose_load", 1}, {"fwt_stride8", 4}} {
		if got := c.Degree(trace.FromPattern(pattern(t, tc.name))[0].Addrs); got != tc.want {
			t.Errorf("%s warp 0: %d-way, want %d-way", tc.name, got, tc.want)
		}
	}
}

// TestFixedXor_Paper002 checks §II of 002_*: under mod 32 the access
// 0, 256, 2, ..., 31 is 2-way in bank 0; the fixed XOR hash moves 256 to
// bank 8, where it meets 8 (still 2-way, but in bank 8). 0, 256, 512, 3,
// ..., 31 drops from 3-way to 2-way.
func TestFixedXor_Paper002(t *testing.T) {
	tr, err := trace.ParseFile("testdata/fixed_xor_002.trace")
	if err != nil {
		t.Fatal(err)
	}
	xor := hashUnit(t, specs.FixedXor, 14, 5)
	if b := xor.Map(256); b != 8 {
		t.Errorf("fixed XOR maps 256 to bank %d, want 8", b)
	}
	plain, hashed := NewCounter(mod(t, 32)), NewCounter(xor)
	two, three := tr.Accesses[0].Addrs, tr.Accesses[1].Addrs
	if got := plain.Degree(two); got != 2 {
		t.Errorf("0, 256, 2..31 under mod 32: %d-way, want 2", got)
	}
	if got := hashed.Degree(two); got != 2 {
		t.Errorf("0, 256, 2..31 under XOR: %d-way, want 2 (in bank 8)", got)
	}
	if got := plain.Degree(three); got != 3 {
		t.Errorf("0, 256, 512, 3..31 under mod 32: %d-way, want 3", got)
	}
	if got := hashed.Degree(three); got != 2 {
		t.Errorf("0, 256, 512, 3..31 under XOR: %d-way, want 2", got)
	}
}

// TestPadding_Paper002 checks Fig. 6 of 002_*: stride 5 (stride 4 padded
// by one) over 4 banks and 4-bit addresses is conflict-free under mod 4,
// 4-way under XOR and 2-way under ADD.
func TestPadding_Paper002(t *testing.T) {
	addrs := []uint64{0, 5, 10, 15}
	for _, tc := range []struct {
		m    Mapping
		want int
	}{{mod(t, 4), 1}, {hashUnit(t, specs.FixedXor, 4, 2), 4}, {hashUnit(t, specs.Add, 4, 2), 2}} {
		if got := NewCounter(tc.m).Degree(addrs); got != tc.want {
			t.Errorf("%s: %d-way, want %d", tc.m.Name, got, tc.want)
		}
	}
}

// TestDegree_BroadcastAndLocks checks that equal addresses merge for banks
// and locks but count for position conflicts, and lock aliasing at 1024.
func TestDegree_BroadcastAndLocks(t *testing.T) {
	locks, _ := LowBits(10)
	c := NewCounter(mod(t, 32))
	l := NewCounter(locks)
	a := []uint64{7, 7, 7, 39, 1031, 1}
	if got := c.Degree(a); got != 3 { // 7, 39, 1031 in bank 7
		t.Errorf("bank degree %d, want 3", got)
	}
	if got := l.Degree(a); got != 2 { // 7 and 1031 share lock 7
		t.Errorf("lock degree %d, want 2", got)
	}
	if got := l.PositionDegree(a); got != 3 {
		t.Errorf("position degree %d, want 3", got)
	}
	if c.Degree(nil) != 0 || c.PositionDegree(nil) != 0 {
		t.Error("empty access has conflicts")
	}
}

func TestAnalyze_Totals(t *testing.T) {
	tr := &trace.Trace{File: "x", Accesses: []trace.Access{
		{Instr: "a", Line: 1, Addrs: []uint64{0, 32, 64}},
		{Instr: "b", Line: 2, Addrs: []uint64{0, 1}},
		{Instr: "a", Line: 3, Addrs: []uint64{0, 32}},
	}}
	rep := Analyze([]*trace.Trace{tr}, Options{Banks: mod(t, 32)})
	in := rep.Inputs[0]
	if len(in.Instrs) != 2 || in.Instrs[0].Instr != "a" || in.Instrs[0].BankConflicts != 3 || in.Instrs[1].BankConflicts != 0 {
		t.Errorf("instrs %+v", in.Instrs)
	}
	if rep.Total.BankConflicts != 3 || rep.Total.MaxBankDegree != 3 || rep.Total.Accesses != 3 {
		t.Errorf("total %+v", rep.Total)
	}
}

func TestMappings_Refused(t *testing.T) {
	for _, n := range []int{0, -1, MaxMapSize * 2} {
		if _, err := Modulo(n); err == nil {
			t.Errorf("Modulo(%d) accepted", n)
		}
	}
	if _, err := LowBits(30); err == nil {
		t.Error("LowBits(30) accepted")
	}
	if _, err := HashUnit(&specs.Hash{Name: "c", Function: specs.BitvectorXor, AddrBits: 14, BankBits: 5, Configurable: true}); err == nil {
		t.Error("configurable hash accepted")
	}
	if _, err := HashUnit(nil); err == nil {
		t.Error("nil hash accepted")
	}
}

// BenchmarkDegree_Warp32 measures one 32-lane access under mod 32 and
// under the fixed XOR hash model.
func BenchmarkDegree_Warp32(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	addrs := make([]uint64, 32)
	for i := range addrs {
		addrs[i] = r.Uint64N(1 << 14)
	}
	for _, m := range []Mapping{mod(b, 32), hashUnit(b, specs.FixedXor, 14, 5)} {
		b.Run(m.Name, func(b *testing.B) {
			c := NewCounter(m)
			b.ReportAllocs()
			for b.Loop() {
				c.Degree(addrs)
			}
		})
	}
}

// loadHash returns hash unit name of the spec file at path.
func loadHash(t testing.TB, path, name string) *specs.Hash {
	t.Helper()
	f, diags := specs.NewLoader().Load(path)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	for _, u := range f.Units {
		if h, ok := u.(*specs.Hash); ok && h.Name == name {
			return h
		}
	}
	t.Fatalf("%s: no hash %s", path, name)
	return nil
}

// eq1 is the warp access pattern of the synthetic benchmarks of Fig. 5 of
// 002_* (its Eq. 1): thread id updates word id*stride if id < conflicts,
// else word id; one warp of 32 threads.
func eq1(stride, conflicts int) []uint64 {
	a := make([]uint64, 32)
	for id := range a {
		a[id] = uint64(id)
		if id < conflicts {
			a[id] = uint64(id * stride)
		}
	}
	return a
}

// fig5Want are the degrees of one access of Fig. 5 at conflicts = c.
type fig5Want struct{ bank, lock, position int }

// TestFigure5_Paper002 reproduces the synthetic benchmarks of Fig. 5 of
// 002_* (§III and §V.A): the traces specs/traces/fig5{a,b,c}_002.trace hold
// Eq. 1 for conflicts c = 1..32 with stride 0, 32 and 256, and are
// analysed under the conventional mapping (bank = addr mod 32, lock =
// addr bits 9:0, Fermi's 1024 locks) and under the paper's hashes (bank:
// specs/hash_atomics.hcl's atomic_xor, addr[4:0] ^ addr[9:5]; lock:
// specs/locks_002.hcl's lock_xor, addr[9:0] ^ addr[14:10]).
//
// The expected degrees, from the definitions (distinct addresses per bank
// or lock; lanes per address for positions):
//
//   - 5a, stride 0: lanes 0..c-1 on word 0, the others on words c..31, all
//     in distinct banks and locks under both mappings. Position degree c,
//     bank and lock degree 1; no hash can change that (§V.A).
//   - 5b, stride 32: words 0, 32, .., 32(c-1) are all bank 0 under mod 32
//     (bank degree c) but below 1024 and distinct from c..31, so on
//     distinct locks (lock degree 1: "no lock conflicts"). The XOR hash
//     sends word 32i to bank i and word j < 32 to bank j: degree 1, the bank
//     conflicts are removed completely.
//   - 5c, stride 256: words 256i (i < c) are all bank 0 (degree c); their
//     locks 256i mod 1024 = 256(i mod 4) take four values, so the lock
//     degree is ceil(c/4) ("an extra lock conflict every four bank
//     conflicts"). Hashed, lock(256i) = 256(i mod 4) | i>>2 is distinct for
//     all 32 i and from every word j < 32 other than 0 (lock degree 1: all
//     lock conflicts removed), but bank(256i) = 8(i mod 4): bank 8k (k = 0..3)
//     holds the n_k = #{i < c : i = k mod 4} words 256i, plus word 8k itself
//     when k > 0 and 8k >= c. The degree max_k n_k + [k > 0, 8k >= c] is
//     hashedBank5c below: 2 at c = 2 (256 meets 8 in bank 8) and at c = 3
//     (256 with 8, 512 with 16, resolved concurrently), as §V.A says; the
//     hash does not remove all bank conflicts.
//
// The ADD hashes give the same degrees ("Both give the same results"), as
// does the XOR into lock bits 9:5 instead of 4:0.
func TestFigure5_Paper002(t *testing.T) {
	hashedBank5c := []int{1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 7, 8, 8, 8, 8}
	figs := []struct {
		name         string
		stride       int
		conv, hashed func(c int) fig5Want
	}{
		{"a", 0, func(c int) fig5Want { return fig5Want{1, 1, c} }, func(c int) fig5Want { return fig5Want{1, 1, c} }},
		{"b", 32, func(c int) fig5Want { return fig5Want{c, 1, 1} }, func(c int) fig5Want { return fig5Want{1, 1, 1} }},
		{"c", 256, func(c int) fig5Want { return fig5Want{c, (c + 3) / 4, 1} }, func(c int) fig5Want { return fig5Want{hashedBank5c[c-1], 1, 1} }},
	}
	must := func(m Mapping, err error) Mapping {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	const hashSpec, lockSpec = "../../specs/hash_atomics.hcl", "../../specs/locks_002.hcl"
	fermiLocks := must(LowBits(10))
	xorLocks := must(HashUnit(loadHash(t, lockSpec, "lock_xor")))
	if xorLocks.Size != 1024 {
		t.Fatalf("lock_xor: %d locks, want 1024", xorLocks.Size)
	}
	highLocks := must(HashUnit(&specs.Hash{Name: "lock_xor_9_5", Function: specs.XorMatrix, AddrBits: 15, BankBits: 10,
		Bits: [][]int{{0}, {1}, {2}, {3}, {4}, {5, 10}, {6, 11}, {7, 12}, {8, 13}, {9, 14}}}))
	addLocks := must(HashUnit(&specs.Hash{Name: "lock_add", Function: specs.Add, AddrBits: 20, BankBits: 10, Adder: specs.AdderRipple}))
	conventional := Options{Banks: mod(t, 32), Locks: &fermiLocks}
	hashed := []Options{
		{Banks: must(HashUnit(loadHash(t, hashSpec, "atomic_xor"))), Locks: &xorLocks},
		{Banks: must(HashUnit(loadHash(t, hashSpec, "atomic_xor"))), Locks: &highLocks},
		{Banks: must(HashUnit(loadHash(t, hashSpec, "atomic_add_ripple"))), Locks: &addLocks},
	}
	totals := map[string][2]Totals{} // conventional, hashed
	for _, fig := range figs {
		tr, err := trace.ParseFile("../../specs/traces/fig5" + fig.name + "_002.trace")
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.Accesses) != 32 {
			t.Fatalf("fig5%s: %d accesses, want 32", fig.name, len(tr.Accesses))
		}
		for i, a := range tr.Accesses {
			c := i + 1
			if a.Instr != fmt.Sprintf("conflicts=%d", c) || !slices.Equal(a.Addrs, eq1(fig.stride, c)) {
				t.Fatalf("fig5%s access %d (%s): %v, want Eq. 1 with stride %d, conflicts %d", fig.name, i, a.Instr, a.Addrs, fig.stride, c)
			}
		}
		check := func(opt Options, want func(int) fig5Want) Totals {
			rep := Analyze([]*trace.Trace{tr}, opt)
			for i, r := range rep.Inputs[0].Accesses {
				w := want(i + 1)
				if got := (fig5Want{r.BankDegree, r.LockDegree, r.PositionDegree}); got != w {
					t.Errorf("fig5%s conflicts=%d, banks %s, locks %s: bank/lock/position degree %v, want %v",
						fig.name, i+1, opt.Banks.Name, opt.Locks.Name, got, w)
				}
			}
			return rep.Total
		}
		conv := check(conventional, fig.conv)
		var hash Totals
		for _, opt := range hashed {
			hash = check(opt, fig.hashed)
		}
		totals[fig.name] = [2]Totals{conv, hash}
	}
	// The sums over c = 1..32: sum(c - 1) = 496; sum(ceil(c/4) - 1) = 4*(0+1+..+7)
	// = 112; sum(hashedBank5c - 1) = 124.
	for _, tc := range []struct {
		fig    string
		hashed bool
		want   Totals
	}{
		// Each access is one request whose c words (at most 32) fit the
		// 32 banks in one pass: 32 ideal wavefronts, and the excess
		// wavefronts are the bank conflicts.
		{"a", false, Totals{Accesses: 32, Atomics: 32, MaxBankDegree: 1, MaxLockDegree: 1, PositionConflicts: 496, Requests: 32, Wavefronts: 32, IdealWavefronts: 32}},
		{"a", true, Totals{Accesses: 32, Atomics: 32, MaxBankDegree: 1, MaxLockDegree: 1, PositionConflicts: 496, Requests: 32, Wavefronts: 32, IdealWavefronts: 32}},
		{"b", false, Totals{Accesses: 32, Atomics: 32, BankConflicts: 496, MaxBankDegree: 32, MaxLockDegree: 1, Requests: 32, Wavefronts: 528, IdealWavefronts: 32, ExcessWavefronts: 496}},
		{"b", true, Totals{Accesses: 32, Atomics: 32, MaxBankDegree: 1, MaxLockDegree: 1, Requests: 32, Wavefronts: 32, IdealWavefronts: 32}},
		{"c", false, Totals{Accesses: 32, Atomics: 32, BankConflicts: 496, MaxBankDegree: 32, LockConflicts: 112, MaxLockDegree: 8, Requests: 32, Wavefronts: 528, IdealWavefronts: 32, ExcessWavefronts: 496}},
		{"c", true, Totals{Accesses: 32, Atomics: 32, BankConflicts: 124, MaxBankDegree: 8, MaxLockDegree: 1, Requests: 32, Wavefronts: 156, IdealWavefronts: 32, ExcessWavefronts: 124}},
	} {
		i := 0
		if tc.hashed {
			i = 1
		}
		if got := totals[tc.fig][i]; got != tc.want {
			t.Errorf("fig5%s hashed=%v totals %+v, want %+v", tc.fig, tc.hashed, got, tc.want)
		}
	}
}

// TestLowBits_OutOfRange is issue 18: 1<<n overflowed past the range check
// for n >= 63 and the error of Modulo was dropped, so the Mapping had no
// Map and Degree dereferenced nil. Every n outside 0..MaxMapBits is an
// error; every n inside gives a working mapping.
func TestLowBits_OutOfRange(t *testing.T) {
	for _, n := range []int{-1000, -1, 25, 62, 63, 64, 65, 127, 128, 1000, math.MaxInt, math.MinInt} {
		m, err := LowBits(n)
		if err == nil {
			t.Errorf("LowBits(%d) accepted: %+v", n, m)
		} else if !strings.Contains(err.Error(), fmt.Sprintf("want 0 to %d", MaxMapBits)) {
			t.Errorf("LowBits(%d): %v", n, err)
		}
	}
	for _, n := range []int{0, 1, 10, MaxMapBits} {
		m, err := LowBits(n)
		if err != nil || m.Size != 1<<n || m.Map == nil {
			t.Fatalf("LowBits(%d): %+v, %v", n, m, err)
		}
		if got := NewCounter(m).Degree([]uint64{0, 1 << n, 2 << n}); got != 3 {
			t.Errorf("LowBits(%d): 0, 2^n, 2^(n+1) share lock 0 %d-way, want 3", n, got)
		}
	}
	for _, b := range []int{0, 25, 63, 64, 65, -1} {
		if _, err := HashUnit(&specs.Hash{Name: "h", Function: specs.FixedXor, AddrBits: 64, BankBits: b}); err == nil {
			t.Errorf("HashUnit with %d bank bits accepted", b)
		}
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "invalid mapping") {
			t.Errorf("NewCounter(Mapping{}) recovered %v, want an invalid-mapping panic", r)
		}
	}()
	NewCounter(Mapping{})
}

// TestModulo_AnyCount checks a bank count that is not a power of two:
// under 17 banks 0, 17 and 34 share bank 0 (3-way), 1 and 18 bank 1.
func TestModulo_AnyCount(t *testing.T) {
	m := mod(t, 17)
	if m.Size != 17 || m.Name != "mod 17" {
		t.Fatalf("%+v", m)
	}
	if got := NewCounter(m).Degree([]uint64{0, 17, 34, 1, 18, 16}); got != 3 {
		t.Errorf("17 banks: %d-way, want 3", got)
	}
}

// TestAnalyzer_KernelsAndAtomics counts locks only for atomics of known
// kind and sums per kernel; accesses are kept only when asked.
func TestAnalyzer_KernelsAndAtomics(t *testing.T) {
	locks := mod(t, 4)
	z := NewAnalyzer(Options{Banks: mod(t, 32), Locks: &locks})
	z.Begin("k.traceg")
	z.Add(&trace.Access{Instr: "k1 f LDS 0x0010", Kernel: "k1 f", Kind: trace.KindLoad, Addrs: []uint64{0, 32, 4}})
	z.Add(&trace.Access{Instr: "k2 g ATOMS.ADD 0x0020", Kernel: "k2 g", Kind: trace.KindAtomic, Addrs: []uint64{0, 4, 4, 1}})
	z.SkipNotShared()
	rep := z.Report()
	in := rep.Inputs[0]
	if len(in.Kernels) != 2 || in.Kernels[0].Kernel != "k1 f" || in.Kernels[0].BankConflicts != 1 || in.Kernels[0].Atomics != 0 || in.Kernels[0].LockConflicts != 0 {
		t.Errorf("kernel 1: %+v", in.Kernels)
	}
	// Locks mod 4: 0 and 4 share lock 0 (2-way); 4 twice is a position conflict.
	if k := in.Kernels[1]; k.Atomics != 1 || k.LockConflicts != 1 || k.MaxLockDegree != 2 || k.PositionConflicts != 1 {
		t.Errorf("kernel 2: %+v", k)
	}
	if in.SkippedNotShared != 1 || in.Accesses != nil || rep.Total.Accesses != 2 {
		t.Errorf("input: %+v", in)
	}
}

// TestHashUnit_ModSize maps through a mod hash unit of 17 banks: the
// mapping has 17 banks (not 2^bank_bits = 32) and bank = address mod 17.
func TestHashUnit_ModSize(t *testing.T) {
	m, err := HashUnit(&specs.Hash{Name: "m17", Function: specs.Mod, AddrBits: 16, Banks: 17, BankBits: 5})
	if err != nil {
		t.Fatal(err)
	}
	if m.Size != 17 {
		t.Fatalf("size %d, want 17", m.Size)
	}
	for _, c := range [][2]uint64{{0, 0}, {16, 16}, {17, 0}, {35, 1}, {65535, 65535 % 17}} {
		if got := m.Map(c[0]); uint64(got) != c[1] {
			t.Errorf("bank of %d: %d, want %d", c[0], got, c[1])
		}
	}
	if got := NewCounter(m).Degree([]uint64{0, 17, 34, 1}); got != 3 {
		t.Errorf("0, 17, 34, 1: %d-way, want 3", got)
	}
}

// TestHashUnit_MemoMatchesModel: a hash narrow enough for the table of
// banks maps every address as the model computes it, whether the table
// holds it yet or not (addresses above addr_bits ignored), and a wider one
// as well without the table.
func TestHashUnit_MemoMatchesModel(t *testing.T) {
	for _, bits := range []int{12, memoBits + 1} {
		h := &specs.Hash{Name: "x", Function: specs.XorMatrix, AddrBits: bits, BankBits: 5,
			Bits: [][]int{{0, 5, 10}, {1, 6, 11}, {2, 7, bits - 1}, {3, 8}, {4, 9}}}
		m, err := HashUnit(h)
		if err != nil {
			t.Fatal(err)
		}
		want := func(a uint64) uint32 { // the XOR matrix by hand
			var b uint32
			for i, row := range h.Bits {
				for _, k := range row {
					b ^= uint32(a>>uint(k)&1) << uint(i)
				}
			}
			return b
		}
		r := rand.New(rand.NewPCG(3, uint64(bits)))
		for range 3 {
			for range 5000 {
				a := r.Uint64N(1 << uint(bits))
				if got := m.Map(a); got != want(a) {
					t.Fatalf("%d address bits: bank of %#x %d, want %d", bits, a, got, want(a))
				}
				if got := m.Map(a | 1<<uint(bits)); got != want(a) {
					t.Fatalf("%d address bits: bank of %#x %d, want %d", bits, a|1<<uint(bits), got, want(a))
				}
			}
		}
	}
}
