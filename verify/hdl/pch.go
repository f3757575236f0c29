package hdl

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lsugen/lsugen/toolchain"
)

// Precompiled verilated.h. Every C++ file Verilator writes includes
// verilated.h, whose parse is about 0.8 s of g++ time per file: a third
// of the compile of a model split into tens of files, half of a small
// model's one file. The model's files are compiled with -include
// verilated.h (verilatorOptFast, verilatorOptSlow), which reads it first,
// where a precompiled header can stand in for it. GCC looks
// for a precompiled header (verilated.h.gch) in each directory before the
// header itself, and a directory of that name may hold one per set of
// options, of which it takes the first that matches the compile. So the
// build directory gets verilated.h.gch/ with one header precompiled with
// the flags of the model's fast files and one with those of its slow
// files, from a cache keyed by compiler and flags, and a link to the real
// verilated.h (the later #includes of it, which its guard skips, must
// find it there). A header that does not match a compile is ignored by
// g++, so this can only make a build faster, never different.

// pchDir is the directory g++ looks for precompiled verilated.h in.
const pchDir = "verilated.h.gch"

// seedPCH puts the precompiled headers for the model in mdir (prefix.mk)
// into it, building them into the cache when they are not there. Without
// a cache (LSUGEN_CACHE_DIR=off) it does nothing: building them for one
// model would cost about what they save. Failures only cost build time,
// so they are not errors.
func seedPCH(ctx context.Context, mdir, prefix, mk string, cxx *toolchain.Tool) {
	root := toolchain.CacheRoot()
	if root == "" {
		return
	}
	dry := newCommand(Verilator, "build (make -n)", mdir, mk,
		"-f", prefix+".mk", "-n", "-B",
		"OPT_FAST="+verilatorOptFast, "OPT_SLOW="+verilatorOptSlow, "OPT_GLOBAL="+verilatorOptGlobal,
		"CXX="+cxx.Path, "LINK="+cxx.Path, "sim")
	out, err := dry.run(ctx)
	if err != nil {
		return
	}
	header, sets := modelCompileFlags(string(out), prefix)
	if header == "" || len(sets) == 0 {
		return
	}
	var built []string
	for _, flags := range sets {
		if p := cachedPCH(ctx, root, header, flags, cxx); p != "" {
			built = append(built, p)
		}
	}
	if len(built) == 0 {
		return
	}
	dir := filepath.Join(mdir, pchDir)
	if os.MkdirAll(dir, 0o777) != nil || os.Symlink(header, filepath.Join(mdir, "verilated.h")) != nil {
		os.RemoveAll(dir)
		return
	}
	for i, p := range built {
		os.Symlink(p, filepath.Join(dir, fmt.Sprintf("%d.gch", i)))
	}
}

// modelCompileFlags reads make -n's commands for the model's own C++
// files (modelFile; not the run-time library's) and returns the path of
// verilated.h (from the -I that holds it) and each distinct set of
// compile flags, the dependency-file options left out.
func modelCompileFlags(dryRun, prefix string) (header string, sets [][]string) {
	for _, line := range strings.Split(dryRun, "\n") {
		f := strings.Fields(line)
		c := slices.Index(f, "-c")
		if c < 1 || !modelFile(f[len(f)-1], prefix) {
			continue
		}
		var flags []string
		for i := 1; i < c; i++ {
			a := f[i]
			switch {
			case a == "-MMD" || a == "-MP":
			case a == "-include" && i+1 < c && f[i+1] == "verilated.h":
				i++ // the header itself, which is what is precompiled
			case strings.HasPrefix(a, "-I") && header == "":
				if h := filepath.Join(strings.TrimPrefix(a, "-I"), "verilated.h"); fileExists(h) {
					header = h
				}
				flags = append(flags, a)
			default:
				flags = append(flags, a)
			}
		}
		if !slices.ContainsFunc(sets, func(s []string) bool { return slices.Equal(s, flags) }) {
			sets = append(sets, flags)
		}
	}
	return header, sets
}

// modelFile reports whether a compiled file is one of the model's own. A
// model too small to split is one file, prefix__ALL.cpp, that includes the
// others: its first line is no #include of verilated.h, so it takes the
// precompiled header through OPT_FAST's -include verilated.h.
func modelFile(src, prefix string) bool {
	b := filepath.Base(src)
	return strings.HasPrefix(b, prefix) && strings.HasSuffix(b, ".cpp")
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// cachedPCH is the cached precompiled header for flags, built when it is
// missing; "" when it cannot be built.
func cachedPCH(ctx context.Context, root, header string, flags []string, cxx *toolchain.Tool) string {
	src, err := os.ReadFile(header)
	if err != nil {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%q\x00", cxx.Path, cxx.Version, flags)
	h.Write(src)
	dir := filepath.Join(root, "verilator-pch")
	out := filepath.Join(dir, hex.EncodeToString(h.Sum(nil))[:24]+".gch")
	if fileExists(out) {
		return out
	}
	if os.MkdirAll(dir, 0o777) != nil {
		return ""
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*.gch")
	if err != nil {
		return ""
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	args := append(slices.Clone(flags), "-x", "c++-header", header, "-o", tmp.Name())
	if _, err := newCommand(Verilator, "build (precompiled header)", dir, cxx.Path, args...).run(ctx); err != nil {
		return ""
	}
	if os.Chmod(tmp.Name(), 0o644) != nil || os.Rename(tmp.Name(), out) != nil {
		return ""
	}
	return out
}
