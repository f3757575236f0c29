package verify

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/rtl"
)

// memWords is the depth of membanksDesign's banks: not a power of two, so
// that addresses 6 and 7 read 0 and are not written.
const memWords = 6

// membanksDesign is a clocked design with two memory macros of 6 words x 8
// bits and a 2-bit mask, built with netlist.Builder in both views:
//
//	inputs  clk, rst, re_i, raddr_i[3], we_i, waddr_i[3], wdata_i[8], wmask_i[2]
//	outputs rdata0_o[8] = rv ? bank0's read data : 0
//	        rdata1_o[8] = rv ? bank1's read data : 0
//
// bank0 takes the ports as they are; bank1 reads at ~last (last: the read
// address of the cycle before, reset to 0) and writes wdata_i ^ 0x5a
// with the mask's bits swapped. rv (reset to 0) turns 1 at the first
// read. rst leaves the banks alone.
func membanksDesign(t testing.TB) *netlist.Design {
	b := netlist.NewBuilder("membanks")
	b.Header("Two memory macros behind a little logic, for the lockstep harness.")
	b.Clock("clk", "clock")
	rst := b.Input("rst", 1, "synchronous reset")[0]
	re := b.Input("re_i", 1, "read enable")[0]
	raddr := b.Input("raddr_i", 3, "read address")
	we := b.Input("we_i", 1, "write enable")[0]
	waddr := b.Input("waddr_i", 3, "write address")
	wdata := b.Input("wdata_i", 8, "write data")
	wmask := b.Input("wmask_i", 2, "write mask")
	const module = "membank_6x8"
	r0 := b.Memory("bank0", module, memWords, 8, 2, "the ports as they are")
	r1 := b.Memory("bank1", module, memWords, 8, 2, "the last read address inverted")
	b.MemoryPorts("bank0", re, raddr, we, waddr, wdata, wmask)
	last, rv := b.Reg("last", 3), b.Reg("rv", 1)
	b.NextClear(last, raddr, rst)
	b.NextClear(rv, netlist.Bus{b.Or(rv[0], re)}, rst)
	inv := netlist.Bus{b.Not(last[0]), b.Not(last[1]), b.Not(last[2])}
	wd1 := make(netlist.Bus, 8)
	for i := range wd1 {
		wd1[i] = b.Xor(wdata[i], netlist.Const(0x5a, 8)[i])
	}
	b.MemoryPorts("bank1", re, inv, we, waddr, wd1, netlist.Bus{wmask[1], wmask[0]})
	gate := func(q netlist.Bus) netlist.Bus {
		out := make(netlist.Bus, len(q))
		for i := range q {
			out[i] = b.And(q[i], rv[0])
		}
		return out
	}
	b.Output("rdata0_o", gate(r0), "bank 0's read data once a read happened")
	b.Output("rdata1_o", gate(r1), "bank 1's read data once a read happened")

	ref := netlist.Ref
	bank := func(name string, raddr, wdata, wmask *netlist.Expr) netlist.Assign {
		return netlist.Assign{Name: name, Doc: "memory " + name, Inst: &netlist.InstanceRTL{Module: module, Ports: []netlist.PortConn{
			{Port: "clk", In: ref("clk", 1), W: 1},
			{Port: "re_i", In: ref("re_i", 1), W: 1},
			{Port: "raddr_i", In: raddr, W: 3},
			{Port: "rdata_o", Wire: name + "_rdata", W: 8},
			{Port: "we_i", In: ref("we_i", 1), W: 1},
			{Port: "waddr_i", In: ref("waddr_i", 3), W: 3},
			{Port: "wdata_i", In: wdata, W: 8},
			{Port: "wmask_i", In: wmask, W: 2},
		}}}
	}
	wm := ref("wmask_i", 2)
	rvMask := netlist.Concat(ref("rv", 1), ref("rv", 1), ref("rv", 1), ref("rv", 1), ref("rv", 1), ref("rv", 1), ref("rv", 1), ref("rv", 1))
	b.SetRTL(&netlist.RTL{
		Regs: []netlist.Reg{
			{Name: "last", Width: 3, Clear: ref("rst", 1), Next: ref("raddr_i", 3), Doc: "the last read address"},
			{Name: "rv", Width: 1, Clear: ref("rst", 1), Next: netlist.OrE(ref("rv", 1), ref("re_i", 1)), Doc: "a read happened"},
		},
		Assigns: []netlist.Assign{
			bank("bank0", ref("raddr_i", 3), ref("wdata_i", 8), wm),
			bank("bank1", netlist.NotE(ref("last", 3)), netlist.XorE(ref("wdata_i", 8), netlist.ConstExpr(0x5a, 8)),
				netlist.Concat(netlist.Slice(wm, 1, 1), netlist.Slice(wm, 0, 0))),
			{Name: "rdata0_o", Expr: netlist.AndE(ref("bank0_rdata", 8), rvMask)},
			{Name: "rdata1_o", Expr: netlist.AndE(ref("bank1_rdata", 8), rvMask)},
		},
	})
	d, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// membanksModel is membanksDesign in Go, the memories word by word.
type membanksModel struct {
	mem      [2][memWords]uint64
	rd       [2]uint64
	last     uint64
	rv       bool
	readLate bool // a bug for the harness to find: read-after-write sees the new word
}

func (m *membanksModel) Ports() []model.Port {
	return []model.Port{
		{Name: "rst", Width: 1}, {Name: "re_i", Width: 1}, {Name: "raddr_i", Width: 3}, {Name: "we_i", Width: 1},
		{Name: "waddr_i", Width: 3}, {Name: "wdata_i", Width: 8}, {Name: "wmask_i", Width: 2},
		{Name: "rdata0_o", Width: 8, Output: true}, {Name: "rdata1_o", Width: 8, Output: true},
	}
}

func (m *membanksModel) Reset() { m.last, m.rv = 0, false }

func (m *membanksModel) Cycle(in, out [][]uint64) {
	rst, re, raddr, we, waddr, wdata, wmask := in[0][0]&1, in[1][0]&1, in[2][0]&7, in[3][0]&1, in[4][0]&7, in[5][0]&0xff, in[6][0]&3
	for k := range 2 {
		out[k][0] = 0
		if m.rv {
			out[k][0] = m.rd[k]
		}
	}
	ra := [2]uint64{raddr, ^m.last & 7}
	wd := [2]uint64{wdata, wdata ^ 0x5a}
	wm := [2]uint64{wmask, wmask>>1 | wmask&1<<1}
	for k := range 2 {
		write := func() {
			if we == 1 && waddr < memWords {
				for j := range 2 {
					if wm[k]>>j&1 == 1 {
						f := uint64(0xf) << (4 * j)
						m.mem[k][waddr] = m.mem[k][waddr]&^f | wd[k]&f
					}
				}
			}
		}
		if m.readLate {
			write()
		}
		if re == 1 {
			m.rd[k] = 0
			if ra[k] < memWords {
				m.rd[k] = m.mem[k][ra[k]]
			}
		}
		if !m.readLate {
			write()
		}
	}
	if rst == 1 {
		m.Reset()
		return
	}
	m.last, m.rv = raddr, m.rv || re == 1
}

// membanksStim is RandomStimulus after memWords cycles that write every
// word of both banks whole (the Verilog words start X); every fourth
// later cycle reads the address it writes.
type membanksStim struct {
	Stimulus
	n int
}

func (s *membanksStim) Next(in [][]uint64) {
	s.Stimulus.Next(in)
	if s.n < memWords {
		in[0][0], in[1][0], in[3][0], in[4][0], in[6][0] = 0, 0, 1, uint64(s.n), 3
	} else if s.n%4 == 0 {
		in[2][0] = in[4][0]
	}
	s.n++
}

func membanksJob(t testing.TB, m *membanksModel) Job {
	d := membanksDesign(t)
	dir := t.TempDir()
	files, err := rtl.Files(d, rtl.Info{Version: "lsugen test", Source: "verify/memdesign_test.go"})
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rtlFiles, gateFiles := rtl.Sources(d)
	var srcs []string
	for _, f := range append(rtlFiles, gateFiles...) { // the bank file twice: the bench reads it once
		srcs = append(srcs, filepath.Join(dir, f))
	}
	return Job{
		Design: d, Seq: m, Dir: dir, Sources: srcs,
		Modules: []string{d.Name, rtl.GatesModuleName(d)},
		Stimulus: func(ports []model.Port, seed uint64) (Stimulus, error) {
			r, err := RandomStimulus(ports, seed)
			return &membanksStim{Stimulus: r}, err
		},
	}
}

// TestSequential_MemoryMacros runs the two-bank design on every engine in
// lockstep with its Go model: the netlist simulator's memories, the bank
// module under Icarus and Verilator, both views; and a model that reads
// after the write of the same edge is caught on each.
func TestSequential_MemoryMacros(t *testing.T) {
	engines := allSeqEngines(t)
	for _, bug := range []bool{false, true} {
		job := membanksJob(t, &membanksModel{readLate: bug})
		res, err := RunSequential(context.Background(), job, SeqPlan{Cycles: 5000, Seed: 5}, engines)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Checks) != len(engines) {
			t.Fatalf("%d checks, want %d", len(res.Checks), len(engines))
		}
		for _, c := range res.Checks {
			if bug && c.Mismatch == nil {
				t.Errorf("%s: the read-after-write bug went unseen", c.Engine)
			}
			if !bug && c.Mismatch != nil {
				t.Errorf("%s: %s", c.Engine, c.Mismatch)
			}
			t.Logf("bug %v, %s: %d cycles in %v", bug, c.Engine, c.Vectors, c.Elapsed)
		}
	}
}
