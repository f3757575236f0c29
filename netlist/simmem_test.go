package netlist

import (
	"math/rand/v2"
	"testing"
)

// TestSim_WideMemoryMatchesReference: a memory of 5 words of 80 bits (two
// 64-bit chunks per lane's word, a 16-bit write granule straddling them,
// addresses 5 to 7 past the end) against a plain per-lane reference, with
// random reads and masked writes in every lane, every cycle's read data
// and the final contents (MemoryBit) compared.
func TestSim_WideMemoryMatchesReference(t *testing.T) {
	const words, width, granules = 5, 80, 5
	b := NewBuilder("wide")
	b.Clock("clk", "clock")
	re := b.Input("re_i", 1, "")[0]
	raddr := b.Input("raddr_i", 3, "")
	we := b.Input("we_i", 1, "")[0]
	waddr := b.Input("waddr_i", 3, "")
	wdata := b.Input("wdata_i", width, "")
	wmask := b.Input("wmask_i", granules, "")
	rd := b.Memory("m", "bank_5x80", words, width, granules, "")
	b.MemoryPorts("m", re, raddr, we, waddr, wdata, wmask)
	b.Output("rdata_o", rd, "")
	d := mustBuild(t, b)
	s := NewSim(d)
	port := map[string]int{}
	for i, p := range d.Ports {
		port[p.Name] = i
	}
	r := rand.New(rand.NewPCG(5, 6))
	var mem [64][words][width]bool
	var rdata [64][width]bool
	for range 300 {
		in := map[string][]uint64{"re_i": make([]uint64, 1), "raddr_i": make([]uint64, 3), "we_i": make([]uint64, 1),
			"waddr_i": make([]uint64, 3), "wdata_i": make([]uint64, width), "wmask_i": make([]uint64, granules)}
		for _, w := range in {
			for i := range w {
				w[i] = r.Uint64()
			}
		}
		for name, w := range in {
			s.SetInput(port[name], w)
		}
		s.Eval()
		s.Step()
		s.Eval()
		addr := func(name string, l int) int {
			a := 0
			for i, w := range in[name] {
				a |= int(w>>l&1) << i
			}
			return a
		}
		for l := range 64 {
			if in["re_i"][0]>>l&1 == 1 {
				if a := addr("raddr_i", l); a < words {
					rdata[l] = mem[l][a]
				} else {
					rdata[l] = [width]bool{}
				}
			}
			if a := addr("waddr_i", l); in["we_i"][0]>>l&1 == 1 && a < words {
				for bit := range width {
					if in["wmask_i"][bit/(width/granules)]>>l&1 == 1 {
						mem[l][a][bit] = in["wdata_i"][bit]>>l&1 == 1
					}
				}
			}
		}
		got := make([]uint64, width)
		s.Output(port["rdata_o"], got)
		for l := range 64 {
			for bit := range width {
				if got[bit]>>l&1 == 1 != rdata[l][bit] {
					t.Fatalf("lane %d: read data bit %d = %v, want %v", l, bit, !rdata[l][bit], rdata[l][bit])
				}
			}
		}
	}
	for w := range words {
		for bit := range width {
			lanes := s.MemoryBit(0, w, bit)
			for l := range 64 {
				if lanes>>l&1 == 1 != mem[l][w][bit] {
					t.Fatalf("lane %d: word %d bit %d = %v, want %v", l, w, bit, !mem[l][w][bit], mem[l][w][bit])
				}
			}
		}
	}
}

// TestTranspose64_MatchesBitByBit: the block transposition moves bit c of
// row r to bit r of row c, for random and single-bit matrices.
func TestTranspose64_MatchesBitByBit(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 100 {
		var a, want [64]uint64
		for i := range a {
			a[i] = r.Uint64()
			if trial == 0 {
				a[i] = 0
			}
		}
		if trial == 0 {
			a[3] = 1 << 60
		}
		for row := range 64 {
			for col := range 64 {
				want[col] |= a[row] >> col & 1 << row
			}
		}
		Transpose64(&a)
		if a != want {
			t.Fatalf("trial %d: transpose differs from the bit-by-bit one", trial)
		}
	}
}
