package accelsim

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ulikunitz/xz"
)

const examples = "../../specs/traces/accelsim"

// readAll reads every memory instruction of path.
func readAll(t *testing.T, path string) []*WarpAccess {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []*WarpAccess
	for {
		a, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, a)
	}
}

// TestReader_KernelsList reads the example list (a version-4 kernel with
// line numbers, a version-3 xz kernel without) and checks every memory
// instruction: compressions decoded, shared addresses as offsets from
// shmem base_addr, spaces and widths.
func TestReader_KernelsList(t *testing.T) {
	got := readAll(t, filepath.Join(examples, "kernelslist.g"))
	type row struct {
		kernel int
		pc     uint64
		op     string
		space  Space
		opk    Op
		mask   uint32
		width  int
		src    int
		warp   int
		first  []uint64 // leading addresses
		lanes  int
	}
	want := []row{
		{1, 0x10, "STS", Shared, Store, 0xffffffff, 4, 14, 0, []uint64{0, 4, 8}, 32},
		{1, 0x20, "LDS", Shared, Load, 0xffffffff, 4, 15, 0, []uint64{0, 128, 256}, 32},
		{1, 0x30, "LDS.64", Shared, Load, 0xffffffff, 8, 16, 0, []uint64{0, 8, 16}, 32},
		{1, 0x40, "LDS.128", Shared, Load, 0xff, 16, 17, 0, []uint64{0, 256, 512, 768, 1024, 1280, 1536, 1792}, 8},
		{1, 0x50, "LDG.E", Global, Load, 0xffffffff, 4, 18, 0, []uint64{0x7f5000000000, 0x7f5000000004}, 32},
		{1, 0x20, "LDS", Shared, Load, 0xff00, 4, 15, 1, []uint64{0x420, 0x420 + 132}, 8},
		{2, 0x10, "LDS.U.32", Shared, Load, 0xffff, 4, 0, 0, []uint64{0, 16, 32, 48}, 16},
		{2, 0x20, "ATOMS.ADD", Shared, Atomic, 0xffffffff, 4, 0, 0, []uint64{0x40, 0x40, 0x40}, 32},
		{2, 0x30, "ATOMS.ADD", Shared, Atomic, 0xf0f0f0f0, 4, 0, 0, []uint64{0, 64, 128, 192}, 16},
	}
	if len(got) != len(want) {
		t.Fatalf("%d accesses, want %d", len(got), len(want))
	}
	for i, w := range want {
		a := got[i]
		if a.Kernel != w.kernel || a.PC != w.pc || a.Opcode != w.op || a.Space != w.space || a.Op != w.opk ||
			a.Mask != w.mask || a.Width != w.width || a.SourceLine != w.src || a.Warp != w.warp ||
			len(a.Addrs) != w.lanes || !slices.Equal(a.Addrs[:len(w.first)], w.first) {
			t.Errorf("access %d: got %+v\nwant %+v", i, *a, w)
		}
	}
	if got[0].KernelName != "_Z9transposePfS_" || got[6].KernelName != "_Z6reducePi" ||
		!strings.HasSuffix(got[6].File, "kernel-2.traceg.xz") || got[6].Line != 23 {
		t.Errorf("kernel 2 access: %s %s:%d", got[6].KernelName, got[6].File, got[6].Line)
	}
	if last := got[8].Addrs[15]; last != 15*64 {
		t.Errorf("base_delta last lane: %d, want 960", last)
	}
}

// header is a version-V kernel header; lineinfo adds -enable lineinfo.
func header(version string, lineinfo bool) string {
	h := "-kernel name = k\n-kernel id = 7\n-shmem base_addr = 0x00007f0000000000\n-local mem base_addr = 0x00007f0001000000\n-accelsim tracer version = " + version + "\n"
	if lineinfo {
		h += "-enable lineinfo = 1\n"
	}
	return h + "#BEGIN_TB\nthread block = 1,2,3\nwarp = 4\n"
}

