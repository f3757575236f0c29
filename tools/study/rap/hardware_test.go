package rap

import (
	"context"
	"math"
	"testing"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/tools/rapsim"
)

// exampleUnit is the rap unit name of specs/rap.hcl.
func exampleUnit(t *testing.T, name string) *specs.Hash {
	t.Helper()
	f, diags := specs.NewLoader().Load("../../../specs/rap.hcl")
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	for _, u := range f.Units {
		if h, ok := u.(*specs.Hash); ok && h.Name == name {
			return h
		}
	}
	t.Fatalf("no unit %s in specs/rap.hcl", name)
	return nil
}

// unitBanks evaluates a rap unit's behavioural model: the bank of each
// address.
func unitBanks(t *testing.T, h *specs.Hash) func(addr int) int {
	t.Helper()
	m, err := model.ForHash(h)
	if err != nil {
		t.Fatal(err)
	}
	in := [][]uint64{make([]uint64, 1)}
	var out [][]uint64
	for _, p := range m.Ports() {
		if p.Output {
			out = append(out, make([]uint64, (p.Width+63)/64))
		}
	}
	return func(addr int) int {
		in[0][0] = uint64(addr)
		m.Eval(in, out)
		return int(out[0][0])
	}
}

// strideStats is the mean and the range of the congestion of every warp
// access a[..][0:w-1][..][..] along field f (1: stride1 along k, 2:
// stride2 along j, 3: stride3 along i) of a w⁴ array, banks from the unit.
func strideStats(w, f int, bank func(int) int) (mean float64, lo, hi int) {
	l := 0
	for 1<<l < w {
		l++
	}
	cc := newCongestionCounter(w, w*w*w*w)
	reqs := make([]request, w)
	sum, n := 0, 0
	lo = w + 1
	for rest := range w * w * w { // the other three fields
		for t := range w {
			// Insert t as field f into rest's three fields.
			low := rest & (1<<(f*l) - 1)
			addr := (rest>>(f*l))<<((f+1)*l) | t<<(f*l) | low
			reqs[t] = request{addr: addr, bank: bank(addr)}
		}
		c := cc.of(reqs)
		sum += c
		n++
		lo, hi = min(lo, c), max(hi, c)
	}
	return float64(sum) / float64(n), lo, hi
}

// TestHardware3P_StridesMatchMonteCarlo evaluates the generated 3P unit's
// model (rap_w32_3p) on every stride-2 and stride-3 access of a 32⁴ array
// and compares with tools/rapsim's Monte Carlo for 3P: both conflict-free.
// A 1P unit of the same width conflicts 32-way there, as rapsim's 1P does.
func TestHardware3P_StridesMatchMonteCarlo(t *testing.T) {
	const w = 32
	rep, err := rapsim.Run(context.Background(), rapsim.Options{W: []int{w}, Trials: 200, Seed: 1, Array4: true})
	if err != nil {
		t.Fatal(err)
	}
	p3 := exampleUnit(t, "rap_w32_3p")
	if p3.AddrBits != 20 {
		t.Fatalf("rap_w32_3p has %d address bits, want 20 (a 32⁴ array)", p3.AddrBits)
	}
	p1 := *exampleUnit(t, "rap_w32") // 1P, widened to the 32⁴ array
	p1.AddrBits = 20
	for _, c := range []struct {
		h       *specs.Hash
		mapping rapsim.Mapping
	}{{p3, rapsim.P3}, {&p1, rapsim.P1}} {
		bank := unitBanks(t, c.h)
		for f, acc := range map[int]rapsim.Access{2: rapsim.Stride2, 3: rapsim.Stride3} {
			mc, _ := rep.Cell(rapsim.Array4, w, c.mapping, acc)
			mean, lo, hi := strideStats(w, f, bank)
			if mean != mc.Congestion || lo != mc.Min || hi != mc.Max {
				t.Errorf("%s %s: unit %.2f (%d..%d), Monte Carlo %.2f (%d..%d)", c.mapping, acc, mean, lo, hi, mc.Congestion, mc.Min, mc.Max)
			}
		}
	}
}

// TestHardwareRAS_Stride1MatchesMonteCarlo: rap_w8_ras_w4's w³ = 512
// independent shifts make each of the 64 stride-1 accesses (along k, one
// per (i, j)) a fresh draw, so their mean congestion is rapsim's RAS
// stride1 mean, within sampling error (standard error about 0.07).
func TestHardwareRAS_Stride1MatchesMonteCarlo(t *testing.T) {
	const w = 8
	rep, err := rapsim.Run(context.Background(), rapsim.Options{W: []int{w}, Trials: 20000, Seed: 1, Array4: true})
	if err != nil {
		t.Fatal(err)
	}
	mc, _ := rep.Cell(rapsim.Array4, w, rapsim.RAS, rapsim.Stride1)
	mean, lo, hi := strideStats(w, 1, unitBanks(t, exampleUnit(t, "rap_w8_ras_w4")))
	t.Logf("RAS stride1 at w = %d: unit %.3f (%d..%d), Monte Carlo %.3f (%d..%d)", w, mean, lo, hi, mc.Congestion, mc.Min, mc.Max)
	if math.Abs(mean-mc.Congestion) > 0.3 || lo < mc.Min || hi > mc.Max {
		t.Errorf("RAS stride1: unit %.2f (%d..%d), Monte Carlo %.2f (%d..%d)", mean, lo, hi, mc.Congestion, mc.Min, mc.Max)
	}
	// Each (i, j)'s stride-1 access along k is the same for every l.
	if mean <= 1 {
		t.Errorf("RAS stride1 mean %.2f: a table of independent shifts should conflict", mean)
	}
}

// TestHardwareR1P_Permuted: rap_w32_r1p conflicts on the paper's
// malicious access (the six orderings of a triple share a bank), as
// rapsim's R1P does, and not on strides.
func TestHardwareR1P_Permuted(t *testing.T) {
	const w = 32
	h := exampleUnit(t, "rap_w32_r1p")
	bank := unitBanks(t, h)
	for f := 1; f <= 3; f++ {
		if mean, _, hi := strideStats(w, f, bank); mean != 1 || hi != 1 {
			t.Errorf("R1P stride%d: congestion %.2f (max %d), want 1", f, mean, hi)
		}
	}
	// Thread t reads a[x][y][z][0], (x, y, z) the (t mod 6)-th ordering
	// of the triple (3g, 3g+1, 3g+2), g = t div 6.
	orders := [6][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	reqs := make([]request, w)
	for t := range w {
		o, g := orders[t%6], 3*(t/6)
		addr := ((g+o[0])*w*w + (g+o[1])*w + (g + o[2])) * w
		reqs[t] = request{addr: addr, bank: bank(addr)}
	}
	c := newCongestionCounter(w, 1<<20).of(reqs)
	if c < 6 {
		t.Errorf("R1P permuted access: congestion %d, want at least 6", c)
	}
	t.Logf("R1P permuted access on rap_w32_r1p: congestion %d", c)
}
