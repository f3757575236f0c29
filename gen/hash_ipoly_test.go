package gen

import (
	"fmt"
	"math/bits"
	"testing"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
)

// publishedIPOLY transcribes published IPOLY bank equations. Row b lists
// the higher_bits a[i] XORed into bank bit b, which is also XORed with
// index bit b[b]. The caller splits the line address L (the address with
// the line offset removed) as index = L mod 2^m and higher_bits = L >> m,
// so a[i] is address bit m+i.
//
// 16, 32 and 64 banks: GPGPU-Sim's ipoly_hash_function
// (gpgpu-sim_distribution, src/gpgpu-sim/hashing.cc), called from
// gpu-cache.cc with higher_bits = addr >> (line_sz_log2 + nset_log2) and
// index = (addr >> line_sz_log2) & (nset - 1). BaseJump STL's
// bsg_hashing_ipoly (bsg_cache) has the same three tables, and adds the 4-
// and 8-bank ones below.
var publishedIPOLY = []struct {
	source     string
	banks      int
	polynomial []int // the polynomial lsugen's ipoly must take
	rows       [][]int
}{
	{"GPGPU-Sim", 16, []int{4, 1, 0}, [][]int{
		{11, 10, 9, 8, 6, 4, 3, 0},
		{12, 8, 7, 6, 5, 3, 1, 0},
		{9, 8, 7, 6, 4, 2, 1},
		{10, 9, 8, 7, 5, 3, 2},
	}},
	{"GPGPU-Sim", 32, []int{5, 2, 0}, [][]int{
		{13, 12, 11, 10, 9, 6, 5, 3, 0},
		{14, 13, 12, 11, 10, 7, 6, 4, 1},
		{14, 10, 9, 8, 7, 6, 3, 2, 0},
		{11, 10, 9, 8, 7, 4, 3, 1},
		{12, 11, 10, 9, 8, 5, 4, 2},
	}},
	{"GPGPU-Sim", 64, []int{6, 1, 0}, [][]int{
		{18, 17, 16, 15, 12, 10, 6, 5, 0},
		{15, 13, 12, 11, 10, 7, 5, 1, 0},
		{16, 14, 13, 12, 11, 8, 6, 2, 1},
		{17, 15, 14, 13, 12, 9, 7, 3, 2},
		{18, 16, 15, 14, 13, 10, 8, 4, 3},
		{17, 16, 15, 14, 11, 9, 5, 4},
	}},
	{"BaseJump bsg_hashing_ipoly", 4, []int{2, 1, 0}, [][]int{
		{10, 9, 7, 6, 4, 3, 1, 0},
		{11, 9, 8, 6, 5, 3, 2, 0},
	}},
	{"BaseJump bsg_hashing_ipoly", 8, []int{3, 2, 0}, [][]int{
		{11, 9, 8, 7, 4, 2, 1, 0},
		{12, 10, 9, 8, 5, 3, 2, 1},
		{13, 10, 8, 7, 6, 3, 1, 0},
	}},
}

// lanePattern[i] holds bit i of the lane number l in bit l: with it, 64
// consecutive addresses from a multiple of 64 go through the bit-parallel
// netlist simulator at once.
var lanePattern = [6]uint64{
	0xAAAAAAAAAAAAAAAA, 0xCCCCCCCCCCCCCCCC, 0xF0F0F0F0F0F0F0F0,
	0xFF00FF00FF00FF00, 0xFFFF0000FFFF0000, 0xFFFFFFFF00000000,
}

// laneAddresses returns, per address bit, the lanes of addresses base ..
// base+63 (base a multiple of 64).
func laneAddresses(base uint64, addrBits int, out []uint64) {
	for i := range addrBits {
		switch {
		case i < 6:
			out[i] = lanePattern[i]
		case base>>i&1 != 0:
			out[i] = ^uint64(0)
		default:
			out[i] = 0
		}
	}
}

