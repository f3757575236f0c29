package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/internal/testenv"
	"github.com/ulikunitz/xz"
	"hash/crc32"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The hostile-input corpus of issue 18: one row per case, each replayed by
// make test and each asserting what lsugen promises on bad input (docs/
// robustness.md): the exit status (0 success, 1 failure, 2 usage or
// refused input, 128 + N after signal N), a located diagnostic or a named
// error, the report where it matters, and on disk: every file that was
// there before unchanged (content, type, link target), no new file but
// the asked outputs, no temporary (.tmp-*) anywhere, an empty TMPDIR.
// No row panics (stderr never holds "panic:" or "fatal error:").
//
// Most rows run in-process through run (about a millisecond each); rows
// with a child run the test binary again as lsugen (TestHostileCorpusChild)
// under a file-size or address-space limit, or to interrupt it.

// hcEntry is one thing a row creates before it runs, relative to its
// directory.
type hcEntry struct {
	path string
	kind byte   // 'f' regular file, 'l' symbolic link, 'p' FIFO, 'd' directory
	data string // the file's content, the link's target
}

func hcFile(path, data string) hcEntry   { return hcEntry{path, 'f', data} }
func hcLink(path, target string) hcEntry { return hcEntry{path, 'l', target} }
func hcFifo(path string) hcEntry         { return hcEntry{path, 'p', ""} }
func hcDir(path string) hcEntry          { return hcEntry{path, 'd', ""} }

// hcChild runs a row's command as a child process.
type hcChild struct {
	fsize   uint64         // RLIMIT_FSIZE in bytes (SIGXFSZ ignored: writes past it fail with EFBIG, as on a full disk)
	asExtra uint64         // RLIMIT_AS: this many bytes above the child's size when it starts
	signal  syscall.Signal // sent once ready reports true
	ready   func(dir string, pid int) bool
	tools   bool // lsugen runs tools: none of its processes may survive it
	// done: the outputs a run that had finished its work when the signal
	// came may write (it exits 0 and keeps them, all or nothing).
	done []string
}

type hostileCase struct {
	name     string
	cat      string // file, flag, signal, disk, memory
	finding  string // the finding of issue 18 it replays, or "behaves"
	setup    []hcEntry
	args     []string // "$SPECS/" is the repository's specs/ directory; "$DIR" in a file's content is the row's directory
	code     int
	stderr   []string // each must occur; "re:" starts a regular expression
	stdout   []string
	noStderr []string // must not occur
	noStdout []string // must not occur
	maxErr   int      // stderr at most this many bytes (0: no bound)
	outputs  []string // patterns (path.Match) of files the run may create or replace
	full     bool     // standard output fails every write, as /dev/full
	child    *hcChild
	// deadPIDs are files in the row's directory that the run writes, each
	// the pid of a process started under lsugen that must not outlive it.
	deadPIDs []string
}

// Spec builders: hcBlock(KIND, NAME, attributes...) puts attribute i on
// line i+2.
func hcBlock(kind, name string, attrs ...string) string {
	return kind + " \"" + name + "\" {\n  " + strings.Join(attrs, "\n  ") + "\n}\n"
}

func hcHash(attrs ...string) string { return hcBlock("hash", "h", attrs...) }

var (
	hcGoodHash = hcHash(`function = "fixed_xor"`, "addr_bits = 10", "bank_bits = 5")
	hcPerm     = []string{`function = "bitvector_perm"`, "addr_bits = 10", "bank_bits = 5", "k = 0"}
	hcRap32    = hcBlock("hash", "r", `function = "rap"`, "w = 32", "seed = 1")
)

// hcWith returns base with attribute i replaced (or, i = len, appended).
func hcWith(base []string, i int, a string) []string {
	out := append([]string(nil), base...)
	if i == len(out) {
		return append(out, a)
	}
	out[i] = a
	return out
}

// hcSpecRow: gen refuses the spec s.hcl with exit 2 and a diagnostic at
// line, mentioning what; nothing is written.
func hcSpecRow(name, finding, src string, line int, what string) hostileCase {
	return hostileCase{
		name: name, cat: "file", finding: finding,
		setup: []hcEntry{hcFile("s.hcl", src)},
		args:  []string{"gen", "-o", "out", "s.hcl"},
		code:  2,
		stderr: []string{
			fmt.Sprintf("re:s\\.hcl:%d:\\d+: error: ", line),
			what,
		},
	}
}

// hcFlagRow: a refused flag value (exit 2) whose message names what.
func hcFlagRow(name, finding string, setup []hcEntry, args []string, what ...string) hostileCase {
	return hostileCase{name: name, cat: "flag", finding: finding, setup: setup, args: args, code: 2, stderr: what}
}

func hcCoalescer(attrs ...string) string { return hcBlock("coalescer", "c", attrs...) }

var hcCoal = []string{`structure = "all_to_all"`, "lanes = 8", "addr_bits = 16", "block_bits = 5"}

func hcPipeline(attrs ...string) string { return hcBlock("elastic_pipeline", "p", attrs...) }

var hcPipe = []string{"mem_stages = 4", "warp_size = 32", "simd_width = 8", "tag_bits = 10"}

var hcWRM = []string{"warp_contexts = 32", "history_sets = 256", "history_ways = 2", "pc_bits = 14", "warp_size = 32", "simd_width = 8"}

var hcArb = []string{"lanes = 8", "addr_bits = 10", "bank_bits = 3"}

var hcPat = []string{"matrix = [[1, 0], [0, 1]]", "cols = 16", "block = [16, 16]"}

// hcEarlierRap stands for earlier outputs of unit r (hcRap32) in out/: a
// successful gen replaces them, a failed one must keep them.
var hcEarlierRap = []hcEntry{hcDir("out"), hcFile("out/r.v", "earlier r.v\n"), hcFile("out/r_gates.v", "earlier r_gates.v\n")}

// hcGzip is s compressed with gzip.
func hcGzip(s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, _ = w.Write([]byte(s))
	_ = w.Close()
	return b.String()
}

// hcTmpAppears reports a temporary of the output writer in dir/out.
func hcTmpAppears(dir string, _ int) bool {
	es, _ := os.ReadDir(filepath.Join(dir, "out"))
	for _, e := range es {
		if strings.Contains(e.Name(), ".tmp-") {
			return true
		}
	}
	return false
}

