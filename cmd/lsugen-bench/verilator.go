package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/lsugen/lsugen/internal/atomicfile"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/toolchain"
)

// The Verilator side of the simulator comparison: the unit's gate-level
// module verilated into a single-threaded C++ model (Verilator's default:
// no --threads), driven by a generated C++ harness that loads every vector
// into memory first and then times only the loop of set inputs, eval(),
// fold outputs into the checksum. The harness measures as measure does:
// one pass to warm up and calibrate, trials of at least the minimum time,
// the best trial counts.

// verilatorFlags are the verilation options, chosen for the 87,414-gate
// 64-lane coalescer, whose build with Verilator's defaults took 13 CPU
// minutes of g++ (7.5 GB) on the development machine: Verilator's
// dataflow-graph pass (DFG) merges the whole fanout-free netlist into one
// 28 MB C++ statement, which g++ digests slowly, and no --output-split
// can cut a statement. Without DFG (-fno-dfg) the model is 8,491
// statements that --output-split-cfuncs and --output-split spread over 44
// files, which compile in 77 CPU seconds on both cores; and the model runs
// faster: 25 ms instead of 54 ms per pass of 1,601 vectors (the 21,000-gate
// 32-lane coalescer: 23.5 ms instead of 29.0 ms at -O2 in both builds; the
// 190-gate hash: about the same). Otherwise Verilator's defaults: its own
// optimisation, one thread.
var verilatorFlags = []string{
	"--cc", "--exe",
	"--prefix", "Vdut",
	"--x-assign", "fast", "--x-initial", "fast",
	"-fno-dfg",
	"--output-split", "20000",
	"--output-split-cfuncs", "2000",
}

// cxxOpt is the optimisation of the model's C++ (make's OPT_FAST, the
// per-eval code, and OPT_GLOBAL, Verilator's run-time library), in place
// of Verilator's default -Os. On the 32-lane coalescer without DFG, -O2
// ran fastest (23.5 ms per pass; -O1 26.8, -Os 29.0) for the same compile
// time; -O3 ran no faster than -O2 on the 64-lane one.
const cxxOpt = "-O2"

// harnessSource is the C++ main for a design: it reads the vector file
// (magic, count, stride, then the vectors as little-endian 64-bit words in
// the layout of vectorSet) and prints "key value" lines.
func harnessSource(d *netlist.Design) string {
	var set, fold strings.Builder
	o := 0
	for _, p := range d.Inputs() {
		w := p.Width()
		if w <= 64 {
			fmt.Fprintf(&set, "            top->%s = (%s)v[%d];\n", p.Name, cType(w), o)
		} else {
			for k := 0; k < (w+31)/32; k++ {
				fmt.Fprintf(&set, "            top->%s[%d] = (IData)(v[%d] >> %d);\n", p.Name, k, o+k/2, 32*(k%2))
			}
		}
		o += words64(w)
	}
	for _, p := range d.Outputs() {
		w := p.Width()
		if w <= 64 {
			fmt.Fprintf(&fold, "            h = mix(h, (uint64_t)top->%s);\n", p.Name)
			continue
		}
		for c := 0; c < words64(w); c++ {
			if 64*c+32 < w {
				fmt.Fprintf(&fold, "            h = mix(h, (uint64_t)top->%s[%d] | (uint64_t)top->%s[%d] << 32);\n", p.Name, 2*c, p.Name, 2*c+1)
			} else {
				fmt.Fprintf(&fold, "            h = mix(h, (uint64_t)top->%s[%d]);\n", p.Name, 2*c)
			}
		}
	}
	return strings.NewReplacer(
		"@MODULE@", d.Name+"_gates",
		"@STRIDE@", strconv.Itoa(o),
		"@SET@", set.String(),
		"@FOLD@", fold.String(),
	).Replace(harnessTemplate)
}

// cType is Verilator's C type of a port of width w <= 64.
func cType(w int) string {
	switch {
	case w <= 8:
		return "CData"
	case w <= 16:
		return "SData"
	case w <= 32:
		return "IData"
	}
	return "QData"
}

