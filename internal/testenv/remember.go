package testenv

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/lsugen/lsugen/internal/atomicfile"
)

// Key hashes the inputs of a check: the tools' versions, its options, the
// names and texts of its files. Add writes each part with its length, so
// that no two lists of parts hash alike.
type Key struct{ parts [][]byte }

// Add adds parts to the key.
func (k *Key) Add(parts ...string) {
	for _, p := range parts {
		k.parts = append(k.parts, []byte(p))
	}
}

// AddFiles adds each file's base name and text; an unreadable file is an
// error.
func (k *Key) AddFiles(paths ...string) error {
	for _, p := range paths {
		text, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		k.parts = append(k.parts, []byte(filepath.Base(p)), text)
	}
	return nil
}

func (k *Key) sum() string {
	h := sha256.New()
	for _, p := range k.parts {
		fmt.Fprintf(h, "%d\x00", len(p))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Remembered runs check unless a check of the same kind with the same key
// passed before on this machine, and returns the output that passing run
// gave (cached true) or this run's. A passing run's output is kept under
// root, lsugen's cache (toolchain.CacheRoot; "" for none, as with
// LSUGEN_CACHE_DIR=off), in test-pass/KIND/, as go test keeps an
// unchanged test's result and the harness an unchanged simulation's
// outputs: for external tools, whose runs go test cannot see, so that a
// second run of the suite does not repeat what only its inputs decide.
// (The root is passed in: toolchain's own tests import this package.)
func Remembered(root, kind string, key *Key, check func() (out []byte, passed bool)) (out []byte, passed, cached bool) {
	path := ""
	if root != "" {
		path = filepath.Join(root, "test-pass", kind, key.sum())
		if out, err := os.ReadFile(path); err == nil {
			return out, true, true
		}
	}
	out, passed = check()
	// Kept whole; a failure only loses the record.
	if passed && path != "" && os.MkdirAll(filepath.Dir(path), 0o777) == nil {
		atomicfile.Write(path, out)
	}
	return out, passed, false
}

// NewCache points lsugen's cache (env, toolchain.CacheDirEnv) at a new
// directory for the test, whose subdirectories named by shared are those
// of the machine's cache, root (toolchain.CacheRoot): a test of a build
// gets a build (no simulator or run from the cache) but takes what no
// design changes, such as Verilator's run-time library and precompiled
// headers ("verilator-rt", "verilator-pch"), from the machine's cache
// rather than compiling it again (about 13 s of CPU). It returns the
// directory.
func NewCache(t testing.TB, env, root string, shared ...string) string {
	t.Helper()
	dir := t.TempDir()
	if root != "" {
		for _, sub := range shared {
			if os.MkdirAll(filepath.Join(root, sub), 0o777) == nil {
				os.Symlink(filepath.Join(root, sub), filepath.Join(dir, sub))
			}
		}
	}
	t.Setenv(env, dir)
	return dir
}