func hostileCases() []hostileCase {
	var cs []hostileCase
	add := func(c ...hostileCase) { cs = append(cs, c...) }
	behaves := "behaves"

	// --- Spec files: every limit one past its bound, and malformed input.
	add(
		hcSpecRow("hash addr_bits 65", behaves, hcHash(hcWith(hcPerm, 1, "addr_bits = 65")...), 3, "addr_bits"),
		hcSpecRow("hash addr_bits 0", behaves, hcHash(hcWith(hcPerm, 1, "addr_bits = 0")...), 3, "addr_bits"),
		hcSpecRow("hash addr_bits negative", behaves, hcHash(hcWith(hcPerm, 1, "addr_bits = -1")...), 3, "addr_bits"),
		hcSpecRow("hash addr_bits fractional", behaves, hcHash(hcWith(hcPerm, 1, "addr_bits = 10.5")...), 3, "addr_bits"),
		hcSpecRow("hash addr_bits 1e400", behaves, hcHash(hcWith(hcPerm, 1, "addr_bits = 1e400")...), 3, "addr_bits"),
		hcSpecRow("hash addr_bits 2^70", behaves, hcHash(hcWith(hcPerm, 1, "addr_bits = 1180591620717411303424")...), 3, "addr_bits"),
		hcSpecRow("hash addr_bits a string", behaves, hcHash(hcWith(hcPerm, 1, `addr_bits = "ten"`)...), 3, "addr_bits"),
		hcSpecRow("hash bank_bits 17", behaves, hcHash(hcWith(hcWith(hcPerm, 1, "addr_bits = 64"), 2, "bank_bits = 17")...), 4, "bank_bits"),
		hcSpecRow("hash bank_bits 0", behaves, hcHash(hcWith(hcPerm, 2, "bank_bits = 0")...), 4, "bank_bits"),
		hcSpecRow("hash bank_bits above addr_bits", behaves, hcHash(hcWith(hcWith(hcPerm, 1, "addr_bits = 4"), 3, "k = 0")...), 4, "bank_bits"),
		hcSpecRow("bitvector_perm k+m past n", behaves, hcHash(hcWith(hcPerm, 3, "k = 6")...), 5, "k"),
		hcSpecRow("bitvector_perm k negative", behaves, hcHash(hcWith(hcPerm, 3, "k = -1")...), 5, "k"),
		hcSpecRow("bitvector_xor k2 = n", behaves, hcHash(`function = "bitvector_xor"`, "addr_bits = 10", "bank_bits = 5", "k1 = 0", "k2 = 10", "mask = 3"), 6, "k2"),
		hcSpecRow("bitvector_xor mask = 2^m", behaves, hcHash(`function = "bitvector_xor"`, "addr_bits = 10", "bank_bits = 5", "k1 = 0", "k2 = 5", "mask = 32"), 7, "mask"),
		hcSpecRow("bitwise_perm bit index past n", behaves, hcHash(`function = "bitwise_perm"`, "addr_bits = 10", "bank_bits = 2", "bits = [0, 10]"), 5, "bits"),
		hcSpecRow("fixed_xor 2m past n", behaves, hcHash(`function = "fixed_xor"`, "addr_bits = 9", "bank_bits = 5"), 4, "bank_bits"),
		hcSpecRow("rap w 2048", behaves, hcBlock("hash", "r", `function = "rap"`, "w = 2048", "seed = 1"), 3, "w"),
		hcSpecRow("rap w 3", behaves, hcBlock("hash", "r", `function = "rap"`, "w = 3", "seed = 1"), 3, "w"),
		hcSpecRow("rap not a permutation", behaves, hcBlock("hash", "r", `function = "rap"`, "w = 4", "permutation = [0, 0, 1, 2]"), 4, "permutation"),
		hcSpecRow("ipoly degree 17", behaves, hcHash(`function = "ipoly"`, "addr_bits = 32", "polynomial = [17, 3, 0]"), 4, "polynomial"),
		hcSpecRow("mod banks 1025", behaves, hcHash(`function = "mod"`, "addr_bits = 20", "banks = 1025"), 4, "banks"),
		hcSpecRow("mod banks 1", behaves, hcHash(`function = "mod"`, "addr_bits = 20", "banks = 1"), 4, "banks"),
		hcSpecRow("unknown function", behaves, hcHash(hcWith(hcPerm, 0, `function = "xor_matrx"`)...), 2, "function"),
		hcSpecRow("missing function", behaves, hcHash("addr_bits = 10", "bank_bits = 5"), 1, "function"),
		hcSpecRow("unknown attribute", behaves, hcHash(hcWith(hcPerm, 4, "colour = 3")...), 6, "colour"),
		hcSpecRow("unknown block", behaves, hcBlock("hashh", "h", "addr_bits = 10"), 1, "hashh"),
		hcSpecRow("duplicate unit names", behaves, hcGoodHash+hcGoodHash, 6, "h"),
		hcSpecRow("unit named module", behaves, hcBlock("hash", "module", `function = "fixed_xor"`, "addr_bits = 10", "bank_bits = 5"), 1, "module"),
		hcSpecRow("unit name 65 characters", behaves, hcBlock("hash", strings.Repeat("n", 65), `function = "fixed_xor"`, "addr_bits = 10", "bank_bits = 5"), 1, "Invalid unit name"),
		hcSpecRow("coalescer lanes 129", behaves, hcCoalescer(hcWith(hcCoal, 1, "lanes = 129")...), 3, "lanes"),
		hcSpecRow("coalescer lanes 1", behaves, hcCoalescer(hcWith(hcCoal, 1, "lanes = 1")...), 3, "lanes"),
		hcSpecRow("coalescer addr_bits 65", behaves, hcCoalescer(hcWith(hcCoal, 2, "addr_bits = 65")...), 4, "addr_bits"),
		hcSpecRow("coalescer block_bits = addr_bits", behaves, hcCoalescer(hcWith(hcCoal, 3, "block_bits = 16")...), 5, "block_bits"),
		hcSpecRow("coalescer unknown structure", behaves, hcCoalescer(hcWith(hcCoal, 0, `structure = "all_to_some"`)...), 2, "structure"),
		hcSpecRow("detector lanes 129", behaves, hcBlock("monotonicity_detector", "d", "lanes = 129", "addr_bits = 32"), 2, "lanes"),
		hcSpecRow("pipeline mem_stages 17", behaves, hcPipeline(hcWith(hcPipe, 0, "mem_stages = 17")...), 2, "mem_stages"),
		hcSpecRow("pipeline tag_bits 65", behaves, hcPipeline(hcWith(hcPipe, 3, "tag_bits = 65")...), 5, "tag_bits"),
		hcSpecRow("pipeline warp_size 24", behaves, hcPipeline(hcWith(hcPipe, 1, "warp_size = 24")...), 3, "warp_size"),
		hcSpecRow("pipeline 32 subwarps", behaves, hcPipeline(hcWith(hcWith(hcPipe, 1, "warp_size = 64"), 2, "simd_width = 2")...), 4, "simd_width"),
		hcSpecRow("ready mask warp_contexts 65", behaves, hcBlock("warp_ready_mask", "w", hcWith(hcWRM, 0, "warp_contexts = 65")...), 2, "warp_contexts"),
		hcSpecRow("ready mask history_sets 8192", behaves, hcBlock("warp_ready_mask", "w", hcWith(hcWRM, 1, "history_sets = 8192")...), 3, "history_sets"),
		hcSpecRow("ready mask history_ways 9", behaves, hcBlock("warp_ready_mask", "w", hcWith(hcWRM, 2, "history_ways = 9")...), 4, "history_ways"),
		hcSpecRow("ready mask pc_bits below log2(sets)", behaves, hcBlock("warp_ready_mask", "w", hcWith(hcWRM, 3, "pc_bits = 7")...), 5, "pc_bits"),
		hcSpecRow("arbiter lanes 65", behaves, hcBlock("bank_arbiter", "a", hcWith(hcArb, 0, "lanes = 65")...), 2, "lanes"),
		hcSpecRow("arbiter bank_bits with hash", behaves, hcGoodHash+hcBlock("bank_arbiter", "a", hcWith(hcArb, 3, "hash = hash.h")...), 9, "Argument not allowed"),
		hcSpecRow("arbiter hash of no unit", behaves, hcBlock("bank_arbiter", "a", "lanes = 8", "addr_bits = 10", "hash = hash.nosuch"), 4, "nosuch"),
		hcSpecRow("pattern block of 1025 threads", behaves, hcBlock("pattern", "p", hcWith(hcPat, 2, "block = [1025, 1]")...), 4, "block"),
		hcSpecRow("pattern matrix entry 2^20+1", behaves, hcBlock("pattern", "p", hcWith(hcPat, 0, "matrix = [[1048577, 0], [0, 1]]")...), 2, "matrix"),
		hcSpecRow("pattern warp_size 1025", behaves, hcBlock("pattern", "p", hcWith(hcPat, 3, "warp_size = 1025")...), 5, "warp_size"),
		hcSpecRow("range past 4096 elements", behaves, "locals {\n  a = range(5000)\n}\n"+hcGoodHash, 2, "range"),
		hcSpecRow("nested for of 16 M elements", behaves, "locals {\n  a = [for i in range(4096) : [for j in range(4096) : i * j]]\n}\n"+hcGoodHash, 2, ""),
		hcSpecRow("division by zero", behaves, hcHash(hcWith(hcPerm, 3, "k = 5 / 0")...), 5, "Not a whole number"),
		hcSpecRow("modulo by zero", "`k = 5 % 0` is accepted silently as 5", hcHash(hcWith(hcPerm, 3, "k = 5 % 0")...), 5, "Modulo by zero"),
		hcSpecRow("log2 of 3", behaves, hcHash(hcWith(hcPerm, 3, "k = log2(3)")...), 5, "log2"),
		hcSpecRow("locals in a cycle", behaves, "locals {\n  a = local.b\n  b = local.a\n}\n"+hcGoodHash, 3, "Cycle"),
		hcSpecRow("undefined local", behaves, hcHash(hcWith(hcPerm, 3, "k = local.nosuch")...), 5, "undeclared"),
		hcSpecRow("unknown function call", behaves, hcHash(hcWith(hcPerm, 3, "k = nosuch(1)")...), 5, "unknown function"),
		hcSpecRow("unterminated block", behaves, "hash \"h\" {\n  function = \"fixed_xor\"\n", 1, "Unclosed"),
		hcSpecRow("binary garbage", behaves, "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00>\x00\x01", 1, ""),
		hcSpecRow("NUL bytes", behaves, "hash \"h\" {\n  function = \"fixed\x00xor\"\n  addr_bits = 10\n  bank_bits = 5\n}\n", 2, ""),
		hcSpecRow("spec of 300 KiB", behaves, hcGoodHash+"# "+strings.Repeat("x", 300<<10)+"\n", 1, "262144"),
		hostileCase{
			name: "empty spec", cat: "file", finding: behaves,
			setup: []hcEntry{hcFile("s.hcl", "")},
			args:  []string{"gen", "-o", "out", "s.hcl"}, code: 2,
			stderr: []string{"declare no units"},
		},
		hostileCase{
			name: "spec is /dev/zero", cat: "file", finding: behaves,
			setup: []hcEntry{hcLink("s.hcl", "/dev/zero")},
			args:  []string{"timing", "s.hcl"}, code: 2,
			stderr: []string{"s.hcl:1:1: error: Spec file too large"},
		},
		hostileCase{
			name: "spec is a directory", cat: "file", finding: behaves,
			setup: []hcEntry{hcDir("s.hcl")},
			args:  []string{"timing", "s.hcl"}, code: 2,
			stderr: []string{"s.hcl", "directory"},
		},
		hostileCase{
			name: "spec missing", cat: "file", finding: behaves,
			args: []string{"gen", "-o", "out", "nosuch.hcl"}, code: 2,
			stderr: []string{"nosuch.hcl"},
		},
		hostileCase{
			name: "spec is a dangling symlink", cat: "file", finding: behaves,
			setup: []hcEntry{hcLink("s.hcl", "nowhere.hcl")},
			args:  []string{"timing", "s.hcl"}, code: 2,
			stderr: []string{"s.hcl"},
		},
		hostileCase{
			name: "terminal escapes in a spec", cat: "file",
			finding: "control characters in a spec line (terminal escape sequences) reach the terminal through the snippet",
			setup:   []hcEntry{hcFile("s.hcl", "hash \"a\" {\n  function  = \"xor\x1b[31mmatrix\x07\"\n  addr_bits = 12\n  bank_bits = 4\n}\n")},
			args:    []string{"gen", "-o", "out", "s.hcl"}, code: 2,
			stderr:   []string{"re:s\\.hcl:2:\\d+: error", `\x1b`},
			noStderr: []string{"\x1b", "\x07"},
		},
		hostileCase{
			name: "a duplicate attribute and other errors", cat: "file",
			finding: "a duplicate attribute hides every other diagnostic of the file",
			setup: []hcEntry{hcFile("s.hcl", hcHash(`function = "fixed_xor"`, "addr_bits = 10", "addr_bits = 10", "bank_bits = 5")+
				hcBlock("hash", "g", `function = "fixed_xor"`, "addr_bits = 99", "bank_bits = 5"))},
			args: []string{"gen", "-o", "out", "s.hcl"}, code: 2,
			stderr: []string{"re:s\\.hcl:4:\\d+: error: ", "re:s\\.hcl:9:\\d+: error: "},
		},
		hostileCase{
			name: "a 384 KB local in 10 units", cat: "memory",
			finding: "an invalid 124 KB spec prints 615 MB of diagnostics (each error repeats a 400 KB local's value)",
			setup: []hcEntry{hcFile("s.hcl", func() string {
				var b strings.Builder
				b.WriteString("locals {\n  a = \"" + strings.Repeat("x", 2000) + "\"\n")
				b.WriteString("  b = \"${local.a}${local.a}${local.a}${local.a}\"\n")
				b.WriteString("  c = \"${local.b}${local.b}${local.b}${local.b}\"\n")
				b.WriteString("  d = \"" + strings.Repeat("${local.c}", 12) + "\"\n}\n")
				for i := 0; i < 10; i++ {
					b.WriteString(hcBlock("hash", "h"+strconv.Itoa(i), "function = local.d", "addr_bits = local.d + 1", "bank_bits = 4"))
				}
				return b.String()
			}())},
			args: []string{"gen", "-o", "out", "s.hcl"}, code: 2,
			stderr: []string{"re:s\\.hcl:8:\\d+: error: "},
			maxErr: 100 << 10,
		},
	)

	// --- Output files: the writer replaces regular files only, creates no
	// directory but gen's -o, refuses colliding names up front, writes all
	// or nothing.
	for _, c := range []struct{ other, file, flag string }{
		{"foo_gates", "foo_gates.v", "--c"},
		{"foo_synth", "foo_synth.v", "--fusesoc"},
		{"foo_tb", "foo_tb.v", "--tb"},
	} {
		add(hostileCase{
			name: "gen units foo and " + c.other + " " + c.flag, cat: "file",
			finding: "two units named `foo` and `foo_gates` → `foo`'s gate netlist is silently overwritten; `foo` + `foo_synth` collide",
			setup:   []hcEntry{hcFile("s.hcl", strings.Replace(hostileTwoUnits, "%s", c.other, 1))},
			args:    []string{"gen", c.flag, "-o", "out", "s.hcl"}, code: 2,
			stderr: []string{c.file, "unit foo (s.hcl:1)", "unit " + c.other + " (s.hcl:7)"},
		})
	}
	victim := hcFile("victim.txt", "keep me\n")
	hcl := hcFile("s.hcl", hcRap32)
	tr := hcFile("t.trace", "0 1 2 3\n0 32 64 96\n")
	searchArgs := []string{"search", "--function", "bitvector_perm", "--addr-bits", "10", "--bank-bits", "5", "t.trace"}
	pipesimArgs := []string{"pipesim", "$SPECS/pipeline_figure4.hcl", "--trace", "$SPECS/traces/figure4.ptrace"}
	synth := []string{"pipesim", "$SPECS/pipeline_study.hcl", "--synthetic", "--instructions", "20", "--warps", "2"}
	for _, tgt := range []struct {
		what  string
		setup []hcEntry
		name  string
		kind  string
	}{
		{"a symlink", []hcEntry{victim, hcLink("x", "victim.txt")}, "x", "symbolic link"},
		{"a symlink to /dev/null", []hcEntry{hcLink("x", "/dev/null")}, "x", "symbolic link"},
		{"a FIFO", []hcEntry{hcFifo("x")}, "x", "FIFO"},
		{"a directory", []hcEntry{hcDir("x"), hcFile("x/inner", "keep")}, "x", "directory"},
	} {
		finding := "Writing an output (`pipesim --write-trace`, `timing --svg`, `search -o/--svg`, `pipesim -o`) onto a device node, FIFO or symlink replaces it with a regular file"
		for _, cmd := range []struct {
			name string
			args []string
		}{
			{"timing --svg", []string{"timing", "--svg", "x", "s.hcl"}},
			{"search -o", append([]string{"search", "-o", "x"}, searchArgs[1:]...)},
			{"search --svg", append([]string{"search", "--svg", "x"}, searchArgs[1:]...)},
			{"pipesim -o", append(append([]string(nil), pipesimArgs...), "-o", "x")},
			{"pipesim --write-trace", append(append([]string(nil), synth...), "--write-trace", "x")},
			// Found by this corpus: both wrote past the output writer.
			{"verify --junit", []string{"verify", "--sim", "netlist", "--junit", "x", "s.hcl"}},
			{"crosscheck-timing --doc", []string{"crosscheck-timing", "--liberty", "none.lib", "--doc", "x", "s.hcl"}},
		} {
			if tgt.what == "a directory" && cmd.name != "pipesim --write-trace" && cmd.name != "timing --svg" {
				continue // one of each kind per command is enough; directories twice
			}
			add(hostileCase{
				name: cmd.name + " onto " + tgt.what, cat: "file", finding: finding,
				setup: append(append([]hcEntry(nil), tgt.setup...), hcl, tr),
				args:  cmd.args, code: 2,
				stderr: []string{"x", tgt.kind},
			})
		}
	}
	for _, v := range []string{"NaN", "Inf"} {
		// Found by this corpus: NaN passed the flag check and failed later, exit 1.
		add(hostileCase{name: "timing --driver-size " + v, cat: "flag", finding: behaves,
			setup: []hcEntry{hcl}, args: []string{"timing", "--driver-size", v, "s.hcl"}, code: 2,
			stderr: []string{"--driver-size must be positive"}},
			hostileCase{name: "timing --load " + v, cat: "flag", finding: behaves,
				setup: []hcEntry{hcl}, args: []string{"timing", "--load", v, "s.hcl"}, code: 2,
				stderr: []string{"--load not negative"}})
	}
	add(
		hostileCase{
			name: "search -o into a missing directory", cat: "file",
			finding: "`search -o /nonexist/dir/x.hcl` and `timing --svg /nonexist/x.svg` create directories",
			setup:   []hcEntry{tr},
			args:    append([]string{"search", "-o", "nonexist/dir/x.hcl"}, searchArgs[1:]...), code: 2,
			stderr: []string{"nonexist/dir"},
		},
		hostileCase{
			name: "timing --svg into a missing directory", cat: "file",
			finding: "`search -o /nonexist/dir/x.hcl` and `timing --svg /nonexist/x.svg` create directories",
			setup:   []hcEntry{hcl},
			args:    []string{"timing", "--svg", "nonexist/x.svg", "s.hcl"}, code: 2,
			stderr: []string{"nonexist"},
		},
		hostileCase{
			name: "pipesim -o into a missing directory", cat: "file", finding: behaves,
			args: append(append([]string(nil), pipesimArgs...), "-o", "nonexist/r.txt"), code: 2,
			stderr: []string{"nonexist"},
		},
		hostileCase{
			name: "gen over a tree where one output is a directory", cat: "file",
			finding: "`gen` over an earlier tree where one output name is a non-empty directory exits 1 after replacing 9 of the 10 earlier files",
			setup:   []hcEntry{hcl, hcDir("out"), hcFile("out/r.v", "earlier\n"), hcDir("out/r_gates.v"), hcFile("out/r_gates.v/keep", "keep\n")},
			args:    []string{"gen", "-o", "out", "s.hcl"}, code: 2,
			stderr: []string{"out/r_gates.v", "directory"},
		},
		hostileCase{
			name: "gen -o names a regular file", cat: "file", finding: behaves,
			setup: []hcEntry{hcl, hcFile("out", "a file\n")},
			args:  []string{"gen", "-o", "out", "s.hcl"}, code: 2,
			stderr: []string{"out", "not a directory"},
		},
		hostileCase{
			name: "gen replaces an earlier tree", cat: "file", finding: behaves,
			setup: append([]hcEntry{hcl}, hcEarlierRap...),
			args:  []string{"gen", "-o", "out", "s.hcl"}, code: 0,
			stdout:  []string{"wrote 2 files for 1 units"},
			outputs: []string{"out/r.v", "out/r_gates.v"},
		},
		hostileCase{
			name: "search -o replaces an earlier file", cat: "file", finding: behaves,
			setup: []hcEntry{tr, hcFile("x.hcl", "earlier\n")},
			args:  append([]string{"search", "-o", "x.hcl"}, searchArgs[1:]...), code: 0,
			stdout:  []string{"bitvector_perm"},
			outputs: []string{"x.hcl"},
		},
		hostileCase{
			name: "arguments after -- are files", cat: "file",
			finding: "everything after `--` is not treated as positional",
			setup:   []hcEntry{hcFile("-weird.trace", "0x10\n0x20\n")},
			args:    []string{"conflicts", "--", "-weird.trace"}, code: 0,
			stdout: []string{"2 accesses"},
		},
		hostileCase{
			name: "-- then --help is a file", cat: "flag",
			finding: "everything after `--` is not treated as positional",
			args:    []string{"conflicts", "--", "--help"}, code: 2,
			stderr: []string{"open --help"},
		},
	)

	// --- Traces and cell libraries.
	add(
		hostileCase{name: "trace missing", cat: "file", finding: behaves,
			args: []string{"conflicts", "nosuch.trace"}, code: 2, stderr: []string{"open nosuch.trace"}},
		hostileCase{name: "trace empty", cat: "file", finding: behaves,
			setup: []hcEntry{hcFile("t.trace", "")},
			args:  []string{"conflicts", "t.trace"}, code: 0, stdout: []string{"total: 0 accesses"}},
		hostileCase{name: "trace of binary garbage", cat: "file", finding: behaves,
			setup: []hcEntry{hcFile("t.trace", "\x10|\x00\xff\xfe\x1b[2J\n")},
			args:  []string{"conflicts", "t.trace"}, code: 2,
			stderr: []string{"t.trace:1:", `\x10`}, noStderr: []string{"\x1b"}},
		hostileCase{name: "trace with a NUL byte", cat: "file", finding: behaves,
			setup: []hcEntry{hcFile("t.trace", "0x10\x00 0x20\n")},
			args:  []string{"conflicts", "t.trace"}, code: 2, stderr: []string{"t.trace:1:", `\x00`}},
		hostileCase{name: "trace is a directory", cat: "file", finding: behaves,
			setup: []hcEntry{hcDir("t.trace")},
			args:  []string{"conflicts", "t.trace"}, code: 2, stderr: []string{"t.trace", "directory"}},
		hostileCase{name: "trace address past 64 bits", cat: "file", finding: behaves,
			setup: []hcEntry{hcFile("t.trace", "1 2\n99999999999999999999999\n")},
			args:  []string{"conflicts", "t.trace"}, code: 2, stderr: []string{"t.trace:2:", "64 bits"}},
		hostileCase{name: "trace negative address", cat: "file", finding: behaves,
			setup: []hcEntry{hcFile("t.trace", "-5 3\n")},
			args:  []string{"conflicts", "t.trace"}, code: 2, stderr: []string{"t.trace:1:", "-5"}},
		hostileCase{name: "trace line of 1025 lanes", cat: "memory", finding: behaves,
			setup: []hcEntry{hcFile("t.trace", strings.Repeat("1 ", 1025)+"\n")},
			args:  []string{"conflicts", "t.trace"}, code: 2, stderr: []string{"t.trace:1:", "1024"}},
		hostileCase{name: "trace line past 1 MiB", cat: "memory", finding: behaves,
			setup: []hcEntry{hcFile("t.trace", "1 2\n# "+strings.Repeat("x", 1<<20)+"\n")},
			args:  []string{"conflicts", "t.trace"}, code: 2, stderr: []string{"t.trace:2", "1048576"}},
		hostileCase{name: "search on an empty trace", cat: "file", finding: behaves,
			setup: []hcEntry{hcFile("t.trace", "")},
			args:  searchArgs, code: 0, stdout: []string{"accesses    0 "}},
		hostileCase{name: "pipesim trace missing", cat: "file", finding: behaves,
			args: []string{"pipesim", "$SPECS/pipeline_figure4.hcl", "--trace", "nosuch.ptrace"}, code: 2, stderr: []string{"nosuch.ptrace"}},
		hostileCase{name: "pipesim trace of garbage", cat: "file", finding: behaves,
			setup: []hcEntry{hcFile("p.ptrace", "\xff\xfe garbage\n")},
			args:  []string{"pipesim", "$SPECS/pipeline_figure4.hcl", "--trace", "p.ptrace"}, code: 2, stderr: []string{"p.ptrace:1"}},
		hostileCase{name: "accelsim kernelslist of a missing kernel", cat: "file", finding: behaves,
			setup: []hcEntry{hcFile("kernelslist.g", "kernel-1.traceg\n")},
			args:  []string{"conflicts", "kernelslist.g"}, code: 2, stderr: []string{"kernel-1.traceg"}},
		hostileCase{name: "accelsim line past 64 KiB", cat: "memory", finding: behaves,
			setup: []hcEntry{hcFile("kernel-1.traceg", "-kernel name = k\n"+strings.Repeat("x", 70<<10)+"\n")},
			args:  []string{"conflicts", "kernel-1.traceg"}, code: 2, stderr: []string{"kernel-1.traceg", "65536"}},
		hostileCase{name: "liberty missing", cat: "file", finding: behaves,
			args: []string{"characterize", "nosuch.lib"}, code: 2, stderr: []string{"nosuch.lib"}},
		hostileCase{name: "liberty empty", cat: "file", finding: behaves,
			setup: []hcEntry{hcFile("c.lib", "")},
			args:  []string{"characterize", "c.lib"}, code: 2, stderr: []string{"c.lib"}},
		hostileCase{name: "liberty is a directory", cat: "file", finding: behaves,
			setup: []hcEntry{hcDir("c.lib")},
			args:  []string{"characterize", "c.lib"}, code: 2, stderr: []string{"c.lib", "directory"}},
		hostileCase{name: "liberty of binary bytes", cat: "file",
			finding: "a 10 MB token or raw binary bytes are echoed whole by the liberty reader",
			setup:   []hcEntry{hcFile("c.lib", "library (x) {\n \x1b[2J\x00\xff\xfe"+strings.Repeat("\x01", 500)+"\n}\n")},
			args:    []string{"characterize", "c.lib"}, code: 2,
			stderr: []string{"c.lib"}, noStderr: []string{"\x1b", "\x00", "\x01"}, maxErr: 1000},
		hostileCase{name: "liberty token of 10 MB", cat: "memory",
			finding: "a 10 MB token or raw binary bytes are echoed whole by the liberty reader",
			setup:   []hcEntry{hcFile("c.lib", "library ("+strings.Repeat("a", 10<<20)+") {\n}\n")},
			args:    []string{"characterize", "c.lib"}, code: 2,
			stderr: []string{"c.lib", "1048576"}, maxErr: 1000},
		hostileCase{name: "hcGzip liberty token of 10 MB", cat: "memory",
			finding: "a 10 MB token or raw binary bytes are echoed whole by the liberty reader",
			setup:   []hcEntry{hcFile("c.lib.gz", hcGzip("library ("+strings.Repeat("a", 10<<20)+") {\n}\n"))},
			args:    []string{"characterize", "c.lib.gz"}, code: 2,
			stderr: []string{"c.lib.gz", "1048576"}, maxErr: 1000},
		hostileCase{name: "liberty is /dev/zero", cat: "memory",
			finding: "the liberty reader has no size limit (`characterize /dev/zero` 6.4 GB in 9 s",
			setup:   []hcEntry{hcLink("c.lib", "/dev/zero")},
			args:    []string{"characterize", "c.lib"}, code: 2,
			stderr: []string{"c.lib"}, maxErr: 1000},
		hostileCase{name: "corrupt gzip liberty", cat: "file", finding: behaves,
			setup: []hcEntry{hcFile("c.lib.gz", hcGzip("library (x) {\n}\n")[:12])},
			args:  []string{"characterize", "c.lib.gz"}, code: 2, stderr: []string{"c.lib.gz"}},
		hostileCase{name: "gen --liberty missing", cat: "file", finding: behaves,
			setup: []hcEntry{hcl},
			args:  []string{"gen", "--fusesoc", "--liberty", "nosuch.lib", "-o", "out", "s.hcl"}, code: 2, stderr: []string{"nosuch.lib"}},
		hostileCase{name: "fusesoc-gen GAPI file missing", cat: "file", finding: behaves,
			args: []string{"fusesoc-gen", "nosuch.yml"}, code: 2, stderr: []string{"nosuch.yml"}},
		hostileCase{name: "fusesoc-gen GAPI file of garbage", cat: "file", finding: behaves,
			setup: []hcEntry{hcFile("g.yml", "\x00\x01: [\n")},
			args:  []string{"fusesoc-gen", "g.yml"}, code: 2, stderr: []string{"g.yml"}},
		hostileCase{name: "verify --rtl missing", cat: "file", finding: behaves,
			setup: []hcEntry{hcl},
			args:  []string{"verify", "--rtl", "nosuch.v", "--unit", "r", "s.hcl"}, code: 2, stderr: []string{"nosuch.v"}},
	)

	// --- Flags.
	add(
		hcFlagRow("unknown command", behaves, nil, []string{"frobnicate"}, "unknown command"),
		hcFlagRow("misspelt command", behaves, nil, []string{"verfy"}, "unknown command", "verify"),
		hcFlagRow("misspelt flag", behaves, nil, []string{"search", "--adr-bits", "10"}, "unknown flag: --adr-bits", "--addr-bits"),
		hcFlagRow("no command", behaves, nil, nil, "Usage"),
		hcFlagRow("gen without a spec", behaves, nil, []string{"gen", "-o", "out"}, "spec"),
		hcFlagRow("version with an argument", behaves, nil, []string{"version", "x"}, "x"),
		hcFlagRow("completion of an unknown shell", behaves, nil, []string{"completion", "tcsh"}, "tcsh"),
		hcFlagRow("timing --clock NaN", "`timing --clock NaN` exits 0 printing \"@NaN FO4 … 1 cycles\"", []hcEntry{hcl}, []string{"timing", "--clock", "NaN", "s.hcl"}, "--clock", "1e+06"),
		hcFlagRow("timing --clock 1e-19", "`--clock 1e-19` gives \"1 cycles\" (integer overflow clamped)", []hcEntry{hcl}, []string{"timing", "--clock", "1e-19", "s.hcl"}, "--clock", "1e+06"),
		hcFlagRow("timing --clock Inf", behaves, []hcEntry{hcl}, []string{"timing", "--clock", "Inf", "s.hcl"}, "--clock"),
		hcFlagRow("timing --clock 40,,x", behaves, []hcEntry{hcl}, []string{"timing", "--clock", "40,,x", "s.hcl"}, "--clock"),
		hcFlagRow("profile --clock -1", "`timing --clock NaN` exits 0", nil, []string{"profile", "--clock", "-1", "$SPECS/traces/accelsim/profile_transpose.traceg"}, "--clock"),
		hcFlagRow("timing --load -1", behaves, []hcEntry{hcl}, []string{"timing", "--load", "-1", "s.hcl"}, "--load"),
		hcFlagRow("timing --mode bogus", behaves, []hcEntry{hcl}, []string{"timing", "--mode", "bogus", "s.hcl"}, "bogus"),
		hcFlagRow("timing --svg-unit of no unit", behaves, []hcEntry{hcl}, []string{"timing", "--svg", "f.svg", "--svg-unit", "nosuch", "s.hcl"}, "nosuch"),
		hcFlagRow("conflicts --banks 0", behaves, []hcEntry{tr}, []string{"conflicts", "--banks", "0", "t.trace"}, "--banks"),
		hcFlagRow("conflicts --banks 2^24+1", behaves, []hcEntry{tr}, []string{"conflicts", "--banks", "16777217", "t.trace"}, "--banks"),
		hcFlagRow("conflicts --bank-bytes 3", behaves, []hcEntry{tr}, []string{"conflicts", "--bank-bytes", "3", "t.trace"}, "--bank-bytes"),
		// A file of one hash unit needs no :UNIT (issue 30); of two, it does.
		hcFlagRow("conflicts --hash without a unit, of two", behaves, []hcEntry{tr, hcFile("two.hcl", hcRap32+hcGoodHash)},
			[]string{"conflicts", "--hash", "two.hcl", "t.trace"}, "2 hash units", "two.hcl:UNIT"),
		hcFlagRow("conflicts --hash of no unit", behaves, []hcEntry{tr, hcl}, []string{"conflicts", "--hash", "s.hcl:nosuch", "t.trace"}, "nosuch"),
		hcFlagRow("conflicts --hash of an invalid spec", behaves, []hcEntry{tr, hcFile("s.hcl", hcHash(hcWith(hcPerm, 1, "addr_bits = 65")...))}, []string{"conflicts", "--hash", "s.hcl:h", "t.trace"}, "re:s\\.hcl:3:\\d+: error"),
		hcFlagRow("search --addr-bits 65", behaves, []hcEntry{tr}, []string{"search", "--function", "bitvector_perm", "--addr-bits", "65", "--bank-bits", "5", "t.trace"}, "65"),
		hcFlagRow("search --bank-bits 0", behaves, []hcEntry{tr}, []string{"search", "--function", "bitvector_perm", "--addr-bits", "10", "--bank-bits", "0", "t.trace"}, "--bank-bits"),
		hcFlagRow("search --function bogus", behaves, []hcEntry{tr}, []string{"search", "--function", "bogus", "--addr-bits", "10", "--bank-bits", "5", "t.trace"}, "bogus"),
		hcFlagRow("search without --addr-bits", behaves, []hcEntry{tr}, []string{"search", "--function", "bitvector_perm", "--bank-bits", "5", "t.trace"}, "addr-bits"),
		hcFlagRow("search --stride x", behaves, nil, []string{"search", "--function", "bitvector_perm", "--addr-bits", "10", "--bank-bits", "5", "--stride", "x"}, "--stride"),
		hcFlagRow("search --method bogus", behaves, []hcEntry{tr}, []string{"search", "--function", "bitwise_xor", "--method", "bogus", "--addr-bits", "10", "--bank-bits", "5", "t.trace"}, "bogus"),
		hcFlagRow("rapsim --trials 0", behaves, nil, []string{"rapsim", "--trials", "0"}, "trials"),
		hcFlagRow("rapsim --w 3", behaves, nil, []string{"rapsim", "--w", "3"}, "w = 3"),
		hcFlagRow("rapsim --w 2048", behaves, nil, []string{"rapsim", "--w", "2048"}, "2048"),
		hcFlagRow("rapsim --table bogus", behaves, nil, []string{"rapsim", "--table", "bogus"}, "bogus"),
		hcFlagRow("rapsim --seed -1", behaves, nil, []string{"rapsim", "--seed", "-1"}, "--seed"),
		hcFlagRow("pipesim without a workload", behaves, nil, []string{"pipesim", "$SPECS/pipeline_study.hcl"}, "--trace"),
		hcFlagRow("pipesim --preset bogus", behaves, nil, []string{"pipesim", "$SPECS/pipeline_study.hcl", "--preset", "bogus"}, "bogus"),
		hcFlagRow("pipesim --warps 0", behaves, nil, []string{"pipesim", "$SPECS/pipeline_study.hcl", "--synthetic", "--warps", "0"}, "warps"),
		hcFlagRow("pipesim --mem NaN", behaves, nil, []string{"pipesim", "$SPECS/pipeline_study.hcl", "--synthetic", "--mem", "NaN"}, "NaN"),
		hcFlagRow("pipesim --degrees garbage", behaves, nil, []string{"pipesim", "$SPECS/pipeline_study.hcl", "--synthetic", "--degrees", "1:x"}, "1:x"),
		hcFlagRow("pipesim --unit of no unit", behaves, nil, []string{"pipesim", "$SPECS/pipeline_study.hcl", "--synthetic", "--unit", "nosuch"}, "nosuch"),
		hcFlagRow("verify --jobs 0", behaves, []hcEntry{hcl}, []string{"verify", "--jobs", "0", "s.hcl"}, "--jobs"),
		hcFlagRow("verify --sim bogus", behaves, []hcEntry{hcl}, []string{"verify", "--sim", "bogus", "s.hcl"}, "bogus"),
		hcFlagRow("verify --unit of no unit", behaves, []hcEntry{hcl}, []string{"verify", "--unit", "nosuch*", "s.hcl"}, "nosuch*", "units: r"),
		hcFlagRow("verify --vectors -1", behaves, []hcEntry{hcl}, []string{"verify", "--vectors", "-1", "s.hcl"}, "--vectors"),
		hcFlagRow("verify --sim-timeout -1s", behaves, []hcEntry{hcl}, []string{"verify", "--sim-timeout", "-1s", "s.hcl"}, "--sim-timeout"),
		hcFlagRow("verify -D of a bad macro", behaves, []hcEntry{hcl, hcFile("m.v", "module r; endmodule\n")}, []string{"verify", "--rtl", "m.v", "--unit", "r", "-D", "1BAD", "s.hcl"}, "1BAD"),
		hcFlagRow("verify --vectors 2^64", behaves, []hcEntry{hcl}, []string{"verify", "--vectors", "18446744073709551616", "s.hcl"}, "--vectors"),
		hcFlagRow("crosscheck-timing without --liberty", behaves, []hcEntry{hcl}, []string{"crosscheck-timing", "s.hcl"}, "--liberty"),
		hcFlagRow("search --name module", "`search --name module` writes a hash block that `gen` refuses", []hcEntry{tr},
			append([]string{"search", "-o", "x.hcl", "--name", "module"}, searchArgs[1:]...), "--name"),
		hcFlagRow("search --name with a dollar", "`search --name module` writes a hash block that `gen` refuses", []hcEntry{tr},
			append([]string{"search", "-o", "x.hcl", "--name", "a$b"}, searchArgs[1:]...), "--name"),
		hostileCase{name: "search --count n=64 m=16", cat: "flag",
			finding: "`search --count --addr-bits 64 --bank-bits 16` prints 3.1e-3385347752174043964",
			args:    []string{"search", "--count", "--addr-bits", "64", "--bank-bits", "16"}, code: 0,
			stdout: []string{"3.1e88848372616373714116"}},
	)
	for _, n := range []string{"63", "64", "65", "1000", "-1"} {
		add(hcFlagRow("conflicts --lock-bits "+n,
			"`lsugen conflicts --lock-bits 64 TRACE` (also 63, 65, 1000): nil-pointer panic",
			[]hcEntry{tr}, []string{"conflicts", "--lock-bits", n, "t.trace"}, "--lock-bits", "want 0 to 24"))
	}

	// --- Memory: sizes that would exhaust memory refused before work.
	vfind := "`lsugen verify --sim netlist --vectors 1000000000000` on a 32-lane coalescer: `fatal error: runtime: out of memory`"
	add(
		hostileCase{name: "verify --vectors 1e12 on a 32-lane coalescer", cat: "memory", finding: vfind,
			args: []string{"verify", "--sim", "netlist", "--vectors", "1000000000000", "--unit", "coalesce_spec_32", "$SPECS/coalescer_thesis.hcl"},
			code: 2, stderr: []string{"verify budget", "GiB"}},
		hostileCase{name: "verify --vectors 1e8 on a 32-lane coalescer", cat: "memory", finding: "`--vectors 100000000` passes 6 GB",
			args: []string{"verify", "--sim", "netlist", "--vectors", "100000000", "--unit", "coalesce_spec_32", "$SPECS/coalescer_thesis.hcl"},
			code: 2, stderr: []string{"verify budget", "GiB"}},
		hostileCase{name: "verify --configs 1e12", cat: "memory", finding: vfind,
			args: []string{"verify", "--sim", "netlist", "--configs", "1000000000000", "$SPECS/hash_configurable.hcl"},
			code: 2, stderr: []string{"verify budget"}},
		hostileCase{name: "verify --max-vectors 2^62 on 48 input bits", cat: "memory", finding: vfind,
			setup: []hcEntry{hcFile("s.hcl", hcBlock("hash", "wide", `function = "bitwise_xor"`, "addr_bits = 48", "bank_bits = 2", "bits = [[0, 47], [1, 46]]"))},
			args:  []string{"verify", "--sim", "netlist", "--max-vectors", "4611686018427387904", "s.hcl"},
			code:  2, stderr: []string{"verify budget"}},
		hostileCase{name: "verify --vectors 1e12 under a 1 GiB address-space limit", cat: "memory", finding: vfind,
			args:  []string{"verify", "--sim", "netlist", "--vectors", "1000000000000", "--unit", "coalesce_spec_32", "$SPECS/coalescer_thesis.hcl"},
			child: &hcChild{asExtra: 1 << 30},
			code:  2, stderr: []string{"verify budget"}},
		hostileCase{name: "liberty /dev/zero under a 1 GiB address-space limit", cat: "memory",
			finding: "the liberty reader has no size limit (`characterize /dev/zero` 6.4 GB in 9 s",
			setup:   []hcEntry{hcLink("c.lib", "/dev/zero")},
			args:    []string{"characterize", "c.lib"},
			child:   &hcChild{asExtra: 1 << 30},
			code:    2, stderr: []string{"c.lib"}},
		hcFlagRow("rapsim --trials 10000001", behaves, nil, []string{"rapsim", "--trials", "10000001"}, "trials"),
		hcFlagRow("pipesim --instructions -1", behaves, nil, []string{"pipesim", "$SPECS/pipeline_study.hcl", "--synthetic", "--instructions", "-1"}, "instructions"),
		hcFlagRow("conflicts --banks 2^63", behaves, []hcEntry{tr}, []string{"conflicts", "--banks", "9223372036854775807", "t.trace"}, "--banks"),
	)

	// --- Work budgets of pipesim and rapsim, checked before work.
	work := "`pipesim` and `rapsim` accept runs of 40 minutes and 3 hours with no progress output"
	add(
		hcFlagRow("rapsim --trials 10000000", work, nil, []string{"rapsim", "--trials", "10000000"}, "estimated at", "over the budget of 10m00s (--work-budget"),
		hcFlagRow("rapsim --w 1024 --trials 10000000", work, nil, []string{"rapsim", "--w", "1024", "--trials", "10000000"}, "estimated at", "--work-budget"),
		hcFlagRow("rapsim --work-budget -1s", behaves, nil, []string{"rapsim", "--work-budget", "-1s"}, "--work-budget -1s"),
		hcFlagRow("pipesim preset over a 1 s budget", work, nil, []string{"pipesim", "$SPECS/pipeline_study.hcl", "--preset", "aes_encrypt", "--instructions", "100000", "--work-budget", "1s"}, "over the budget of 1s (--work-budget"),
		hcFlagRow("pipesim synthetic over a 10 s budget", work, nil, []string{"pipesim", "$SPECS/pipeline_study.hcl", "--synthetic", "--instructions", "131072", "--warps", "32", "--degrees", "8:1", "--shmem", "1", "--mem", "0", "--work-budget", "10s"}, "estimated at", "--instructions or --warps"),
		hcFlagRow("pipesim trace over a 1 ns budget", work, nil, append(append([]string(nil), pipesimArgs...), "--work-budget", "1ns"), "a shorter trace"),
		hcFlagRow("timing --sweep-clock 4:1003:1 of the largest speculative coalescer",
			"`--sweep-clock 4:1003:1` on the largest coalescer is accepted (about 4,000 points of 100-200 s each)",
			nil, []string{"timing", "--sweep-clock", "4:1003:1", "--unit", "lim_coalesce_spec", "$SPECS/limits/coalescer.hcl"}, "estimated at", "1000 points", "over the budget of 10m00s (--work-budget"),
		hcFlagRow("gen --clock-fo4 8 of a 64-lane coalescer over a 1 s work budget",
			"`gen --clock-fo4 40` of the largest accepted coalescer takes 24.6 min and 5.8 GB within every budget",
			nil, []string{"gen", "-o", "out", "--clock-fo4", "8", "--work-budget", "1s", "--unit", "coalesce_spec_64", "$SPECS/coalescer_thesis.hcl"},
			"estimated at", "(1 pipelining; the costliest: coalesce_spec_64 (98166 gates,", "over the budget of 1s (--work-budget"),
		hostileCase{
			name: "timing sweep --jobs 8 of a 64-lane coalescer with 1 GiB of address space", cat: "memory",
			finding: "`--sweep-clock 40:47:1 --jobs 8` on the largest accepted coalescer 2.3 GB then fatal",
			args:    []string{"timing", "sweep", "--quiet", "--jobs", "8", "40:47:1", "--unit", "coalesce_spec_64", "$SPECS/coalescer_thesis.hcl"},
			code:    0, stderr: []string{"lsugen timing sweep: --jobs 8: ", " at once, as many as fit the ", "(a point of coalesce_spec_64, 98166 gates, is estimated at 287 MiB)"},
			stdout: []string{"8 periods from 40 to 47 FO4"},
			child:  &hcChild{asExtra: 1 << 30},
		},
		hostileCase{
			name: "timing sweep of the largest coalescer with too little address space for a point", cat: "memory",
			finding: "`--sweep-clock 40:47:1 --jobs 8` on the largest accepted coalescer 2.3 GB then fatal",
			args:    []string{"timing", "sweep", "--quiet", "--jobs", "8", "40:47:1", "--unit", "lim_coalesce_spec", "$SPECS/limits/coalescer.hcl"},
			code:    2, stderr: []string{"a point of lim_coalesce_spec (980926 gates) is estimated at 2873 MiB of memory, more than the", "the address-space limit (ulimit -v) leaves"},
			child: &hcChild{asExtra: 1800 << 20},
		},
		hcFlagRow("timing sweep --work-budget -1s", behaves, nil, []string{"timing", "sweep", "--work-budget", "-1s", "20:24:4", "$SPECS/rap.hcl"}, "--work-budget -1s"),
		hcFlagRow("timing --sweep-clock --job-list --work-budget", behaves, nil,
			[]string{"timing", "--sweep-clock", "20:24:4", "--job-list", "jobs.txt", "--out-dir", "out", "--work-budget", "1m", "$SPECS/rap.hcl"}, "--work-budget and --quiet apply to the points --sweep-clock computes here"),
		hcFlagRow("pipesim 2^25 warp instructions", behaves, nil, []string{"pipesim", "$SPECS/pipeline_study.hcl", "--synthetic", "--instructions", "1000000", "--warps", "32"}, "at most 4194304 warp instructions"),
	)

	// --- fusesoc-gen: a spec path of the GAPI file stays inside files_root.
	root := "fusesoc-gen reads a spec outside `files_root` (`../../../../etc/passwd`, or an absolute path) and echoes its lines in diagnostics"
	for _, c := range []struct{ name, spec, want string }{
		{"an absolute spec path", "$DIR/outside/secret.hcl", "an absolute path"},
		{"a spec path through ..", "../outside/secret.hcl", "leaves files_root"},
		{"a spec path of ../../../../etc/passwd", "../../../../etc/passwd", "leaves files_root"},
		{"a .. inside a spec list", "[a.hcl, sub/../../outside/secret.hcl]", "leaves files_root"},
		{"a spec symlinked out of files_root", "link.hcl", "a symbolic link out of files_root"},
	} {
		add(hostileCase{
			name: "fusesoc-gen " + c.name, cat: "file", finding: root,
			setup: []hcEntry{
				hcDir("core/sub"), hcDir("outside"), hcFile("outside/secret.hcl", "outside_secret_line\n"), hcFile("core/a.hcl", hcGoodHash),
				hcLink("core/link.hcl", "../outside/secret.hcl"),
				hcFile("in.yml", "gapi: '1.0'\nfiles_root: $DIR/core\nparameters:\n  spec: "+c.spec+"\n"),
			},
			args: []string{"fusesoc-gen", "-o", "out", "in.yml"}, code: 2,
			stderr: []string{c.want, "files_root"}, noStderr: []string{"outside_secret_line"},
		})
	}
	add(hostileCase{
		name: "fusesoc-gen a spec inside files_root", cat: "file", finding: behaves,
		setup: []hcEntry{hcDir("core"), hcFile("core/a.hcl", hcGoodHash), hcDir("out"),
			hcFile("in.yml", "gapi: '1.0'\nfiles_root: $DIR/core\nparameters:\n  spec: a.hcl\n")},
		args: []string{"fusesoc-gen", "-o", "out", "in.yml"}, code: 0,
		stdout: []string{"h"}, outputs: []string{"out/*"},
	})

	// --- Gate and output budgets of a run, checked before any unit is
	// generated.
	gates := "three largest `warp_ready_mask` units in a 1 KB spec take 92.6 s and 4.87 GB in `gen` (limits are per unit, no total)"
	wrm3 := hcFile("s.hcl", largestReadyMask("wrm_a")+largestReadyMask("wrm_b")+largestReadyMask("wrm_c"))
	for _, args := range [][]string{
		{"gen", "-o", "out", "s.hcl"},
		{"timing", "s.hcl"},
		{"verify", "--sim", "netlist", "s.hcl"},
	} {
		add(hostileCase{
			name: args[0] + " of the three largest ready masks", cat: "memory", finding: gates,
			setup: []hcEntry{wrm3}, args: args, code: 2,
			stderr: []string{"over the budget of 6.0 M gates", "--gate-budget", "wrm_a", "s.hcl:1", "Nothing was generated"},
		})
	}
	add(
		hostileCase{name: "fusesoc-gen of the three largest ready masks", cat: "memory", finding: gates,
			setup: []hcEntry{hcDir("core"), hcFile("core/s.hcl", largestReadyMask("wrm_a")+largestReadyMask("wrm_b")+largestReadyMask("wrm_c")),
				hcFile("in.yml", "gapi: '1.0'\nfiles_root: $DIR/core\nparameters:\n  spec: s.hcl\n")},
			args: []string{"fusesoc-gen", "-o", "out", "in.yml"}, code: 2,
			stderr: []string{"--gate-budget", "wrm_a"}},
		hostileCase{name: "gen past --output-budget 1000", cat: "memory", finding: gates,
			setup: []hcEntry{hcl}, args: []string{"gen", "--output-budget", "1000", "-o", "out", "s.hcl"}, code: 2,
			stderr: []string{"--output-budget"}},
		hostileCase{name: "timing past --gate-budget 10", cat: "memory", finding: gates,
			setup: []hcEntry{hcl}, args: []string{"timing", "--gate-budget", "10", "s.hcl"}, code: 2,
			stderr: []string{"--gate-budget"}},
		hcFlagRow("gen --gate-budget -1", behaves, []hcEntry{hcl}, []string{"gen", "--gate-budget", "-1", "-o", "out", "s.hcl"}, "--gate-budget"),
	)

	// --- Per-engine verify limits, checked before work.
	engine := "a 128-lane × 64-bit speculative coalescer (accepted) runs past 5 minutes and 4.4 GB under Icarus and past 6 GB in `verify --formal`"
	big := hcFile("s.hcl", hcCoalescer(`structure = "speculative"`, "lanes = 128", "addr_bits = 64"))
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--sim", "netlist,icarus"}, "over the limit of the icarus engine"},
		{[]string{"--sim", "verilator"}, "over the limit of the verilator engine"},
		{[]string{"--formal"}, "over the limit of verify --formal"},
	} {
		add(hostileCase{
			name: "verify " + strings.Join(c.flags, " ") + " of a 128-lane 64-bit speculative coalescer", cat: "memory", finding: engine,
			setup: []hcEntry{big}, args: append(append([]string{"verify"}, c.flags...), "s.hcl"), code: 2,
			stderr: []string{"c: ", c.want, "docs/limits.md"},
		})
	}
	add(
		hostileCase{name: "verify --sim verilator of 10260 input bits", cat: "memory", finding: behaves,
			setup: []hcEntry{hcFile("s.hcl", hcBlock("hash", "wide_cfg", `function = "rap"`, "w = 1024", "configurable = true"))},
			args:  []string{"verify", "--sim", "netlist,verilator", "s.hcl"}, code: 2,
			stderr: []string{"wide_cfg: its inputs are 10260 bits", "limit of 8192 bits"}},
		hostileCase{name: "verify --cycles 1e14 of a pipeline", cat: "memory", finding: vfind,
			args: []string{"verify", "--sim", "netlist", "--cycles", "100000000000000", "--unit", "ep_elastic_m4", "$SPECS/pipeline.hcl"}, code: 2,
			stderr: []string{"ep_elastic_m4: ", "verify budget", "--cycles"}},
	)

	// --- Disk: a report or output that cannot be written is a failure
	// (exit 1) and leaves earlier outputs as they were.
	for _, args := range [][]string{
		{"version"},
		{"timing", "s.hcl"},
		{"search", "--count", "--addr-bits", "8", "--bank-bits", "2"},
		{"conflicts", "t.trace"},
		{"rapsim", "--w", "4", "--trials", "10"},
		{"gen", "-o", "out", "s.hcl"},
	} {
		c := hostileCase{
			name: strings.Join(args[:1], " ") + " > /dev/full", cat: "disk",
			finding: "`search ... > /dev/full` exits 0 having lost its report",
			setup:   []hcEntry{hcl, tr},
			args:    args, full: true, code: 1,
			stderr: []string{"no space left on device"},
		}
		if args[0] == "gen" {
			c.outputs = []string{"out", "out/r.v", "out/r_gates.v"}
		}
		add(c)
	}
	efbig := "full and read-only disks leave earlier outputs intact"
	add(
		hostileCase{name: "gen onto a full disk (RLIMIT_FSIZE)", cat: "disk", finding: efbig,
			setup: append([]hcEntry{hcl}, hcEarlierRap...),
			args:  []string{"gen", "-o", "out", "s.hcl"},
			child: &hcChild{fsize: 4096}, code: 1, stderr: []string{"file too large"}},
		hostileCase{name: "search -o onto a full disk (RLIMIT_FSIZE)", cat: "disk", finding: efbig,
			setup: []hcEntry{tr, hcFile("x.hcl", "earlier\n")},
			args:  append([]string{"search", "-o", "x.hcl"}, searchArgs[1:]...),
			child: &hcChild{fsize: 16}, code: 1, stderr: []string{"x.hcl", "file too large"}},
		hostileCase{name: "pipesim -o onto a full disk (RLIMIT_FSIZE)", cat: "disk", finding: efbig,
			setup: []hcEntry{hcFile("r.txt", "earlier\n")},
			args:  append(append([]string(nil), pipesimArgs...), "-o", "r.txt"),
			child: &hcChild{fsize: 64}, code: 1, stderr: []string{"r.txt", "file too large"}},
		hostileCase{name: "timing --svg onto a full disk (RLIMIT_FSIZE)", cat: "disk", finding: efbig,
			setup: []hcEntry{hcl, hcFile("f.svg", "earlier\n")},
			args:  []string{"timing", "--svg", "f.svg", "s.hcl"},
			child: &hcChild{fsize: 512}, code: 1, stderr: []string{"f.svg", "file too large"}},
	)

	// --- Signals: an interrupted gen removes its temporaries and keeps
	// the earlier outputs (it left half-written .NAME.v.tmp-* files).
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		add(hostileCase{
			name: "gen interrupted by " + sig.String() + " while writing", cat: "signal",
			finding: "Ctrl-C or SIGTERM while `gen` writes a large unit leaves half-written hidden `.NAME.v.tmp-*` files",
			setup:   []hcEntry{hcDir("out"), hcFile("out/coalesce_a2a_64.v", "earlier\n"), hcFile("out/coalesce_spec_64_gates.v", "earlier\n")},
			args:    []string{"gen", "-o", "out", "$SPECS/coalescer_thesis.hcl"},
			child:   &hcChild{signal: sig, ready: hcTmpAppears, done: []string{"out/*"}},
			code:    128 + int(sig), stderr: []string{"interrupted"},
		})
	}
	// A long simulation stops on a signal, with 128 + N.
	for _, c := range []struct {
		sig  syscall.Signal
		args []string
	}{
		{syscall.SIGINT, []string{"rapsim", "--w", "1024", "--trials", "10000000", "--work-budget", "0"}},
		{syscall.SIGTERM, []string{"pipesim", "$SPECS/pipeline_study.hcl", "--synthetic", "--instructions", "131072", "--warps", "32", "--work-budget", "0"}},
	} {
		add(hostileCase{
			name: c.args[0] + " interrupted by " + c.sig.String(), cat: "signal", finding: behaves,
			args:  c.args,
			child: &hcChild{signal: c.sig, ready: hcBusy(20)},
			code:  128 + int(c.sig), stderr: []string{"interrupted"},
		})
	}
	// verify --rtl on a module in a zero-delay loop: its simulator (vvp,
	// in a process group of its own) never finishes; lsugen is signalled
	// while vvp runs.
	spin := hcFile("spin.v", "module h (input wire [9:0] addr_i, output wire [4:0] bank_o);\n"+
		"  assign bank_o = addr_i[4:0] ^ addr_i[9:5];\n  initial forever #0;\nendmodule\n")
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGKILL} {
		c := hostileCase{
			name: "verify interrupted by " + sig.String() + " while vvp runs", cat: "signal",
			finding: "SIGTERM or SIGHUP to `verify`/`crosscheck-timing` leaves `vvp`/`yosys` running under PID 1 (they run in their own process group) and the temporary directory behind",
			setup:   []hcEntry{hcFile("s.hcl", hcGoodHash), spin},
			args:    []string{"verify", "--rtl", "spin.v", "--unit", "h", "--sim", "icarus", "s.hcl"},
			child:   &hcChild{signal: sig, ready: hcVvpRuns, tools: true},
			code:    128 + int(sig), stderr: []string{"interrupted"},
		}
		if sig == syscall.SIGKILL {
			// Nothing is printed and nothing can remove a SIGKILLed
			// program's temporaries; its processes still die.
			c.stderr = []string{"re:^$"}
		}
		add(c)
		if sig == syscall.SIGTERM {
			c.name = "verify --rtl interrupted by SIGTERM says its work directory was removed"
			c.finding = "SIGTERM during `verify --rtl` prints \"work directory kept: DIR\" and then removes DIR"
			c.stderr = []string{"re:work directory /\\S+/lsugen-verify-\\S+ removed \\(interrupted\\)", "temporary work directories removed"}
			c.noStderr = []string{"work directory kept"}
			add(c)
		}
	}
	add(issue30Cases()...)
	return cs
}