const harnessTemplate = `// Benchmark harness for @MODULE@, written by lsugen-bench. Usage:
// sim VECTORS MIN_SECONDS TRIALS. Vectors are loaded into memory first;
// only the loop of inputs, eval() and output checksum is timed, in CPU
// time (best_pass_ns) and wall time (best_wall_ns) per pass over all
// vectors, the best of the trials.
#include "Vdut.h"
#include "verilated.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <vector>

static inline uint64_t mix(uint64_t h, uint64_t w) { return (h ^ w) * 0x100000001b3ULL; }

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s VECTORS MIN_SECONDS TRIALS\n", argv[0]);
        return 2;
    }
    std::FILE* f = std::fopen(argv[1], "rb");
    if (!f) {
        std::perror(argv[1]);
        return 1;
    }
    char magic[8];
    uint64_t n = 0, stride = 0;
    if (std::fread(magic, 1, 8, f) != 8 || std::memcmp(magic, "LSUBVEC1", 8) != 0
        || std::fread(&n, 8, 1, f) != 1 || std::fread(&stride, 8, 1, f) != 1 || stride != @STRIDE@) {
        std::fprintf(stderr, "%s: not a vector file for @MODULE@ (stride @STRIDE@)\n", argv[1]);
        return 1;
    }
    std::vector<uint64_t> data(n * stride);
    if (n > 0 && std::fread(data.data(), 8, data.size(), f) != data.size()) {
        std::fprintf(stderr, "%s: short vector file\n", argv[1]);
        return 1;
    }
    std::fclose(f);
    const double minSeconds = std::atof(argv[2]);
    const long trials = std::atol(argv[3]);

    auto ctx = std::make_unique<VerilatedContext>();
    auto top = std::make_unique<Vdut>(ctx.get());
    auto pass = [&]() {
        uint64_t h = 0xcbf29ce484222325ULL;
        const uint64_t* v = data.data();
        for (uint64_t i = 0; i < n; i++, v += stride) {
@SET@            top->eval();
@FOLD@        }
        return h;
    };
    // CPU time of the process, as lsugen-bench measures its own side.
    auto cpu = []() {
        timespec ts;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return ts.tv_sec + 1e-9 * ts.tv_nsec;
    };
    using clock = std::chrono::steady_clock;
    double c0 = cpu();
    const uint64_t sum = pass();
    double first = cpu() - c0;
    long passes = (long)(minSeconds / (first > 1e-6 ? first : 1e-6)) + 1;
    double best = -1, bestWall = -1;
    for (long t = 0; t < trials; t++) {
        auto w0 = clock::now();
        c0 = cpu();
        for (long p = 0; p < passes; p++) {
            if (pass() != sum) {
                std::fprintf(stderr, "checksum differs between passes\n");
                return 1;
            }
        }
        double per = (cpu() - c0) / passes;
        double wall = std::chrono::duration<double>(clock::now() - w0).count() / passes;
        if (best < 0 || per < best) best = per;
        if (bestWall < 0 || wall < bestWall) bestWall = wall;
    }
    top->final();
    std::printf("vectors %llu\npasses %ld\ntrials %ld\nbest_pass_ns %.0f\nbest_wall_ns %.0f\nchecksum %016llx\n",
                (unsigned long long)n, passes, trials, best * 1e9, bestWall * 1e9, (unsigned long long)sum);
    return 0;
}
`

// writeVectorFile writes set in the harness's format, atomically.
func writeVectorFile(path string, set *vectorSet) error {
	var b bytes.Buffer
	b.Grow(24 + 8*len(set.data))
	b.WriteString("LSUBVEC1")
	binary.Write(&b, binary.LittleEndian, uint64(set.n))
	binary.Write(&b, binary.LittleEndian, uint64(set.stride))
	binary.Write(&b, binary.LittleEndian, set.data)
	return atomicfile.Write(path, b.Bytes())
}

