package sta

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/lsugen/lsugen/internal/atomicfile"
	"github.com/lsugen/lsugen/toolchain"
)

// The STA run cache. What OpenSTA prints for a script depends only on
// OpenSTA (its version), the script and the files the script reads (the
// library, the netlist). A run that succeeded keeps its output under the
// cache root (toolchain.CacheRoot): <root>/sta-run/<key>, the key a
// SHA-256 of the version, the script with each file it reads replaced by
// the hash of the file's text (never its path, so that another work
// directory or checkout finds it). An identical run is answered with that
// output, which the flow then reads as it reads a run's: `crosscheck-timing`
// or the clock checks of unchanged units run OpenSTA once per machine.
// LSUGEN_CACHE_DIR=off runs every time. A script that reads files other
// than with read_liberty and read_verilog is not cached.
const (
	staCacheSubdir = "sta-run"
	staCacheFormat = "lsugen sta-run 2"
)

// staKey is the cache key of running script (a file in dir) with sta,
// or "" when the script reads something the key would not cover.
func staKey(sta *toolchain.Tool, dir, script string) string {
	text, err := os.ReadFile(filepath.Join(dir, script))
	if err != nil {
		return ""
	}
	parts := []string{staCacheFormat, sta.Version}
	part := func(s string) { parts = append(parts, s) }
	for _, line := range strings.Split(string(text), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && (f[0] == "source" || f[0] == "include" || f[0] == "open" || f[0] == "exec" ||
			(strings.HasPrefix(f[0], "read_") && f[0] != "read_liberty" && f[0] != "read_verilog")) {
			return ""
		}
		if len(f) == 0 || (f[0] != "read_liberty" && f[0] != "read_verilog") {
			part(line)
			continue
		}
		if len(f) != 2 {
			return "" // options, or a name with spaces: not parsed here
		}
		name := strings.TrimSuffix(strings.TrimPrefix(f[1], "{"), "}")
		if strings.ContainsAny(name, "{}$[]\\\"") {
			return ""
		}
		if !filepath.IsAbs(name) {
			name = filepath.Join(dir, name)
		}
		sum, err := fileSum(name)
		if err != nil {
			return ""
		}
		part(f[0] + " " + sum)
	}
	return hashParts(parts...)
}

// hashParts is the SHA-256 (hex) of parts, each length-prefixed, so that
// no two lists of parts hash alike by their joins.
func hashParts(parts ...string) string {
	h := sha256.New()
	for _, s := range parts {
		fmt.Fprintf(h, "%d:%s\n", len(s), s)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// fileSums remembers the hashes of large files that do not change (the
// library, read by every run), by path, size and modification time.
var fileSums sync.Map

type fileID struct {
	path string
	size int64
	mod  time.Time
}

// fileSum is the SHA-256 of the file's text.
func fileSum(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	id := fileID{path, st.Size(), st.ModTime()}
	if s, ok := fileSums.Load(id); ok {
		return s.(string), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := f.WriteTo(h); err != nil {
		return "", err
	}
	s := hex.EncodeToString(h.Sum(nil))
	if st.Size() > 1<<20 {
		fileSums.Store(id, s)
	}
	return s, nil
}

// staCachePath is where the output of the run with key is kept; "" for
// no cache.
func staCachePath(key string) string {
	root := toolchain.CacheRoot()
	if key == "" || root == "" {
		return ""
	}
	return filepath.Join(root, staCacheSubdir, key)
}

// An entry is the SHA-256 of the output (hex, a line), then the output:
// a damaged entry (a truncated output could read as fewer endpoints) is
// found, removed and run again.

// storeSTA keeps out under path whole; a failure only costs a later run.
func storeSTA(path string, out []byte) {
	if path != "" && os.MkdirAll(filepath.Dir(path), 0o777) == nil {
		sum := sha256.Sum256(out)
		atomicfile.Write(path, append([]byte(hex.EncodeToString(sum[:])+"\n"), out...))
	}
}

// loadSTA returns the output kept under path, if it is there whole.
func loadSTA(path string) ([]byte, bool) {
	if path == "" {
		return nil, false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	head, out, ok := bytes.Cut(b, []byte("\n"))
	sum := sha256.Sum256(out)
	if !ok || string(head) != hex.EncodeToString(sum[:]) {
		os.Remove(path)
		return nil, false
	}
	return out, true
}

// The synthesis cache, by the same rule: what Yosys writes for
// Synthesize's script depends only on Yosys (its version), the script and
// the files it reads (the unit's Verilog, the library, ABC's script and
// constraints). A synthesis that succeeded keeps its netlist and log
// under <root>/synth-run/<key>, the key a SHA-256 of the version and the
// script with each file replaced by the hash of its text.
const synthCacheSubdir = "synth-run"

// synthKey is the cache key of Synthesize's run on files (in dir), or ""
// when a file cannot be read.
func (f *Flow) synthKey(dir string, files []string, top, abcText, constrText string) string {
	text := func(s string) string { return "text:" + hashParts(s) }
	var reads []string
	for _, file := range files {
		sum, err := fileSum(filepath.Join(dir, file))
		if err != nil {
			return ""
		}
		reads = append(reads, "file:"+sum)
	}
	lib, err := fileSum(f.Lib.Path)
	if err != nil {
		return ""
	}
	constr := ""
	if constrText != "" {
		constr = text(constrText)
	}
	return hashParts("lsugen synth-run 1", f.Yosys.Version, synthScript(reads, top, "file:"+lib, text(abcText), constr, "netlist.v"))
}

// synthCachePath is where the synthesis with key is kept; "" for no cache.
func synthCachePath(key string) string {
	root := toolchain.CacheRoot()
	if key == "" || root == "" {
		return ""
	}
	return filepath.Join(root, synthCacheSubdir, key)
}

// storeSynth keeps the netlist and the log, a checksummed entry (as
// storeSTA): the netlist's length, a line, then the two texts.
func storeSynth(path, netlist, log string) {
	if path == "" {
		return
	}
	n, err1 := os.ReadFile(netlist)
	l, err2 := os.ReadFile(log)
	if err1 == nil && err2 == nil {
		storeSTA(path, append(append([]byte(fmt.Sprintf("%d\n", len(n))), n...), l...))
	}
}

// loadSynth writes the netlist and the log kept under path, if it is
// there whole, and says whether it did.
func loadSynth(path, netlist, log string) bool {
	b, ok := loadSTA(path)
	if !ok {
		return false
	}
	head, rest, ok := bytes.Cut(b, []byte("\n"))
	var n int
	if _, err := fmt.Sscanf(string(head), "%d", &n); !ok || err != nil || n < 0 || n > len(rest) {
		return false
	}
	return os.WriteFile(netlist, rest[:n], 0o644) == nil && os.WriteFile(log, rest[n:], 0o644) == nil
}