// hcVvpRuns is a ready function: vvp runs a testbench below process pid.
func hcVvpRuns(_ string, pid int) bool {
	for _, p := range descendants(pid) {
		if p.comm == "vvp" && simulates(p.pid) {
			return true
		}
	}
	return false
}

// hcBusy is a ready function: process pid has used ticks clock ticks of
// CPU time (100 a second), so it has long been started and is simulating.
func hcBusy(ticks int) func(string, int) bool {
	return func(_ string, pid int) bool {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return false
		}
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) < 13 {
			return false
		}
		utime, _ := strconv.Atoi(f[11])
		stime, _ := strconv.Atoi(f[12])
		return utime+stime >= ticks
	}
}

// TestHostileCorpus replays every row of hostileCases.
func TestHostileCorpus(t *testing.T) {
	specsDir, err := filepath.Abs("../../specs")
	if err != nil {
		t.Fatal(err)
	}
	cases := hostileCases()
	names := map[string]bool{}
	count := map[string]int{}
	for _, c := range cases {
		if names[c.name] {
			t.Errorf("two rows named %q", c.name)
		}
		names[c.name] = true
		count[c.cat]++
		if len(c.stderr) == 0 && len(c.stdout) == 0 {
			t.Errorf("%s: the row asserts no message", c.name)
		}
		if c.finding == "" {
			t.Errorf("%s: no finding", c.name)
		}
	}
	for _, cat := range []string{"file", "flag", "signal", "disk", "memory"} {
		if count[cat] == 0 {
			t.Errorf("no %s row", cat)
		}
	}
	if len(cases) < 100 {
		t.Errorf("%d rows, want at least 100", len(cases))
	}
	t.Logf("%d rows: %v", len(cases), count)
	for _, c := range cases {
		t.Run(c.cat+"/"+c.name, func(t *testing.T) { replayHostile(t, c, specsDir) })
	}
}

