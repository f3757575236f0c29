package accelsim

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	// ulikunitz/xz is a pure-Go xz decoder (the standard library has
	// none): the tracer compresses its traces with xz, and a pure-Go
	// decoder streams them without an external xz process.
	"github.com/ulikunitz/xz"

	"github.com/lsugen/lsugen/internal/inputfile"
)

// Budget is what is left of the trace text one run may read (decompressed
// bytes, all files together): a Reader takes a file's size (a plain
// file's from the file system, an .xz file's from its chunk headers)
// from it before reading the file, and refuses the file when it does not
// fit, so a run over many large files stops at its first file past the
// budget instead of hours later.
type Budget struct{ Left int64 }

// NewBudget is a budget of MaxTotalBytes.
func NewBudget() *Budget { return &Budget{Left: MaxTotalBytes} }

// take takes n bytes of file path from b.
func (b *Budget) take(path string, n int64) error {
	if n > b.Left {
		return fmt.Errorf("%s: %d bytes of trace text, more than the %d GiB one run reads (all files together): %d bytes were left",
			path, n, int64(MaxTotalBytes)>>30, b.Left)
	}
	b.Left -= n
	return nil
}

// Limits on the traces one Reader reads. They bound memory and work, not
// what a real trace needs: the tracer writes lines of well under 2 KiB.
const (
	WarpSize      = 32       // lanes of a warp: the mask is 32 bits
	MaxLineBytes  = 64 << 10 // bytes on one line
	MaxListBytes  = 1 << 20  // bytes of a kernelslist.g
	MaxKernels    = 1 << 16  // kernel files in one kernelslist.g
	MaxTotalBytes = 16 << 30 // bytes of trace text one run reads in all files, after xz decompression (Budget)
	MaxXzDict     = 64 << 20 // LZMA2 dictionary of every block of an .xz file (xz -9 uses 64 MiB)
	MaxNameBytes  = 8 << 10  // bytes of a kernel name (long C++ template names are a few KiB)
	MaxInstrs     = 1 << 16  // distinct shared-memory instructions (kernel launch, PC) of one run
	MaxInstrNames = 16 << 20 // bytes of their names (each holds its kernel's name), which every report repeats
	maxRegs       = 16       // register operands of one instruction (the tracer writes at most 5)
	MaxRawWarps   = 1 << 20  // distinct warps of one raw (not post-processed) kernel trace
)

// Tracer versions this reader understands (accel-sim-framework's
// tracer_tool.cu and trace_parser.cc): before 3 (and in traces without a
// version line, which Accel-Sim reads as version 0) each instruction line
// starts with the thread block and the warp; 4 adds the optional source
// line (-enable lineinfo) and, from 2023 on, the immediate at the end of
// every line; 5 always ends a line with the immediate.
const (
	minVersion = 1
	maxVersion = 5
)

// Instruction sizes: SASS instructions are 8 bytes before Volta (binary
// version below 70) and 16 bytes from Volta on.
const (
	InstrBytesPreVolta = 8
	InstrBytesVolta    = 16
	voltaBinaryVersion = 70
)

// Address compressions of the tracer (tracer_tool.cu's address_format).
const (
	listAll    = 0 // one address per active lane
	baseStride = 1 // base, then a constant stride over a contiguous run of active lanes
	baseDelta  = 2 // base, then per further active lane its distance from the previous active lane
)

// IsTracePath reports whether path is an Accel-Sim input (Sniff): a
// kernelslist.g or a kernel trace, by name or by content.
func IsTracePath(path string) bool {
	return Sniff(path) != NotAccelSim
}

// Reader yields the memory instructions of Accel-Sim kernel traces one
// warp access at a time, holding one line at a time.
type Reader struct {
	kernels []kernelRef // files still to read, in order
	next    int
	budget  *Budget

	warpBase int // "warp = N" sections of the files before the one being read

	k *kernelFile // the file being read, nil between files
}

// kernelRef is one kernel file and where it was named.
type kernelRef struct {
	path string // as named, for messages
	open string // what to open: path with its links resolved for a listed file
	from string // "LIST:LINE" that named it, "" for a file given directly
}

