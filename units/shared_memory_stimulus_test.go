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
			run := func(seed uint64) (uint64, *shmStim) {
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