// hcState is one path as it was: its type and content or link target.
type hcState struct {
	mode fs.FileMode
	data string
}

// hcSnapshot reads every path under dir but tmp.
func hcSnapshot(t *testing.T, dir string) map[string]hcState {
	t.Helper()
	m := map[string]hcState{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "tmp" {
			return fs.SkipDir // TMPDIR, checked on its own
		}
		if rel == "." {
			return nil
		}
		s := hcState{mode: d.Type()}
		switch d.Type() {
		case 0:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			s.data = string(b)
		case fs.ModeSymlink:
			s.data, _ = os.Readlink(p)
		}
		m[rel] = s
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// hcAttempts is how often a signal row is tried when lsugen finishes
// before the moment to signal it (gen writes its temporaries within tens
// of milliseconds, which a loaded machine's polling can miss).
const hcAttempts = 5

func replayHostile(t *testing.T, c hostileCase, specsDir string) {
	for attempt := 1; !replayOnce(t, c, specsDir, attempt == hcAttempts); attempt++ {
		t.Logf("attempt %d: lsugen finished before it could be signalled; again", attempt)
	}
}

// replayOnce replays c once and checks it; it reports false, checking
// nothing, when a signal row's lsugen finished before it could be
// signalled and last is false.
func replayOnce(t *testing.T, c hostileCase, specsDir string, last bool) bool {
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range c.setup {
		p := filepath.Join(dir, e.path)
		var err error
		switch e.kind {
		case 'f':
			err = os.WriteFile(p, []byte(strings.ReplaceAll(e.data, "$DIR", dir)), 0o644)
		case 'l':
			err = os.Symlink(e.data, p)
		case 'p':
			err = syscall.Mkfifo(p, 0o644)
		case 'd':
			err = os.MkdirAll(p, 0o755)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	args := make([]string, len(c.args))
	for i, a := range c.args {
		args[i] = strings.ReplaceAll(a, "$SPECS/", specsDir+"/")
	}
	before := hcSnapshot(t, dir)

	var code int
	var stdout, stderr string
	if c.child != nil {
		var ready bool
		code, stdout, stderr, ready = runHostileChild(t, dir, tmp, args, c.child)
		if !ready {
			if !last {
				return false
			}
			t.Fatalf("lsugen exited (status %d) before it was ready for %v, %d times:\n%s", code, c.child.signal, hcAttempts, stderr)
		}
		if code == 0 && c.child.done != nil {
			// The signal came as the last temporary was renamed: a
			// complete run, every output replaced, none left half-written.
			t.Logf("%v arrived after the work was done", c.child.signal)
			c.code, c.stderr, c.stdout, c.outputs = 0, nil, []string{"wrote"}, c.child.done
		}
	} else {
		t.Chdir(dir)
		t.Setenv("TMPDIR", tmp)
		var o, e bytes.Buffer
		if c.full {
			code = run(args, fullWriter{}, &e)
		} else {
			code = run(args, &o, &e)
		}
		stdout, stderr = o.String(), e.String()
	}
	for _, f := range c.deadPIDs {
		hcCheckDead(t, filepath.Join(dir, f))
	}
	where := fmt.Sprintf("lsugen %s", strings.Join(c.args, " "))
	if len(where) > 200 {
		where = where[:200] + "…"
	}
	show := func() string {
		s := stderr
		if len(s) > 2000 {
			s = s[:2000] + "…"
		}
		return fmt.Sprintf("\nstdout: %.2000s\nstderr: %s", stdout, s)
	}

	if code != c.code {
		t.Errorf("%s: exit %d, want %d%s", where, code, c.code, show())
	}
	for _, bad := range []string{"panic:", "fatal error:", "goroutine "} {
		if strings.Contains(stderr, bad) {
			t.Errorf("%s: stderr holds %q%s", where, bad, show())
		}
	}
	match := func(s, want string) bool {
		if re, ok := strings.CutPrefix(want, "re:"); ok {
			return regexp.MustCompile(re).MatchString(s)
		}
		return strings.Contains(s, want)
	}
	for _, w := range c.stderr {
		if !match(stderr, w) {
			t.Errorf("%s: stderr lacks %q%s", where, w, show())
		}
	}
	for _, w := range c.stdout {
		if !match(stdout, w) {
			t.Errorf("%s: stdout lacks %q%s", where, w, show())
		}
	}
	for _, w := range c.noStderr {
		if strings.Contains(stderr, w) {
			t.Errorf("%s: stderr holds %q%s", where, w, show())
		}
	}
	for _, w := range c.noStdout {
		if strings.Contains(stdout, w) {
			t.Errorf("%s: stdout holds %q%s", where, w, show())
		}
	}
	if c.maxErr > 0 && len(stderr) > c.maxErr {
		t.Errorf("%s: %d bytes on stderr, want at most %d", where, len(stderr), c.maxErr)
	}

	// Nothing lost, nothing left behind.
	after := hcSnapshot(t, dir)
	allowed := func(rel string) bool {
		for _, pat := range c.outputs {
			if ok, _ := filepath.Match(pat, rel); ok {
				return true
			}
		}
		return false
	}
	for rel, b := range before {
		a, ok := after[rel]
		switch {
		case !ok:
			t.Errorf("%s: %s was removed", where, rel)
		case a.mode != b.mode:
			t.Errorf("%s: %s was a %v, now a %v", where, rel, b.mode, a.mode)
		case a.data != b.data && !allowed(rel):
			t.Errorf("%s: %s changed", where, rel)
		}
	}
	for rel, a := range after {
		if _, ok := before[rel]; ok {
			continue
		}
		switch {
		case strings.Contains(filepath.Base(rel), ".tmp-"):
			t.Errorf("%s: temporary %s left behind", where, rel)
		case !allowed(rel):
			t.Errorf("%s: %s (%v) created", where, rel, a.mode)
		case a.mode != 0 && a.mode != fs.ModeDir:
			t.Errorf("%s: output %s is a %v, not a regular file", where, rel, a.mode)
		}
	}
	for _, pat := range c.outputs {
		if strings.Contains(pat, "*") || c.code != 0 {
			continue
		}
		if a, ok := after[pat]; !ok || a == before[pat] {
			t.Errorf("%s: output %s not written", where, pat)
		}
	}
	if es, _ := os.ReadDir(tmp); len(es) > 0 && (c.child == nil || c.child.signal != syscall.SIGKILL) {
		t.Errorf("%s: %d temporaries left in TMPDIR (%s …)", where, len(es), es[0].Name())
	}
	return true
}

// Environment of TestHostileCorpusChild: its arguments (one a line) and
// limits.
const (
	hostileArgsEnv  = "LSUGEN_HOSTILE_ARGS"
	hostileFsizeEnv = "LSUGEN_HOSTILE_FSIZE"
	hostileASEnv    = "LSUGEN_HOSTILE_AS_EXTRA"
)

// TestHostileCorpusChild is lsugen under a row's limits when
// runHostileChild runs this binary again; otherwise it does nothing.
func TestHostileCorpusChild(t *testing.T) {
	args, ok := os.LookupEnv(hostileArgsEnv)
	if !ok {
		return
	}
	if v := os.Getenv(hostileFsizeEnv); v != "" {
		n, _ := strconv.ParseUint(v, 10, 64)
		signal.Ignore(syscall.SIGXFSZ)
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
			fmt.Fprintln(os.Stderr, "setrlimit:", err)
			os.Exit(99)
		}
	}
	if v := os.Getenv(hostileASEnv); v != "" {
		n, _ := strconv.ParseUint(v, 10, 64)
		lim := hcVMSize() + n
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: lim}); err != nil {
			fmt.Fprintln(os.Stderr, "setrlimit:", err)
			os.Exit(99)
		}
	}
	os.Exit(runInterruptible(strings.Split(args, "\n"), os.Stdout, os.Stderr))
}

// hcVMSize is this process's virtual size in bytes (/proc/self/status).
func hcVMSize() uint64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmSize:"); ok {
			n, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n << 10
		}
	}
	return 0
}