// verilatorBuild is a built harness.
type verilatorBuild struct {
	Exe      string        `json:"-"`
	Verilate time.Duration `json:"verilate_ns"`
	Compile  time.Duration `json:"compile_ns"`
	Cached   bool          `json:"-"` // found in the cache, built earlier
}

const buildInfo = "build.json"

// verilatorTools are the programs a build runs.
type verilatorTools struct{ verilator, make, cxx *toolchain.Tool }

func findVerilatorTools() (*verilatorTools, error) {
	var t verilatorTools
	for _, f := range []struct {
		dst  **toolchain.Tool
		name string
	}{{&t.verilator, "verilator"}, {&t.make, "make"}, {&t.cxx, "g++"}} {
		tool, err := toolchain.Find(f.name)
		if err != nil {
			return nil, err
		}
		*f.dst = tool
	}
	return &t, nil
}

func (t *verilatorTools) makeArgs() []string {
	return []string{"-f", "Vdut.mk", "-j", "2",
		"OPT_FAST=" + cxxOpt, "OPT_GLOBAL=" + cxxOpt, "CXX=" + t.cxx.Path, "LINK=" + t.cxx.Path, "sim"}
}

// key names a build: the design's name and a hash of everything that goes
// into the binary (tools, flags, harness, the gate-level Verilog).
func (t *verilatorTools) key(d *netlist.Design, gates []byte) string {
	h := sha256.New()
	for _, s := range []string{t.verilator.Path, t.verilator.Version, t.cxx.Path, t.cxx.Version,
		strings.Join(verilatorFlags, " "), strings.Join(t.makeArgs(), " "), harnessSource(d)} {
		fmt.Fprintf(h, "%d:%s\x00", len(s), s)
	}
	h.Write(gates)
	return d.Name + "-" + hex.EncodeToString(h.Sum(nil))[:20]
}

// buildVerilator builds the harness for d's gate-level Verilog (gates is
// its text) under cacheDir, named by its key, and reuses an earlier build
// with the same key. An empty cacheDir builds into tmpDir instead.
func buildVerilator(ctx context.Context, d *netlist.Design, gates []byte, cacheDir, tmpDir string) (*verilatorBuild, error) {
	tools, err := findVerilatorTools()
	if err != nil {
		return nil, err
	}
	key := tools.key(d, gates)
	final := filepath.Join(tmpDir, "verilator-"+key)
	if cacheDir != "" {
		final = filepath.Join(cacheDir, "verilator-"+key)
		if b, ok := cachedBuild(final); ok {
			return b, nil
		}
		if err := os.MkdirAll(cacheDir, 0o755); err != nil {
			return nil, err
		}
	}
	// Build beside the final place and rename when done, so that an
	// interrupted build never looks like a finished one.
	dir, err := os.MkdirTemp(filepath.Dir(final), "."+filepath.Base(final)+".tmp-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, d.Name+"_gates.v")
	if err := os.WriteFile(src, gates, 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "harness.cpp"), []byte(harnessSource(d)), 0o644); err != nil {
		return nil, err
	}
	b := &verilatorBuild{}
	args := append(append([]string{}, verilatorFlags...),
		"--top-module", d.Name+"_gates", "-Mdir", "obj", "-o", "sim", src, "harness.cpp")
	start := time.Now()
	if err := runTool(ctx, tools.verilator, dir, args...); err != nil {
		return nil, err
	}
	b.Verilate = time.Since(start)
	start = time.Now()
	if err := runTool(ctx, tools.make, filepath.Join(dir, "obj"), tools.makeArgs()...); err != nil {
		return nil, err
	}
	b.Compile = time.Since(start)
	info, _ := json.Marshal(b)
	if err := os.WriteFile(filepath.Join(dir, buildInfo), info, 0o644); err != nil {
		return nil, err
	}
	if cacheDir != "" {
		// Keep the binary, the harness and build.json: the generated C++
		// and objects of the 64-lane coalescer are 37 MB.
		if err := pruneBuild(dir, src); err != nil {
			return nil, err
		}
	}
	os.RemoveAll(final) // a stale, unfinished copy
	if err := os.Rename(dir, final); err != nil {
		return nil, err
	}
	if cacheDir != "" {
		// Builds of the same unit under other keys are outdated.
		old, _ := filepath.Glob(filepath.Join(cacheDir, "verilator-"+d.Name+"-*"))
		for _, o := range old {
			if o != final && len(filepath.Base(o)) == len(filepath.Base(final)) {
				os.RemoveAll(o)
			}
		}
	}
	b.Exe = filepath.Join(final, "obj", "sim")
	return b, nil
}

