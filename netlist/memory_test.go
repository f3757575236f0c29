package netlist

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// twoBanks builds a clocked design with two memories of words x 8 bits
// and a 2-bit mask: bank0 takes the ports as they are; bank1 the inverted
// read address, write data XOR 0x5a and the mask swapped, and its read
// address comes from a register (the last read address), so that
// memories, registers and logic mix. Outputs: both read data and their XOR.
func twoBanks(words int) *Builder {
	b := NewBuilder("two_banks")
	b.Clock("clk", "clock")
	a := MemoryAddrBits(words)
	re := b.Input("re_i", 1, "")[0]
	raddr := b.Input("raddr_i", a, "")
	we := b.Input("we_i", 1, "")[0]
	waddr := b.Input("waddr_i", a, "")
	wdata := b.Input("wdata_i", 8, "")
	wmask := b.Input("wmask_i", 2, "")
	r0 := b.Memory("bank0", "bank_6x8", words, 8, 2, "bank 0")
	r1 := b.Memory("bank1", "bank_6x8", words, 8, 2, "bank 1")
	b.MemoryPorts("bank0", re, raddr, we, waddr, wdata, wmask)
	last := b.Reg("last_raddr", a)
	b.Next(last, raddr)
	inv := make(Bus, a)
	for i := range inv {
		inv[i] = b.Not(last[i])
	}
	wd1 := make(Bus, 8)
	for i := range wd1 {
		wd1[i] = b.Xor(wdata[i], Const(0x5a, 8)[i])
	}
	b.MemoryPorts("bank1", b.Not(re), inv, we, waddr, wd1, Bus{wmask[1], wmask[0]})
	x := make(Bus, 8)
	for i := range x {
		x[i] = b.Xor(r0[i], r1[i])
	}
	b.Output("rdata0_o", r0, "")
	b.Output("rdata1_o", r1, "")
	b.Output("x_o", x, "")
	return b
}

// refMem is a plain reference of one lane's memory: Memory's semantics
// written out word by word.
type refMem struct {
	words []uint8
	rdata uint8
}

func (m *refMem) edge(re bool, raddr int, we bool, waddr int, wdata uint8, wmask [2]bool) {
	if re {
		if raddr < len(m.words) {
			m.rdata = m.words[raddr]
		} else {
			m.rdata = 0
		}
	}
	if we && waddr < len(m.words) {
		for j, on := range wmask {
			if on {
				keep := uint8(0xf) << (4 * (1 - j))
				m.words[waddr] = m.words[waddr]&keep | wdata&^keep
			}
		}
	}
}

// TestSim_MemoryMatchesReference runs random stimulus, different in each
// lane (and alike in lanes 32..63 half the time, so that Step's grouping
// of lanes by address is exercised both ways), through two memories with
// 6 words (addresses 6 and 7 are past the end) and checks every output
// against the reference each cycle.
func TestSim_MemoryMatchesReference(t *testing.T) {
	const words = 6
	d := mustBuild(t, twoBanks(words))
	s := NewSim(d)
	r := rand.New(rand.NewPCG(1, 2))
	var ref [64][2]refMem
	var last [64]int
	for l := range ref {
		for k := range ref[l] {
			ref[l][k].words = make([]uint8, words)
		}
	}
	port := map[string]int{}
	for i, p := range d.Ports {
		port[p.Name] = i
	}
	type lane struct {
		re, we       bool
		raddr, waddr int
		wdata        uint8
		wmask        [2]bool
	}
	for cycle := range 400 {
		var in [64]lane
		for l := range in {
			if l >= 32 && cycle%2 == 0 {
				in[l] = in[l-32]
				continue
			}
			in[l] = lane{re: r.IntN(3) > 0, raddr: r.IntN(8), we: r.IntN(2) > 0, waddr: r.IntN(8),
				wdata: uint8(r.Uint32()), wmask: [2]bool{r.IntN(2) > 0, r.IntN(2) > 0}}
			if r.IntN(4) == 0 { // read after write, same address
				in[l].raddr = in[l].waddr
			}
		}
		set := func(name string, w int, f func(l lane) int) {
			words := make([]uint64, w)
			for l, x := range in {
				for i := range w {
					words[i] |= uint64(f(x)>>i&1) << l
				}
			}
			s.SetInput(port[name], words)
		}
		b2i := func(b bool) int {
			if b {
				return 1
			}
			return 0
		}
		set("re_i", 1, func(x lane) int { return b2i(x.re) })
		set("raddr_i", 3, func(x lane) int { return x.raddr })
		set("we_i", 1, func(x lane) int { return b2i(x.we) })
		set("waddr_i", 3, func(x lane) int { return x.waddr })
		set("wdata_i", 8, func(x lane) int { return int(x.wdata) })
		set("wmask_i", 2, func(x lane) int { return b2i(x.wmask[0]) | b2i(x.wmask[1])<<1 })
		s.Eval()
		s.Step()
		s.Eval()
		for l, x := range in {
			ref[l][0].edge(x.re, x.raddr, x.we, x.waddr, x.wdata, x.wmask)
			ref[l][1].edge(!x.re, 7&^last[l], x.we, x.waddr, x.wdata^0x5a, [2]bool{x.wmask[1], x.wmask[0]})
			last[l] = x.raddr
		}
		for k, name := range []string{"rdata0_o", "rdata1_o"} {
			out := make([]uint64, 8)
			s.Output(port[name], out)
			for l := range 64 {
				got := 0
				for i := range 8 {
					got |= int(out[i]>>l&1) << i
				}
				if want := int(ref[l][k].rdata); got != want {
					t.Fatalf("cycle %d lane %d: %s = %#x, want %#x", cycle, l, name, got, want)
				}
			}
		}
		for w := range words {
			for bit := range 8 {
				lanes := s.MemoryBit(1, w, bit)
				for l := range 64 {
					if got, want := lanes>>l&1, uint64(ref[l][1].words[w]>>bit&1); got != want {
						t.Fatalf("cycle %d lane %d: bank1 word %d bit %d = %d, want %d", cycle, l, w, bit, got, want)
					}
				}
			}
		}
	}
}