func parse(text string) ([]*WarpAccess, error) {
	r := NewReader(strings.NewReader(text), "t.traceg")
	var out []*WarpAccess
	for {
		a, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, a)
	}
}

// TestReader_VersionsAndLineInfo reads one access in version 3 with line
// numbers and version 4 without, and resolves generic LD by address.
func TestReader_VersionsAndLineInfo(t *testing.T) {
	v3 := header("3", true) + "insts = 2\n7 0100 00000005 1 R1 LDS.U.16 1 R2 2 0 0x7f0000000002 0x7f0000000006\n9 0110 00000003 1 R1 LD.E 1 R2 4 1 0x7f0000000010 4\n#END_TB\n"
	got, err := parse(v3)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].SourceLine != 7 || got[0].Width != 2 || !slices.Equal(got[0].Addrs, []uint64{2, 6}) ||
		got[0].Block != [3]int{1, 2, 3} || got[0].Warp != 4 || got[0].Kernel != 7 {
		t.Fatalf("v3: %+v", got[0])
	}
	if got[1].Space != Shared || !slices.Equal(got[1].Addrs, []uint64{0x10, 0x14}) {
		t.Fatalf("generic LD in the shared window: %+v", got[1])
	}
	v4 := header("4", false) + "insts = 2\n0100 00000001 0 STS.64 2 R2 R4 8 0 0x0000000000000018 0\n0110 00000001 1 R1 LD.E 1 R2 4 0 0x7f5000000000 0\n#END_TB\n"
	got, err = parse(v4)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].SourceLine != 0 || got[0].Width != 8 || !slices.Equal(got[0].Addrs, []uint64{0x18}) {
		t.Fatalf("v4: %+v", got)
	}
	if got[1].Space != Global {
		t.Fatalf("generic LD outside the shared window: %+v", got[1])
	}
}