// runHostileChild runs lsugen (this test binary) in dir under the row's
// limits, sends its signal once ready, and returns its exit status (128 +
// N when signal N killed it), standard output and error; ready is false
// when lsugen exited before it was ready for the signal.
func runHostileChild(t *testing.T, dir, tmp string, args []string, ch *hcChild) (code int, stdout, stderr string, ready bool) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestHostileCorpusChild$", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), hostileArgsEnv+"="+strings.Join(args, "\n"), "TMPDIR="+tmp)
	if ch.fsize > 0 {
		cmd.Env = append(cmd.Env, hostileFsizeEnv+"="+strconv.FormatUint(ch.fsize, 10))
	}
	if ch.asExtra > 0 {
		cmd.Env = append(cmd.Env, hostileASEnv+"="+strconv.FormatUint(ch.asExtra, 10))
	}
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	seen := map[int]procInfo{} // lsugen's descendants, by pid
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		for g := range ownGroups(seen) {
			_ = syscall.Kill(-g, syscall.SIGKILL)
		}
	})
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	if ch.signal != 0 {
		deadline := time.Now().Add(testenv.Limit(2 * time.Minute))
		for !ch.ready(dir, cmd.Process.Pid) {
			for _, p := range descendants(cmd.Process.Pid) {
				seen[p.pid] = p
			}
			select {
			case err := <-exited:
				code := hcStatus(t, err)
				return code, o.String(), e.String(), false
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("not ready for %v within %v:\n%s", ch.signal, testenv.Limit(2*time.Minute), e.String())
			}
			time.Sleep(100 * time.Microsecond) // gen writes its temporaries within tens of milliseconds
		}
		for _, p := range descendants(cmd.Process.Pid) {
			seen[p.pid] = p
		}
		if err := cmd.Process.Signal(ch.signal); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case err = <-exited:
	case <-time.After(testenv.Limit(5 * time.Minute)):
		t.Fatalf("lsugen %s still runs after %v:\n%s", strings.Join(args, " "), testenv.Limit(5*time.Minute), e.String())
	}
	if ch.tools {
		// The kernel's SIGKILL (process group, parent-death signal, the
		// reaper) takes a moment to land.
		var alive []string
		for end := time.Now().Add(testenv.Limit(30 * time.Second)); ; time.Sleep(10 * time.Millisecond) {
			if alive = survivors(seen); len(alive) == 0 || time.Now().After(end) {
				break
			}
		}
		if len(seen) == 0 || len(alive) > 0 {
			t.Errorf("after %v of lsugen, of its %d processes these survive: %s", ch.signal, len(seen), strings.Join(alive, "; "))
		}
	}
	code = hcStatus(t, err)
	return code, o.String(), e.String(), true
}