// kernelFile is the state of reading one kernel trace.
type kernelFile struct {
	path   string
	closer io.Closer
	sc     *bufio.Scanner
	line   int
	left   int64 // bytes of text it may still hold (its share of the Budget)

	// header
	id          int
	name        string
	version     int  // 0 until the "-accelsim tracer version" line
	headed      bool // a "-kernel ..." or version header line was read
	imm         int  // version 4: -1 until the first memory line, then 1 with an immediate, 0 without
	instrBytes  int  // from "-binary version": 8 or 16; 0 when absent
	lineinfo    bool
	shmemBase   uint64
	localBase   uint64
	inBody      bool // past the header
	inBlock     bool // between #BEGIN_TB and #END_TB
	block       [3]int
	warp        int
	haveWarp    bool
	insts, seen int // declared and read instructions of the current warp
	instsLine   int
	warps       int // "warp = N" sections read in this file (raw: distinct warps)
	seq         int // the current instruction's warp among them, from 0

	// A raw trace (the tracer's output before post-processing): no thread
	// block sections; every instruction line starts with its thread block
	// and warp, and the warps' lines interleave.
	raw      bool
	rawWarps map[[4]int]int // thread block x, y, z and warp -> seq
	// per warp (seq): whether its next LDGSTS line is the first of a
	// pair, which post-processing drops (one LDGSTS is traced twice,
	// once per memory operand; the first line carries the shared one)
	ldgstsFirst []bool

	fields []string // scratch for one line's fields
}

// Open reads path: a kernel list (kernelslist.g, or the tracer's raw
// kernelslist), whose kernel lines name the kernel traces (relative to
// its directory, never outside it), or one kernel trace, post-processed
// or raw, plain or xz; which of the two by Sniff.
func Open(path string) (*Reader, error) {
	return OpenBudget(path, NewBudget())
}

// OpenBudget is Open taking the files' text from b, which a run shares
// between its inputs.
func OpenBudget(path string, b *Budget) (*Reader, error) {
	if Sniff(path) != KernelsList {
		return &Reader{kernels: []kernelRef{{path: path, open: path}}, budget: b}, nil
	}
	refs, err := readKernelsList(path)
	if err != nil {
		return nil, err
	}
	return &Reader{kernels: refs, budget: b}, nil
}

// NewReader reads one uncompressed kernel trace from r; name names it in
// errors.
func NewReader(r io.Reader, name string) *Reader {
	rd := &Reader{budget: NewBudget()}
	rd.k = newKernelFile(name, r, nil, MaxTotalBytes)
	return rd
}

// readKernelsList returns the kernel files of a kernelslist.g in order.
// MemcpyHtoD (and other Memcpy) lines are skipped, as Accel-Sim does. A
// kernel file must lie inside the list's directory once links are
// resolved (a list cannot make lsugen read, and quote, a file elsewhere)
// and be named once (a list naming one large file many times would read
// it as many times).
func readKernelsList(path string) ([]kernelRef, error) {
	f, err := inputfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dir := filepath.Dir(path)
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	if realDir, err = filepath.Abs(realDir); err != nil {
		return nil, err
	}
	named := map[string]int{} // resolved path -> line
	sc := bufio.NewScanner(io.LimitReader(f, MaxListBytes+1))
	sc.Buffer(make([]byte, 0, 4096), MaxLineBytes)
	var refs []kernelRef
	line, size := 0, 0
	for sc.Scan() {
		line++
		size += len(sc.Bytes()) + 1
		if size > MaxListBytes {
			return nil, fmt.Errorf("%s:%d: kernel list longer than %d bytes", path, line, MaxListBytes)
		}
		text := strings.TrimSpace(sc.Text())
		switch {
		case text == "" || strings.HasPrefix(text, "Memcpy"):
			continue
		case !strings.HasPrefix(text, "kernel") && !strings.Contains(text, ".trace"):
			return nil, fmt.Errorf("%s:%d: %q is neither a kernel trace file nor a Memcpy line", path, line, clip(text))
		}
		if !filepath.IsLocal(text) {
			return nil, fmt.Errorf("%s:%d: kernel file %q is not a path inside the list's directory (absolute or with \"..\")", path, line, clip(text))
		}
		if !strings.HasSuffix(text, ".traceg") && !strings.HasSuffix(text, ".traceg.xz") &&
			!strings.HasSuffix(text, ".trace") && !strings.HasSuffix(text, ".trace.xz") {
			return nil, fmt.Errorf("%s:%d: kernel file %q: want a .traceg or .traceg.xz (post-processed) or a raw .trace or .trace.xz", path, line, clip(text))
		}
		if len(refs) >= MaxKernels {
			return nil, fmt.Errorf("%s:%d: more than %d kernels", path, line, MaxKernels)
		}
		real := resolve(filepath.Join(realDir, text))
		if rel, err := filepath.Rel(realDir, real); err != nil || !filepath.IsLocal(rel) {
			return nil, fmt.Errorf("%s:%d: kernel file %s is a link to %s, outside the list's directory", path, line, clip(text), clip(real))
		}
		if first, ok := named[real]; ok {
			return nil, fmt.Errorf("%s:%d: kernel file %s is named again (first at line %d)", path, line, clip(text), first)
		}
		named[real] = line
		refs = append(refs, kernelRef{path: filepath.Join(dir, text), open: real, from: fmt.Sprintf("%s:%d", path, line)})
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: line longer than %d bytes", path, line+1, MaxLineBytes)
		}
		return nil, fmt.Errorf("%s:%d: %v", path, line+1, err)
	}
	return refs, nil
}