// TestBuild_MemoryKeepsInputsLive: logic that only drives a memory input
// survives dead-gate removal, and the built design passes Check with
// its nets renumbered.
func TestBuild_MemoryKeepsInputsLive(t *testing.T) {
	d := mustBuild(t, twoBanks(6))
	m := d.Memories[1]
	driven := map[Net]bool{}
	for _, g := range d.Gates {
		driven[g.Out] = true
	}
	for _, n := range append(append(Bus{}, m.RAddr...), m.WData[1], m.WData[3]) { // XOR with 0x5a's ones
		if !driven[n] {
			t.Errorf("bank1 input net %d is not driven by a gate: its logic was removed", n)
		}
	}
	if m.RE < firstFree || !driven[m.RE] {
		t.Errorf("bank1 RE %d is not the inverter of re_i", m.RE)
	}
	// Read data are numbered after the inputs, before the gates.
	if got, want := d.Memories[0].RData[0], Net(2+1+3+1+3+8+2+1); got != want {
		t.Errorf("bank0 RData[0] = %d, want %d", got, want)
	}
}

// TestCheck_MemoryReadDataAreSources: a loop through a memory (its read
// data feed its own address) is no combinational cycle, while a gate
// that drives read data, or an undriven memory input, is an error.
func TestCheck_MemoryReadDataAreSources(t *testing.T) {
	b := NewBuilder("loop")
	b.Clock("clk", "")
	q := b.Memory("m", "bank", 2, 1, 1, "")
	b.MemoryPorts("m", Const1, Bus{b.Not(q[0])}, Const1, Bus{q[0]}, Bus{b.Not(q[0])}, Bus{Const1})
	b.Output("q_o", q, "")
	d := mustBuild(t, b)
	if len(d.Gates) != 1 {
		t.Fatalf("%d gates, want the one inverter", len(d.Gates))
	}
	bad := *d
	bad.Gates = append([]Gate{{Kind: BUF, In: []Net{Const0}, Out: d.Memories[0].RData[0]}}, d.Gates...)
	if err := bad.Check(); err == nil || !strings.Contains(err.Error(), "more than one driver") {
		t.Errorf("a gate driving read data: %v", err)
	}
	bad = *d
	bad.Memories = []Memory{d.Memories[0]}
	bad.Memories[0].WE = Net(d.NumNets)
	bad.NumNets++
	if err := bad.Check(); err == nil || !strings.Contains(err.Error(), "undriven") {
		t.Errorf("an undriven write enable: %v", err)
	}
}

