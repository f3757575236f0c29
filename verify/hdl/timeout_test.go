package hdl

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Issue 18: `verify --rtl` had no simulation time limit, so a module
// whose simulation never advances time (a zero-delay loop) hung lsugen.
// Every simulation run of this package is now limited (SimTimeout).

// TestStandalone_ZeroDelayLoopTimesOut: a zero-delay loop, which can never
// finish, is stopped at the context's limit under each engine, with a
// SimTimeoutError naming the unit, the engine and the limit. The limit
// covers the simulation only, not the build, and the test asserts that the
// run was stopped, never how fast.
func TestStandalone_ZeroDelayLoopTimesOut(t *testing.T) {
	for _, e := range []Engine{Icarus, Verilator} {
		t.Run(string(e), func(t *testing.T) {
			requireEngine(t, e)
			dir := t.TempDir()
			tb := filepath.Join(dir, "tb.v")
			// The loop never returns control to the scheduler: simulation
			// time stays 0 under both simulators.
			// (n is a plusarg's, so that Verilator cannot see the loop is
			// infinite and refuse it.)
			src := "module tb;\n    reg a = 1'b0;\n    integer n;\n" +
				"    initial begin\n        if (!$value$plusargs(\"n=%d\", n)) n = 1;\n" +
				"        while (n != 0) a = ~a;\n    end\nendmodule\n"
			if err := os.WriteFile(tb, []byte(src), 0o666); err != nil {
				t.Fatal(err)
			}
			const limit = 500 * time.Millisecond
			ctx := WithSimTimeout(context.Background(), limit)
			sa := Standalone{Dir: filepath.Join(dir, "work"), Testbench: tb, Top: "tb", Unit: "spin"}
			run, err := sa.Run(ctx, e)
			var te *SimTimeoutError
			if !errors.As(err, &te) {
				t.Fatalf("Run = %+v, %v; want a SimTimeoutError", run, err)
			}
			if te.Limit != limit || te.Engine != e || te.Unit != "spin" {
				t.Errorf("SimTimeoutError %+v", te)
			}
			want := "simulation of spin under " + string(e) + " exceeded its time limit 500ms (--sim-timeout)"
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		})
	}
}

// TestSimTimeout_Default: without WithSimTimeout (or with a non-positive
// limit) a run gets DefaultSimTimeout.
func TestSimTimeout_Default(t *testing.T) {
	ctx := context.Background()
	if d := SimTimeout(ctx); d != DefaultSimTimeout {
		t.Errorf("SimTimeout = %v, want %v", d, DefaultSimTimeout)
	}
	if d := SimTimeout(WithSimTimeout(ctx, 0)); d != DefaultSimTimeout {
		t.Errorf("SimTimeout(0) = %v, want %v", d, DefaultSimTimeout)
	}
	if d := SimTimeout(WithSimTimeout(ctx, time.Second)); d != time.Second {
		t.Errorf("SimTimeout(1s) = %v", d)
	}
}
