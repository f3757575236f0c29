package pipesim

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/specs"
)

// study is the shape of the paper's core: 4 subwarps of 8 lanes, 14-bit
// PCs, 32 warp contexts.
var study = Shape{Subwarps: 4, SIMDWidth: 8, PCBits: 14, Warps: 32}

func TestParse_Format(t *testing.T) {
	src := `# header

1 alu 0x10        # warp 1 first
0 shmem 17 2
0 mem 0X12
1 shmem 0x11 1 2 8 1
	0	alu	0x3fff
`
	wl, err := Parse(strings.NewReader(src), "t.ptrace", study)
	if err != nil {
		t.Fatal(err)
	}
	if len(wl.Programs) != 2 || wl.Instructions() != 5 {
		t.Fatalf("%d warps, %d instructions", len(wl.Programs), wl.Instructions())
	}
	type row struct {
		kind Kind
		pc   uint32
		line int32
		deg  []uint8
	}
	got := [][]row{}
	for _, p := range wl.Programs {
		var rs []row
		for _, in := range p {
			rs = append(rs, row{in.Kind, in.PC, in.Line, wl.Degrees(in)})
		}
		got = append(got, rs)
	}
	want := [][]row{
		{{Shmem, 17, 4, []uint8{2, 2, 2, 2}}, {Mem, 0x12, 5, nil}, {ALU, 0x3fff, 7, nil}},
		{{ALU, 0x10, 3, nil}, {Shmem, 0x11, 6, []uint8{1, 2, 8, 1}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	st := wl.Stats()
	if st.Shmem != 2 || st.Mem != 1 || st.MeanDegree != (8+12)/8.0 || st.StaticPCs != 4 || st.SubwarpInstructions != 20 {
		t.Errorf("stats %+v", st)
	}
}

func TestParse_Errors(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"too few fields", "0 alu\n", "f:1: want WARP KIND PC [DEGREE...], got 2 field(s)"},
		{"warp too large", "\n\n32 alu 0\n", `f:3: warp id "32": want a decimal number 0..31`},
		{"warp negative", "-1 alu 0\n", `f:1: warp id "-1"`},
		{"warp hex", "0x1 alu 0\n", `f:1: warp id "0x1"`},
		{"bad kind", "0 load 0\n", `f:1: kind "load": want alu, shmem or mem`},
		{"bad pc", "0 alu 0xg\n", `f:1: pc: "0xg" is not a decimal or 0x-hex number`},
		{"pc too wide", "0 alu 1\n0 alu 0x4000\n", "f:2: pc 0x4000 does not fit in 14 bits (the ready mask's pc_bits)"},
		{"pc overflow", "0 alu 18446744073709551616\n", `f:1: pc: "18446744073709551616" does not fit in 64 bits`},
		{"alu with degree", "0 alu 0 2\n", "f:1: alu takes no conflict degree, got 1 extra field(s)"},
		{"mem with degree", "0 mem 0 1 1\n", "f:1: mem takes no conflict degree, got 2 extra field(s)"},
		{"shmem without degree", "0 shmem 0\n", "f:1: shmem wants one conflict degree for all 4 subwarps or exactly 4, got 0"},
		{"shmem two degrees", "0 shmem 0 1 2\n", "f:1: shmem wants one conflict degree for all 4 subwarps or exactly 4, got 2"},
		{"degree zero", "0 shmem 0 0\n", `f:1: conflict degree "0": want a decimal number 1..8 (simd_width)`},
		{"degree too large", "0 shmem 0 1 1 9 1\n", `f:1: conflict degree "9" of subwarp 2: want a decimal number 1..8 (simd_width)`},
		{"degree not a number", "0 shmem 0 x\n", `f:1: conflict degree "x"`},
		{"empty", "# nothing\n\n", "f:2: the trace holds no instructions"},
		{"line too long", "0 alu 0" + strings.Repeat(" ", MaxLineBytes) + "\n", "f:1: line longer than 4096 bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(c.src), "f", study)
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("got error %v, want prefix %q", err, c.want)
			}
		})
	}
	// One subwarp per warp: the message says so.
	_, err := Parse(strings.NewReader("0 shmem 0 1 1\n"), "f", Shape{Subwarps: 1, SIMDWidth: 8})
	if err == nil || err.Error() != "f:1: shmem wants one conflict degree (1 subwarp per warp), got 2" {
		t.Errorf("got %v", err)
	}
	// Without a mask's limits, warp ids run to 63 and PCs to 32 bits.
	if _, err := Parse(strings.NewReader("63 alu 0xffffffff\n"), "f", Shape{Subwarps: 1, SIMDWidth: 8}); err != nil {
		t.Errorf("got %v", err)
	}
	if _, err := Parse(strings.NewReader("64 alu 0\n"), "f", Shape{Subwarps: 1, SIMDWidth: 8}); err == nil || !strings.Contains(err.Error(), "0..63") {
		t.Errorf("got %v", err)
	}
	if _, err := Parse(strings.NewReader("0 alu 0x100000000\n"), "f", Shape{Subwarps: 1, SIMDWidth: 8}); err == nil || !strings.Contains(err.Error(), "32 bits") {
		t.Errorf("got %v", err)
	}
	if _, err := Parse(strings.NewReader("0 alu 0\n"), "f", Shape{}); err == nil {
		t.Error("bad shape accepted")
	}
}