// TestReader_Errors checks that malformed input gives a located error.
func TestReader_Errors(t *testing.T) {
	ok := "insts = 1\n0100 00000003 1 R1 LDS 1 R2 4 0 0x10 0x14 0\n#END_TB\n"
	cases := []struct{ name, text, want string }{
		{"no header", "#BEGIN_TB\n", `t.traceg:1: thread block before any "-kernel name" or "-accelsim tracer version" header line`},
		{"empty", "", `t.traceg:1: empty file: not an Accel-Sim kernel trace`},
		{"comments only", "#traces format = x\n\n", `t.traceg:2: no "-kernel name"`},
		{"version 6", "-accelsim tracer version = 6\n", "t.traceg:1: tracer version 6: lsugen reads versions 1 to 5"},
		{"too few addresses", header("5", false) + "insts = 1\n0100 00000007 1 R1 LDS 1 R2 4 0 0x10 0x14 0\n", "t.traceg:10: 0 fields after the addresses, tracer version 5 writes 1: the address count does not match the mask 00000007"},
		{"v4 immediate dropped", header("4", false) + "insts = 2\n0100 00000001 1 R1 LDS 1 R2 4 0 0x10 0\n0110 00000001 1 R1 LDS 1 R2 4 0 0x10\n", "t.traceg:11: 0 fields after the addresses, this file's tracer (version 4) writes 1, as on its first memory line"},
		{"v4 two extra", header("4", false) + "insts = 1\n0100 00000001 1 R1 LDS 1 R2 4 0 0x10 0x14 0\n", "t.traceg:10: 2 fields after the addresses, tracer version 4 writes 0 or 1"},
		{"old layout", "-kernel name = k\n#BEGIN_TB\nwarp = 0\ninsts = 1\n0 0 x 0 0100 00000001 1 R1 LDS 1 R2 4 0 0x10\n", `t.traceg:5: thread block z "x" is not a decimal number`},
		{"no version, extra field", "-kernel name = k\n#BEGIN_TB\nwarp = 0\ninsts = 1\n0 0 0 0 0100 00000001 1 R1 LDS 1 R2 4 0 0x10 0\n", "t.traceg:5: 1 fields after the addresses, a trace without a tracer version (the layout before version 3) writes 0"},
		{"pc size", "-kernel name = k\n-binary version = 70\n-accelsim tracer version = 3\n#BEGIN_TB\nwarp = 0\ninsts = 1\n0108 00000001 1 R1 LDS 1 R2 4 0 0x10\n", "t.traceg:7: PC 0x108 is not a multiple of 16"},
		{"missing address", header("3", false) + "insts = 1\n0100 00000007 1 R1 LDS 1 R2 4 0 0x10 0x14\n", "t.traceg:10: line ends before the address of active lane 3 of 3"},
		{"too many addresses", header("3", false) + "insts = 1\n0100 00000001 1 R1 LDS 1 R2 4 0 0x10 0x14\n", "t.traceg:10: 1 fields after the addresses, tracer version 3 writes 0"},
		{"width", header("4", false) + "insts = 1\n0100 00000001 1 R1 LDS 1 R2 12 0 0x10 0\n", "t.traceg:10: memory width 12 bytes"},
		{"format", header("4", false) + "insts = 1\n0100 00000001 1 R1 LDS 1 R2 4 3 0x10 0\n", `t.traceg:10: address format "3"`},
		{"mask", header("4", false) + "insts = 1\n0100 1ffffffff 1 R1 LDS 1 R2 4 0 0x10 0\n", "t.traceg:10: active mask"},
		{"stride gap", header("4", false) + "insts = 1\n0100 00000005 1 R1 LDS 1 R2 4 1 0x10 4 0\n", "t.traceg:10: base_stride address format with active mask 00000005"},
		{"negative", header("4", false) + "insts = 1\n0100 00000003 1 R1 LDS 1 R2 4 2 0x10 -32 0\n", "t.traceg:10: address 0x10 - 32 is below 0"},
		{"insts count", header("4", false) + "insts = 2\n0100 00000003 1 R1 LDS 1 R2 4 0 0x10 0x14 0\n#END_TB\n", "t.traceg:11: warp 4 has 1 instructions"},
		{"extra inst", header("4", false) + "insts = 0\n0100 00000003 1 R1 LDS 1 R2 4 0 0x10 0x14 0\n", `t.traceg:10: more instructions than the warp's "insts = 0"`},
		{"no end", header("4", false) + ok[:len(ok)-len("#END_TB\n")], "t.traceg:10: file ends inside a thread block"},
		{"regs", header("4", false) + "insts = 1\n0100 00000003 99 R1 LDS\n", "t.traceg:10: destination register count"},
		{"mixed", header("4", false) + "insts = 1\n0100 00000003 1 R1 LDS 1 R2 4 0 0x7f0000000010 0x14 0\n", "t.traceg:10: shared-memory access mixes generic addresses"},
		{"outside", "-accelsim tracer version = 4\n#BEGIN_TB\n0100 00000003 1 R1 LDS 1 R2 4 0 0x10 0x14 0\n", "t.traceg:3: instruction outside a warp"},
		{"long line", header("4", false) + strings.Repeat("x", MaxLineBytes+1) + "\n", "t.traceg:9: line longer than"},
	}
	for _, c := range cases {
		_, err := parse(c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := parse(header("4", false) + ok); err != nil {
		t.Errorf("valid trace: %v", err)
	}
}

// TestOpen_KernelsListErrors refuses kernel paths outside the list's
// directory and other lines, naming the list's line.
func TestOpen_KernelsListErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ line, want string }{
		{"kernel-1.traceg\n../kernel-2.traceg", "kernelslist.g:2: kernel file \"../kernel-2.traceg\" is not a path inside"},
		{"/tmp/kernel-2.traceg", "kernelslist.g:1: kernel file \"/tmp/kernel-2.traceg\""},
		{"kernel-1.txt", "kernelslist.g:1: kernel file \"kernel-1.txt\": want a .traceg or .traceg.xz (post-processed) or a raw .trace"},
		{"MemcpyHtoD,0x1,4\nfoo", "kernelslist.g:2: \"foo\" is neither"},
	} {
		path := filepath.Join(dir, "kernelslist.g")
		if err := os.WriteFile(path, []byte(c.line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(path)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.line, err, c.want)
		}
	}
	path := filepath.Join(dir, "kernelslist.g")
	os.WriteFile(path, []byte("kernel-9.traceg\n"), 0o644)
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err == nil || !strings.Contains(err.Error(), "kernelslist.g:1: open") {
		t.Errorf("missing kernel file: %v", err)
	}
	bad := filepath.Join(dir, "k.traceg.xz")
	os.WriteFile(bad, []byte("not xz"), 0o644)
	r, _ = Open(bad)
	if _, err := r.Next(); err == nil || !strings.Contains(err.Error(), "k.traceg.xz:1: not an xz file") {
		t.Errorf("bad xz: %v", err)
	}
}

