package accelsim

import (
	"io"
	"reflect"
	"testing"
)

// NextInstr yields every instruction of the example kernels; its memory
// instructions are exactly Next's, and WarpSeq counts warp sections over
// both files.
func TestNextInstr_EveryInstructionMemoryAsNext(t *testing.T) {
	const list = "../../specs/traces/accelsim/kernelslist.g"
	r, err := Open(list)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var mem []WarpAccess
	var all, alu int
	lastSeq, seqs := -1, 0
	for {
		in, err := r.NextInstr()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		all++
		if in.WarpSeq != lastSeq {
			if in.WarpSeq != lastSeq+1 {
				t.Fatalf("%s:%d: warp %d after %d", in.File, in.Line, in.WarpSeq, lastSeq)
			}
			lastSeq = in.WarpSeq
			seqs++
		}
		if in.IsMemory {
			mem = append(mem, in.WarpAccess)
		} else {
			alu++
			if in.Width != 0 || in.Addrs != nil || in.Space != 0 {
				t.Errorf("%s:%d: non-memory %s has memory fields %+v", in.File, in.Line, in.Opcode, in.WarpAccess)
			}
		}
	}
	r2, err := Open(list)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	var want []WarpAccess
	for {
		a, err := r2.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, *a)
	}
	if !reflect.DeepEqual(mem, want) {
		t.Errorf("memory instructions of NextInstr differ from Next's:\n%+v\n%+v", mem, want)
	}
	// kernel-1.traceg: warps of 7 (S2R and EXIT non-memory) and 2 (EXIT)
	// instructions; kernel-2.traceg.xz: one warp of 5 (2 non-memory).
	if all != 14 || alu != 5 || len(mem) != 9 || seqs != 3 {
		t.Errorf("%d instructions (%d non-memory, %d memory) in %d warp sections, want 14 (5, 9) in 3", all, alu, len(mem), seqs)
	}
}
