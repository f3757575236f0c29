package model

import (
	"testing"

	"github.com/lsugen/lsugen/specs"
)

// regXor is a configurable bitvector_xor with config = "register": 16
// address bits, 4 bank bits, S = 4.
func regXor(t *testing.T) Sequential {
	t.Helper()
	h := &specs.Hash{Name: "r", Function: specs.BitvectorXor, AddrBits: 16, BankBits: 4,
		Configurable: true, Config: specs.ConfigRegister}
	m, err := ForHashRegister(h)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// cycle runs one cycle of a regXor model and returns bank_o.
func cycle(m Sequential, rst, we, addr, k1, k2, mask uint64) uint64 {
	in := [][]uint64{{rst}, {we}, {addr}, {k1}, {k2}, {mask}}
	out := [][]uint64{{0}}
	m.Cycle(in, out)
	return out[0][0]
}

func TestHashRegister_Ports(t *testing.T) {
	want := []Port{{"rst", 1, false}, {"cfg_we_i", 1, false}, {"addr_i", 16, false},
		{"cfg_k1_i", 4, false}, {"cfg_k2_i", 4, false}, {"cfg_mask_i", 4, false}, {"bank_o", 4, true}}
	got := regXor(t).Ports()
	if len(got) != len(want) {
		t.Fatalf("ports %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("port %d is %v, want %v", i, got[i], want[i])
		}
	}
	rap, err := ForHashRegister(&specs.Hash{Name: "r", Function: specs.RAP, AddrBits: 6, BankBits: 2, W: 4,
		Configurable: true, Config: specs.ConfigRegister})
	if err != nil {
		t.Fatal(err)
	}
	names := ""
	for _, p := range rap.Ports() {
		names += p.Name + " "
	}
	if names != "rst cfg_we_i addr_i cfg_perm_i bank_o addr_o " {
		t.Errorf("rap ports %q", names)
	}
	if _, err := ForHashRegister(&specs.Hash{Name: "c", Function: specs.FixedXor, AddrBits: 8, BankBits: 4}); err == nil {
		t.Error("a constant hash has no register model")
	}
}

func TestHashRegister_LoadThenUse(t *testing.T) {
	m := regXor(t)
	m.Reset()
	// Load k1 = 4, k2 = 8, mask = 0xf; addresses that cycle are hashed with
	// the old (zero) configuration: bank = addr & 0xf.
	if got := cycle(m, 0, 1, 0x1234, 4, 8, 0xf); got != 0x4 {
		t.Errorf("writing cycle: bank %#x, want %#x (old configuration)", got, 0x4)
	}
	// Now bank = ((a >> 4) ^ (a >> 8)) & 0xf, with junk on the cfg ports.
	if got, want := cycle(m, 0, 0, 0x1234, 1, 2, 3), uint64((0x123^0x12)&0xf); got != want {
		t.Errorf("after the write: bank %#x, want %#x", got, want)
	}
}

func TestHashRegister_ResetClears(t *testing.T) {
	m := regXor(t)
	m.Reset()
	cycle(m, 0, 1, 0, 4, 8, 0xf)
	// A reset cycle still uses the loaded configuration, then clears it,
	// whatever cfg_we_i says.
	if got, want := cycle(m, 1, 1, 0x1234, 3, 3, 3), uint64((0x123^0x12)&0xf); got != want {
		t.Errorf("reset cycle: bank %#x, want %#x", got, want)
	}
	if got := cycle(m, 0, 0, 0x1234, 4, 8, 0xf); got != 0x4 {
		t.Errorf("after reset: bank %#x, want %#x (zero configuration)", got, 0x4)
	}
}

func TestHashRegister_NoWriteKeeps(t *testing.T) {
	m := regXor(t)
	m.Reset()
	cycle(m, 0, 1, 0, 4, 0, 0)
	for i := range 5 {
		// cfg_we_i = 0: the cfg inputs are ignored.
		if got := cycle(m, 0, 0, 0xabcd, uint64(i), uint64(i+1), 0xf); got != 0xc {
			t.Errorf("cycle %d: bank %#x, want 0xc (k1 = 4 kept)", i, got)
		}
	}
}

func TestHashRegister_WriteReadSameCycle(t *testing.T) {
	m := regXor(t)
	m.Reset()
	cycle(m, 0, 1, 0, 4, 0, 0) // k1 = 4
	// Back-to-back writes: each cycle sees the configuration of the
	// previous write.
	if got := cycle(m, 0, 1, 0xabcd, 8, 0, 0); got != 0xc {
		t.Errorf("second write: bank %#x, want 0xc (k1 = 4)", got)
	}
	if got := cycle(m, 0, 1, 0xabcd, 12, 0, 0); got != 0xb {
		t.Errorf("third write: bank %#x, want 0xb (k1 = 8)", got)
	}
	if got := cycle(m, 0, 0, 0xabcd, 0, 0, 0); got != 0xa {
		t.Errorf("after: bank %#x, want 0xa (k1 = 12)", got)
	}
}