// xzStreams is the xz streams of texts one after another, the LZMA2
// dictionary byte of stream last's block set to dict and its header
// checksum made good again.
func xzStreams(t *testing.T, last int, dict byte, texts ...string) []byte {
	var out []byte
	for i, s := range texts {
		var b bytes.Buffer
		w, err := xz.WriterConfig{BlockSize: 4096}.NewWriter(&b)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(s))
		w.Close()
		x := b.Bytes()
		if i == last {
			bh := x[12 : 12+(int(x[12])+1)*4]
			if bh[1] != 0 || bh[2] != 0x21 || bh[3] != 1 {
				t.Fatalf("unexpected block header % x", bh)
			}
			bh[4] = dict
			binary.LittleEndian.PutUint32(bh[len(bh)-4:], crc32.ChecksumIEEE(bh[:len(bh)-4]))
		}
		out = append(out, x...)
		out = append(out, 0, 0, 0, 0) // stream padding
	}
	return out
}

// TestScanXz_DictEveryStream refuses an xz file any of whose streams asks
// for a dictionary above MaxXzDict, before decoding, and counts the text
// of every stream and block.
func TestScanXz_DictEveryStream(t *testing.T) {
	text := strings.Repeat("0010 ffffffff 1 R1 LDS 1 R2 4 1 0x0 4 0\n", 1000) // several 4 KiB blocks
	for _, c := range []struct {
		last int
		dict byte
		want string
	}{
		{0, 22, ""}, // 22: 8 MiB (xz -6)
		{0, 40, "xz stream 1, block 1: LZMA2 dictionary of 4294967295 bytes, more than 64 MiB"},
		{2, 40, "xz stream 3, block 1: LZMA2 dictionary of 4294967295 bytes, more than 64 MiB"},
	} {
		x := xzStreams(t, c.last, c.dict, text, text, text)
		n, err := scanXz(bufio.NewReader(bytes.NewReader(x)), 1<<62, 1<<62)
		if c.want == "" {
			if err != nil || n != int64(3*len(text)) {
				t.Errorf("dict %d: %d bytes, %v; want %d", c.dict, n, err, 3*len(text))
			}
			continue
		}
		if err == nil || err.Error() != c.want {
			t.Errorf("stream %d dict %d: %v, want %s", c.last+1, c.dict, err, c.want)
		}
	}
	x := xzStreams(t, 0, 22, text)
	if _, err := scanXz(bufio.NewReader(bytes.NewReader(x)), 1000, 1<<62); err != errTextBudget {
		t.Errorf("limit 1000: %v", err)
	}
	if _, err := scanXz(bufio.NewReader(bytes.NewReader(x[:len(x)-30])), 1<<62, 1<<62); err == nil {
		t.Errorf("truncated file accepted")
	}
}

