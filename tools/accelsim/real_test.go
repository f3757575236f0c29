package accelsim

import (
	"io"
	"path/filepath"
	"testing"
)

const realDir = "testdata/real"

// TestReader_RealTraces reads the excerpts of traces the tracer wrote on
// real GPUs (testdata/real/README.md): every instruction, its instruction
// size from -binary version, and the counts of memory and shared
// instructions (counted in the files with grep).
func TestReader_RealTraces(t *testing.T) {
	cases := []struct {
		file                string
		instrs, mem, shared int
		instrBytes, warps   int
		firstMemPC, lastPC  uint64
	}{
		// tracer version 4 without the immediate, Pascal: 4 warps x 138.
		{"pascal-matrixmul.traceg", 552, 4 * 45, 4 * 42, 8, 4, 0x0208, 0x05b8},
		// 4 warps x 23, 3 global memory instructions each.
		{"pascal-vectoradd.traceg", 92, 12, 0, 8, 4, 0x0098, 0x00f0},
		// before tracer version 3 (no version line, thread block and warp
		// on each line), Volta.
		{"volta-lud-excerpt.traceg", 9, 7, 7, 16, 1, 0x0430, 0x0f70},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join(realDir, c.file)
			if Sniff(path) != KernelTrace {
				t.Errorf("Sniff: %v", Sniff(path))
			}
			r, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var instrs, mem, shared, warps int
			var firstMem, last uint64
			for {
				in, err := r.NextInstr()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				instrs++
				warps = in.WarpSeq + 1
				last = in.PC
				if in.InstrBytes != c.instrBytes {
					t.Fatalf("%s:%d: %d-byte instructions, want %d", in.File, in.Line, in.InstrBytes, c.instrBytes)
				}
				if in.IsMemory {
					if mem == 0 {
						firstMem = in.PC
					}
					mem++
					if in.Space == Shared {
						shared++
					}
				}
			}
			if instrs != c.instrs || mem != c.mem || shared != c.shared || warps != c.warps || firstMem != c.firstMemPC || last != c.lastPC {
				t.Errorf("%d instructions, %d memory, %d shared, %d warps, first memory PC %#x, last PC %#x; want %d, %d, %d, %d, %#x, %#x",
					instrs, mem, shared, warps, firstMem, last, c.instrs, c.mem, c.shared, c.warps, c.firstMemPC, c.lastPC)
			}
		})
	}
}