// TestIPoly_MatchesPublishedEquations loads ipoly units with x^4+x+1,
// x^5+x^2+1 and x^6+x+1 (and BaseJump's x^2+x+1, x^3+x^2+1) over exactly
// the address bits the published equations read, and compares the
// generated netlist on every address, and the behavioural model on every
// address up to 2^20 and on 2^20 spread over wider ones, with the
// equations.
func TestIPoly_MatchesPublishedEquations(t *testing.T) {
	for _, tc := range publishedIPOLY {
		m := len(tc.rows)
		higher := 0
		for _, row := range tc.rows {
			for _, i := range row {
				higher = max(higher, i+1)
			}
		}
		addrBits := m + higher
		t.Run(fmt.Sprintf("%s_%d", tc.source, tc.banks), func(t *testing.T) {
			if 1<<m != tc.banks {
				t.Fatalf("%d rows for %d banks", m, tc.banks)
			}
			h := loadHash(t, fmt.Sprintf("hash \"ip\" {\n function = \"ipoly\"\n addr_bits = %d\n polynomial = %s\n}\n",
				addrBits, intList(tc.polynomial)))
			if h.BankBits != m {
				t.Fatalf("bank_bits %d, want %d", h.BankBits, m)
			}
			// The equations as one mask over the address per bank bit.
			masks := make([]uint64, m)
			for b, row := range tc.rows {
				masks[b] = 1 << b
				for _, i := range row {
					masks[b] |= 1 << (m + i)
				}
			}
			published := func(addr uint64) uint64 {
				var bank uint64
				for b, mask := range masks {
					bank |= uint64(bits.OnesCount64(addr&mask)&1) << b
				}
				return bank
			}

			d, diags := Hash(h)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			sim := netlist.NewSim(d)
			bank := d.Port("bank_o")
			lanes := make([]uint64, addrBits)
			for base := uint64(0); base < 1<<addrBits; base += 64 {
				laneAddresses(base, addrBits, lanes)
				sim.SetInput(0, lanes)
				sim.Eval()
				for b := range masks {
					// Bank bit b of the equations, for all 64 lanes at once.
					want := lanes[b]
					for _, i := range tc.rows[b] {
						want ^= lanes[m+i]
					}
					if got := sim.Net(bank.Bits[b]); got != want {
						l := bits.TrailingZeros64(got ^ want)
						t.Fatalf("netlist: address %#x bank bit %d = %d, equations give %d", base+uint64(l), b, got>>l&1, want>>l&1)
					}
				}
			}

			mod, err := model.ForHash(h)
			if err != nil {
				t.Fatal(err)
			}
			in, out := [][]uint64{{0}}, [][]uint64{{0}}
			step := max(uint64(1), uint64(1)<<addrBits>>20)
			for addr := uint64(0); addr < 1<<addrBits; addr += step {
				a := addr | (addr*0x9E3779B97F4A7C15)>>(64-addrBits)&(step-1) // spread within each step
				in[0][0] = a
				mod.Eval(in, out)
				if want := published(a); out[0][0] != want {
					t.Fatalf("model: address %#x gives bank %d, equations give %d", a, out[0][0], want)
				}
			}
		})
	}
}

// loadHash decodes one hash unit from spec text.
func loadHash(t *testing.T, src string) *specs.Hash {
	t.Helper()
	f, diags := specs.NewLoader().Parse([]byte(src), "test.hcl")
	if diags.HasErrors() || len(f.Units) != 1 {
		t.Fatalf("spec:\n%s\n%s", src, diags.Error())
	}
	return f.Units[0].(*specs.Hash)
}

func intList(xs []int) string {
	s := "["
	for i, x := range xs {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(x)
	}
	return s + "]"
}

// TestIPoly_RefusesMissingMatrix: an ipoly unit built in code without the
// loader's matrix is an error, not a panic.
func TestIPoly_RefusesMissingMatrix(t *testing.T) {
	for _, h := range []*specs.Hash{
		{Name: "ip", Function: specs.IPoly, AddrBits: 8, BankBits: 3, Polynomial: []int{3, 1, 0}},
		{Name: "ip", Function: specs.IPoly, AddrBits: 8, BankBits: 1, Polynomial: []int{1, 0}, Bits: [][]int{{0, 9}}},
	} {
		if _, diags := Hash(h); !diags.HasErrors() {
			t.Errorf("%+v: no error", h)
		}
	}
}