// resolve is path with its symbolic links resolved, as far as they lead
// to something that exists (a missing file is reported when opened).
func resolve(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	if r, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		return filepath.Join(r, filepath.Base(path))
	}
	return path
}

// clip shortens text quoted in an error.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// Close closes the file being read.
func (r *Reader) Close() error {
	if r.k != nil && r.k.closer != nil {
		err := r.k.closer.Close()
		r.k = nil
		return err
	}
	r.k = nil
	return nil
}

// Next returns the next memory instruction (mem_width > 0) of the traces,
// io.EOF after the last. Errors read "FILE:LINE: message".
func (r *Reader) Next() (*WarpAccess, error) {
	return r.advance(false)
}

// advance returns the next instruction: only memory instructions unless
// all, when a non-memory one has Width 0.
func (r *Reader) advance(all bool) (*WarpAccess, error) {
	for {
		if r.k == nil {
			if r.next >= len(r.kernels) {
				return nil, io.EOF
			}
			ref := r.kernels[r.next]
			r.next++
			k, err := openKernelFile(ref, r.budget)
			if err != nil {
				return nil, err
			}
			r.k = k
		}
		a, err := r.k.next(all)
		if err == io.EOF {
			r.warpBase += r.k.warps
			if err := r.k.finish(); err != nil {
				return nil, err
			}
			if err := r.Close(); err != nil {
				return nil, err
			}
			continue
		}
		return a, err
	}
}

// openKernelFile opens a kernel trace, through xz for .xz files (by
// content: a kernel trace need not be named .xz), taking its text from b
// before reading it. Only a regular file is opened: a FIFO would block.
func openKernelFile(ref kernelRef, b *Budget) (*kernelFile, error) {
	fail := func(err error) (*kernelFile, error) {
		if ref.from != "" {
			return nil, fmt.Errorf("%s: %v", ref.from, err)
		}
		return nil, err
	}
	f, err := inputfile.Open(ref.open)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			pe.Path = ref.path
		} else if ref.open != ref.path {
			err = errors.New(strings.Replace(err.Error(), ref.open, ref.path, 1))
		}
		return fail(err)
	}
	br := bufio.NewReaderSize(f, 64<<10)
	if !isXz(br) && !strings.HasSuffix(ref.path, ".xz") {
		fi, err := f.Stat()
		if err == nil {
			err = b.take(ref.path, fi.Size())
		}
		if err != nil {
			f.Close()
			return fail(err)
		}
		return newKernelFile(ref.path, br, f, fi.Size()), nil
	}
	size, err := scanXz(br, b.Left, 1<<62)
	if err == errTextBudget {
		err = fmt.Errorf("%s: xz of more than the %d bytes of trace text left of the %d GiB one run reads (all files together)",
			ref.path, b.Left, int64(MaxTotalBytes)>>30)
	} else if err == nil {
		err = b.take(ref.path, size)
	} else {
		err = fmt.Errorf("%s:1: %v", ref.path, err)
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return fail(err)
	}
	br.Reset(f)
	zr, err := xz.NewReader(br)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s:1: xz: %v", ref.path, err)
	}
	return newKernelFile(ref.path, zr, f, size), nil
}

func newKernelFile(path string, r io.Reader, c io.Closer, size int64) *kernelFile {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 16<<10), MaxLineBytes)
	return &kernelFile{path: path, closer: c, sc: sc, left: size, warp: -1, imm: -1}
}

// errorf locates an error at the current line.
func (k *kernelFile) errorf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", k.path, k.line, fmt.Sprintf(format, args...))
}

