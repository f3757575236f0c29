package accelsim

import (
	"bytes"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"testing"

	"github.com/ulikunitz/xz"
)

// FuzzReader feeds arbitrary text to the kernel-trace reader: it must
// return accesses whose addresses match their mask, or an error, never
// panic; Phases must accept every access it returns.
func FuzzReader(f *testing.F) {
	for _, name := range []string{"kernel-1.traceg", "kernel-2.traceg.xz"} {
		data, err := os.ReadFile(filepath.Join(examples, name))
		if err != nil {
			f.Fatal(err)
		}
		if filepath.Ext(name) == ".xz" {
			zr, err := xz.NewReader(bytes.NewReader(data))
			if err != nil {
				f.Fatal(err)
			}
			if data, err = io.ReadAll(zr); err != nil {
				f.Fatal(err)
			}
		}
		f.Add(data)
	}
	for _, name := range []string{"pascal-matrixmul.traceg", "pascal-vectoradd.traceg", "volta-lud-excerpt.traceg"} {
		data, err := os.ReadFile(filepath.Join(realDir, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("-kernel name = k\n-accelsim tracer version = 4\n0 0 0 1 0010 00000003 0 LDGSTS.E 1 R2 4 2 0x10 8 0\n0 0 0 0 0020 ffffffff 0 STS 1 R2 4 1 0x0 4 0\n")) // raw
	f.Add([]byte(header("5", true) + "insts = 1\n12 0100 00000003 1 R1 LDS 1 R2 4 2 0x7f0000000010 4 -7\n#END_TB\n"))
	f.Add([]byte(header("3", true) + "insts = 1\n7 0100 00000005 1 R1 LDS.U.16 1 R2 2 0 0x7f0000000002 0x7f0000000006\n#END_TB\n"))
	f.Add([]byte(header("4", false) + "insts = 1\n0100 f0f0f0f0 1 R1 ATOMS 1 R2 8 2 0x10 8 -8 8 -8 8 -8 8 -8 8 -8 8 -8 8 -8 8 0\n#END_TB\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data), "f.traceg")
		var phases [][]uint64
		for range 10000 {
			a, err := r.Next()
			if err != nil {
				return
			}
			if len(a.Addrs) != bits.OnesCount32(a.Mask) {
				t.Fatalf("%d addresses for mask %08x", len(a.Addrs), a.Mask)
			}
			for _, bb := range []int{4, 8} {
				if phases, err = Phases(a, bb, 32, phases); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}
