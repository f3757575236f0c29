package profile

import (
	"bytes"
	"flag"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"testing"
)

var updateExamples = flag.Bool("update-examples", false, "rewrite specs/traces/accelsim/profile_*.traceg")

// The example traces of docs/coalescing-profile.md, written by this
// deterministic program in the Accel-Sim tracer's format: the kernel
// header, thread blocks, warps, and instruction lines
// "[line] PC mask dests opcode srcs width format addresses [immediate]".
// Addresses are compressed as the tracer does: base_stride (1) for a
// contiguous run of active lanes at one stride, else base_delta (2), or
// list_all (0) where a kernel asks for it.

const exampleDir = "../../specs/traces/accelsim"

// kernelTrace writes one kernel trace.
type kernelTrace struct {
	b        bytes.Buffer
	version  int
	lineinfo bool
	listAll  bool // list_all instead of base_delta
	warp     []string
}

func newKernelTrace(name string, id, version int, lineinfo, listAll bool, grid, block string) *kernelTrace {
	k := &kernelTrace{version: version, lineinfo: lineinfo, listAll: listAll}
	li := 0
	if lineinfo {
		li = 1
	}
	fmt.Fprintf(&k.b, `-kernel name = %s
-kernel id = %d
-grid dim = %s
-block dim = %s
-shmem = 0
-nregs = 24
-binary version = 86
-cuda stream id = 0
-shmem base_addr = 0x00007f0000000000
-local mem base_addr = 0x00007f0001000000
-nvbit version = 1.7
-accelsim tracer version = %d
-enable lineinfo = %d

`, name, id, grid, block, version, li)
	if version >= 4 {
		k.b.WriteString("#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate\n\n")
	} else {
		k.b.WriteString("#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses]\n\n")
	}
	return k
}

func (k *kernelTrace) beginBlock(x int) {
	fmt.Fprintf(&k.b, "#BEGIN_TB\n\nthread block = %d,0,0\n\n", x)
}
func (k *kernelTrace) endBlock() { k.b.WriteString("#END_TB\n\n") }

// endWarp writes the warp's instructions under its header.
func (k *kernelTrace) endWarp(w int) {
	fmt.Fprintf(&k.b, "warp = %d\ninsts = %d\n", w, len(k.warp))
	for _, l := range k.warp {
		k.b.WriteString(l + "\n")
	}
	k.b.WriteString("\n")
	k.warp = k.warp[:0]
}

func (k *kernelTrace) prefix(src int) string {
	if k.lineinfo {
		return fmt.Sprintf("%d ", src)
	}
	return ""
}

func (k *kernelTrace) suffix() string {
	if k.version >= 4 {
		return " 0"
	}
	return ""
}

// alu adds a non-memory instruction.
func (k *kernelTrace) alu(src int, pc uint64, mask uint32, opcode string) {
	k.warp = append(k.warp, fmt.Sprintf("%s%04x %08x 1 R2 %s 2 R2 R3 0%s", k.prefix(src), pc, mask, opcode, k.suffix()))
}

// mem adds a memory instruction; addr(lane) gives each active lane's
// byte address.
func (k *kernelTrace) mem(src int, pc uint64, mask uint32, opcode string, width int, addr func(lane int) uint64) {
	var addrs []uint64
	for i := 0; i < 32; i++ {
		if mask>>i&1 == 1 {
			addrs = append(addrs, addr(i))
		}
	}
	regs := "1 R4 " + opcode + " 1 R6"
	if opcode[:2] == "ST" || opcode[:2] == "AT" || opcode[:2] == "RE" {
		regs = "0 " + opcode + " 2 R6 R4"
	}
	line := fmt.Sprintf("%s%04x %08x %s %d ", k.prefix(src), pc, mask, regs, width)
	low := mask >> bits.TrailingZeros32(mask)
	stride, constant := int64(0), len(addrs) > 1
	if len(addrs) > 1 {
		stride = int64(addrs[1] - addrs[0])
		for i := 2; i < len(addrs); i++ {
			if int64(addrs[i]-addrs[i-1]) != stride {
				constant = false
			}
		}
	}
	switch {
	case mask != 0 && low&(low+1) == 0 && (constant || len(addrs) == 1):
		line += fmt.Sprintf("1 0x%x %d", addrs[0], stride)
	case k.listAll:
		line += "0"
		for _, a := range addrs {
			line += fmt.Sprintf(" 0x%x", a)
		}
	default:
		line += fmt.Sprintf("2 0x%x", addrs[0])
		for i := 1; i < len(addrs); i++ {
			line += fmt.Sprintf(" %d", int64(addrs[i]-addrs[i-1]))
		}
	}
	k.warp = append(k.warp, line+k.suffix())
}

