package units

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"testing"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/specs"
)

// shmExamples are the shared-memory example specs.
func shmExamples(t *testing.T) []*specs.SharedMemory {
	t.Helper()
	file, diags := specs.NewLoader().Load("../specs/testdata/shared_memory.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var out []*specs.SharedMemory
	for _, u := range file.Units {
		if m, ok := u.(*specs.SharedMemory); ok {
			out = append(out, m)
		}
	}
	if len(out) != 5 {
		t.Fatalf("%d shared memories in the examples, want 5", len(out))
	}
	return out
}

// shmRefusedIn says, from the spec alone, whether the unit must refuse
// the instruction on in (ports in the model's order).
func shmRefusedIn(u *specs.SharedMemory, in [][]uint64) bool {
	op, wc, active := specs.ShmemOp(in[2][0]&15), specs.ShmemWidth(in[3][0]&3), in[4][0]
	if op >= specs.NumShmemOps || op.Atomic() && (!u.HasAtomic(op) || wc != specs.ShmemW32) || wc.Bits() == 0 || !u.HasWidth(wc.Bits()) {
		return true
	}
	n := wc.Bits() / 8
	for i := 0; i < u.Lanes; i++ {
		if active>>i&1 == 1 {
			a := int(laneField(in[5], i*u.AddrBits(), u.AddrBits()))
			if a%n != 0 || a+n > u.Bytes {
				return true
			}
		}
	}
	return false
}

func laneField(v []uint64, lo, n int) uint64 {
	var x uint64
	for k := 0; k < n; k++ {
		i := lo + k
		x |= (v[i/64] >> (i % 64) & 1) << k
	}
	return x
}

// TestSharedMemoryStimulus_Covers drives the model of every example with
// the stimulus: no accepted load or atomic reads a byte the model does
// not know, every phase, op, width, pattern, mask kind and allowed
// refusal occurs, rsp_ready_i is low for long stretches, resets come in
// flight, and a seed gives the same stream.
func TestSharedMemoryStimulus_Covers(t *testing.T) {
	const cycles = 20000
	for _, u := range shmExamples(t) {
		t.Run(u.Name, func(t *testing.T) {
			run := func(seed uint64) (uint64, *shmStim) { return runShmStim(t, u, seed, cycles) }
			sum, s := run(7)
			if again, _ := run(7); again != sum {
				t.Error("the same seed gave another stream")
			}
			if other, _ := run(8); other == sum {
				t.Error("another seed gave the same stream")
			}
			t.Log(s.Coverage())
			check := func(what string, n int) {
				if n == 0 {
					t.Errorf("no %s", what)
				}
			}
			for o := specs.ShmemOp(0); o < specs.NumShmemOps; o++ {
				if !o.Atomic() || u.HasAtomic(o) {
					check(o.String(), s.ops[o])
				}
			}
			for c, w := range []int{32, 64, 128} {
				if u.HasWidth(w) {
					check(fmt.Sprintf("%d-bit access", w), s.widths[c])
				}
			}
			for p, n := range s.patterns {
				check(shmPatternNames[p]+" pattern", n)
			}
			check("full mask", s.fullMasks)
			check("partial mask", s.partial)
			check("one-lane mask", s.single)
			check("empty mask", s.nil0)
			for r, n := range s.refusals {
				allowed := r != shmRefAtomic && r != shmRefWidth && r != shmRefRange ||
					r == shmRefAtomic && len(u.Atomics) < len(specs.ShmemAtomics) ||
					r == shmRefWidth && len(u.Widths) < 3 ||
					r == shmRefRange && u.Bytes < 1<<u.AddrBits()
				if allowed {
					check("refusal "+shmRefusalNames[r], n)
				} else if n != 0 {
					t.Errorf("refusal %s made, but the spec cannot have it", shmRefusalNames[r])
				}
			}
			check("read made a store", s.converted)
			check("error response", s.errors)
			check("reset in flight", s.resetsBusy)
			for i := range shmNumPhases {
				if !s.ph.Seen(i) {
					t.Errorf("phase %s not seen", shmPhaseNames[i])
				}
			}
			if s.maxLowRun < 100 {
				t.Errorf("rsp_ready_i low for at most %d cycles in a row", s.maxLowRun)
			}
			if s.maxPasses < 4 {
				t.Errorf("at most %d passes", s.maxPasses)
			}
		})
	}
}

// runShmStim drives the model of u with the stimulus for cycles cycles,
// failing when an accepted load or atomic reads a byte the model does not
// know; it returns a hash of the input stream and the stimulus.
func runShmStim(t *testing.T, u *specs.SharedMemory, seed uint64, cycles int) (uint64, *shmStim) {
	t.Helper()
	m, err := model.NewSharedMemory(u)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sharedMemoryStimulus(u)(m.Ports(), seed)
	if err != nil {
		t.Fatal(err)
	}
	s := st.(*shmStim)
	var in, out [][]uint64
	for _, p := range m.Ports() {
		v := make([]uint64, (p.Width+63)/64)
		if p.Output {
			out = append(out, v)
		} else {
			in = append(in, v)
		}
	}
	h := fnv.New64a()
	var buf [8]byte
	m.Reset()
	for c := 0; c < cycles; c++ {
		for _, v := range in {
			clear(v)
		}
		s.Next(in)
		reads := false
		if in[0][0]&1 == 0 && in[1][0]&1 == 1 && !shmRefusedIn(u, in) && specs.ShmemOp(in[2][0]) != specs.ShmemStore {
			n := specs.ShmemWidth(in[3][0]).Bits() / 8
			for i := 0; i < u.Lanes; i++ {
				if in[4][0]>>i&1 == 1 && !m.Known(int(laneField(in[5], i*u.AddrBits(), u.AddrBits())), n) {
					reads = true
				}
			}
		}
		m.Cycle(in, out)
		if reads && out[0][0] == 1 {
			t.Fatalf("cycle %d: an accepted %v reads bytes never written", c, specs.ShmemOp(in[2][0]))
		}
		s.Observe(in, out)
		for _, v := range in {
			for _, w := range v {
				binary.LittleEndian.PutUint64(buf[:], w)
				h.Write(buf[:])
			}
		}
	}
	return h.Sum64(), s
}

// TestSharedMemoryStimulus_EdgeSpecs runs the stimulus on the edges of the
// spec space: one lane, 16 bytes, one width and no atomics; 64 lanes over
// 1 MiB in 8-byte banks; a constant rap; a configurable bitvector_perm.
func TestSharedMemoryStimulus_EdgeSpecs(t *testing.T) {
	rapH := &specs.Hash{Name: "rap", Function: specs.RAP, AddrBits: 10, BankBits: 3, W: 8, Adder: specs.AdderRipple, Permutation: []int{3, 1, 4, 0, 5, 2, 7, 6}}
	permH := &specs.Hash{Name: "perm", Function: specs.BitvectorPerm, AddrBits: 9, BankBits: 4, Configurable: true}
	ref := func(h *specs.Hash) *specs.UnitRef {
		return &specs.UnitRef{Attr: "hash", Kind: "hash", Name: h.Name, Unit: h}
	}
	units := []*specs.SharedMemory{
		{Name: "tiny", Lanes: 1, Bytes: 16, BankBytes: 8, Banks: 2, Widths: []int{32}, Atomics: []specs.ShmemOp{}},
		{Name: "huge", Lanes: 64, Bytes: specs.MaxShmemBytes, BankBytes: 8, Banks: 64, Widths: []int{64, 128}, Atomics: []specs.ShmemOp{}},
		{Name: "rap", Lanes: 16, Bytes: 4096, BankBytes: 4, Hash: ref(rapH), Widths: []int{32, 128}, Atomics: specs.ShmemAtomics},
		{Name: "perm", Lanes: 8, Bytes: 1984, BankBytes: 4, Hash: ref(permH), Widths: []int{32, 64, 128}, Atomics: specs.ShmemAtomics},
	}
	for _, u := range units {
		t.Run(u.Name, func(t *testing.T) {
			_, s := runShmStim(t, u, 3, 5000)
			if s.responses == 0 || s.errors == 0 {
				t.Errorf("%d responses, %d errors", s.responses, s.errors)
			}
		})
	}
}