// TestReader_Version5AndOldLayout: version 5 (NVBit 1.7 tracer) with
// line info ends every line with the immediate, a non-memory one too; a
// version-2 line starts with the thread block and warp.
func TestReader_Version5AndOldLayout(t *testing.T) {
	v5 := header("5", true) + "insts = 2\n12 0000 ffffffff 1 R1 IMAD.MOV.U32 2 R255 R255 0 0\n13 0010 00000003 1 R1 LDS 1 R2 4 2 0x7f0000000010 -4 16\n#END_TB\n"
	got, err := parse(v5)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].SourceLine != 13 || !slices.Equal(got[0].Addrs, []uint64{0x10, 0xc}) {
		t.Fatalf("v5: %+v", got)
	}
	for _, v := range []string{"2", "1.2"} { // the 2020 tracer wrote "1.2"
		old := header(v, false) + "insts = 1\n1 2 3 4 0010 00000001 1 R1 LDS 1 R2 4 1 0x20 0\n#END_TB\n"
		if got, err = parse(old); err != nil || len(got) != 1 || !slices.Equal(got[0].Addrs, []uint64{0x20}) {
			t.Fatalf("version %s: %v %+v", v, err, got)
		}
	}
	if _, err := parse("-accelsim tracer version = 1.x\n"); err == nil || !strings.Contains(err.Error(), `t.traceg:1: -accelsim tracer version = "1.x" is not a number`) {
		t.Errorf("1.x: %v", err)
	}
}

// TestReader_RawLDGSTS: the tracer writes an LDGSTS twice, the shared
// operand's line first; post-processing keeps the second of each warp's
// pair, and so does the reader of a raw trace, per warp even when the
// warps' lines interleave.
func TestReader_RawLDGSTS(t *testing.T) {
	raw := "-kernel name = k\n-accelsim tracer version = 5\n" +
		"0 0 0 0 0010 00000001 0 LDGSTS.E 1 R2 4 1 0x100 0 0\n" +
		"0 0 0 1 0010 00000001 0 LDGSTS.E 1 R2 4 1 0x200 0 0\n" +
		"0 0 0 0 0010 00000001 0 LDGSTS.E 1 R2 4 1 0x7f0000000000 0 0\n" +
		"0 0 0 1 0010 00000001 0 LDGSTS.E 1 R2 4 1 0x7f0000000100 0 0\n" +
		"0 0 0 0 0020 00000001 0 LDGSTS.E 1 R2 4 1 0x104 0 0\n"
	got, err := parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	var addrs []uint64
	for _, a := range got {
		addrs = append(addrs, a.Addrs[0])
	}
	if want := []uint64{0x7f0000000000, 0x7f0000000100}; !slices.Equal(addrs, want) {
		t.Errorf("kept %#x, want %#x", addrs, want)
	}
}

// TestScanXz_ManySmallBlocksOfLargeDictionaries: the decoder allocates
// each block's dictionary anew, so a file of small blocks that each
// declare 64 MiB is refused before decoding (a 315 KB file of 4,591 such
// blocks took 112 s), while one block, or blocks larger than their
// dictionary (xz -T), or small blocks of small dictionaries, are read.
func TestScanXz_ManySmallBlocksOfLargeDictionaries(t *testing.T) {
	text := strings.Repeat("0010 ffffffff 1 R1 LDS 1 R2 4 1 0x0 4 0\n", 100) // 4 KiB
	scan := func(cfg xz.WriterConfig) (int64, error) {
		var b bytes.Buffer
		w, err := cfg.NewWriter(&b)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(text))
		w.Close()
		return scanXz(bufio.NewReader(&b), 1<<62, 1<<62)
	}
	if n, err := scan(xz.WriterConfig{DictCap: MaxXzDict, BlockSize: 64}); err == nil ||
		!strings.Contains(err.Error(), "xz stream 1: 17 blocks declare 1088 MiB of LZMA2 dictionary for 1088 bytes of text") {
		t.Errorf("64-byte blocks of 64 MiB dictionaries: %d bytes, %v; want refused at the 17th block", n, err)
	}
	for _, cfg := range []xz.WriterConfig{
		{DictCap: MaxXzDict},                     // one block
		{DictCap: 4096, BlockSize: 64},           // 64 small blocks, small dictionaries
		{DictCap: MaxXzDict, BlockSize: 2 << 10}, // two blocks: 128 MiB, within the slack
	} {
		if n, err := scan(cfg); err != nil || n != int64(len(text)) {
			t.Errorf("%+v: %d bytes, %v; want %d", cfg, n, err, len(text))
		}
	}
}