func (k *kernelTrace) exit(src int, pc uint64, mask uint32) {
	k.warp = append(k.warp, fmt.Sprintf("%s%04x %08x 0 EXIT 0 0%s", k.prefix(src), pc, mask, k.suffix()))
}

// activeBelow is the mask of the lanes whose thread index is below n.
func activeBelow(first, n int) uint32 {
	var m uint32
	for i := 0; i < 32; i++ {
		if first+i < n {
			m |= 1 << i
		}
	}
	return m
}

// copyTrace: y[i] = x[i] and z[i] = w[n-1-i] over n = 200 floats (the last
// warp partial), and a float4 copy.
func copyTrace() []byte {
	const (
		n         = 200
		x, y      = 0x7f5000000000, 0x7f5000010000
		w, z      = 0x7f5000020000, 0x7f5000030000
		v4, v4out = 0x7f5000040000, 0x7f5000050000
	)
	k := newKernelTrace("_Z4copyPKfPfS1_S2_PK6float4PS3_i", 1, 4, true, false, "(2,1,1)", "(128,1,1)")
	for blk := 0; blk < 2; blk++ {
		k.beginBlock(blk)
		for wp := 0; wp < 4; wp++ {
			first := blk*128 + wp*32
			mask := activeBelow(first, n)
			k.alu(5, 0x0000, 0xffffffff, "S2R")
			k.alu(6, 0x0010, 0xffffffff, "IMAD")
			if mask != 0 {
				k.mem(8, 0x0030, mask, "LDG.E", 4, func(l int) uint64 { return x + 4*uint64(first+l) })
				k.mem(8, 0x0040, mask, "STG.E", 4, func(l int) uint64 { return y + 4*uint64(first+l) })
				k.mem(9, 0x0050, mask, "LDG.E", 4, func(l int) uint64 { return w + 4*uint64(n-1-(first+l)) })
				k.mem(9, 0x0060, mask, "STG.E", 4, func(l int) uint64 { return z + 4*uint64(first+l) })
				k.mem(10, 0x0070, mask, "LDG.E.128", 16, func(l int) uint64 { return v4 + 16*uint64(first+l) })
				k.mem(10, 0x0080, mask, "STG.E.128", 16, func(l int) uint64 { return v4out + 16*uint64(first+l) })
			}
			k.exit(11, 0x0090, 0xffffffff)
			k.endWarp(wp)
		}
		k.endBlock()
	}
	return k.b.Bytes()
}

// transposeTrace: a naive transpose of a 64 x 64 float matrix with 32 x 4
// thread blocks (coalesced row reads, column writes one row apart), and a
// transpose-like read where a warp covers an 8 x 4 tile (lane i reads row
// i%8, column i/8: not monotonic).
func transposeTrace() []byte {
	const (
		n        = 64
		in, out  = 0x7f6000000000, 0x7f6000100000
		tile     = 0x7f6000200000
		rowBytes = 4 * n
	)
	k := newKernelTrace("_Z9transposePfPKfi", 2, 3, false, false, "(2,2,1)", "(32,4,1)")
	for blk := 0; blk < 4; blk++ {
		bx, by := blk%2, blk/2
		k.beginBlock(blk)
		for wp := 0; wp < 4; wp++ {
			row := by*16 + wp*4
			k.alu(0, 0x0000, 0xffffffff, "S2R")
			// in[row][bx*32 + lane], out[bx*32 + lane][row]
			k.mem(0, 0x0040, 0xffffffff, "LDG.E", 4, func(l int) uint64 { return in + uint64(row)*rowBytes + 4*uint64(bx*32+l) })
			k.mem(0, 0x0050, 0xffffffff, "STG.E", 4, func(l int) uint64 { return out + uint64(bx*32+l)*rowBytes + 4*uint64(row) })
			// an 8 x 4 tile: lane l at row l%8, column l/8
			k.mem(0, 0x0070, 0xffffffff, "LDG.E", 4, func(l int) uint64 {
				return tile + uint64(row+l%8)*rowBytes + 4*uint64(bx*32+wp*4+l/8)
			})
			k.exit(0, 0x0080, 0xffffffff)
			k.endWarp(wp)
		}
		k.endBlock()
	}
	return k.b.Bytes()
}