// hcCheckDead fails unless the process whose pid the file holds has
// ended (or is a zombie), after a moment for a kill to land; a file the
// run did not write fails too.
func hcCheckDead(t *testing.T, pidFile string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Errorf("the row's process did not start: %v", err)
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 1 {
		t.Errorf("%s: not a pid: %q", pidFile, b)
		return
	}
	for end := time.Now().Add(testenv.Limit(10 * time.Second)); ; time.Sleep(20 * time.Millisecond) {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || bytes.Contains(stat, []byte(") Z ")) {
			return
		}
		if time.Now().After(end) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("process %d (%s) outlived lsugen: %s", pid, filepath.Base(pidFile), stat)
			return
		}
	}
}

// hcStatus is the exit status of a child from its Wait error: 128 + N
// when signal N killed it.
func hcStatus(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	default:
		t.Fatal(err)
		return 0
	}
}

// --- Issue 30's hostile-input findings (item 5).

// hcSweepModel is the timing model of hcManifest and hcPointFile: any
// model will do, the same in both.
const hcSweepModel = `{"mode": "sized", "driver_size": 1, "output_load": 1, "setup_fo4": 1}`

// hcManifest is a sweep manifest of units at periods, each unit's design
// digest "x" (as hcPointFile's), written by this lsugen.
func hcManifest(units []string, periods string) string {
	var us []string
	for _, u := range units {
		us = append(us, fmt.Sprintf(`{"name": %q, "kind": "hash", "variant": "fixed_xor", "design_sha256": "x"}`, u))
	}
	return fmt.Sprintf(`{"version": %q, "model": %s, "periods_fo4": [%s], "units": [%s]}`, gen.Version, hcSweepModel, periods, strings.Join(us, ", "))
}

// hcPointFile is the result of unit h at 20 FO4 with area area.
func hcPointFile(area string) string {
	return fmt.Sprintf(`{"version": %q, "model": %s, "design_sha256": "x", "unit": "h", "kind": "hash", "variant": "fixed_xor", "period_fo4": 20,
  "status": "ok", "latency_cycles": 1, "registers": 6, "area_ge": %s, "worst_stage_fo4": 3.6, "stage_fo4": [3.6]}`, gen.Version, hcSweepModel, area)
}