// next returns the file's next memory instruction (every instruction when
// all), io.EOF at its end.
func (k *kernelFile) next(all bool) (*WarpAccess, error) {
	for k.sc.Scan() {
		k.line++
		// A file that grows while it is read holds more than it was given.
		if k.left -= int64(len(k.sc.Bytes())) + 1; k.left < -1 {
			return nil, k.errorf("the file grew while it was read, past the trace text it was given of the run's budget")
		}
		text := strings.TrimSpace(k.sc.Text())
		if text == "" {
			continue
		}
		if !k.inBody {
			switch text[0] {
			case '-':
				if err := k.header(text); err != nil {
					return nil, err
				}
				continue
			case '#':
				if !strings.HasPrefix(text, "#BEGIN_TB") {
					continue // "#traces format = ..." and other comments
				}
				if !k.headed {
					return nil, k.errorf("thread block before any \"-kernel name\" or \"-accelsim tracer version\" header line: not an Accel-Sim kernel trace")
				}
				k.inBody = true // no version line: the layout before version 3, as Accel-Sim reads it
			default:
				if k.headed && text[0] >= '0' && text[0] <= '9' {
					k.raw, k.inBody, k.rawWarps = true, true, map[[4]int]int{}
					break
				}
				if !k.headed { // not a trace: its content is not quoted
					return nil, k.errorf("not an Accel-Sim kernel trace (want a \"-kernel name\" or \"-accelsim tracer version\" header line first)")
				}
				return nil, k.errorf("%q before the first #BEGIN_TB: want a \"-name = value\" header line", clip(text))
			}
		}
		a, err := k.body(text)
		if err != nil {
			return nil, err
		}
		if a != nil && (a.Width > 0 || all) {
			return a, nil
		}
	}
	if err := k.sc.Err(); err != nil {
		k.line++
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, k.errorf("line longer than %d bytes", MaxLineBytes)
		}
		return nil, k.errorf("%v", err)
	}
	return nil, io.EOF
}

// finish checks the end of a file: an Accel-Sim header, no thread block
// left open.
func (k *kernelFile) finish() error {
	if !k.headed {
		if k.line == 0 {
			return fmt.Errorf("%s:1: empty file: not an Accel-Sim kernel trace", k.path)
		}
		return k.errorf("no \"-kernel name\" or \"-accelsim tracer version\" header line: not an Accel-Sim kernel trace")
	}
	if k.inBlock {
		return k.errorf("file ends inside a thread block (no #END_TB)")
	}
	return nil
}

// header reads one "-name = value" line of the kernel header.
func (k *kernelFile) header(text string) error {
	key, value, ok := strings.Cut(text[1:], "=")
	if !ok {
		return nil // other tools' lines: ignored as Accel-Sim does
	}
	key, value = strings.Join(strings.Fields(key), " "), strings.TrimSpace(value)
	if strings.HasPrefix(key, "kernel ") || key == "accelsim tracer version" {
		k.headed = true
	}
	num := func(base int) (uint64, error) {
		v := value
		if base == 16 {
			v = strings.TrimPrefix(strings.TrimPrefix(v, "0x"), "0X")
		}
		n, err := strconv.ParseUint(v, base, 64)
		if err != nil {
			return 0, k.errorf("-%s = %q is not a number", key, clip(value))
		}
		return n, nil
	}
	switch key {
	case "kernel name":
		if len(value) > MaxNameBytes {
			return k.errorf("kernel name of %d bytes, more than %d", len(value), MaxNameBytes)
		}
		k.name = value
	case "kernel id":
		n, err := num(10)
		if err != nil {
			return err
		}
		if n > 1<<31 {
			return k.errorf("-kernel id %d is out of range", n)
		}
		k.id = int(n)
	case "accelsim tracer version":
		// The 2020 tracer wrote "1.2"; Accel-Sim reads its major number.
		if major, minor, ok := strings.Cut(value, "."); ok {
			if _, err := strconv.ParseUint(minor, 10, 16); err == nil {
				value = major
			}
		}
		n, err := num(10)
		if err != nil {
			return err
		}
		if n < minVersion || n > maxVersion {
			return k.errorf("tracer version %d: lsugen reads versions %d to %d", n, minVersion, maxVersion)
		}
		k.version = int(n)
	case "binary version":
		n, err := num(10)
		if err != nil {
			return err
		}
		k.instrBytes = InstrBytesVolta
		if n < voltaBinaryVersion {
			k.instrBytes = InstrBytesPreVolta
		}
	case "enable lineinfo":
		n, err := num(10)
		if err != nil {
			return err
		}
		k.lineinfo = n != 0
	case "shmem base_addr":
		n, err := num(16)
		if err != nil {
			return err
		}
		k.shmemBase = n
	case "local mem base_addr":
		n, err := num(16)
		if err != nil {
			return err
		}
		k.localBase = n
	}
	return nil
}

