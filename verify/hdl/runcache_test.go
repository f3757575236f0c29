package hdl

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/lsugen/lsugen/toolchain"
)

// built reports whether a bench's directory holds engine e's build.
func built(b *Bench, e Engine) bool {
	product := map[Engine]string{Icarus: "sim_icarus.vvp", Verilator: "obj_verilator"}[e]
	_, err := os.Stat(filepath.Join(b.Dir, product))
	return err == nil
}

// TestBench_RunCache: a run identical to an earlier one (same simulator,
// testbench, sources, vectors) in another directory is answered from the
// run cache, neither built nor run, with the same outputs; other vectors,
// another source text or Rerun build and run; so do a run with no cache
// and one whose entry was damaged.
func TestBench_RunCache(t *testing.T) {
	requireEngine(t, Icarus)
	t.Setenv(toolchain.CacheDirEnv, t.TempDir())
	ctx := context.Background()
	vs := add3Vectors(300, 21)
	bench := func() *Bench {
		b := newAdd3Bench(t)
		b.Rerun = false
		return b
	}
	first := bench()
	want, err := first.Run(ctx, Icarus, vs)
	if err != nil {
		t.Fatal(err)
	}
	checkAdd3(t, want, vs)
	if !built(first, Icarus) {
		t.Fatal("the first run built nothing")
	}

	second := bench()
	got, err := second.Run(ctx, Icarus, vs)
	if err != nil {
		t.Fatal(err)
	}
	if built(second, Icarus) {
		t.Error("an identical run was built again, not taken from the run cache")
	}
	if !reflect.DeepEqual(got, want) {
		t.Error("the cached run gives other outputs")
	}

	// A damaged entry (its outputs cut short) is a miss: built, run and
	// right, and stored again.
	entries, _ := filepath.Glob(filepath.Join(os.Getenv(toolchain.CacheDirEnv), "sim-run", "*", "outputs"))
	if len(entries) != 1 {
		t.Fatalf("%d entries in the run cache, want 1", len(entries))
	}
	if err := os.Truncate(entries[0], 10); err != nil {
		t.Fatal(err)
	}
	damaged := bench()
	outs, err := damaged.Run(ctx, Icarus, vs)
	if err != nil {
		t.Fatal(err)
	}
	checkAdd3(t, outs, vs)
	if !built(damaged, Icarus) {
		t.Error("a damaged entry was used")
	}
	if again := bench(); func() bool { _, err := again.Run(ctx, Icarus, vs); return err != nil || built(again, Icarus) }() {
		t.Error("the damaged entry was not stored again")
	}

	other := add3Vectors(300, 22)
	outs, err = second.Run(ctx, Icarus, other)
	if err != nil {
		t.Fatal(err)
	}
	checkAdd3(t, outs, other)
	if !built(second, Icarus) {
		t.Error("other vectors were answered from the cache")
	}

	changed := bench()
	text, err := os.ReadFile(changed.Sources[1])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(changed.Sources[1], append(text, "// changed\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := changed.Run(ctx, Icarus, vs); err != nil {
		t.Fatal(err)
	}
	if !built(changed, Icarus) {
		t.Error("a changed source was answered from the cache")
	}

	rerun := bench()
	rerun.Rerun = true
	if _, err := rerun.Run(ctx, Icarus, vs); err != nil {
		t.Fatal(err)
	}
	if !built(rerun, Icarus) {
		t.Error("Rerun was answered from the cache")
	}

	t.Setenv(toolchain.CacheDirEnv, "off")
	off := bench()
	if _, err := off.Run(ctx, Icarus, vs); err != nil {
		t.Fatal(err)
	}
	if !built(off, Icarus) {
		t.Errorf("with %s=off a run was answered from a cache", toolchain.CacheDirEnv)
	}
}

// TestBench_RunCacheVerilator: the same for Verilator, whose simulator
// comes from the build cache (the user's, as in the other tests): a second
// identical run verilates nothing and gives the same, right outputs.
func TestBench_RunCacheVerilator(t *testing.T) {
	requireEngine(t, Verilator)
	ctx := context.Background()
	vs := add3Vectors(300, 23)
	var outs [2][][][][]uint64
	for i := range outs {
		b := newAdd3Bench(t)
		b.Rerun = false
		var err error
		if outs[i], err = b.Run(ctx, Verilator, vs); err != nil {
			t.Fatal(err)
		}
		checkAdd3(t, outs[i], vs)
		if i == 1 && built(b, Verilator) {
			t.Error("an identical Verilator run was built again, not taken from the run cache")
		}
	}
}
