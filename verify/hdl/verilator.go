package hdl

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lsugen/lsugen/toolchain"
)

// Verilator build.
//
// `verilator --binary` is --cc --exe --main --timing --build. The runner
// does the same in two steps, verilate and make, so that between them it can
// put in Verilator's run-time library objects (verilated.o, ...) from a
// cache: they do not depend on the design, and compiling them is most of
// the build time of a small design.

// verilatorFlags are the verilation options of every build, chosen for the
// flat gate netlists of the 64-lane coalescers (87,000 and 98,000 gates):
// Verilator's dataflow-graph pass (DFG) merges a fanout-free netlist into
// huge C++ statements that no --output-split can cut (the all-to-all
// coalescer's longest is 21.6 MB, and compiling it was most of a
// 7 min 45 s build). Without DFG the model is small statements (the
// longest 20 KB) that the splits spread over 44 files of at most 0.8 MB,
// which make -j compiles in parallel: with the run, 1 min 4 s on 2 cores
// at 788 MB peak. Small designs build as fast as with DFG.
//
// -fno-const-bit-op-tree: Verilator 5.006's bit-op-tree folding (V3Const)
// drops an inversion of some XOR trees of inverted terms (Verilator issue
// #4059, fixed in later releases): the gates of specs/rap.hcl's rap_w4_3p
// came out complemented for every address while Icarus and the netlist
// simulator agreed with the model. TestVerilator_BitOpTreeInversion keeps
// the netlist that showed it.
var verilatorFlags = []string{
	"-fno-dfg",
	"-fno-const-bit-op-tree",
	"--output-split", "20000",
	"--output-split-cfuncs", "2000",
}

// The C++ optimisation of the model's per-evaluation code (make's OPT_FAST),
// of its run-once code (constructors, initial blocks: OPT_SLOW) and of
// Verilator's run-time library (OPT_GLOBAL). Of -O0, -Og, -O1 and -O2 on
// the split models, -Og compiled the coalescers as fast as -O0 or faster
// and the 25k-gate history cache up to 15% slower, and ran them 1.8 to 30
// times faster than -O0, about as fast as -O2, which took twice as long on
// the history cache. The run-time library holds the testbench's file I/O
// ($fscanf, $fwrite); it comes from the cache, so -O2 costs its compile
// once.
//
// The model's files also include verilated.h before anything else, so that
// each reads it precompiled (pch.go), those whose first line includes
// another file too: a model too small to split is one such file,
// prefix__ALL.cpp, and its precompiled header saves about 0.6 s of the
// 1.6 s of g++ it took.
const (
	verilatorOptFast   = "-Og -include verilated.h"
	verilatorOptSlow   = "-O0 -include verilated.h"
	verilatorOptGlobal = "-O2"
)

// verilatorMake is the make command that compiles the verilated model
// whose makefile is mdir/<prefix>.mk into mdir/sim, with every core.
func verilatorMake(mdir, prefix string, mk, cxx *toolchain.Tool) *command {
	return newCommand(Verilator, "build (make)", mdir, mk.Path,
		"-f", prefix+".mk",
		"-j", strconv.Itoa(max(2, runtime.NumCPU())),
		"OPT_FAST="+verilatorOptFast, "OPT_SLOW="+verilatorOptSlow, "OPT_GLOBAL="+verilatorOptGlobal,
		"CXX="+cxx.Path, "LINK="+cxx.Path,
		"sim",
	)
}

// verilatorBuildParts is what a Verilator build depends on besides its
// testbench and sources: the tools' versions and the build's options.
func verilatorBuildParts(verilator, cxx *toolchain.Tool) []string {
	return []string{verilator.Version, cxx.Version, strings.Join(verilatorFlags, " "),
		verilatorOptFast, verilatorOptSlow, verilatorOptGlobal}
}

// verilatorTools finds what a Verilator build runs: verilator, make, g++.
func verilatorTools() (verilator, mk, cxx *toolchain.Tool, err error) {
	if verilator, err = findFor(Verilator, "verilator"); err != nil {
		return nil, nil, nil, err
	}
	if mk, err = findFor(Verilator, "make"); err != nil {
		return nil, nil, nil, err
	}
	if cxx, err = findFor(Verilator, "g++"); err != nil {
		return nil, nil, nil, err
	}
	return verilator, mk, cxx, nil
}

// compileVerilated runs mkCmd (verilatorMake's) on a verilated model in
// mdir, with the run-time library's objects from the cache, or into it
// when they were not there, and checks that mdir/sim was made.
func compileVerilated(ctx context.Context, mkCmd *command, mdir, prefix string, verilator, cxx *toolchain.Tool) error {
	rt := runtimeCache(mdir, prefix, verilator, cxx)
	seeded := rt.seed()
	seedPCH(ctx, mdir, prefix, mkCmd.Path, cxx)
	if out, err := mkCmd.run(ctx); err != nil {
		return err
	} else if _, err := os.Stat(filepath.Join(mdir, "sim")); err != nil {
		return mkCmd.fail(fmt.Errorf("no executable: %v", err), out)
	}
	if !seeded {
		rt.store()
	}
	return nil
}

