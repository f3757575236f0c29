package conflicts

import (
	"math/rand/v2"
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
	for _, n := range []int{0, 3, -1, MaxMapSize * 2} {
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