// body reads one line after the header: thread-block structure or an
// instruction, returning the instruction (Width 0 when not a memory one).
func (k *kernelFile) body(text string) (*WarpAccess, error) {
	if k.raw {
		switch {
		case strings.HasPrefix(text, "#BEGIN_TB") || strings.HasPrefix(text, "#END_TB") ||
			strings.HasPrefix(text, "thread block") || strings.HasPrefix(text, "warp") || strings.HasPrefix(text, "insts"):
			return nil, k.errorf("%q in a raw trace (its instruction lines came before any thread block section)", clip(text))
		case text[0] == '#':
			return nil, nil
		}
		a, err := k.instruction(text)
		if err == nil && strings.Contains(a.Opcode, "LDGSTS") {
			first := k.ldgstsFirst[k.seq]
			k.ldgstsFirst[k.seq] = !first
			if first {
				return nil, nil
			}
		}
		return a, err
	}
	switch {
	case strings.HasPrefix(text, "#BEGIN_TB"):
		if k.inBlock {
			return nil, k.errorf("#BEGIN_TB inside a thread block (no #END_TB before it)")
		}
		k.inBlock, k.haveWarp, k.block = true, false, [3]int{}
		return nil, nil
	case strings.HasPrefix(text, "#END_TB"):
		if !k.inBlock {
			return nil, k.errorf("#END_TB outside a thread block")
		}
		if err := k.endWarp(); err != nil {
			return nil, err
		}
		k.inBlock, k.haveWarp = false, false
		return nil, nil
	case text[0] == '#':
		return nil, nil
	case strings.HasPrefix(text, "thread block"):
		if !k.inBlock {
			return nil, k.errorf("\"thread block\" outside #BEGIN_TB ... #END_TB")
		}
		_, v, _ := strings.Cut(text, "=")
		parts := strings.Split(strings.TrimSpace(v), ",")
		if len(parts) != 3 {
			return nil, k.errorf("want \"thread block = X,Y,Z\"")
		}
		for i, p := range parts {
			n, err := strconv.ParseUint(strings.TrimSpace(p), 10, 31)
			if err != nil {
				return nil, k.errorf("thread block index %q is not a number", clip(p))
			}
			k.block[i] = int(n)
		}
		return nil, nil
	case strings.HasPrefix(text, "warp"):
		if !k.inBlock {
			return nil, k.errorf("\"warp\" outside #BEGIN_TB ... #END_TB")
		}
		if err := k.endWarp(); err != nil {
			return nil, err
		}
		n, err := k.assigned(text, "warp")
		if err != nil {
			return nil, err
		}
		k.warp, k.haveWarp, k.insts, k.seen, k.instsLine = n, true, -1, 0, 0
		k.seq = k.warps
		k.warps++
		return nil, nil
	case strings.HasPrefix(text, "insts"):
		if !k.haveWarp || k.insts >= 0 {
			return nil, k.errorf("\"insts\" not right after a \"warp = N\" line")
		}
		n, err := k.assigned(text, "insts")
		if err != nil {
			return nil, err
		}
		k.insts, k.instsLine = n, k.line
		return nil, nil
	}
	if !k.haveWarp || k.insts < 0 {
		return nil, k.errorf("instruction outside a warp (no \"warp = N\" and \"insts = N\" before it)")
	}
	if k.seen >= k.insts {
		return nil, k.errorf("more instructions than the warp's \"insts = %d\"", k.insts)
	}
	k.seen++
	return k.instruction(text)
}

// endWarp checks that the warp just read had as many instructions as it
// declared.
func (k *kernelFile) endWarp() error {
	if k.haveWarp && k.insts >= 0 && k.seen != k.insts {
		return k.errorf("warp %d has %d instructions, its \"insts\" line (line %d) says %d", k.warp, k.seen, k.instsLine, k.insts)
	}
	return nil
}

// assigned reads the number of a "key = N" line.
func (k *kernelFile) assigned(text, key string) (int, error) {
	name, v, ok := strings.Cut(text, "=")
	if !ok || strings.TrimSpace(name) != key {
		return 0, k.errorf("want \"%s = N\"", key)
	}
	n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 31)
	if err != nil {
		return 0, k.errorf("%s %q is not a number", key, clip(strings.TrimSpace(v)))
	}
	return int(n), nil
}