func (p *prepared) buildVerilator(ctx context.Context, trace bool) (*command, error) {
	verilator, mk, cxx, err := verilatorTools()
	if err != nil {
		return nil, err
	}
	mdirName := "obj_verilator"
	if trace {
		mdirName = "obj_verilator_vcd"
	}
	mdir := filepath.Join(p.dir, mdirName)
	exe := filepath.Join(mdir, "sim")
	args := []string{
		"--cc", "--exe", "--main", "--timing",
		"-Wall",
		"--default-language", "1364-2005",
		"--timescale", "1ns/1ps",
		"--x-assign", "fast", "--x-initial", "fast",
		"--top-module", TopModule,
		"-Mdir", mdir,
		"-o", "sim",
	}
	args = append(args, verilatorFlags...)
	if trace {
		args = append(args, "--trace", "--trace-underscore",
			"--trace-max-width", strconv.Itoa(max(4096, 2*p.tp.maxWidth())))
	}
	args = append(args, p.tbPath)
	args = append(args, p.sources...)
	verilate := newCommand(Verilator, "build (verilate)", p.dir, verilator.Path, args...)
	prefix := "V" + TopModule
	mkCmd := verilatorMake(mdir, prefix, mk, cxx)
	sim := newCommand(Verilator, "run (sim)", p.dir, exe)

	stamp := filepath.Join(mdir, "lsugen.stamp")
	fp := p.fingerprint(verilator.Path, verilator.Version, cxx.Path, cxx.Version, verilate.String(), mkCmd.String())
	if upToDate(stamp, fp, exe) {
		return sim, nil
	}
	if err := os.RemoveAll(mdir); err != nil {
		return nil, err
	}
	// A build of the same testbench and sources elsewhere (another work
	// directory, an earlier run, an identical unit under another name) is
	// reused from the cache; it is keyed by contents, never by paths.
	cached := simCache{key: p.contentKey(append(verilatorBuildParts(verilator, cxx), strconv.FormatBool(trace))...)}
	if cached.fetch(exe) {
		if err := os.WriteFile(stamp, []byte(fp+"\n"), 0o666); err != nil {
			return nil, err
		}
		return sim, nil
	}
	out, err := verilate.run(ctx)
	if err != nil {
		return nil, err
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "%Warning") {
			return nil, verilate.fail(errWarnings, out)
		}
	}
	if err := compileVerilated(ctx, mkCmd, mdir, prefix, verilator, cxx); err != nil {
		return nil, err
	}
	if err := os.WriteFile(stamp, []byte(fp+"\n"), 0o666); err != nil {
		return nil, err
	}
	cached.store(exe)
	return sim, nil
}

// contentKey hashes the parts given, the testbench and the sources'
// base names and contents: what a build's product depends on, without
// the directories it was made in.
func (p *prepared) contentKey(parts ...string) string {
	h := sha256.New()
	w := func(s string) { fmt.Fprintf(h, "%d:%s", len(s), s) }
	for _, s := range parts {
		w(s)
	}
	w(p.tbText)
	for i, s := range p.sources {
		w(filepath.Base(s))
		w(string(p.srcData[i]))
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// simCache is the content-addressed cache of built Verilator simulators
// under the cache root (toolchain.CacheRoot): <root>/verilator-sim/<key>/sim.
// A fresh machine or LSUGEN_CACHE_DIR=off simply builds. The cache keeps
// the most recently used builds up to simCacheBytes.
type simCache struct{ key string }

// simCacheBytes bounds the cache of simulators; the 64-lane coalescers'
// are the largest, tens of MB each.
const simCacheBytes = 2 << 30

func (c simCache) dir() string {
	root := toolchain.CacheRoot()
	if root == "" {
		return ""
	}
	return filepath.Join(root, "verilator-sim", c.key)
}

// fetch places the cached simulator at exe and reports whether it did.
// It hard-links it where it can: a copy is written through a file
// descriptor that a process forked meanwhile by another goroutine
// inherits, and executing the copy then fails with "text file busy"
// until that process has exec'd (seen with parallel checks).
func (c simCache) fetch(exe string) bool {
	dir := c.dir()
	if dir == "" {
		return false
	}
	src := filepath.Join(dir, "sim")
	if _, err := os.Stat(src); err != nil {
		return false
	}
	if os.MkdirAll(filepath.Dir(exe), 0o777) != nil {
		return false
	}
	os.Remove(exe)
	if os.Link(src, exe) != nil && (copyFile(src, exe) != nil || os.Chmod(exe, 0o755) != nil) {
		return false
	}
	now := time.Now()
	os.Chtimes(dir, now, now) // most recently used
	return true
}

// store puts a new build into the cache and trims the cache to its bound,
// oldest first. Failures only cost a later build, so they are ignored.
func (c simCache) store(exe string) {
	dir := c.dir()
	if dir == "" || os.MkdirAll(dir, 0o777) != nil {
		return
	}
	if copyFile(exe, filepath.Join(dir, "sim")) != nil {
		return
	}
	os.Chmod(filepath.Join(dir, "sim"), 0o755)
	trimCache(filepath.Dir(dir), simCacheBytes)
}

// trimCache removes the least recently used entries of a cache directory
// (one subdirectory of files each) until the rest fit in limit bytes.
func trimCache(root string, limit int64) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	type entry struct {
		path string
		used time.Time
		size int64
	}
	var es []entry
	var total int64
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !e.IsDir() {
			continue
		}
		if strings.HasPrefix(e.Name(), ".tmp-") {
			// An entry being written is not in the cache yet; one a
			// killed run left behind is removed after a day.
			if time.Since(info.ModTime()) > 24*time.Hour {
				os.RemoveAll(filepath.Join(root, e.Name()))
			}
			continue
		}
		en := entry{path: filepath.Join(root, e.Name()), used: info.ModTime()}
		files, _ := os.ReadDir(en.path)
		for _, f := range files {
			if st, err := f.Info(); err == nil && st.Mode().IsRegular() {
				en.size += st.Size()
			}
		}
		total += en.size
		es = append(es, en)
	}
	slices.SortFunc(es, func(a, b entry) int { return a.used.Compare(b.used) })
	for _, e := range es {
		if total <= limit {
			return
		}
		if os.RemoveAll(e.path) == nil {
			total -= e.size
		}
	}
}

