package formal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/toolchain"
)

// proverVersion names the method of proof. Bump it whenever a change in
// this package could change a verdict (the scripts, the miter, the
// register correspondence, the ABC commands), so that no result of an
// older method is taken from the cache.
const proverVersion = "lsugen-formal 4"

// The proof cache keeps completed proofs of equivalence, one small JSON
// file per proof, under the cache root (toolchain.CacheRoot):
// <root>/formal-proof/<key>.json. The key hashes everything the verdict
// depends on: proverVersion, the Yosys and yosys-abc versions, the Yosys
// script and ABC commands (with the file names left out), the text of
// every Verilog file read (sub-units included) and what lsugen takes from
// the design (ports, clock, register correspondence). Only proofs of
// equivalence are stored: a counterexample is found again, and replayed,
// every time. An entry that cannot be read or does not match its key is a
// miss, never a pass.
const cacheSubdir = "formal-proof"

// cacheEntry is what the cache stores of a Result.
type cacheEntry struct {
	Prover     string `json:"prover"`
	Key        string `json:"key"`
	Unit       string `json:"unit"`
	Method     string `json:"method"`
	Equivalent bool   `json:"equivalent"`
	Inputs     int    `json:"inputs"`
	AndGates   int    `json:"and_gates"`
}

// proofCache is the cache directory of one proof; dir "" is no cache.
type proofCache struct{ dir string }

func openCache(opt Options) proofCache {
	if opt.NoCache {
		return proofCache{}
	}
	root := opt.CacheDir
	if root == "" {
		root = toolchain.CacheRoot()
	}
	if root == "" {
		return proofCache{}
	}
	return proofCache{dir: filepath.Join(root, cacheSubdir)}
}

// load returns the stored result of key, or nil.
func (c proofCache) load(key, unit string) *Result {
	if c.dir == "" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(c.dir, key+".json"))
	if err != nil {
		return nil
	}
	var e cacheEntry
	if json.Unmarshal(b, &e) != nil || e.Prover != proverVersion || e.Key != key || e.Unit != unit || !e.Equivalent || e.Method == "" || e.Inputs <= 0 {
		return nil
	}
	return &Result{Unit: e.Unit, Method: e.Method, Equivalent: true, Inputs: e.Inputs, AndGates: e.AndGates, Cached: true}
}

// store keeps a proof of equivalence under key: written to a temporary
// file and renamed, so that a reader sees a whole entry or none. A
// failure only costs a later proof, so it is ignored.
func (c proofCache) store(key string, r *Result) {
	if c.dir == "" || !r.Equivalent || r.Cex != nil {
		return
	}
	b, err := json.Marshal(cacheEntry{Prover: proverVersion, Key: key, Unit: r.Unit, Method: r.Method, Equivalent: true, Inputs: r.Inputs, AndGates: r.AndGates})
	if err != nil || os.MkdirAll(c.dir, 0o777) != nil {
		return
	}
	f, err := os.CreateTemp(c.dir, key+".*.tmp")
	if err != nil {
		return
	}
	_, werr := f.Write(append(b, '\n'))
	if cerr := f.Close(); werr != nil || cerr != nil || os.Rename(f.Name(), filepath.Join(c.dir, key+".json")) != nil {
		os.Remove(f.Name())
	}
}

// keyHash builds a cache key from length-prefixed parts.
type keyHash struct{ h io.Writer }

func newKey(kind string) (keyHash, func() string) {
	h := sha256.New()
	k := keyHash{h}
	k.add(proverVersion)
	k.add(kind)
	return k, func() string { return hex.EncodeToString(h.Sum(nil)) }
}

func (k keyHash) add(s string) { fmt.Fprintf(k.h, "%d:%s\n", len(s), s) }

// addFiles adds the text of each file, in order.
func (k keyHash) addFiles(paths []string) error {
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		k.add(string(b))
	}
	return nil
}

// addDesign adds what the proof takes from the design besides the files:
// its ports, clock, register correspondence and memories.
func (k keyHash) addDesign(d *netlist.Design, words []stateWord) {
	var b strings.Builder
	fmt.Fprintf(&b, "module %s clock %q\n", d.Name, d.Clock)
	for _, p := range d.Ports {
		fmt.Fprintf(&b, "port %s %d %d\n", p.Name, p.Dir, p.Width())
	}
	for _, w := range words {
		fmt.Fprintf(&b, "state %s %s\n", w.gold, strings.Join(w.gates, " "))
	}
	// The memories' ports (their bank file is among the files hashed);
	// none for a design without, whose key is then unchanged.
	for _, m := range d.Memories {
		ins, outs := bankPorts(m)
		fmt.Fprintf(&b, "memory %s %s", m.Name, m.Module)
		for _, p := range append(ins, outs...) {
			fmt.Fprintf(&b, " %s:%d", p.name, p.width)
		}
		b.WriteString("\n")
	}
	k.add(b.String())
}

// addTools adds the versions of Yosys and of its ABC (which ABC prints
// with its build date).
func (k keyHash) addTools(ctx context.Context, yosys, abc *toolchain.Tool) error {
	v, err := abcVersion(ctx, abc)
	if err != nil {
		return err
	}
	k.add(yosys.Name + " " + yosys.Version)
	k.add(v)
	return nil
}

var abcVersions sync.Map // path -> version line

// abcVersion is ABC's version line ("UC Berkeley, ABC 1.01 (compiled
// ...)"), asked once per process.
func abcVersion(ctx context.Context, abc *toolchain.Tool) (string, error) {
	if v, ok := abcVersions.Load(abc.Path); ok {
		return v.(string), nil
	}
	res, err := abc.Command("", "-c", "version").Run(ctx)
	if err != nil {
		return "", fmt.Errorf("yosys-abc version: %w", err)
	}
	v := ""
	for _, line := range strings.Split(strings.ReplaceAll(string(res.Output), "\r", ""), "\n") {
		if strings.Contains(line, "ABC") && !strings.Contains(line, "command line") {
			v = strings.TrimSpace(line)
		}
	}
	if v == "" {
		return "", fmt.Errorf("yosys-abc version: no version in its output:\n%s", tailLines(res.Output, 6))
	}
	abcVersions.Store(abc.Path, v)
	return v, nil
}

// toolRuns counts the Yosys and ABC runs of proofs (the version query
// aside): a proof taken from the cache runs none.
var toolRuns atomic.Int64
