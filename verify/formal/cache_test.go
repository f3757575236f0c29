package formal

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// cacheEntries lists the proof cache's entries under root.
func cacheEntries(t *testing.T, root string) []string {
	t.Helper()
	es, err := filepath.Glob(filepath.Join(root, cacheSubdir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// TestProofCache_HitRunsNoTool: a second proof of an unchanged unit is
// taken from the cache (Cached, the same method and miter size) and runs
// neither Yosys nor ABC; with NoCache it is proved again.
func TestProofCache_HitRunsNoTool(t *testing.T) {
	requireYosys(t)
	d := design(t, "ep_elastic_m4")
	dir, cache := t.TempDir(), t.TempDir()
	u := writeUnit(t, dir, d, d)
	opt := Options{Dir: dir, CacheDir: cache}
	first, err := Prove(context.Background(), u, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Equivalent || first.Cached {
		t.Fatalf("first proof: equivalent %v, cached %v", first.Equivalent, first.Cached)
	}
	if n := len(cacheEntries(t, cache)); n != 1 {
		t.Fatalf("%d cache entries after one proof, want 1", n)
	}
	runs := toolRuns.Load()
	second, err := Prove(context.Background(), u, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !second.Cached || !second.Equivalent || second.Method != first.Method || second.Inputs != first.Inputs || second.AndGates != first.AndGates {
		t.Fatalf("second proof %+v, want the first's %+v from the cache", second, first)
	}
	if n := toolRuns.Load() - runs; n != 0 {
		t.Fatalf("a cached proof ran %d tools", n)
	}
	opt.NoCache = true
	third, err := Prove(context.Background(), u, opt)
	if err != nil {
		t.Fatal(err)
	}
	if third.Cached || !third.Equivalent || toolRuns.Load() == runs {
		t.Fatalf("with NoCache: cached %v, equivalent %v, tools run %d", third.Cached, third.Equivalent, toolRuns.Load()-runs)
	}
}

// TestProofCache_ChangedCellMissesAndFails: after the good netlist's proof
// is cached, a gate-level file with one cell swapped is proved afresh
// (tools run) and fails; nothing is stored for it.
func TestProofCache_ChangedCellMissesAndFails(t *testing.T) {
	requireYosys(t)
	d := design(t, "atomic_add_cla")
	cache := t.TempDir()
	good := t.TempDir()
	if res, err := Prove(context.Background(), writeUnit(t, good, d, d), Options{Dir: good, CacheDir: cache}); err != nil || !res.Equivalent {
		t.Fatalf("good netlist: %v %+v", err, res)
	}
	bad := breakDriver(t, d, d.Port("bank_o").Bits[2])
	dir := t.TempDir()
	runs := toolRuns.Load()
	res, err := Prove(context.Background(), writeUnit(t, dir, d, bad), Options{Dir: dir, CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	if res.Cached || res.Equivalent || res.Cex == nil || toolRuns.Load() == runs {
		t.Fatalf("broken netlist: cached %v, equivalent %v, tools run %d", res.Cached, res.Equivalent, toolRuns.Load()-runs)
	}
	if n := len(cacheEntries(t, cache)); n != 1 {
		t.Fatalf("%d cache entries, want only the good netlist's", n)
	}
}

// TestProofCache_CorruptEntryIsAMiss: a cache entry that is truncated,
// not JSON, or stored under another key (a forged pass) is a miss: the
// proof runs again, and its result replaces the entry.
func TestProofCache_CorruptEntryIsAMiss(t *testing.T) {
	requireYosys(t)
	d := design(t, "atomic_add_cla")
	dir, cache := t.TempDir(), t.TempDir()
	u := writeUnit(t, dir, d, d)
	opt := Options{Dir: dir, CacheDir: cache}
	if _, err := Prove(context.Background(), u, opt); err != nil {
		t.Fatal(err)
	}
	es := cacheEntries(t, cache)
	if len(es) != 1 {
		t.Fatalf("%d cache entries, want 1", len(es))
	}
	good, err := os.ReadFile(es[0])
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string][]byte{
		"truncated":    good[:len(good)/2],
		"not JSON":     []byte("equivalent\n"),
		"another key":  []byte(`{"prover":"` + proverVersion + `","key":"00","unit":"atomic_add_cla","method":"miter","equivalent":true,"inputs":1}`),
		"not a proof":  []byte(`{"prover":"` + proverVersion + `","key":"` + filepath.Base(es[0][:len(es[0])-5]) + `","unit":"atomic_add_cla","method":"miter","equivalent":false,"inputs":1}`),
		"older prover": []byte(`{"prover":"lsugen-formal 0","key":"` + filepath.Base(es[0][:len(es[0])-5]) + `","unit":"atomic_add_cla","method":"miter","equivalent":true,"inputs":1}`),
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(es[0], text, 0o644); err != nil {
				t.Fatal(err)
			}
			runs := toolRuns.Load()
			res, err := Prove(context.Background(), u, opt)
			if err != nil {
				t.Fatal(err)
			}
			if res.Cached || !res.Equivalent || toolRuns.Load() == runs {
				t.Fatalf("cached %v, equivalent %v, tools run %d", res.Cached, res.Equivalent, toolRuns.Load()-runs)
			}
			if b, err := os.ReadFile(es[0]); err != nil || string(b) != string(good) {
				t.Fatalf("the entry was not replaced by the proof's: %q (%v)", b, err)
			}
		})
	}
}

// TestProofCache_Pipeline: a second pipeline proof of the same two files
// is taken from the cache and runs no tool; another latency misses it and
// fails (the files are the same, the claim is not).
func TestProofCache_Pipeline(t *testing.T) {
	requireYosys(t)
	comb := monoDetector(t)
	r := pipelined(t, comb, 12)
	dir, cache := t.TempDir(), t.TempDir()
	c := writeGatesFile(t, dir, "comb", comb)
	p := writeGatesFile(t, dir, "piped", r.Design)
	opt := Options{Dir: filepath.Join(dir, "work"), CacheDir: cache}
	first, err := ProvePipelined(context.Background(), c, p, r.Latency, opt)
	if err != nil || !first.Equivalent || first.Cached {
		t.Fatalf("first proof: %v %+v", err, first)
	}
	runs := toolRuns.Load()
	second, err := ProvePipelined(context.Background(), c, p, r.Latency, opt)
	if err != nil || !second.Cached || !second.Equivalent || second.Method != first.Method || toolRuns.Load() != runs {
		t.Fatalf("second proof: %v %+v, tools run %d", err, second, toolRuns.Load()-runs)
	}
	other, err := ProvePipelined(context.Background(), c, p, r.Latency+1, opt)
	if err != nil || other.Cached || other.Equivalent {
		t.Fatalf("latency %d: %v %+v", r.Latency+1, err, other)
	}
}
