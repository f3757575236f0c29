package sta

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/rtl"
)

// TestCrosscheck_MemoryUnitRefused: the flow refuses a design with memory
// macros with an error that says why (Flow.Run, Flow.RunMapped), and
// Crosscheck reports such a unit as skipped with that reason, running no
// tool on it.
func TestCrosscheck_MemoryUnitRefused(t *testing.T) {
	lib := needFlow(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	u := unitsFrom(t, "hash_atomics.hcl", "atomic_xor")["atomic_xor"]
	d := *u.design
	d.Name = "atomic_xor_mem"
	d.Memories = []netlist.Memory{{Name: "bank0", Module: "tbank", Words: 8, Width: 4}, {Name: "bank1", Module: "tbank", Words: 8, Width: 4}}
	if MemoryReason(u.design) != "" {
		t.Fatal("a design without memories has a reason to be refused")
	}
	work := t.TempDir()
	f, err := New(Config{Liberty: lib, WorkDir: work})
	if err != nil {
		t.Fatal(err)
	}
	want := "2 memory macros (module tbank, 64 bits): the flow has no liberty model of the bank"
	if _, err := f.Run(ctx, &d, rtl.Info{Version: "test", Source: "test"}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Run: err %v, want %q", err, want)
	}
	if _, err := f.RunMapped(ctx, &d, nil); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("RunMapped: err %v, want %q", err, want)
	}
	rep, err := Crosscheck(ctx, []CrosscheckUnit{{Design: &d, Kind: "hash"}}, CrosscheckOptions{Config: Config{Liberty: lib, WorkDir: t.TempDir()}}, func(d UnitDone) {
		t.Errorf("progress heard %s, which was not to run", d.Name)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Units) != 0 || len(rep.Skipped) != 1 || rep.Skipped[0].Name != d.Name || !strings.Contains(rep.Skipped[0].Reason, want) {
		t.Errorf("units %+v, skipped %+v; want %s skipped: %s", rep.Units, rep.Skipped, d.Name, want)
	}
}