// TestBuild_MemoryErrors: each way of misusing the memory builder fails
// with its own message.
func TestBuild_MemoryErrors(t *testing.T) {
	for _, c := range []struct {
		name, want string
		f          func(b *Builder)
	}{
		{"no ports", "has no ports", func(b *Builder) {
			b.Clock("clk", "")
			b.Output("q", b.Memory("m", "bank", 4, 8, 1, ""), "")
		}},
		{"no clock", "clock", func(b *Builder) {
			q := b.Memory("m", "bank", 4, 8, 1, "")
			b.MemoryPorts("m", Const1, Const(0, 2), Const0, Const(0, 2), Const(0, 8), Const(0, 1))
			b.Output("q", q, "")
		}},
		{"address width", "addresses", func(b *Builder) {
			b.Clock("clk", "")
			b.Memory("m", "bank", 5, 8, 1, "")
			b.MemoryPorts("m", Const1, Const(0, 2), Const0, Const(0, 2), Const(0, 8), Const(0, 1))
		}},
		{"data width", "write data", func(b *Builder) {
			b.Clock("clk", "")
			b.Memory("m", "bank", 4, 8, 1, "")
			b.MemoryPorts("m", Const1, Const(0, 2), Const0, Const(0, 2), Const(0, 7), Const(0, 1))
		}},
		{"mask width", "write mask", func(b *Builder) {
			b.Clock("clk", "")
			b.Memory("m", "bank", 4, 8, 2, "")
			b.MemoryPorts("m", Const1, Const(0, 2), Const0, Const(0, 2), Const(0, 8), Const(0, 1))
		}},
		{"mask granule", "multiple of the mask", func(b *Builder) {
			b.Clock("clk", "")
			b.Memory("m", "bank", 4, 8, 3, "")
		}},
		{"duplicate", "declared twice", func(b *Builder) {
			b.Clock("clk", "")
			b.Memory("m", "bank", 4, 8, 1, "")
			b.Memory("m", "bank", 4, 8, 1, "")
		}},
		{"unknown", "no such memory", func(b *Builder) {
			b.Clock("clk", "")
			b.MemoryPorts("m", Const1, Const(0, 2), Const0, Const(0, 2), Const(0, 8), Const(0, 1))
		}},
		{"two modules", "one bank module", func(b *Builder) {
			b.Clock("clk", "")
			for i, geom := range [][2]int{{4, 8}, {2, 8}} {
				name := []string{"m0", "m1"}[i]
				b.Memory(name, "bank", geom[0], geom[1], 1, "")
				a := MemoryAddrBits(geom[0])
				b.MemoryPorts(name, Const1, Const(0, a), Const0, Const(0, a), Const(0, 8), Const(0, 1))
			}
		}},
	} {
		b := NewBuilder("bad")
		c.f(b)
		_, err := b.Build()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

func TestMemoryAddrBits(t *testing.T) {
	for words, want := range map[int]int{1: 1, 2: 1, 3: 2, 4: 2, 5: 3, 1536: 11, 2048: 11, 2049: 12} {
		if got := MemoryAddrBits(words); got != want {
			t.Errorf("MemoryAddrBits(%d) = %d, want %d", words, got, want)
		}
	}
}

// sharedBanks is a 48 KB memory as the shared-memory unit will place it:
// 32 banks of 1536 words x 32 bits with a byte mask, each bank's ports
// driven from inputs of its own, and every read data an output.
func sharedBanks(tb testing.TB) *Design {
	b := NewBuilder("banks")
	b.Clock("clk", "")
	for k := range 32 {
		name := "bank" + string(rune('a'+k%26)) + string(rune('0'+k/26))
		a := MemoryAddrBits(1536)
		re, raddr := b.Input(name+"_re", 1, ""), b.Input(name+"_raddr", a, "")
		we, waddr := b.Input(name+"_we", 1, ""), b.Input(name+"_waddr", a, "")
		wdata, wmask := b.Input(name+"_wdata", 32, ""), b.Input(name+"_wmask", 4, "")
		q := b.Memory(name, "bank_1536x32", 1536, 32, 4, "")
		b.MemoryPorts(name, re[0], raddr, we[0], waddr, wdata, wmask)
		b.Output(name+"_rdata", q, "")
	}
	return mustBuild(tb, b)
}

// benchBanks clocks sharedBanks with a read and a write at every bank
// every cycle, at random addresses; alike says whether all 64 lanes carry
// the same stimulus (one group per port) or each its own (64 groups).
func benchBanks(b *testing.B, alike bool) {
	d := sharedBanks(b)
	s := NewSim(d)
	r := rand.New(rand.NewPCG(3, 4))
	const cycles = 64
	stim := make([][][]uint64, cycles) // cycle, input port index, bit
	for c := range stim {
		for _, p := range d.Ports {
			w := make([]uint64, p.Width())
			for i := range w {
				w[i] = r.Uint64()
				if alike && w[i]&1 == 1 {
					w[i] = ^uint64(0)
				} else if alike {
					w[i] = 0
				}
			}
			if strings.HasSuffix(p.Name, "_re") || strings.HasSuffix(p.Name, "_we") {
				w[0] = ^uint64(0)
			}
			stim[c] = append(stim[c], w)
		}
	}
	c := 0
	for b.Loop() {
		for p := range d.Ports {
			if d.Ports[p].Dir == In {
				s.SetInput(p, stim[c%cycles][p])
			}
		}
		s.Eval()
		s.Step()
		c++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cycles/s")
}

func BenchmarkSim_Banks32x1536x32_LanesAlike(b *testing.B)    { benchBanks(b, true) }
func BenchmarkSim_Banks32x1536x32_LanesDistinct(b *testing.B) { benchBanks(b, false) }

// TestInstance_RefusesMemories: a design with memories is not copied
// into another as an instance (its banks would be lost in the copy).
func TestInstance_RefusesMemories(t *testing.T) {
	sub := mustBuild(t, twoBanks(6))
	b := NewBuilder("parent")
	b.Instance("u", sub, map[string]Bus{})
	if _, err := b.Build(); err == nil || !strings.Contains(err.Error(), "memories") {
		t.Errorf("instance of a design with memories: %v", err)
	}
}
