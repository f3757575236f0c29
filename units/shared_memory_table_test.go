package units

import (
	"fmt"
	"slices"
	"testing"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
)

// shmSim drives a generated shared memory on the netlist simulator, lane
// 0 of its 64, port by port.
type shmSim struct {
	t    *testing.T
	d    *netlist.Design
	s    *netlist.Sim
	port map[string]int
	in   map[int][]uint64 // input ports: one word per bit, lane 0
	A, W int
}

func newShmSim(t *testing.T, u *specs.SharedMemory) *shmSim {
	t.Helper()
	b, diags := Build(u)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	r := &shmSim{t: t, d: b.Design, s: netlist.NewSim(b.Design), port: map[string]int{}, in: map[int][]uint64{}, A: u.AddrBits(), W: u.MaxWidth()}
	for i, p := range b.Design.Ports {
		r.port[p.Name] = i
	}
	r.set("rst", 0, 1, 1)
	r.s.Eval()
	r.s.Step()
	r.set("rst", 0, 1, 0)
	return r
}

// set writes n bits of x at bit lo of input port name (lane 0).
func (r *shmSim) set(name string, lo, n int, x uint64) {
	p := r.port[name]
	if r.in[p] == nil {
		r.in[p] = make([]uint64, r.d.Ports[p].Width())
	}
	for k := 0; k < n; k++ {
		r.in[p][lo+k] = x >> k & 1
	}
	r.s.SetInput(p, r.in[p])
}

// get reads n bits at bit lo of output port name.
func (r *shmSim) get(name string, lo, n int) uint64 {
	bits := r.d.Ports[r.port[name]].Bits
	var x uint64
	for k := 0; k < n; k++ {
		x |= (r.s.Net(bits[lo+k]) & 1) << k
	}
	return x
}

type shmOp struct {
	op     specs.ShmemOp
	wc     specs.ShmemWidth
	addr   []int
	data32 uint64 // every lane's data
}

type shmOut struct {
	cycle, passes int
	err           bool
	lane          []uint64 // low 64 bits of each lane's field
}

// run offers ops back to back with rsp_ready_i high and returns the cycle
// each was accepted in and the responses.
func (r *shmSim) run(ops []shmOp, lanes int) (acc []int, out []shmOut) {
	next := 0
	for cycle := 0; cycle < 5000 && (next < len(ops) || len(out) < len(acc)); cycle++ {
		valid := uint64(0)
		if next < len(ops) {
			o := ops[next]
			valid = 1
			r.set("req_op_i", 0, 4, uint64(o.op))
			r.set("req_width_i", 0, 2, uint64(o.wc))
			r.set("req_active_i", 0, lanes, 1<<lanes-1)
			for i := 0; i < lanes; i++ {
				r.set("req_addr_i", i*r.A, r.A, uint64(o.addr[i]))
				r.set("req_data_i", i*r.W, 32, o.data32)
			}
		}
		r.set("req_valid_i", 0, 1, valid)
		r.set("rsp_ready_i", 0, 1, 1)
		r.s.Eval()
		if r.get("rsp_valid_o", 0, 1) == 1 {
			o := shmOut{cycle: cycle, passes: int(r.get("rsp_passes_o", 0, r.d.Port("rsp_passes_o").Width())), err: r.get("rsp_error_o", 0, 1) == 1}
			for i := 0; i < lanes; i++ {
				o.lane = append(o.lane, r.get("rsp_data_o", i*r.W, 32))
			}
			out = append(out, o)
		}
		if valid == 1 && r.get("req_ready_o", 0, 1) == 1 {
			acc = append(acc, cycle)
			next++
		}
		r.s.Step()
	}
	return acc, out
}

// TestSharedMemory_UnitPassTable holds the generated unit (not the model)
// to issue 29's table: 32 lanes, 32 four-byte banks, mod 32, all lanes
// active; rsp_passes_o of each instruction and the cycle of its response,
// T0 + (P0 + ... + Pk) - 1 + L with L = 3, back to back from an idle
// unit; and 32 lanes adding 1 to one word return 0..31 and leave 32.
// The unit with the pipelined front end of clock_fo4 (two instruction
// buffers) is held to the same table, latency included.
func TestSharedMemory_UnitPassTable(t *testing.T) {
	for _, clock := range []float64{0, 1000} {
		t.Run(fmt.Sprintf("clock_fo4=%g", clock), func(t *testing.T) { unitPassTable(t, clock) })
	}
}

