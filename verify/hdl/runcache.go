package hdl

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lsugen/lsugen/toolchain"
)

// Simulation runs cached by content, as go test caches a passing test's
// result and the formal package a completed proof. What a run writes
// depends only on the simulator (its version and build options), the
// testbench and sources (their texts), the input vectors and the
// plusargs: a run with all of them the same as an earlier one is answered
// with that run's output file and log, and neither built nor run again.
// The outputs are still read and compared with the model by the caller,
// afresh each time; a run that failed (an error, an unfinished testbench)
// or dumped a VCD is never stored. Bench.Rerun, --no-cache of lsugen
// verify, or LSUGEN_CACHE_DIR=off runs everything.

// runCacheFormat names the layout and meaning of an entry; a change to
// what a run depends on that the key does not see (the testbench's
// protocol) changes it.
const runCacheFormat = "lsugen sim-run 2"

// runCacheBytes bounds the cache of runs, least recently used first out;
// runCacheMaxOutput is the largest output file kept: a run that writes
// more is one of Verilator's 100,000-vector runs of a wide unit, which
// takes seconds, about as long as reading a file of that size back.
const (
	runCacheBytes     = 1 << 30
	runCacheMaxOutput = 8 << 20
)

// runCache is one run's entry under <root>/sim-run/<key>/: outputs (the
// testbench's output file), log (what the simulator printed) and sum (the
// SHA-256 of both, checked on every read, so that a damaged entry is a
// miss, never a failed check). A zero runCache caches nothing.
type runCache struct{ dir string }

// runCacheFor is the entry of the run of engine e on p with the vector
// file vecPath and the plusargs args; nothing when there is no cache or
// a simulator is missing (the build then reports it).
func (p *prepared) runCacheFor(e Engine, vecPath string, args []string) runCache {
	root := toolchain.CacheRoot()
	if root == "" {
		return runCache{}
	}
	var tools []string
	switch e {
	case Icarus:
		iverilog, vvp, err := icarusTools()
		if err != nil {
			return runCache{}
		}
		tools = []string{iverilog.Version, vvp.Version, icarusCmdFile}
	case Verilator:
		verilator, _, cxx, err := verilatorTools()
		if err != nil {
			return runCache{}
		}
		tools = verilatorBuildParts(verilator, cxx)
	default:
		return runCache{}
	}
	f, err := os.Open(vecPath)
	if err != nil {
		return runCache{}
	}
	defer f.Close()
	vh := sha256.New()
	if _, err := io.Copy(vh, f); err != nil {
		return runCache{}
	}
	parts := append([]string{runCacheFormat, string(e)}, tools...)
	parts = append(parts, hex.EncodeToString(vh.Sum(nil)), strings.Join(args, "\x00"))
	return runCache{dir: filepath.Join(root, "sim-run", p.contentKey(parts...))}
}

// fetch writes the cached outputs to outPath and returns the cached log;
// false when the entry is missing or unreadable.
func (c runCache) fetch(outPath string) ([]byte, bool) {
	if c.dir == "" {
		return nil, false
	}
	if _, err := os.Stat(c.dir); err != nil {
		return nil, false
	}
	log, err := os.ReadFile(filepath.Join(c.dir, "log"))
	var sum []byte
	if err == nil {
		sum, err = os.ReadFile(filepath.Join(c.dir, "sum"))
	}
	if err == nil {
		err = copyFile(filepath.Join(c.dir, "outputs"), outPath)
	}
	if got, serr := entrySum(outPath, log); err != nil || serr != nil || got != string(sum) {
		os.Remove(outPath)
		os.RemoveAll(c.dir) // damaged: the next run stores it again
		return nil, false
	}
	now := time.Now()
	os.Chtimes(c.dir, now, now) // most recently used
	return log, true
}

// store keeps a finished run: its output file and log. The entry appears
// whole or not at all (written beside, then renamed); failures only cost
// a later run, so they are ignored.
func (c runCache) store(outPath string, log []byte) {
	if c.dir == "" {
		return
	}
	if st, err := os.Stat(outPath); err != nil || st.Size() > runCacheMaxOutput {
		return
	}
	if _, err := os.Stat(c.dir); err == nil {
		return
	}
	parent := filepath.Dir(c.dir)
	if os.MkdirAll(parent, 0o777) != nil {
		return
	}
	tmp, err := os.MkdirTemp(parent, ".tmp-")
	if err != nil {
		return
	}
	defer os.RemoveAll(tmp)
	sum, err := entrySum(outPath, log)
	if err != nil || copyFile(outPath, filepath.Join(tmp, "outputs")) != nil ||
		os.WriteFile(filepath.Join(tmp, "log"), log, 0o644) != nil ||
		os.WriteFile(filepath.Join(tmp, "sum"), []byte(sum), 0o644) != nil ||
		os.Chmod(tmp, 0o755) != nil || os.Rename(tmp, c.dir) != nil {
		return
	}
	trimCache(parent, runCacheBytes)
}

// entrySum is the checksum of an entry: the output file's and the log's
// SHA-256.
func entrySum(outPath string, log []byte) (string, error) {
	f, err := os.Open(outPath)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	fmt.Fprintf(h, "\x00%d\x00", len(log))
	h.Write(log)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// finished reports whether a run's log shows the testbench done with all
// n vectors and no error: the only runs worth keeping.
func finished(log []byte, n int) bool {
	return !bytes.Contains(log, []byte(TBError)) && bytes.Contains(log, []byte(fmt.Sprintf("%s %d", TBDone, n)))
}