// endless yields short lines forever, as a huge file would.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
		if i%64 == 0 {
			p[i] = '\n'
		}
	}
	return len(p), nil
}

func TestParse_FileTooBig(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 256 MiB")
	}
	_, err := Parse(endless{}, "big", study)
	if err == nil || !strings.Contains(err.Error(), "trace longer than") {
		t.Fatalf("got %v", err)
	}
}

type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestParse_ReadError(t *testing.T) {
	_, err := Parse(io.MultiReader(strings.NewReader("0 alu 0\n"), failing{}), "f", study)
	if err == nil || !strings.Contains(err.Error(), "f:2: disk on fire") {
		t.Fatalf("got %v", err)
	}
}

func TestParseFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.ptrace")
	if err := os.WriteFile(p, []byte("0 shmem 5 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wl, err := ParseFile(p, study)
	if err != nil || wl.Instructions() != 1 {
		t.Fatalf("got %v, %v", wl, err)
	}
	if _, err := ParseFile(filepath.Join(t.TempDir(), "missing"), study); err == nil {
		t.Fatal("missing file accepted")
	}
}

// TestWriteTrace_RoundTrip: a written workload reads back equal.
func TestWriteTrace_RoundTrip(t *testing.T) {
	g := DefaultSynthetic
	g.Warps, g.Instructions, g.Irregular = 5, 300, true
	wl, err := g.Generate(study)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := wl.WriteTrace(&b, []string{"test"}); err != nil {
		t.Fatal(err)
	}
	back, err := Parse(strings.NewReader(b.String()), "rt", study)
	if err != nil {
		t.Fatal(err)
	}
	if !sameWorkload(wl, back) {
		t.Fatal("the trace does not read back to the same workload")
	}
	if !strings.HasPrefix(b.String(), "# test\n# warp kind pc") {
		t.Errorf("header: %q", b.String()[:40])
	}
}

// sameWorkload compares programs, kinds, PCs and degrees (not lines).
func sameWorkload(a, b *Workload) bool {
	if len(a.Programs) != len(b.Programs) || a.Subwarps != b.Subwarps {
		return false
	}
	for w := range a.Programs {
		if len(a.Programs[w]) != len(b.Programs[w]) {
			return false
		}
		for i, x := range a.Programs[w] {
			y := b.Programs[w][i]
			if x.Kind != y.Kind || x.PC != y.PC || !reflect.DeepEqual(a.Degrees(x), b.Degrees(y)) {
				return false
			}
		}
	}
	return true
}

// FuzzParse feeds arbitrary text to Parse: it must not panic, must name
// the file in every error, and whatever it accepts must be a valid
// workload that every variant runs to the end.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"0 alu 0\n1 shmem 0x10 2\n",
		"0 shmem 1 1 2 3 4 # c\n\n0 mem 2\n",
		"31 mem 0x3fff\n",
		"0 shmem 0 9\n",
		"# only a comment",
		"0 alu\n",
		"70000 alu 0\n",
	} {
		f.Add(s)
	}
	pipe := specs.ElasticPipeline{Name: "fuzz", MemStages: 2, WarpSize: 32, SIMDWidth: 8, ShmemPorts: 2, TagBits: 8}
	mask := DefaultMask(&pipe, 32)
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 1<<16 { // size limit checked before any work
			return
		}
		wl, err := Parse(strings.NewReader(s), "fuzz", study)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz:") {
				t.Fatalf("error without file name: %v", err)
			}
			return
		}
		n := 0
		for _, p := range wl.Programs {
			for _, in := range p {
				n++
				if in.Kind > Mem || in.PC >= 1<<14 || in.Line < 1 {
					t.Fatalf("bad instruction %+v", in)
				}
				for _, d := range wl.Degrees(in) {
					if d < 1 || d > 8 {
						t.Fatalf("degree %d", d)
					}
				}
			}
		}
		if n != wl.Instructions() || n == 0 || len(wl.Programs) > 32 {
			t.Fatalf("%d instructions counted, %d reported, %d warps", n, wl.Instructions(), len(wl.Programs))
		}
		if n > 64 {
			return
		}
		for _, v := range Variants {
			p := pipe
			p.PipeVariant = v
			for _, m := range []*specs.WarpReadyMask{nil, mask} {
				r, err := Simulate(context.Background(), wl, p, m, Options{})
				if err != nil {
					t.Fatalf("%s mask %v: %v", v, m != nil, err)
				}
				if r.WarpInstructions != int64(n) {
					t.Fatalf("%s: %d of %d instructions", v, r.WarpInstructions, n)
				}
			}
		}
	})
}