// splitFields splits s at white space into dst's storage.
func splitFields(dst []string, s string) []string {
	dst = dst[:0]
	for i := 0; i < len(s); {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\t' {
			j++
		}
		if j > i {
			dst = append(dst, s[i:j])
		}
		i = j
	}
	return dst
}

// instruction parses "[line] PC mask dest_num [dests] opcode src_num
// [srcs] mem_width [format addresses...] [immediate]".
func (k *kernelFile) instruction(text string) (*WarpAccess, error) {
	k.fields = splitFields(k.fields, text)
	f := k.fields
	p := 0
	take := func(what string) (string, error) {
		if p >= len(f) {
			return "", k.errorf("line ends before the %s", what)
		}
		p++
		return f[p-1], nil
	}
	a := &WarpAccess{File: k.path, Line: k.line, Kernel: k.id, KernelName: k.name, Block: k.block, Warp: k.warp, InstrBytes: k.instrBytes}
	// Raw traces, and post-processed ones before version 3, start a line
	// with the thread block x, y, z and the warp (in the latter as its
	// section says).
	if k.raw || k.version < 3 {
		var id [4]int
		for i, what := range []string{"thread block x", "thread block y", "thread block z", "warp"} {
			s, err := take(what)
			if err != nil {
				return nil, err
			}
			n, err := strconv.ParseUint(s, 10, 31)
			if err != nil {
				return nil, k.errorf("%s %q is not a decimal number (raw traces and those before tracer version 3 start each line with the thread block and warp)", what, clip(s))
			}
			id[i] = int(n)
		}
		if k.raw {
			seq, ok := k.rawWarps[id]
			if !ok {
				if len(k.rawWarps) >= MaxRawWarps {
					return nil, k.errorf("more than %d warps in a raw trace: run the tracer's post-traces-processing", MaxRawWarps)
				}
				seq = len(k.rawWarps)
				k.rawWarps[id] = seq
				k.ldgstsFirst = append(k.ldgstsFirst, true)
				k.warps++
			}
			k.seq = seq
			a.Block, a.Warp = [3]int{id[0], id[1], id[2]}, id[3]
			// The tracer run with TOOL_TRACE_CORE=1 (print_core_id) writes
			// the SM and the warp's slot in it after the warp; the header
			// does not say so, the line does: the 8-digit active mask
			// comes two fields later than without them.
			mask := p + 1 // after the PC
			if k.lineinfo {
				mask++
			}
			if !isMask(f, mask) && isMask(f, mask+2) && isDecimal(f[p]) && isDecimal(f[p+1]) {
				p += 2
			}
		}
	}
	if k.lineinfo {
		s, err := take("source line number")
		if err != nil {
			return nil, err
		}
		n, err := strconv.ParseUint(s, 10, 31)
		if err != nil {
			return nil, k.errorf("source line number %q is not a decimal number", clip(s))
		}
		a.SourceLine = int(n)
	}
	s, err := take("PC")
	if err != nil {
		return nil, err
	}
	if a.PC, err = parseHex(s); err != nil {
		return nil, k.errorf("PC %q is not a hex number", clip(s))
	}
	if k.instrBytes != 0 && a.PC%uint64(k.instrBytes) != 0 {
		return nil, k.errorf("PC 0x%x is not a multiple of %d, the instruction size of the header's -binary version", a.PC, k.instrBytes)
	}
	if s, err = take("active mask"); err != nil {
		return nil, err
	}
	mask, err := parseHex(s)
	if err != nil || mask > 0xffffffff {
		return nil, k.errorf("active mask %q is not a 32-bit hex number", clip(s))
	}
	a.Mask = uint32(mask)
	if err := k.skipRegs(&p, "destination"); err != nil {
		return nil, err
	}
	if a.Opcode, err = take("opcode"); err != nil {
		return nil, err
	}
	if err := k.skipRegs(&p, "source"); err != nil {
		return nil, err
	}
	if s, err = take("memory width"); err != nil {
		return nil, err
	}
	width, err := strconv.ParseUint(s, 10, 8)
	if err != nil {
		return nil, k.errorf("memory width %q is not a decimal number", clip(s))
	}
	if width == 0 {
		return a, nil // not a memory instruction (Width 0); the rest is its immediate
	}
	if width > 32 || width&(width-1) != 0 {
		return nil, k.errorf("memory width %d bytes: want 1, 2, 4, 8, 16 or 32", width)
	}
	a.Width = int(width)
	if s, err = take("address format"); err != nil {
		return nil, err
	}
	lanes := bits.OnesCount32(a.Mask)
	a.Addrs = make([]uint64, 0, lanes)
	switch s {
	case "0":
		for range lanes {
			if p >= len(f) { // checked here: the message is formatted only on error
				return nil, k.errorf("line ends before the address of active lane %d of %d", len(a.Addrs)+1, lanes)
			}
			s, p = f[p], p+1
			v, err := parseHex(s)
			if err != nil {
				return nil, k.errorf("address %q is not a hex number", clip(s))
			}
			a.Addrs = append(a.Addrs, v)
		}
	case "1":
		if s, err = take("base address"); err != nil {
			return nil, err
		}
		base, err := parseHex(s)
		if err != nil {
			return nil, k.errorf("base address %q is not a hex number", clip(s))
		}
		if s, err = take("stride"); err != nil {
			return nil, err
		}
		stride, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return nil, k.errorf("stride %q is not a 32-bit decimal number", clip(s))
		}
		if lanes > 0 {
			low := a.Mask >> bits.TrailingZeros32(a.Mask)
			if low&(low+1) != 0 {
				return nil, k.errorf("base_stride address format with active mask %08x: the tracer writes it only for a contiguous run of active lanes", a.Mask)
			}
		}
		addr := base
		for i := range lanes {
			if i > 0 {
				if addr, err = k.offset(addr, stride); err != nil {
					return nil, err
				}
			}
			a.Addrs = append(a.Addrs, addr)
		}
	case "2":
		if s, err = take("base address"); err != nil {
			return nil, err
		}
		addr, err := parseHex(s)
		if err != nil {
			return nil, k.errorf("base address %q is not a hex number", clip(s))
		}
		for i := range lanes {
			if i > 0 {
				if p >= len(f) {
					return nil, k.errorf("line ends before the delta of active lane %d of %d", i+1, lanes)
				}
				s, p = f[p], p+1
				d, err := strconv.ParseInt(s, 10, 64)
				if err != nil {
					return nil, k.errorf("delta %q is not a decimal number", clip(s))
				}
				if addr, err = k.offset(addr, d); err != nil {
					return nil, err
				}
			}
			a.Addrs = append(a.Addrs, addr)
		}
	default:
		return nil, k.errorf("address format %q: want 0 (list_all), 1 (base_stride) or 2 (base_delta)", clip(s))
	}
	// Before version 4 a line ends here; version 5 ends it with the
	// immediate; version 4 with or without, by the tracer's build, so the
	// file's first memory line decides for the rest.
	rest := len(f) - p
	want := 0
	switch {
	case k.version >= 5:
		want = 1
	case k.version == 4 && k.imm < 0 && (rest == 0 || rest == 1):
		k.imm, want = rest, rest
	case k.version == 4:
		want = k.imm
	}
	if rest != want {
		if k.version == 4 && k.imm < 0 {
			return nil, k.errorf("%d fields after the addresses, tracer version 4 writes 0 or 1 (the immediate): the address count does not match the mask %08x (%d lanes)", rest, a.Mask, lanes)
		}
		if k.version == 4 {
			return nil, k.errorf("%d fields after the addresses, this file's tracer (version 4) writes %d, as on its first memory line: the address count does not match the mask %08x (%d lanes)", rest, want, a.Mask, lanes)
		}
		if k.version == 0 {
			return nil, k.errorf("%d fields after the addresses, a trace without a tracer version (the layout before version 3) writes 0: the address count does not match the mask %08x (%d lanes)", rest, a.Mask, lanes)
		}
		return nil, k.errorf("%d fields after the addresses, tracer version %d writes %d: the address count does not match the mask %08x (%d lanes)", rest, k.version, want, a.Mask, lanes)
	}
	if rest == 1 {
		if _, err := strconv.ParseInt(f[p], 10, 64); err != nil {
			return nil, k.errorf("immediate %q is not a decimal number", clip(f[p]))
		}
	}
	a.Space, a.Op = Classify(a.Opcode)
	if a.Space == Global && (a.Opcode == "LD" || strings.HasPrefix(a.Opcode, "LD.") || a.Opcode == "ST" ||
		strings.HasPrefix(a.Opcode, "ST.") || a.Opcode == "ATOM" || strings.HasPrefix(a.Opcode, "ATOM.")) {
		a.Space = k.genericSpace(a.Addrs)
	}
	if a.Space == Shared {
		if err := k.sharedOffsets(a.Addrs); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// genericSpace resolves a generic LD, ST or ATOM as Accel-Sim does: shared
// when its first active address lies in the shared window [shmem
// base_addr, local mem base_addr), global otherwise.
func (k *kernelFile) genericSpace(addrs []uint64) Space {
	if k.shmemBase != 0 && k.localBase > k.shmemBase && len(addrs) > 0 &&
		addrs[0] >= k.shmemBase && addrs[0] < k.localBase {
		return Shared
	}
	return Global
}

// sharedOffsets turns generic addresses in the shared window into offsets
// from its base. Addresses below the base are offsets already; one access
// cannot mix the two.
func (k *kernelFile) sharedOffsets(addrs []uint64) error {
	if k.shmemBase == 0 || len(addrs) == 0 {
		return nil
	}
	generic := addrs[0] >= k.shmemBase
	for i, v := range addrs {
		if (v >= k.shmemBase) != generic {
			return k.errorf("shared-memory access mixes generic addresses (at or above shmem base_addr 0x%x) and offsets: lane address %d is 0x%x", k.shmemBase, i+1, v)
		}
		if generic {
			addrs[i] = v - k.shmemBase
		}
	}
	return nil
}

// offset adds a signed distance to an address, refusing to leave 64 bits.
func (k *kernelFile) offset(addr uint64, d int64) (uint64, error) {
	if d >= 0 {
		s, carry := bits.Add64(addr, uint64(d), 0)
		if carry != 0 {
			return 0, k.errorf("address 0x%x + %d overflows 64 bits", addr, d)
		}
		return s, nil
	}
	m := uint64(-(d + 1)) + 1 // |d| without overflow at MinInt64
	if m > addr {
		return 0, k.errorf("address 0x%x - %d is below 0", addr, m)
	}
	return addr - m, nil
}

// skipRegs reads a register count and that many register operands.
func (k *kernelFile) skipRegs(p *int, what string) error {
	f := k.fields
	if *p >= len(f) {
		return k.errorf("line ends before the %s register count", what)
	}
	n, err := strconv.ParseUint(f[*p], 10, 8)
	if err != nil || n > maxRegs {
		return k.errorf("%s register count %q: want 0 to %d", what, clip(f[*p]), maxRegs)
	}
	*p++
	if int(n) > len(f)-*p {
		return k.errorf("line ends inside the %d %s registers", n, what)
	}
	*p += int(n)
	return nil
}

// parseHex reads a hex number with or without 0x.
// isMask tells whether f[i] is an active mask as the tracer prints it:
// eight hex digits.
func isMask(f []string, i int) bool {
	if i >= len(f) || len(f[i]) != 8 {
		return false
	}
	_, err := strconv.ParseUint(f[i], 16, 32)
	return err == nil
}

// isDecimal tells whether s is a decimal number as the tracer prints one.
func isDecimal(s string) bool {
	_, err := strconv.ParseUint(s, 10, 31)
	return err == nil
}

func parseHex(s string) (uint64, error) {
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s = s[2:]
	}
	if s == "" || s[0] == '+' || s[0] == '-' || strings.IndexByte(s, '_') >= 0 {
		return 0, strconv.ErrSyntax
	}
	return strconv.ParseUint(s, 16, 64)
}

// Classify returns the memory space and operation of an opcode by its
// first dot-separated part: LDS, STS, ATOMS, LDSM, STSM are shared; LDG,
// STG, ATOMG, RED, LD, ST, ATOM global (a generic LD/ST/ATOM the reader
// resolves by address); LDL, STL local; the rest Other.
func Classify(opcode string) (Space, Op) {
	base, _, _ := strings.Cut(opcode, ".")
	switch base {
	case "LDS", "LDSM":
		return Shared, Load
	case "STS", "STSM":
		return Shared, Store
	case "ATOMS":
		return Shared, Atomic
	case "LDG", "LD":
		return Global, Load
	case "STG", "ST":
		return Global, Store
	case "ATOMG", "ATOM", "RED", "REDG":
		return Global, Atomic
	case "LDL":
		return Local, Load
	case "STL":
		return Local, Store
	}
	switch {
	case strings.HasPrefix(base, "LD"):
		return Other, Load
	case strings.HasPrefix(base, "ST"):
		return Other, Store
	case strings.HasPrefix(base, "ATOM") || strings.HasPrefix(base, "RED"):
		return Other, Atomic
	}
	return Other, Load
}
