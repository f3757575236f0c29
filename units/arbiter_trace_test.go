package units

import (
	"path/filepath"
	"testing"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/tools/conflicts"
	"github.com/lsugen/lsugen/tools/trace"
)

// TestArbiter_AgreesWithConflicts runs every warp access of the traces in
// specs/traces/ through the generated Fermi-like arbiter of
// specs/locks_002.hcl (simulated at gate level) and through lsugen
// conflicts' counter under the same bank and lock hash units: degree_o,
// lock_degree_o and position_degree_o must equal the degrees conflicts
// reports, access by access.
func TestArbiter_AgreesWithConflicts(t *testing.T) {
	file, diags := specs.NewLoader().Load("../specs/locks_002.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var arb *specs.BankArbiter
	for _, u := range file.Units {
		if a, ok := u.(*specs.BankArbiter); ok && a.Name == "fermi_arbiter" {
			arb = a
		}
	}
	if arb == nil {
		t.Fatal("specs/locks_002.hcl declares no bank_arbiter fermi_arbiter")
	}
	d, gd := Generate(arb)
	if gd.HasErrors() {
		t.Fatal(gd)
	}
	banks, err := conflicts.HashUnit(arb.Hash.Hash())
	if err != nil {
		t.Fatal(err)
	}
	locks, err := conflicts.HashUnit(arb.LockHash.Hash())
	if err != nil {
		t.Fatal(err)
	}
	bankC, lockC := conflicts.NewCounter(banks), conflicts.NewCounter(locks)

	paths, err := filepath.Glob("../specs/traces/*.trace")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no traces: %v", err)
	}
	var accesses []trace.Access
	for _, p := range paths {
		tr, err := trace.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		accesses = append(accesses, tr.Accesses...)
	}
	sim := newArbiterSim(t, d, arb)
	checked := 0
	for start := 0; start < len(accesses); start += 64 {
		batch := accesses[start:min(start+64, len(accesses))]
		got := sim.run(t, batch)
		for i, a := range batch {
			want := [3]int{bankC.Degree(a.Addrs), lockC.Degree(a.Addrs), lockC.PositionDegree(a.Addrs)}
			if got[i] != want {
				t.Errorf("line %d (%s): arbiter degree, lock degree, position degree = %v, conflicts = %v", a.Line, a.Instr, got[i], want)
			}
			checked++
		}
	}
	if checked < 100 {
		t.Errorf("only %d accesses checked", checked)
	}
	t.Logf("%d accesses from %d traces agree", checked, len(paths))
}

// arbiterSim drives a combinational arbiter's netlist with up to 64
// accesses at once (one per simulator lane).
type arbiterSim struct {
	s                      *netlist.Sim
	d                      *netlist.Design
	a                      *specs.BankArbiter
	addr, active           int
	degree, lock, position int
}

func newArbiterSim(t *testing.T, d *netlist.Design, a *specs.BankArbiter) *arbiterSim {
	as := &arbiterSim{s: netlist.NewSim(d), d: d, a: a}
	idx := func(name string) int {
		for i, p := range d.Ports {
			if p.Name == name {
				return i
			}
		}
		t.Fatalf("%s has no port %s", d.Name, name)
		return -1
	}
	as.addr, as.active = idx("addr_i"), idx("active_i")
	as.degree, as.lock, as.position = idx("degree_o"), idx("lock_degree_o"), idx("position_degree_o")
	return as
}

func (as *arbiterSim) run(t *testing.T, batch []trace.Access) [][3]int {
	A, L := as.a.AddrBits, as.a.Lanes
	addr := make([]uint64, L*A)
	active := make([]uint64, L)
	for v, acc := range batch {
		if len(acc.Addrs) > L {
			t.Fatalf("line %d: %d addresses for a %d-lane arbiter", acc.Line, len(acc.Addrs), L)
		}
		for k, x := range acc.Addrs {
			if x>>uint(A) != 0 {
				t.Fatalf("line %d: address %#x is wider than the arbiter's %d bits", acc.Line, x, A)
			}
			active[k] |= 1 << uint(v)
			for b := 0; b < A; b++ {
				addr[k*A+b] |= (x >> uint(b) & 1) << uint(v)
			}
		}
	}
	as.s.SetInput(as.addr, addr)
	as.s.SetInput(as.active, active)
	as.s.Eval()
	out := make([][3]int, len(batch))
	for j, port := range []int{as.degree, as.lock, as.position} {
		words := make([]uint64, as.d.Ports[port].Width())
		as.s.Output(port, words)
		for v := range batch {
			for b, w := range words {
				out[v][j] |= int(w>>uint(v)&1) << uint(b)
			}
		}
	}
	return out
}
