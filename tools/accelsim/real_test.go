package accelsim

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
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

// rawFromTraceg turns a post-processed trace of one thread block back
// into the tracer's raw output: the header, then the warps' instruction
// lines interleaved round-robin, each prefixed with "X Y Z WARP".
func rawFromTraceg(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var head strings.Builder
	var warps [][]string
	block := ""
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case warps == nil && !strings.HasPrefix(line, "#BEGIN_TB"):
			head.WriteString(line + "\n")
		case strings.HasPrefix(line, "#BEGIN_TB"):
			warps = [][]string{}
		case strings.HasPrefix(line, "thread block = "):
			block = strings.ReplaceAll(strings.TrimPrefix(line, "thread block = "), ",", " ")
		case strings.HasPrefix(line, "warp = "):
			warps = append(warps, nil)
		case line == "" || strings.HasPrefix(line, "insts") || strings.HasPrefix(line, "#END_TB"):
		default:
			w := len(warps) - 1
			warps[w] = append(warps[w], fmt.Sprintf("%s %d %s", block, w, line))
		}
	}
	for i := 0; ; i++ {
		any := false
		for _, w := range warps {
			if i < len(w) {
				head.WriteString(w[i] + "\n")
				any = true
			}
		}
		if !any {
			return head.String()
		}
	}
}

// TestReader_RawTrace reads the raw form of the Pascal excerpt (named
// kernel-1.trace, listed by the tracer's own kernelslist): the same
// instructions, block and warp as the post-processed file, in another
// order, recognised by content.
func TestReader_RawTrace(t *testing.T) {
	src := filepath.Join(realDir, "pascal-matrixmul.traceg")
	dir := t.TempDir()
	raw := filepath.Join(dir, "kernel-1.trace")
	list := filepath.Join(dir, "kernelslist")
	if err := os.WriteFile(raw, []byte(rawFromTraceg(t, src)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(list, []byte("MemcpyHtoD,0x00007fb02d700000,4096\nkernel-1.trace\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if Sniff(raw) != KernelTrace || Sniff(list) != KernelsList {
		t.Fatalf("Sniff: %v %v", Sniff(raw), Sniff(list))
	}
	key := func(in *Instr) string {
		return fmt.Sprintf("%v %d %#x %s %08x %v", in.Block, in.Warp, in.PC, in.Opcode, in.Mask, in.Addrs)
	}
	count := func(path string) (map[string]int, int) {
		r, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		m, warps := map[string]int{}, map[int]bool{}
		for {
			in, err := r.NextInstr()
			if err == io.EOF {
				return m, len(warps)
			}
			if err != nil {
				t.Fatal(err)
			}
			m[key(in)]++
			warps[in.WarpSeq] = true
			if in.Raw != (path != src) {
				t.Fatalf("%s:%d: Raw %v", in.File, in.Line, in.Raw)
			}
		}
	}
	want, wantWarps := count(src)
	for _, path := range []string{raw, list} {
		got, warps := count(path)
		if !maps.Equal(got, want) || warps != wantWarps {
			t.Errorf("%s: %d distinct instructions in %d warps, want %d in %d", path, len(got), warps, len(want), wantWarps)
		}
	}
	// The tracer run with TOOL_TRACE_CORE=1 writes each line's SM and
	// warp slot after its warp: the same instructions.
	cores := filepath.Join(dir, "kernel-2.trace")
	var withCores strings.Builder
	for i, line := range strings.Split(rawFromTraceg(t, src), "\n") {
		if f := strings.Fields(line); len(f) > 6 && !strings.HasPrefix(line, "-") && !strings.HasPrefix(line, "#") {
			line = strings.Join(append(append(f[:4:4], fmt.Sprint(i%80), fmt.Sprint(i%64)), f[4:]...), " ")
		}
		withCores.WriteString(line + "\n")
	}
	if err := os.WriteFile(cores, []byte(withCores.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, warps := count(cores); !maps.Equal(got, want) || warps != wantWarps {
		t.Errorf("with core ids: %d distinct instructions in %d warps, want %d in %d", len(got), warps, len(want), wantWarps)
	}
	// A thread block section after raw lines is an error.
	bad := filepath.Join(dir, "bad.trace")
	text := rawFromTraceg(t, src)
	if err := os.WriteFile(bad, []byte(text+"#BEGIN_TB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, _ := Open(bad)
	defer r.Close()
	for {
		_, err := r.Next()
		if err == io.EOF {
			t.Fatal("no error")
		}
		if err != nil {
			if want := fmt.Sprintf(`bad.trace:%d: "#BEGIN_TB" in a raw trace`, strings.Count(text, "\n")+1); !strings.Contains(err.Error(), want) {
				t.Errorf("error %v", err)
			}
			break
		}
	}
}
