package hdl

import (
	"strings"
	"testing"
)

// TestStandalone_WarningsAtTestbench: only the compilers' warnings located
// in the testbench count (they come from the module under test's ports),
// with their continuation lines; warnings about the sources do not. The
// outputs are Icarus 11's and Verilator 5.006's.
func TestStandalone_WarningsAtTestbench(t *testing.T) {
	const tb = "/w/h_tb.v"
	for _, c := range []struct {
		name, out string
		want      []string
	}{
		{"icarus width", "/w/h_tb.v:51: warning: Port 1 (addr_i) of h expects 13 bits, got 14.\n/w/h_tb.v:51:        : Pruning 1 high bits of the expression.\n",
			[]string{"/w/h_tb.v:51: warning: Port 1 (addr_i) of h expects 13 bits, got 14.", "/w/h_tb.v:51:        : Pruning 1 high bits of the expression."}},
		{"icarus dangling", "/w/h_tb.v:51: warning: Instantiating module h with dangling input port 2 (en_i) floating.\n",
			[]string{"/w/h_tb.v:51: warning: Instantiating module h with dangling input port 2 (en_i) floating."}},
		{"icarus timescale of a source", "/src/other.v:2: warning: timescale for my_hash inherited from another file.\n/w/h_tb.v:1: ...: The inherited timescale is here.\n", nil},
		{"verilator width", "%Warning-WIDTH: /w/h_tb.v:52:10: Input port connection 'addr_i' expects 13 bits\n                : ... In instance h_tb\n%Warning-DECLFILENAME: /src/x.v:1:8: Filename 'x' does not match MODULE name: 'h'\n  1 | module h\n",
			[]string{"%Warning-WIDTH: /w/h_tb.v:52:10: Input port connection 'addr_i' expects 13 bits", "                : ... In instance h_tb"}},
		{"verilator source only", "%Warning-UNUSEDSIGNAL: /src/x.v:3:9: Signal is not used: 'q'\n", nil},
	} {
		got := warningsAt([]byte(c.out), tb)
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
