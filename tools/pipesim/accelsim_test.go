package pipesim

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/tools/accelsim"
	"github.com/lsugen/lsugen/tools/conflicts"
)

const exampleAccelSim = "../../specs/traces/accelsim/pipesim_example.traceg"

// paperShape is elastic_pipeline ep_elastic_m4 with wrm_paper
// (specs/pipeline.hcl): 4 subwarps of 8 lanes, 14-bit PCs, 32 contexts.
var paperShape = Shape{Subwarps: 4, SIMDWidth: 8, PCBits: 14, Warps: 32}

func mod32(t *testing.T, banks int) AccelSimOptions {
	t.Helper()
	m, err := conflicts.Modulo(banks)
	if err != nil {
		t.Fatal(err)
	}
	return AccelSimOptions{Banks: m, BankBytes: 4}
}

func buildExample(t *testing.T, shape Shape, opt AccelSimOptions) (*Workload, *AccelSimInfo) {
	t.Helper()
	r, err := accelsim.Open(exampleAccelSim)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	wl, info, err := FromAccelSim(r, exampleAccelSim, shape, opt)
	if err != nil {
		t.Fatal(err)
	}
	return wl, info
}

// program renders a context's program as "kind pc [degrees]" items.
func program(wl *Workload, ctx int) string {
	var items []string
	for _, in := range wl.Programs[ctx] {
		s := fmt.Sprintf("%s %d", in.Kind, in.PC)
		if in.Kind == Shmem {
			s += fmt.Sprint(wl.Degrees(in))
		}
		items = append(items, s)
	}
	return strings.Join(items, ", ")
}

// The example's warps, each on its own context; degrees computed by hand
// in the trace's comments and docs/traces.md.
var examplePrograms = []string{
	// block 0 warp 0: S2R, LDG, STS stride 4, LDS stride 128 (8 words of bank 0 per subwarp), EXIT
	"alu 0, mem 1, shmem 2[1 1 1 1], shmem 3[8 8 8 8], alu 4",
	// block 0 warp 1: LDS lanes 0-7 words 0,32,1,33,.. (2 per bank), lanes 24-27 words 0,64,0,128 (3 distinct in bank 0)
	"alu 0, shmem 3[2 1 1 3], mem 5, alu 4",
	// block 1 warp 0: LDS.128 lanes 0-15 stride 256 (banks 0-3 get 8 words per subwarp), STL, IMAD.WIDE, EXIT
	"alu 0, shmem 6[8 8 1 1], mem 9, alu 10, alu 4",
	// block 1 warp 1: LDS.64 stride 64 bytes: per subwarp words 16i, 16i+1 (4 per bank)
	"alu 7, shmem 8[4 4 4 4], alu 4",
}

func TestFromAccelSim_ExampleInstructionByInstruction(t *testing.T) {
	wl, info := buildExample(t, paperShape, mod32(t, 32))
	if len(wl.Programs) != 4 {
		t.Fatalf("%d contexts, want 4", len(wl.Programs))
	}
	for ctx, want := range examplePrograms {
		if got := program(wl, ctx); got != want {
			t.Errorf("context %d:\n got %s\nwant %s", ctx, got, want)
		}
	}
	// Lines of the trace file: the first and last instruction of context 3.
	p := wl.Programs[3]
	if p[0].Line != 54 || p[2].Line != 56 {
		t.Errorf("context 3 lines %d..%d, want 54..56", p[0].Line, p[2].Line)
	}
	want := AccelSimInfo{Banks: "mod 32", NumBanks: 32, BankBytes: 4, TracedWarps: 4, Contexts: 4, InstrBytes: 16, InactiveSubwarps: 4}
	if *info != want {
		t.Errorf("info %+v, want %+v", *info, want)
	}
	st := wl.Stats()
	// 17 instructions: 9 alu, 3 mem, 5 shmem; degrees sum 4+32+7+18+16 = 77 over 20 subwarps.
	wantStats := Stats{Warps: 4, WarpInstructions: 17, SubwarpInstructions: 68, Shmem: 5, Mem: 3,
		ShmemIntensity: 5.0 / 17, MemIntensity: 3.0 / 17, MeanDegree: 77.0 / 20, StaticPCs: 11}
	if st != wantStats {
		t.Errorf("stats %+v, want %+v", st, wantStats)
	}
}