// gatherTrace: a CSR sparse matrix-vector product, one row per lane:
// row pointers (stride 1), column indices and values of the lane's j-th
// nonzero (rows of different lengths: partial masks as lanes finish), the
// gather x[col], a broadcast of a scalar, and an ATOMG on a counter.
func gatherTrace() []byte {
	const (
		rows                  = 64
		rowPtr, colIdx, vals  = 0x7f7000000000, 0x7f7000010000, 0x7f7000020000
		xv, yv, scalar, count = 0x7f7000030000, 0x7f7000040000, 0x7f7000050000, 0x7f7000060000
		cols                  = 4096
	)
	// Deterministic row lengths and columns (a linear congruential
	// generator, so the file is the same on every run).
	seed := uint32(12345)
	rnd := func() uint32 { seed = seed*1664525 + 1013904223; return seed >> 8 }
	length := make([]int, rows)
	start := make([]int, rows+1)
	for r := range length {
		length[r] = 1 + int(rnd()%6)
		start[r+1] = start[r] + length[r]
	}
	col := make([]uint64, start[rows])
	for i := range col {
		col[i] = uint64(rnd() % cols)
	}
	k := newKernelTrace("_Z8spmv_csriPKiS0_PKfS2_Pf", 3, 4, true, true, "(1,1,1)", "(64,1,1)")
	k.beginBlock(0)
	for wp := 0; wp < 2; wp++ {
		first := wp * 32
		k.alu(20, 0x0000, 0xffffffff, "S2R")
		k.mem(22, 0x0020, 0xffffffff, "LDG.E", 4, func(l int) uint64 { return rowPtr + 4*uint64(first+l) })
		k.mem(22, 0x0030, 0xffffffff, "LDG.E", 4, func(l int) uint64 { return rowPtr + 4*uint64(first+l+1) })
		k.mem(23, 0x0040, 0xffffffff, "LDG.E.CONSTANT", 4, func(int) uint64 { return scalar })
		for j := 0; j < 6; j++ {
			var mask uint32
			for l := 0; l < 32; l++ {
				if j < length[first+l] {
					mask |= 1 << l
				}
			}
			if mask == 0 {
				break
			}
			nz := func(l int) int { return start[first+l] + j }
			k.mem(25, 0x0070, mask, "LDG.E", 4, func(l int) uint64 { return colIdx + 4*uint64(nz(l)) })
			k.mem(25, 0x0080, mask, "LDG.E", 4, func(l int) uint64 { return vals + 4*uint64(nz(l)) })
			k.mem(26, 0x0090, mask, "LDG.E", 4, func(l int) uint64 { return xv + 4*col[nz(l)] })
			k.alu(26, 0x00a0, mask, "FFMA")
		}
		k.mem(28, 0x00c0, 0xffffffff, "STG.E", 4, func(l int) uint64 { return yv + 4*uint64(first+l) })
		k.mem(29, 0x00d0, 0x00000001, "ATOMG.E.ADD.STRONG.GPU", 4, func(int) uint64 { return count })
		k.exit(30, 0x00e0, 0xffffffff)
		k.endWarp(wp)
	}
	k.endBlock()
	return k.b.Bytes()
}

// exampleTraces are the files and their contents.
func exampleTraces() map[string][]byte {
	return map[string][]byte{
		"profile_copy.traceg":      copyTrace(),
		"profile_transpose.traceg": transposeTrace(),
		"profile_spmv.traceg":      gatherTrace(),
	}
}

// TestExampleTraces_UpToDate: the example traces are what this program
// writes (-update-examples rewrites them).
func TestExampleTraces_UpToDate(t *testing.T) {
	for name, want := range exampleTraces() {
		path := filepath.Join(exampleDir, name)
		if *updateExamples {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./tools/profile -run ExampleTraces -update-examples writes it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: go test ./tools/profile -run ExampleTraces -update-examples", path)
		}
	}
}