// rtCache is the cache of Verilator's run-time library objects for one
// configuration; a zero dir means no cache.
type rtCache struct {
	dir  string   // cache directory for this configuration
	mdir string   // the build's directory
	objs []string // object file names, e.g. "verilated.o"
}

// runtimeCache reads the verilated makefiles in mdir and returns the cache
// for their configuration: the key hashes the tools, the makefile (flags,
// VERILATOR_ROOT) and the VM_ settings (but VM_PARALLEL_BUILDS) and global
// objects of the classes makefile.
func runtimeCache(mdir, prefix string, verilator, cxx *toolchain.Tool) *rtCache {
	c := &rtCache{mdir: mdir}
	root := toolchain.CacheRoot()
	if root == "" {
		return c
	}
	mkText, err1 := os.ReadFile(filepath.Join(mdir, prefix+".mk"))
	classes, err2 := os.ReadFile(filepath.Join(mdir, prefix+"_classes.mk"))
	if err1 != nil || err2 != nil {
		return c
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00", verilator.Path, verilator.Version, cxx.Path, cxx.Version, verilatorOptGlobal)
	h.Write(mkText)
	collecting := false
	for _, line := range strings.Split(string(classes), "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "VM_GLOBAL_FAST +=") || strings.HasPrefix(t, "VM_GLOBAL_SLOW +="):
			collecting = strings.HasSuffix(t, `\`)
		case collecting:
			collecting = strings.HasSuffix(t, `\`)
			if name := strings.TrimSpace(strings.TrimSuffix(t, `\`)); name != "" {
				c.objs = append(c.objs, name+".o")
			}
		case strings.HasPrefix(t, "VM_PARALLEL_BUILDS "):
			// How the model's own files are compiled (one file or
			// each apart), not the library's: split and unsplit
			// models share its objects.
		case strings.HasPrefix(t, "VM_") && strings.Contains(t, " = "):
			fmt.Fprintf(h, "%s\n", t)
		}
	}
	if len(c.objs) == 0 {
		return c
	}
	fmt.Fprintf(h, "%q", c.objs)
	c.dir = filepath.Join(root, "verilator-rt", hex.EncodeToString(h.Sum(nil))[:24])
	return c
}

// seed copies the cached objects into the build directory, dated now so that
// make, which sees them newer than the makefile, does not rebuild them. It
// reports whether it did; with any object missing it copies none.
func (c *rtCache) seed() bool {
	if c.dir == "" {
		return false
	}
	for _, o := range c.objs {
		if _, err := os.Stat(filepath.Join(c.dir, o)); err != nil {
			return false
		}
	}
	now := time.Now()
	for _, o := range c.objs {
		dst := filepath.Join(c.mdir, o)
		if copyFile(filepath.Join(c.dir, o), dst) != nil || os.Chtimes(dst, now, now) != nil {
			for _, o := range c.objs {
				os.Remove(filepath.Join(c.mdir, o))
			}
			return false
		}
	}
	return true
}

// store puts the build's objects into the cache. Failures only cost the next
// build time, so they are ignored.
func (c *rtCache) store() {
	if c.dir == "" || os.MkdirAll(c.dir, 0o777) != nil {
		return
	}
	for _, o := range c.objs {
		copyFile(filepath.Join(c.mdir, o), filepath.Join(c.dir, o))
	}
}

// copyFile copies src to dst through a temporary file and a rename, so that
// a concurrent reader of dst never sees a part.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*")
	if err != nil {
		return err
	}
	_, err = io.Copy(tmp, in)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dst)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