// With two contexts, block 1's warps run after block 0's on contexts 0
// and 1; 3-bit PCs wrap the indices 8, 9 and 10.
func TestFromAccelSim_ContextsConcatenateAndPCsWrap(t *testing.T) {
	wl, info := buildExample(t, Shape{Subwarps: 4, SIMDWidth: 8, PCBits: 3, Warps: 2}, mod32(t, 32))
	want := []string{
		"alu 0, mem 1, shmem 2[1 1 1 1], shmem 3[8 8 8 8], alu 4, alu 0, shmem 6[8 8 1 1], mem 1, alu 2, alu 4",
		"alu 0, shmem 3[2 1 1 3], mem 5, alu 4, alu 7, shmem 0[4 4 4 4], alu 4",
	}
	for ctx := range want {
		if got := program(wl, ctx); got != want[ctx] {
			t.Errorf("context %d:\n got %s\nwant %s", ctx, got, want[ctx])
		}
	}
	if info.TracedWarps != 4 || info.Contexts != 2 || info.PCWrapped != 3 {
		t.Errorf("info %+v, want 4 traced warps on 2 contexts, 3 PCs wrapped", *info)
	}
}

// 8-byte banks: LDS.64 stride 64 bytes is one phase of words 8i (banks 0,
// 8, 16, 24 twice per subwarp); LDS stride 128 bytes words 16i (banks 0
// and 16, four each).
func TestFromAccelSim_EightByteBanks(t *testing.T) {
	opt := mod32(t, 32)
	opt.BankBytes = 8
	wl, _ := buildExample(t, paperShape, opt)
	if got, want := fmt.Sprint(wl.Degrees(wl.Programs[3][1])), "[2 2 2 2]"; got != want {
		t.Errorf("LDS.64 degrees %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(wl.Degrees(wl.Programs[0][3])), "[4 4 4 4]"; got != want {
		t.Errorf("LDS degrees %s, want %s", got, want)
	}
}

// One bank: every access is phases of L = max(1, 1/k) = 1 lane
// (accelsim.Phases, the shared_memory unit's cost model), so its degree is
// the sum of its lanes' words: 8 for 8 lanes of 4 bytes; 4 for lanes
// 24-27 of block 0 warp 1 (lanes 24 and 26 read word 0, but in phases of
// their own, so no broadcast joins them); 32 for LDS.128 and 16 for
// LDS.64, clamped to simd_width 8.
func TestFromAccelSim_DegreesClampedToSIMDWidth(t *testing.T) {
	wl, info := buildExample(t, paperShape, mod32(t, 1))
	if info.DegreeClamped != 6 {
		t.Errorf("%d subwarps clamped, want 6 (2 of LDS.128, 4 of LDS.64)", info.DegreeClamped)
	}
	got := []string{}
	for ctx := range 4 {
		for _, in := range wl.Programs[ctx] {
			if in.Kind == Shmem {
				got = append(got, fmt.Sprint(wl.Degrees(in)))
			}
		}
	}
	want := []string{"[8 8 8 8]", "[8 8 8 8]", "[8 1 1 4]", "[8 8 1 1]", "[8 8 8 8]"}
	if !slices.Equal(got, want) {
		t.Errorf("degrees %v, want %v", got, want)
	}
}

func TestFromAccelSim_Errors(t *testing.T) {
	head := "-kernel id = 1\n-accelsim tracer version = 4\n#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\n"
	cases := []struct {
		name, trace string
		shape       Shape
		want        string
	}{
		{"pc not a multiple of 8", head + "insts = 2\n0000 ffffffff 0 NOP 0 0 0\n0004 ffffffff 0 EXIT 0 0 0\n#END_TB\n",
			paperShape, "t.traceg:8: PC 0x4 is not a multiple of 8"},
		{"bad line from the reader", head + "insts = 1\n0000 ffffffff 0 LDS 0 4 1 0x0\n#END_TB\n",
			paperShape, "t.traceg:7: line ends before the stride"},
		{"warp of 16 lanes", head + "insts = 1\n0000 ffffffff 0 EXIT 0 0 0\n#END_TB\n",
			Shape{Subwarps: 2, SIMDWidth: 8}, "warps of 32 lanes; the pipeline's warps have 16"},
		{"no instructions", head + "insts = 0\n#END_TB\n", paperShape, "t.traceg: the Accel-Sim trace holds no instructions"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := accelsim.NewReader(strings.NewReader(c.trace), "t.traceg")
			_, _, err := FromAccelSim(r, "t.traceg", c.shape, mod32(t, 32))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}

// TestFromAccelSim_InstrBytes: the PC index is the byte PC over the
// instruction size, from -binary version (61, Pascal: 8 bytes; 70, Volta:
// 16) or, without it, from the PCs (a PC that is an odd multiple of 8
// makes the kernel's instructions 8 bytes).
func TestFromAccelSim_InstrBytes(t *testing.T) {
	body := "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 3\n0000 ffffffff 0 NOP 0 0\n0010 ffffffff 0 NOP 0 0\n0028 ffffffff 0 EXIT 0 0\n#END_TB\n"
	volta := strings.Replace(body, "0028", "0030", 1)
	cases := []struct {
		name, trace string
		size        int
		pcs         []uint32
	}{
		{"pascal header", "-kernel id = 1\n-binary version = 61\n-accelsim tracer version = 4\n" + body, 8, []uint32{0, 2, 5}},
		{"pascal by PCs", "-kernel id = 1\n-accelsim tracer version = 4\n" + body, 8, []uint32{0, 2, 5}},
		{"volta header", "-kernel id = 1\n-binary version = 70\n-accelsim tracer version = 3\n" + volta, 16, []uint32{0, 1, 3}},
		{"volta by PCs", "-kernel id = 1\n-accelsim tracer version = 3\n" + volta, 16, []uint32{0, 1, 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := accelsim.NewReader(strings.NewReader(c.trace), "t.traceg")
			wl, info, err := FromAccelSim(r, "t.traceg", paperShape, mod32(t, 32))
			if err != nil {
				t.Fatal(err)
			}
			var pcs []uint32
			for _, in := range wl.Programs[0] {
				pcs = append(pcs, in.PC)
			}
			if info.InstrBytes != c.size || !slices.Equal(pcs, c.pcs) {
				t.Errorf("%d-byte instructions, PCs %v; want %d, %v", info.InstrBytes, pcs, c.size, c.pcs)
			}
			// 2-bit PCs: index 5 wraps to 1, 3 to 3; counted once the size is known.
			r = accelsim.NewReader(strings.NewReader(c.trace), "t.traceg")
			wl, info, err = FromAccelSim(r, "t.traceg", Shape{Subwarps: 4, SIMDWidth: 8, PCBits: 2}, mod32(t, 32))
			if err != nil {
				t.Fatal(err)
			}
			last := wl.Programs[0][2].PC
			if wantLast, wrapped := c.pcs[2]&3, c.pcs[2]/4; last != wantLast || info.PCWrapped != int(wrapped) {
				t.Errorf("2-bit PCs: last %d, %d wrapped; want %d, %d", last, info.PCWrapped, wantLast, wrapped)
			}
		})
	}
}

// The instruction limit is checked before the instruction over it is
// added (the limit lowered to 3 here: the real one is MaxInstructions).
func TestFromAccelSim_InstructionLimit(t *testing.T) {
	defer func(n int) { accelSimLimit = n }(accelSimLimit)
	accelSimLimit = 3
	head := "-accelsim tracer version = 4\n#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 4\n"
	r := accelsim.NewReader(strings.NewReader(head+strings.Repeat("0000 ffffffff 0 NOP 0 0 0\n", 4)+"#END_TB\n"), "big.traceg")
	_, _, err := FromAccelSim(r, "big.traceg", paperShape, mod32(t, 32))
	if want := "big.traceg:9: more than 3 warp instructions"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
}

// FuzzFromAccelSim feeds arbitrary text to the builder: a workload whose
// instructions are every traced instruction and whose degrees are
// 1..simd_width, or an error, never a panic.
func FuzzFromAccelSim(f *testing.F) {
	data, err := os.ReadFile(exampleAccelSim)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data, uint8(0))
	f.Add(data, uint8(1))
	// excerpts of real traces: Pascal (8-byte PCs), Volta (before version 3)
	for _, name := range []string{"pascal-matrixmul.traceg", "volta-lud-excerpt.traceg"} {
		real, err := os.ReadFile("../accelsim/testdata/real/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(real, uint8(31))
	}
	f.Add([]byte("-kernel id = 1\n-accelsim tracer version = 4\n0 0 0 1 0010 ffffffff 0 LDS 0 4 1 0x0 128\n0 0 0 0 0000 ffffffff 0 EXIT 0 0\n"), uint8(31))
	f.Fuzz(func(t *testing.T, data []byte, banks uint8) {
		opt := mod32(t, int(banks%40)+1)
		r := accelsim.NewReader(bytes.NewReader(data), "f.traceg")
		wl, info, err := FromAccelSim(r, "f.traceg", Shape{Subwarps: 4, SIMDWidth: 8, PCBits: 6, Warps: 3}, opt)
		if err != nil {
			return
		}
		n := 0
		r2 := accelsim.NewReader(bytes.NewReader(data), "f.traceg")
		for {
			if _, err := r2.NextInstr(); err != nil {
				break
			}
			n++
		}
		if wl.Instructions() != n || len(wl.Programs) > 3 || info.Contexts != len(wl.Programs) {
			t.Fatalf("%d instructions of %d, %d contexts", wl.Instructions(), n, len(wl.Programs))
		}
		for _, p := range wl.Programs {
			for _, in := range p {
				if in.PC >= 64 {
					t.Fatalf("pc %d of 6 bits", in.PC)
				}
				for _, d := range wl.Degrees(in) {
					if d < 1 || d > 8 {
						t.Fatalf("degree %d", d)
					}
				}
			}
		}
	})
}

// An atomic's lanes on one word are served one at a time (no broadcast),
// a load's by one broadcast: ATOMS.ADD of 8 lanes of subwarp 0 on word 0
// has degree 8, the LDS of the same lanes degree 1.
func TestFromAccelSim_AtomicsWithoutBroadcast(t *testing.T) {
	trace := "-accelsim tracer version = 4\n#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n" +
		"0000 000000ff 1 R1 ATOMS.ADD 2 R2 R3 4 1 0x0 0 0\n0010 000000ff 1 R1 LDS 1 R2 4 1 0x0 0 0\n#END_TB\n"
	r := accelsim.NewReader(strings.NewReader(trace), "a.traceg")
	wl, _, err := FromAccelSim(r, "a.traceg", paperShape, mod32(t, 32))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range wl.Programs[0] {
		got = append(got, fmt.Sprint(wl.Degrees(in)))
	}
	if want := []string{"[8 1 1 1]", "[1 1 1 1]"}; !slices.Equal(got, want) {
		t.Errorf("degrees %v, want %v", got, want)
	}
}

// TestFromAccelSim_RawTrace: the example in the tracer's raw form (no
// thread block sections, each line prefixed with its thread block and
// warp, the four warps' lines interleaved round-robin, the last warp
// first) gives the same programs as the post-processed file: each warp's
// instructions are held until the file ends, then added warp by warp in
// thread block and warp order.
func TestFromAccelSim_RawTrace(t *testing.T) {
	data, err := os.ReadFile(exampleAccelSim)
	if err != nil {
		t.Fatal(err)
	}
	var head strings.Builder
	var warps [][]string
	block, inBody := "", false
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "#BEGIN_TB"):
			inBody = true
		case !inBody:
			head.WriteString(line + "\n")
		case strings.HasPrefix(line, "thread block = "):
			block = strings.ReplaceAll(strings.TrimPrefix(line, "thread block = "), ",", " ")
		case strings.HasPrefix(line, "warp = "):
			warps = append(warps, nil)
		case line == "" || strings.HasPrefix(line, "insts") || strings.HasPrefix(line, "#"):
		default:
			w := len(warps) - 1
			warps[w] = append(warps[w], fmt.Sprintf("%s %d %s", block, w%2, line))
		}
	}
	for i := 0; i < 8; i++ {
		for _, w := range slices.Backward(warps) {
			if i < len(w) {
				head.WriteString(w[i] + "\n")
			}
		}
	}
	build := func(text string) (*Workload, *AccelSimInfo) {
		r := accelsim.NewReader(strings.NewReader(text), "t.trace")
		wl, info, err := FromAccelSim(r, "t.trace", paperShape, mod32(t, 32))
		if err != nil {
			t.Fatal(err)
		}
		return wl, info
	}
	wantWl, wantInfo := build(string(data))
	gotWl, gotInfo := build(head.String())
	if len(warps) != 4 || *gotInfo != *wantInfo {
		t.Errorf("%d warps; info %+v, want %+v", len(warps), *gotInfo, *wantInfo)
	}
	for ctx := range wantWl.Programs {
		if got, want := program(gotWl, ctx), program(wantWl, ctx); got != want {
			t.Errorf("context %d:\n got %s\nwant %s", ctx, got, want)
		}
	}
}