// pruneBuild removes from a finished build directory the copy of the
// Verilog and everything under obj but the binary.
func pruneBuild(dir, src string) error {
	if err := os.Remove(src); err != nil {
		return err
	}
	ents, err := os.ReadDir(filepath.Join(dir, "obj"))
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.Name() != "sim" {
			if err := os.RemoveAll(filepath.Join(dir, "obj", e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// cachedBuild returns a finished build in dir.
func cachedBuild(dir string) (*verilatorBuild, bool) {
	info, err := os.ReadFile(filepath.Join(dir, buildInfo))
	if err != nil {
		return nil, false
	}
	b := &verilatorBuild{Exe: filepath.Join(dir, "obj", "sim"), Cached: true}
	if json.Unmarshal(info, b) != nil {
		return nil, false
	}
	if st, err := os.Stat(b.Exe); err != nil || st.Mode()&0o111 == 0 {
		return nil, false
	}
	return b, true
}

// runTool runs tool t with args in dir; a failure names the tool and has
// the command line and the tail of its output.
func runTool(ctx context.Context, t *toolchain.Tool, dir string, args ...string) error {
	if _, err := t.Command(dir, args...).Run(ctx); err != nil {
		return fmt.Errorf("%s: %w", t.Name, err)
	}
	return nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// harnessResult is what the harness prints.
type harnessResult struct {
	vectors  int
	passes   int
	trials   int
	bestPass time.Duration // CPU time
	bestWall time.Duration
	checksum uint64
}

// runHarness runs a built harness on a vector file.
func runHarness(ctx context.Context, exe, vectors string, minTime time.Duration, trials int) (*harnessResult, error) {
	// Stdout is the result lines, stderr the diagnostics.
	c := &toolchain.Cmd{Path: exe, Args: []string{vectors, strconv.FormatFloat(minTime.Seconds(), 'f', 3, 64), strconv.Itoa(trials)}, SplitStdout: true}
	res, err := c.Run(ctx)
	if err != nil {
		return nil, fmt.Errorf("verilated harness: %w", err)
	}
	return parseHarness(res.Stdout)
}

// parseHarness reads the harness's "key value" lines; every key is needed.
func parseHarness(out []byte) (*harnessResult, error) {
	r := &harnessResult{}
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		if !ok {
			continue
		}
		var err error
		var n int64
		switch k {
		case "vectors", "passes", "trials", "best_pass_ns", "best_wall_ns":
			n, err = strconv.ParseInt(v, 10, 64)
			switch k {
			case "vectors":
				r.vectors = int(n)
			case "passes":
				r.passes = int(n)
			case "trials":
				r.trials = int(n)
			case "best_pass_ns":
				r.bestPass = time.Duration(n)
			default:
				r.bestWall = time.Duration(n)
			}
		case "checksum":
			r.checksum, err = strconv.ParseUint(v, 16, 64)
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("harness output: %s: %v", k, err)
		}
		seen[k] = true
	}
	for _, k := range []string{"vectors", "passes", "trials", "best_pass_ns", "best_wall_ns", "checksum"} {
		if !seen[k] {
			return nil, fmt.Errorf("harness output: no %s line in %q", k, lastLines(string(out), 5))
		}
	}
	if r.bestPass <= 0 || r.bestWall <= 0 {
		return nil, fmt.Errorf("harness output: best pass of %v (wall %v)", r.bestPass, r.bestWall)
	}
	return r, nil
}
