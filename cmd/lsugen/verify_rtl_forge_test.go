package main

import (
	"strings"
	"testing"
)

// Issue 18: a module that outputs constant 0, prints "PASS <n> vectors"
// and calls $finish passed `verify --rtl` under both simulators. The
// verdict is now lsugen's: it compares a nonce-framed dump of the
// module's outputs with expected outputs the simulation never sees (no
// file or plusarg of the run holds them, so a module cannot copy them; it
// can only compute them, as a correct module does).

// TestVerifyRTL_ForgedPassFails: the forging module of the finding fails
// under Icarus and Verilator, exit 1, each saying the dump is incomplete;
// a right module that $finish-es early fails too; the right module
// passes.
func TestVerifyRTL_ForgedPassFails(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "a.hcl", goodSpec) // h: 10-bit addresses, 5 bank bits, 1024 vectors
	const ports = "module h (input wire [9:0] addr_i, output wire [4:0] bank_o);\n"
	forged := writeSpec(t, dir, "forged.v", ports+
		"    assign bank_o = 5'd0;\n"+
		"    initial begin\n        $display(\"PASS 1024 vectors\");\n        $finish;\n    end\nendmodule\n")
	early := writeSpec(t, dir, "early.v", ports+
		"    assign bank_o = addr_i[4:0] ^ addr_i[9:5];\n"+
		"    initial begin\n        #500;\n        $display(\"PASS 1024 vectors\");\n        $finish;\n    end\nendmodule\n")
	right := writeSpec(t, dir, "right.v", ports+"    assign bank_o = addr_i[4:0] ^ addr_i[9:5];\nendmodule\n")

	code, stdout, stderr := lsugen(t, "verify", "--rtl", forged, spec)
	if code != 1 || strings.Contains(stdout, "matches the") {
		t.Errorf("forged: exit %d, want 1:\n%s%s", code, stdout, stderr)
	}
	for _, e := range []string{"icarus", "verilator"} {
		if !strings.Contains(stderr, "module h ("+e+"): "+e+": the testbench did not finish: incomplete output dump") {
			t.Errorf("forged: no incomplete dump from %s:\n%s", e, stderr)
		}
	}

	code, stdout, stderr = lsugen(t, "verify", "--sim", "icarus", "--rtl", early, spec)
	if code != 1 || !strings.Contains(stderr, "of the 1024 vectors") || !strings.Contains(stderr, "ended early") {
		t.Errorf("early $finish: exit %d, want 1 and the dump that ends early:\n%s%s", code, stdout, stderr)
	}

	code, stdout, stderr = lsugen(t, "verify", "--sim", "icarus", "--rtl", right, spec)
	if code != 0 || !strings.Contains(stdout, "module h matches the 1024 golden vectors of h under icarus") {
		t.Errorf("right: exit %d:\n%s%s", code, stdout, stderr)
	}
}