func issue30Cases() []hostileCase {
	var cs []hostileCase
	add := func(c ...hostileCase) { cs = append(cs, c...) }
	spec, behaves := hcGoodHash, "behaves"
	sweepOut := []string{"jobs.txt", "out", "out/sweep.json"}

	// A job line is read a line at a time: a newline in any word would
	// end the job and run the rest as a command.
	inject := "a spec file name containing a newline, passed to `timing --sweep-clock --job-list`, becomes a second line of the job list, and GNU parallel runs it"
	for _, c := range []struct{ name, file string }{
		{"a newline", "a\ntouch INJECTED; echo 'x.hcl"},
		{"a carriage return", "a\rb.hcl"},
	} {
		add(hostileCase{
			name: "timing --job-list of a spec named with " + c.name, cat: "file", finding: inject,
			setup: []hcEntry{hcFile(c.file, spec)},
			args:  []string{"timing", "--sweep-clock", "20:24:4", "--job-list", "jobs.txt", "--out-dir", "out", c.file}, code: 2,
			stderr: []string{"--job-list: the spec file name", "holds the control character", "nothing written"},
		})
	}
	add(
		hostileCase{
			name: "timing --job-list of a spec named with a quote, $() and ;", cat: "file", finding: inject,
			setup: []hcEntry{hcFile("a'b$(touch INJECTED);c.hcl", spec)},
			args:  []string{"timing", "sweep", "--job-list", "jobs.txt", "--out-dir", "out", "20:24:4", "a'b$(touch INJECTED);c.hcl"}, code: 0,
			stdout: []string{"wrote jobs.txt: 2 jobs"}, outputs: sweepOut,
		},
		hostileCase{
			name: "timing --job-list --job-command with a newline", cat: "flag", finding: inject,
			setup: []hcEntry{hcFile("s.hcl", spec)},
			args:  []string{"timing", "sweep", "--job-list", "jobs.txt", "--out-dir", "out", "--job-command", "lsugen\ntouch INJECTED", "20:24:4", "s.hcl"}, code: 2,
			stderr: []string{"--job-command", "control character"},
		},
	)

	// An output that would replace the manifest or an input.
	lost := "`--job-list DIR/sweep.json --out-dir DIR` replaces the manifest and exits 0"
	add(
		hostileCase{
			name: "timing --job-list onto the sweep's manifest", cat: "file", finding: lost,
			setup: []hcEntry{hcFile("s.hcl", spec), hcDir("out"), hcFile("out/sweep.json", "an earlier manifest\n")},
			args:  []string{"timing", "--sweep-clock", "20:24:4", "--job-list", "out/sweep.json", "--out-dir", "out", "s.hcl"}, code: 2,
			stderr: []string{"--job-list out/sweep.json would replace the sweep's manifest", "nothing written"},
		},
		hostileCase{
			name: "timing --job-list onto a spec", cat: "file", finding: lost,
			setup: []hcEntry{hcFile("s.hcl", spec)},
			args:  []string{"timing", "sweep", "--job-list", "./s.hcl", "--out-dir", "out", "20:24:4", "s.hcl"}, code: 2,
			stderr: []string{"--job-list ./s.hcl would replace the input s.hcl"},
		},
		hostileCase{
			name: "timing --job-list onto a point's result file", cat: "file", finding: lost,
			setup: []hcEntry{hcFile("s.hcl", spec), hcDir("out")},
			args:  []string{"timing", "sweep", "--job-list", "out/h@24.json", "--out-dir", "out", "20:24:4", "s.hcl"}, code: 2,
			stderr: []string{"would replace the result file of a point"},
		},
		hostileCase{
			name: "timing sweep --svg onto a spec", cat: "file", finding: lost,
			setup: []hcEntry{hcFile("s.hcl", spec)},
			args:  []string{"timing", "sweep", "--svg", "s.hcl", "20:24:4", "s.hcl"}, code: 2,
			stderr: []string{"--svg s.hcl would replace the input s.hcl"},
		},
		hostileCase{
			name: "timing sweep-merge --svg onto the manifest", cat: "file", finding: lost,
			setup: []hcEntry{hcDir("d"), hcFile("d/sweep.json", hcManifest([]string{"h"}, "20")), hcFile("d/h@20.json", hcPointFile("80.5"))},
			args:  []string{"timing", "sweep-merge", "--svg", "d/sweep.json", "d"}, code: 2,
			stderr: []string{"--svg d/sweep.json would replace the sweep's manifest"},
		},
		hostileCase{
			name: "timing sweep-merge --svg onto a point", cat: "file", finding: lost,
			setup: []hcEntry{hcDir("d"), hcFile("d/sweep.json", hcManifest([]string{"h"}, "20")), hcFile("d/h@20.json", hcPointFile("80.5"))},
			args:  []string{"timing", "--sweep-merge", "d", "--svg", "d/h@20.json"}, code: 2,
			stderr: []string{"would replace the result file of a point"},
		},
		hostileCase{
			name: "timing sweep-merge --svg beside the points", cat: "file", finding: behaves,
			setup: []hcEntry{hcDir("d"), hcFile("d/sweep.json", hcManifest([]string{"h"}, "20")), hcFile("d/h@20.json", hcPointFile("80.5"))},
			args:  []string{"timing", "sweep-merge", "--svg", "d/sweep.svg", "d"}, code: 0,
			stdout: []string{"wrote d/sweep.svg"}, outputs: []string{"d/sweep.svg"},
		},
	)

	// Units whose names differ only in case.
	add(hostileCase{
		name: "gen --c of units Foo and foo", cat: "file",
		finding: "`gen --c` of units `Foo` and `foo` writes two headers with one include guard (on a case-insensitive disk one vanishes)",
		setup:   []hcEntry{hcFile("s.hcl", hcBlock("hash", "Foo", `function = "fixed_xor"`, "addr_bits = 10", "bank_bits = 5")+hcBlock("hash", "foo", `function = "fixed_xor"`, "addr_bits = 10", "bank_bits = 5"))},
		args:    []string{"gen", "--c", "-o", "out", "s.hcl"}, code: 2,
		stderr: []string{"differ only in case", "unit Foo (s.hcl:1)", "unit foo (s.hcl:6)", "nothing written"},
	})

	// A point's area past what an axis can draw: the SVG axis looped
	// until out of memory (under a 1 GiB address-space limit here).
	area := "an area of 1.7e308 loops the SVG axis until out of memory"
	add(hostileCase{
		name: "timing sweep-merge --svg of an area of 1.7e308", cat: "memory", finding: area,
		setup: []hcEntry{hcDir("d"), hcFile("d/sweep.json", hcManifest([]string{"h"}, "20")), hcFile("d/h@20.json", hcPointFile("1.7e308"))},
		args:  []string{"timing", "sweep-merge", "--svg", "f.svg", "d"}, code: 2,
		child:  &hcChild{asExtra: 1 << 30},
		stderr: []string{"--svg: plot", "y = 1.7e+308", "cannot be drawn"},
	})

	// The manifest and point files of a merge: regular files only, within
	// their limits.
	merge := "`--sweep-merge` reading a point file or manifest that is `/dev/zero`, `/dev/urandom`, 300 MB of whitespace, or a 20,000-unit manifest (fatal errors up to 6 GB); a FIFO as a sweep point or manifest blocks in `open()`"
	good := []hcEntry{hcDir("d"), hcFile("d/h@20.json", hcPointFile("80.5"))}
	for _, c := range []struct {
		name  string
		entry hcEntry
		want  string
		child bool
	}{
		{"/dev/zero", hcLink("d/sweep.json", "/dev/zero"), "d/sweep.json is a character device, not a regular file", true},
		{"/dev/urandom", hcLink("d/sweep.json", "/dev/urandom"), "d/sweep.json is a character device, not a regular file", true},
		{"a FIFO", hcFifo("d/sweep.json"), "d/sweep.json is a FIFO, not a regular file", false},
		{"17 MiB of whitespace", hcFile("d/sweep.json", strings.Repeat(" ", 17<<20)), "d/sweep.json: larger than its limit of 16 MiB", false},
		{"of 20,000 units", hcFile("d/sweep.json", hcManifest(hcNames("u", 20000), "20, 24, 28, 32, 36, 40, 44, 48, 52, 56")), "d/sweep.json: 20000 units at 10 periods are 200000 points, more than the 65536", true},
		{"naming a unit ../x", hcFile("d/sweep.json", hcManifest([]string{"../x"}, "20")), `d/sweep.json: units[0]: name "../x" is not a unit name`, false},
	} {
		r := hostileCase{
			name: "timing sweep-merge of a manifest " + c.name, cat: "memory", finding: merge,
			setup: append(append([]hcEntry(nil), good...), c.entry),
			args:  []string{"timing", "sweep-merge", "d"}, code: 2,
			stderr: []string{"--sweep-merge: " + c.want},
		}
		if c.child {
			r.child = &hcChild{asExtra: 1 << 30}
		}
		add(r)
	}
	man := hcFile("d/sweep.json", hcManifest([]string{"h"}, "20"))
	for _, c := range []struct {
		name  string
		entry hcEntry
		want  string
		child bool
	}{
		{"/dev/zero", hcLink("d/h@20.json", "/dev/zero"), "d/h@20.json is a character device, not a regular file", true},
		{"a FIFO", hcFifo("d/h@20.json"), "d/h@20.json is a FIFO, not a regular file", false},
		{"past 1 MiB", hcFile("d/h@20.json", hcPointFile("80.5")+strings.Repeat(" ", 1<<20)), "d/h@20.json: larger than its limit of 1 MiB", false},
	} {
		r := hostileCase{
			name: "timing sweep-merge of a point file " + c.name, cat: "memory", finding: merge,
			setup: []hcEntry{hcDir("d"), man, c.entry},
			args:  []string{"timing", "sweep-merge", "d"}, code: 1,
			stderr: []string{"lsugen timing: h@20 malformed: " + c.want, "1 of 1 point not computed"},
		}
		if c.child {
			r.child = &hcChild{asExtra: 1 << 30}
		}
		add(r)
	}
	add(hostileCase{
		name: "timing sweep-merge of 1000 missing points", cat: "memory", finding: merge,
		setup: []hcEntry{hcDir("d"), hcFile("d/sweep.json", hcManifest(hcNames("u", 100), "20, 24, 28, 32, 36, 40, 44, 48, 52, 56"))},
		args:  []string{"timing", "sweep-merge", "d"}, code: 1,
		stderr: []string{"u0@20 missing", "... and 980 more points not computed", "1000 of 1000 points not computed"},
		maxErr: 8 << 10,
	})

	// fusesoc-gen's GAPI file and the specs it names.
	gapi := "fusesoc-gen's GAPI file has no size limit (`/dev/zero` fatal, 300 MB -> 1.87 GB); a FIFO as the GAPI file or the spec blocks in `open()`"
	for _, c := range []struct {
		name  string
		entry hcEntry
		want  string
		child bool
	}{
		{"/dev/zero", hcLink("g.yml", "/dev/zero"), "g.yml is a character device, not a regular file", true},
		{"a FIFO", hcFifo("g.yml"), "g.yml is a FIFO, not a regular file", false},
		{"2 MiB of whitespace", hcFile("g.yml", "gapi: '1.0'\n"+strings.Repeat(" ", 2<<20)+"\n"), "g.yml: larger than its limit of 1 MiB", false},
	} {
		r := hostileCase{
			name: "fusesoc-gen GAPI file " + c.name, cat: "memory", finding: gapi,
			setup: []hcEntry{c.entry},
			args:  []string{"fusesoc-gen", "-o", "out", "g.yml"}, code: 2,
			stderr: []string{c.want}, maxErr: 1000,
		}
		if c.child {
			r.child = &hcChild{asExtra: 1 << 30}
		}
		add(r)
	}
	gapiFile := func(specs string) hcEntry {
		return hcFile("g.yml", "gapi: '1.0'\nfiles_root: $DIR/core\nparameters:\n  spec: "+specs+"\n")
	}
	add(hostileCase{
		name: "fusesoc-gen of a spec that is a FIFO", cat: "file", finding: gapi,
		setup: []hcEntry{hcDir("core"), hcFifo("core/a.hcl"), gapiFile("a.hcl")},
		args:  []string{"fusesoc-gen", "-o", "out", "g.yml"}, code: 2,
		stderr: []string{`parameters: spec "a.hcl" is a FIFO, not a regular file`},
	})
	diag := "100,000 fusesoc-gen spec entries or 20,000 copies of one spec print 6-33 MB of diagnostics"
	add(
		hostileCase{
			name: "fusesoc-gen of 2000 copies of one spec", cat: "memory", finding: diag,
			setup: []hcEntry{hcDir("core"), hcFile("core/a.hcl", spec), gapiFile("[" + strings.Repeat("a.hcl, ", 1999) + "./a.hcl]")},
			args:  []string{"fusesoc-gen", "-o", "out", "g.yml"}, code: 2,
			stderr: []string{"spec names 2000 files, more than 1024"}, maxErr: 1000,
		},
		hostileCase{
			name: "fusesoc-gen of one spec twice", cat: "file", finding: diag,
			setup: []hcEntry{hcDir("core"), hcFile("core/a.hcl", spec), gapiFile("[a.hcl, ./a.hcl]")},
			args:  []string{"fusesoc-gen", "-o", "out", "g.yml"}, code: 2,
			stderr: []string{`spec[1]: "./a.hcl" names the file of spec[0] again`}, maxErr: 1000,
		},
		hostileCase{
			name: "fusesoc-gen of 1000 missing specs", cat: "memory", finding: diag,
			setup: []hcEntry{hcDir("core"), gapiFile("[" + strings.Join(hcNames("n", 1000), ".hcl, ") + ".hcl]")},
			args:  []string{"fusesoc-gen", "-o", "out", "g.yml"}, code: 2,
			stderr: []string{"n0.hcl:1:1: error: Failed to read spec file", "... and 900 more diagnostics"}, maxErr: 120 << 10,
		},
	)

	// Terminal escapes in a manifest, a point file and a directory name:
	// escaped in the table, on standard error and in error messages.
	esc := "ESC/OSC sequences and invalid UTF-8 in sweep manifests and merge reasons reach the terminal raw"
	raw := []string{"\x1b", "\u009b", "\a"}
	add(
		hostileCase{
			name: "timing sweep-merge of a manifest with escapes", cat: "file", finding: esc,
			setup: []hcEntry{hcDir("d"), hcFile("d/sweep.json", strings.Replace(hcManifest([]string{"h"}, "20"), `"kind": "hash"`, `"kind": "ha\u001b[2J\u009b31msh\u0007"`, 1))},
			args:  []string{"timing", "sweep-merge", "d"}, code: 1,
			stdout: []string{`ha\x1b[2J\u009b31msh\x07`}, stderr: []string{"h@20 missing"},
			noStdout: raw, noStderr: raw,
		},
		hostileCase{
			name: "timing sweep-merge of a point with escapes", cat: "file", finding: esc,
			setup: []hcEntry{hcDir("d"), hcFile("d/sweep.json", hcManifest([]string{"h"}, "20")),
				hcFile("d/h@20.json", strings.Replace(hcPointFile("80.5"), `"version": "`, `"version": "\u001b]0;owned\u0007`, 1))},
			args: []string{"timing", "sweep-merge", "d"}, code: 1,
			stdout: []string{`MALFORMED: d/h@20.json: written by lsugen \x1b]0;owned\x07`}, stderr: []string{`written by lsugen \x1b]0;owned\x07`},
			noStdout: raw, noStderr: raw,
		},
		hostileCase{
			name: "timing sweep-merge of a failed point's reason with escapes", cat: "file", finding: esc,
			setup: []hcEntry{hcDir("d"), hcFile("d/sweep.json", hcManifest([]string{"h"}, "20")),
				hcFile("d/h@20.json", strings.Replace(hcPointFile("80.5"), `"status": "ok"`, `"status": "failed", "reason": "\u001b]52;c;cm0gLXJm\u0007"`, 1))},
			args: []string{"timing", "sweep-merge", "d"}, code: 1,
			stdout: []string{`FAILED: \x1b]52;c;cm0gLXJm\x07`}, stderr: []string{`h@20 failed: \x1b]52;c;cm0gLXJm\x07`},
			noStdout: raw, noStderr: raw,
		},
		hostileCase{
			name: "timing sweep-merge of a directory named with escapes", cat: "file", finding: esc,
			args: []string{"timing", "sweep-merge", "d\x1b[31m\xff"}, code: 2,
			stderr: []string{`d\x1b[31m\xff: no sweep.json`}, noStderr: raw,
		},
	)
	// The same in a kernel trace: kernel name and opcode in the report.
	add(hostileCase{
		name: "conflicts of a kernel trace with escapes in its names", cat: "file",
		finding: "ESC/OSC sequences and invalid UTF-8 in kernel names, opcodes, kernel-file names ... reach the terminal raw",
		setup:   []hcEntry{hcFile("kernel-1.traceg", strings.Replace(hcTrace("_Z1k\x1b]0;owned\x07v", 1), " LDS ", " LDS.U\x1b[2J ", 1))},
		args:    []string{"conflicts", "kernel-1.traceg"}, code: 0,
		stdout: []string{`_Z1k\x1b]0;owned\x07v`, `LDS.U\x1b[2J`}, noStdout: raw,
	})
	cs = append(cs, issue30TraceCases()...)
	return cs
}

// hcTrace is a version-4 kernel trace of kernel name with one shared load
// at each of pcs PCs.
func hcTrace(name string, pcs int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "-kernel name = %s\n-kernel id = 1\n-accelsim tracer version = 4\n#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = %d\n", name, pcs)
	for i := range pcs {
		fmt.Fprintf(&b, "%04x ffffffff 1 R1 LDS 1 R2 4 1 0x0 4 0\n", 16*i)
	}
	b.WriteString("#END_TB\n")
	return b.String()
}

// hcXz is the xz streams of texts, one after another, the LZMA2
// dictionary byte of the last stream's block set to dict (40: 4 GiB) and
// its header checksum made good again.
func hcXz(dict byte, texts ...string) string {
	var out []byte
	for i, s := range texts {
		var b bytes.Buffer
		w, err := xz.NewWriter(&b)
		if err != nil {
			panic(err)
		}
		_, _ = w.Write([]byte(s))
		_ = w.Close()
		x := b.Bytes()
		if i == len(texts)-1 {
			bh := x[12 : 12+(int(x[12])+1)*4]
			if bh[1] != 0 || bh[2] != 0x21 || bh[3] != 1 {
				panic(fmt.Sprintf("unexpected xz block header % x", bh))
			}
			bh[4] = dict
			binary.LittleEndian.PutUint32(bh[len(bh)-4:], crc32.ChecksumIEEE(bh[:len(bh)-4]))
		}
		out = append(out, x...)
	}
	return string(out)
}

// hcXzBlocks is text as xz with blocks of size bytes, each declaring a
// 64 MiB dictionary (xz -9 --block-size=SIZE).
func hcXzBlocks(text string, size int64) string {
	var b bytes.Buffer
	w, err := xz.WriterConfig{DictCap: 64 << 20, BlockSize: size}.NewWriter(&b)
	if err != nil {
		panic(err)
	}
	_, _ = w.Write([]byte(text))
	_ = w.Close()
	return b.String()
}

