package main

import (
	"strings"
	"testing"
)

// Issue 18: `verify --rtl` had no simulation time limit: a module with a
// zero-delay loop spun forever. Every simulation run now has a wall-clock
// limit, --sim-timeout.

// loopModule is h (goodSpec's ports) with a zero-delay loop: the
// nonblocking toggle of a re-triggers its own always block at time 0, so
// simulation time never advances.
const loopModule = "module h (input wire [9:0] addr_i, output wire [4:0] bank_o);\n" +
	"    reg a = 1'b0;\n" +
	"    always @(a) a <= ~a;\n" +
	"    assign bank_o = (addr_i[4:0] ^ addr_i[9:5]) | {4'd0, a};\n" +
	"endmodule\n"

// TestVerifyRTL_ZeroDelayLoopTimesOut: under Icarus the loop is killed at
// --sim-timeout and the check fails (exit 1) with an error that names the
// unit, the engine and the limit; under Verilator the check fails too
// (killed at the limit, or refused by the model at run time), and
// neither hangs.
func TestVerifyRTL_ZeroDelayLoopTimesOut(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "a.hcl", goodSpec)
	loop := writeSpec(t, dir, "loop.v", loopModule)

	code, stdout, stderr := lsugen(t, "verify", "--sim", "icarus", "--sim-timeout", "1s", "--rtl", loop, spec)
	if code != 1 || !strings.Contains(stderr, "simulation of h (module h) under icarus exceeded its time limit 1s (--sim-timeout)") {
		t.Errorf("icarus: exit %d, want 1 and the time limit:\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = lsugen(t, "verify", "--sim", "verilator", "--sim-timeout", "1s", "--rtl", loop, spec)
	if code != 1 || strings.Contains(stdout, "matches the") ||
		!strings.Contains(stderr, "did not converge") && !strings.Contains(stderr, "exceeded its time limit 1s") {
		t.Errorf("verilator: exit %d, want 1, the model's refusal or the time limit:\n%s%s", code, stdout, stderr)
	}
}

// TestVerify_SimTimeoutFlag: --sim-timeout takes a positive duration, in
// simulation and --rtl modes only.
func TestVerify_SimTimeoutFlag(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "a.hcl", goodSpec)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--sim-timeout", "0s"}, "--sim-timeout 0s: want a positive duration"},
		{[]string{"--sim-timeout", "-1m"}, "--sim-timeout -1m0s: want a positive duration"},
		{[]string{"--formal", "--sim-timeout", "1m"}, "--sim-timeout: not used by --formal"},
	} {
		code, stdout, stderr := lsugen(t, append(append([]string{"verify"}, tc.args...), spec)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, want 2 and %q:\n%s%s", tc.args, code, tc.want, stdout, stderr)
		}
	}
}