func unitPassTable(t *testing.T, clock float64) {
	u := &specs.SharedMemory{Name: "shm_table", Lanes: 32, Bytes: 16384, BankBytes: 4, Banks: 32,
		Widths: []int{32, 64, 128}, Atomics: []specs.ShmemOp{specs.ShmemAdd},
		BankAccessFO4: specs.DefaultBankAccessFO4, BankSetupFO4: specs.DefaultBankSetupFO4, BankAreaPerBit: specs.DefaultBankAreaPerBit,
		Row: specs.ShmemRow{Kind: specs.RowDivide}}
	if clock > 0 {
		u.Clock = specs.Clocking{ClockFO4: clock, TimingMode: "sized"}
	}
	r := newShmSim(t, u)
	strided := func(base, stride int) []int {
		a := make([]int, 32)
		for i := range a {
			a[i] = base + i*stride
		}
		return a
	}
	// Zero the words the loads and the atomic read.
	var fill []shmOp
	for base := 0; base < 4096; base += 128 {
		fill = append(fill, shmOp{op: specs.ShmemStore, wc: specs.ShmemW32, addr: strided(base, 4)})
	}
	if acc, out := r.run(fill, 32); len(acc) != len(fill) || len(out) != len(fill) {
		t.Fatalf("fill: %d accepted, %d responses, want %d", len(acc), len(out), len(fill))
	}
	ld := func(wc specs.ShmemWidth, addr []int) shmOp { return shmOp{op: specs.ShmemLoad, wc: wc, addr: addr} }
	oneOff := make([]int, 32)
	oneOff[31] = 32 * 4
	cases := []struct {
		name string
		op   shmOp
		want int
	}{
		{"stride 4", ld(specs.ShmemW32, strided(0, 4)), 1},
		{"stride 8", ld(specs.ShmemW32, strided(0, 8)), 2},
		{"stride 16", ld(specs.ShmemW32, strided(0, 16)), 4},
		{"stride 32", ld(specs.ShmemW32, strided(0, 32)), 8},
		{"stride 64", ld(specs.ShmemW32, strided(0, 64)), 16},
		{"stride 128", ld(specs.ShmemW32, strided(0, 128)), 32},
		{"stride 132", ld(specs.ShmemW32, strided(0, 132)), 1},
		{"all lanes on one word", ld(specs.ShmemW32, strided(40, 0)), 1},
		{"31 lanes on word 0, one on word 32", ld(specs.ShmemW32, oneOff), 2},
		{"64-bit stride 8", ld(specs.ShmemW64, strided(0, 8)), 2},
		{"128-bit stride 16", ld(specs.ShmemW128, strided(0, 16)), 4},
		{"atomic add, all lanes on one word", shmOp{op: specs.ShmemAdd, wc: specs.ShmemW32, addr: strided(0, 0), data32: 1}, 32},
	}
	var ops []shmOp
	for _, c := range cases {
		ops = append(ops, c.op)
	}
	acc, out := r.run(ops, 32)
	if len(acc) != len(cases) || len(out) != len(cases) {
		t.Fatalf("%d accepted, %d responses, want %d", len(acc), len(out), len(cases))
	}
	sum := 0
	for k, c := range cases {
		sum += c.want
		if out[k].err {
			t.Errorf("%s: refused", c.name)
		}
		if out[k].passes != c.want {
			t.Errorf("%s: rsp_passes_o = %d, want %d", c.name, out[k].passes, c.want)
		}
		if want := acc[0] + sum - 1 + specs.ShmemLatency; out[k].cycle != want {
			t.Errorf("%s: response in cycle %d, want %d", c.name, out[k].cycle, want)
		}
	}
	want := make([]uint64, 32)
	for i := range want {
		want[i] = uint64(i)
	}
	if got := out[11].lane; !slices.Equal(got, want) {
		t.Errorf("atomic add returned %v, want 0..31", got)
	}
	_, out = r.run([]shmOp{ld(specs.ShmemW32, strided(0, 0))}, 32)
	if len(out) != 1 || out[0].lane[0] != 32 {
		t.Errorf("the word after 32 adds of 1: %v, want 32", out)
	}
}
