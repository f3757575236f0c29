package model_test

import (
	"math/rand/v2"
	"testing"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/tools/accelsim"
	"github.com/lsugen/lsugen/tools/conflicts"
)

// TestSharedMemory_AgreesWithConflicts compares the model's passes with
// what `lsugen conflicts` predicts (tools/accelsim's phases, counted by
// tools/conflicts; no code shared with the model) for 32-lane loads and
// stores at every width under the Fermi example's XOR hash, 32 four-byte
// banks mod 32 and 32 eight-byte banks. (The two cost models agree where
// a warp is no wider than the banks; with more lanes than banks the
// protocol serves a narrow access in phases of N lanes, `conflicts` in
// one.)
func TestSharedMemory_AgreesWithConflicts(t *testing.T) {
	file, diags := specs.NewLoader().Load("../specs/testdata/shared_memory.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var fermi *specs.SharedMemory
	for _, u := range file.Units {
		if u.UnitName() == "shmem_fermi" {
			fermi = u.(*specs.SharedMemory)
		}
	}
	hashMap, err := conflicts.HashUnit(fermi.Hash.Hash())
	if err != nil {
		t.Fatal(err)
	}
	mod32, _ := conflicts.Modulo(32)
	all := []specs.ShmemOp{specs.ShmemAdd}
	cases := []struct {
		u *specs.SharedMemory
		m conflicts.Mapping
	}{
		{fermi, hashMap},
		{&specs.SharedMemory{Name: "m4", Lanes: 32, Bytes: 16384, BankBytes: 4, Banks: 32, Widths: []int{32, 64, 128}, Atomics: all}, mod32},
		{&specs.SharedMemory{Name: "m8", Lanes: 32, Bytes: 16384, BankBytes: 8, Banks: 32, Widths: []int{32, 64, 128}, Atomics: all}, mod32},
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for _, c := range cases {
		m, err := model.NewSharedMemory(c.u)
		if err != nil {
			t.Fatal(err)
		}
		counter := conflicts.NewCounter(c.m)
		var in, out [][]uint64
		for _, p := range m.Ports() {
			v := make([]uint64, (p.Width+63)/64)
			if p.Output {
				out = append(out, v)
			} else {
				in = append(in, v)
			}
		}
		m.Reset()
		A := c.u.AddrBits()
		var phases [][]uint64
		for it := 0; it < 3000; it++ {
			wc := specs.ShmemWidth(rng.IntN(3))
			n := wc.Bits() / 8
			mask := uint32(rng.Uint64())
			if rng.IntN(3) == 0 {
				mask = ^uint32(0)
			}
			stride := []int{0, 1, 2, 3, 8, 16, 17, 32, 33}[rng.IntN(9)] * n
			base := rng.IntN(c.u.Bytes/n) * n
			acc := accelsim.WarpAccess{Mask: mask, Width: n}
			for _, v := range in {
				clear(v)
			}
			in[1][0], in[2][0], in[3][0], in[4][0], in[8][0] = 1, uint64(rng.IntN(2)), uint64(wc), uint64(mask), 1
			for i := 0; i < 32; i++ {
				a := (base + i*stride) % c.u.Bytes
				if rng.IntN(6) == 0 {
					a = rng.IntN(c.u.Bytes/n) * n
				}
				if mask>>i&1 == 1 {
					acc.Addrs = append(acc.Addrs, uint64(a))
				}
				for k := 0; k < A; k++ {
					in[5][(i*A+k)/64] |= uint64(a>>k&1) << ((i*A + k) % 64)
				}
			}
			phases, err = accelsim.Phases(&acc, c.u.BankBytes, c.m.Size, phases)
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			for _, ph := range phases {
				want += counter.Degree(ph)
			}
			want = max(want, 1)
			// Run to the response.
			got := -1
			for cyc := 0; cyc < 200 && got < 0; cyc++ {
				m.Cycle(in, out)
				if out[0][0] == 1 {
					in[1][0] = 0
				}
				if out[1][0] == 1 {
					got = int(out[5][0])
				}
			}
			if got != want {
				t.Fatalf("%s: %d-bit access, mask %08x, addresses %v: %d passes, conflicts says %d", c.u.Name, wc.Bits(), mask, acc.Addrs, got, want)
			}
		}
	}
}