// issue30TraceCases are the findings of issue 30 on Accel-Sim inputs.
func issue30TraceCases() []hostileCase {
	var cs []hostileCase
	add := func(c ...hostileCase) { cs = append(cs, c...) }
	behaves30 := "behaves"
	list := hcFile("kernelslist.g", "kernel-1.traceg\n")
	good := hcTrace("k", 2)

	foreign := "a kernel file in `kernelslist.g` that is a symbolic link to a file outside the list's directory (e.g. `/etc/passwd`) is read, and its first line is quoted in the error"
	add(
		hostileCase{
			name: "accelsim kernelslist naming a link to /etc/passwd", cat: "file", finding: foreign,
			setup: []hcEntry{list, hcLink("kernel-1.traceg", "/etc/passwd")},
			args:  []string{"conflicts", "kernelslist.g"}, code: 2,
			stderr:   []string{"kernelslist.g:1: kernel file kernel-1.traceg is a link to /etc/passwd, outside the list's directory"},
			noStderr: []string{"root:"},
		},
		hostileCase{
			name: "accelsim kernelslist naming a file under a link out of its directory", cat: "file", finding: foreign,
			setup: []hcEntry{hcFile("kernelslist.g", "etc/passwd.traceg\n"), hcLink("etc", "/etc")},
			args:  []string{"conflicts", "kernelslist.g"}, code: 2,
			stderr: []string{"kernelslist.g:1: kernel file etc/passwd.traceg is a link to /etc/passwd.traceg, outside the list's directory"},
		},
		hostileCase{
			name: "accelsim kernelslist naming a link inside its directory", cat: "file", finding: behaves30,
			setup: []hcEntry{list, hcDir("t"), hcFile("t/real.traceg", good), hcLink("kernel-1.traceg", "t/real.traceg")},
			args:  []string{"conflicts", "kernelslist.g"}, code: 0,
			stdout: []string{"LDS"},
		},
		hostileCase{
			name: "accelsim kernelslist naming ../x.traceg", cat: "file", finding: foreign,
			setup: []hcEntry{hcDir("d"), hcFile("d/kernelslist.g", "../x.traceg\n"), hcFile("x.traceg", good)},
			args:  []string{"conflicts", "d/kernelslist.g"}, code: 2,
			stderr: []string{"d/kernelslist.g:1: kernel file \"../x.traceg\" is not a path inside the list's directory"},
		},
		hostileCase{
			name: "accelsim kernel trace that is not a trace is not quoted", cat: "file", finding: foreign,
			setup: []hcEntry{hcFile("kernel-1.traceg", "root:x:0:0:root:/root:/bin/bash\n")},
			args:  []string{"conflicts", "kernel-1.traceg"}, code: 2,
			stderr:   []string{"kernel-1.traceg:1: not an Accel-Sim kernel trace"},
			noStderr: []string{"root:"},
		},
	)

	fifo := "a FIFO named as a kernel file in `kernelslist.g` blocks in `open()`"
	add(hostileCase{
		name: "accelsim kernelslist naming a FIFO", cat: "file", finding: fifo,
		setup: []hcEntry{list, hcFifo("kernel-1.traceg")},
		args:  []string{"conflicts", "kernelslist.g"}, code: 2,
		stderr: []string{"kernelslist.g:1: kernel-1.traceg is a FIFO, not a regular file"},
	}, hostileCase{
		name: "accelsim kernelslist that is a FIFO", cat: "file", finding: fifo,
		setup: []hcEntry{hcFifo("kernelslist.g")},
		args:  []string{"conflicts", "kernelslist.g"}, code: 2,
		stderr: []string{"kernelslist.g is a FIFO, not a regular file"},
	})

	mem := "an xz stream after the first declaring a 4 GiB dictionary bypasses the 64 MiB limit (2.7 GB, Go fatal error)"
	add(hostileCase{
		name: "accelsim .xz whose second stream declares a 4 GiB dictionary", cat: "memory", finding: mem,
		setup: []hcEntry{list, hcFile("kernel-1.traceg", hcXz(40, good, "\n"+good))},
		args:  []string{"conflicts", "kernelslist.g"}, code: 2,
		stderr: []string{"kernel-1.traceg:1: xz stream 2, block 1: LZMA2 dictionary of 4294967295 bytes, more than 64 MiB"},
		child:  &hcChild{asExtra: 1 << 30},
	}, hostileCase{
		name: "accelsim .xz whose first stream declares a 4 GiB dictionary", cat: "memory", finding: mem,
		setup: []hcEntry{list, hcFile("kernel-1.traceg", hcXz(40, good))},
		args:  []string{"conflicts", "kernelslist.g"}, code: 2,
		stderr: []string{"kernel-1.traceg:1: xz stream 1, block 1: LZMA2 dictionary of 4294967295 bytes, more than 64 MiB"},
		child:  &hcChild{asExtra: 1 << 30},
	})

	add(hostileCase{
		name: "accelsim .xz of 64-byte blocks declaring 64 MiB dictionaries", cat: "flag", finding: "a 312 KB .xz of 7,200 blocks takes 19-34 s and 0.3-0.7 GB",
		setup: []hcEntry{list, hcFile("kernel-1.traceg", hcXzBlocks(hcTrace("k", 100), 64))},
		args:  []string{"conflicts", "kernelslist.g"}, code: 2,
		stderr: []string{"kernel-1.traceg:1: xz stream 1: 17 blocks declare 1088 MiB of LZMA2 dictionary", "compress it again (xz without --block-size)"},
		child:  &hcChild{asExtra: 1 << 30},
	})

	names := "an 18 KB .xz with a 60 KiB kernel name and 40,000 distinct PCs takes `conflicts` to 6.2 GB (fatal), `search` to 2.6 GB; 1 M distinct PCs take 0.5-1 GB with no limit on distinct instructions"
	add(hostileCase{
		name: "accelsim kernel name of 60 KiB", cat: "memory", finding: names,
		setup: []hcEntry{hcFile("kernel-1.traceg", hcTrace(strings.Repeat("n", 60<<10), 2))},
		args:  []string{"conflicts", "kernel-1.traceg"}, code: 2,
		stderr: []string{"kernel-1.traceg:1: kernel name of 61440 bytes, more than 8192"},
	}, hostileCase{
		name: "accelsim trace of 2049 distinct shared instructions of an 8 KiB kernel name", cat: "memory", finding: names,
		setup: []hcEntry{hcFile("kernel-1.traceg", hcXz(0x16, hcTrace(strings.Repeat("n", 8<<10), 2049)))},
		args:  []string{"conflicts", "kernel-1.traceg"}, code: 2,
		stderr: []string{`re:kernel-1\.traceg:2052: the names of the distinct shared-memory instructions \(kernel name, opcode and PC each\) pass 16 MiB in one run, at instruction 2045\n`},
	}, hostileCase{
		name: "accelsim trace of 65537 distinct shared instructions", cat: "memory", finding: names,
		setup: []hcEntry{hcFile("kernel-1.traceg", hcXz(0x16, hcTrace("k", 65537)))},
		args:  []string{"conflicts", "kernel-1.traceg"}, code: 2,
		stderr: []string{"kernel-1.traceg:65544: more than 65536 distinct shared-memory instructions (kernel launch and PC) in one run"},
	})

	add(hostileCase{
		name: "conflicts --accesses of 262145 accesses", cat: "memory", finding: "`conflicts --accesses` on 5 M loads 1.55 GB",
		setup: []hcEntry{hcFile("t.trace", "@i\n"+strings.Repeat("0\n", 1<<18+1))},
		args:  []string{"conflicts", "--accesses", "t.trace"}, code: 2,
		stderr: []string{"t.trace: --accesses lists at most 262144 accesses and the inputs hold more"},
	}, hostileCase{
		name: "conflicts of 262145 accesses", cat: "memory", finding: behaves30,
		setup: []hcEntry{hcFile("t.trace", "@i\n"+strings.Repeat("0\n", 1<<18+1))},
		args:  []string{"conflicts", "t.trace"}, code: 0,
		stdout: []string{"262145"},
	})

	clocked := func(structure string) string {
		return hcCoalescer(`structure = "`+structure+`"`, "lanes = 32", "addr_bits = 32", "clock_fo4 = 20")
	}
	add(hostileCase{
		name: "profile --coalescers of clocked 32-lane units", cat: "file",
		finding: "`profile --coalescers` with 32-lane clocked units fails with \"s: no multiplexer selected by monotonic_o\"",
		setup:   []hcEntry{hcFile("c.hcl", strings.ReplaceAll(clocked("all_to_all"), `"c"`, `"a"`)+strings.ReplaceAll(clocked("neighbor"), `"c"`, `"n"`)+strings.ReplaceAll(clocked("speculative"), `"c"`, `"s"`))},
		args:    []string{"profile", "--coalescers", "c.hcl", "$SPECS/traces/accelsim/profile_transpose.traceg"}, code: 2,
		stderr: []string{"c.hcl: a (c.hcl:5,", "is clocked: profile times combinational units"},
	})

	// A DUT that starts processes with $system: in the background (&,
	// its process group) and in a new session (setsid, which leaves the
	// group); lsugen's child subreaper kills both when the run ends.
	if _, err := exec.LookPath("setsid"); err == nil && runtime.GOOS == "linux" {
		start := func(form, cmd string) string {
			return fmt.Sprintf("        if ($system(\"%s >/dev/null 2>&1 & echo $! > $DIR/%s.pid\") != 0) $display(\"no system\");\n", cmd, form)
		}
		add(hostileCase{
			name: "verify --rtl --sim verilator of a module whose $system starts background and setsid children", cat: "signal",
			finding: "under `verify --rtl` with Verilator, processes the DUT starts with `$system` (with `&` or `setsid`) survive lsugen, exit 0",
			setup: []hcEntry{hcFile("h.hcl", hcGoodHash), hcFile("h.v", "module h (input wire [9:0] addr_i, output wire [4:0] bank_o);\n"+
				"    assign bank_o = addr_i[4:0] ^ addr_i[9:5];\n    initial begin\n"+start("bg", "sleep 600")+start("setsid", "setsid sleep 600")+"    end\nendmodule\n")},
			args: []string{"verify", "--sim", "verilator", "--rtl", "h.v", "h.hcl"}, code: 0,
			stdout:   []string{"PASS"},
			outputs:  []string{"bg.pid", "setsid.pid"},
			deadPIDs: []string{"bg.pid", "setsid.pid"},
		})
	}

	empty := "an empty or comment-only `.traceg` is accepted with exit 0 (the required `-accelsim tracer version` is not enforced)"
	add(hostileCase{
		name: "conflicts of an empty .traceg", cat: "file", finding: empty,
		setup: []hcEntry{hcFile("kernel-1.traceg", "")},
		args:  []string{"conflicts", "kernel-1.traceg"}, code: 2,
		stderr: []string{"kernel-1.traceg:1: empty file: not an Accel-Sim kernel trace"},
	}, hostileCase{
		name: "profile of a comment-only .traceg", cat: "file", finding: empty,
		setup: []hcEntry{hcFile("kernel-1.traceg", "# a comment\n\n#traces format = nothing\n")},
		args:  []string{"profile", "kernel-1.traceg"}, code: 2,
		stderr: []string{`kernel-1.traceg:3: no "-kernel name" or "-accelsim tracer version" header line: not an Accel-Sim kernel trace`},
	})

	twice := "a 160 KB `kernelslist.g` naming a 1 GiB-of-text .xz 64 times runs about 55 minutes with no budget or progress"
	add(hostileCase{
		name: "accelsim kernelslist naming one kernel file twice", cat: "file", finding: twice,
		setup: []hcEntry{hcFile("kernelslist.g", "kernel-1.traceg\nMemcpyHtoD,0x0,4\n./kernel-1.traceg\n"), hcFile("kernel-1.traceg", good)},
		args:  []string{"conflicts", "kernelslist.g"}, code: 2,
		stderr: []string{"kernelslist.g:3: kernel file ./kernel-1.traceg is named again (first at line 1)"},
	})
	add(hostileCase{
		name: "accelsim kernelslist naming an .xz file declaring 17 GiB of text", cat: "memory", finding: twice,
		setup: []hcEntry{hcFile("kernelslist.g", "kernel-1.traceg\nkernel-2.traceg.xz\n"),
			hcFile("kernel-1.traceg", good), hcFile("kernel-2.traceg.xz", hcXzDeclaring(17<<30))},
		args: []string{"conflicts", "kernelslist.g"}, code: 2,
		stderr: []string{fmt.Sprintf("kernelslist.g:2: kernel-2.traceg.xz: xz of more than the %d bytes of trace text left of the 16 GiB one run reads", 16<<30-len(good))},
	})
	table := "`verify --rtl` passes a module that holds no logic, only a table of the fixed golden vectors' answers (Icarus and Verilator)"
	add(hostileCase{
		name: "verify --rtl of a table of the golden vectors' answers", cat: "file", finding: table,
		setup: []hcEntry{hcFile("s.hcl", tableSpec), hcFile("table.v", hcMemorisedTable())},
		args:  []string{"verify", "--rtl", "table.v", "--sim", "icarus", "--work", "w", "s.hcl"}, code: 1,
		stdout: []string{"FAIL"}, stderr: []string{"FAILED; work directory kept: w"},
		outputs: []string{"w", "w/*", "w/*/*", "w/*/*/*", "w/*/*/*/*", "w/*/*/*/*/*"},
	})
	return cs
}

// hcMemorisedTable is memorisedTable of the golden vectors gen --tb
// writes for tableSpec's unit.
func hcMemorisedTable() string {
	dir, err := os.MkdirTemp("", "lsugen-table-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	spec := filepath.Join(dir, "s.hcl")
	if err := os.WriteFile(spec, []byte(tableSpec), 0o644); err != nil {
		panic(err)
	}
	var o, e bytes.Buffer
	if code := run([]string{"gen", "--tb", "-o", dir, spec}, &o, &e); code != 0 {
		panic("gen --tb: " + e.String())
	}
	vec, err := os.ReadFile(filepath.Join(dir, "h.vec"))
	if err != nil {
		panic(err)
	}
	src, _ := memorisedTable(vec)
	return src
}

// hcXzDeclaring is the start of an .xz file whose LZMA2 chunks declare n
// bytes of text (a multiple of 2 MiB) in 2 MiB chunks of one byte each:
// what a reader can know of its size before decompressing it.
func hcXzDeclaring(n int64) string {
	var b []byte
	b = append(b, "\xfd7zXZ\x00\x00\x01"...)
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE([]byte{0, 1}))
	bh := []byte{0x02, 0x00, 0x21, 0x01, 0x16, 0, 0, 0}
	b = append(b, binary.LittleEndian.AppendUint32(bh, crc32.ChecksumIEEE(bh))...)
	for i := int64(0); i < n>>21; i++ {
		c := byte(0x9f) // LZMA, 2 MiB, no reset
		if i == 0 {
			c = 0xff // dictionary and state reset, properties
		}
		b = append(b, c, 0xff, 0xff, 0, 0)
		if i == 0 {
			b = append(b, 0x5d)
		}
		b = append(b, 0)
	}
	return string(b)
}

// hcNames are prefix0, prefix1, ... prefix(n-1).
func hcNames(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(i)
	}
	return out
}
