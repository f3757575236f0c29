package verify_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/verify"
)

// Issue 18: a module under test runs inside the simulation, so whatever
// it prints or does ($display("PASS ..."), $finish) must not be the
// verdict of `verify --rtl`. The harness compares a nonce-framed dump of
// the module's outputs with expected outputs that the simulation never
// sees.
//
// A module that copies the expected outputs into its own cannot be
// written: during the simulation no file in the work directory (nor any
// plusarg) holds them — only the inputs and the harness's testbench are
// there — so the only way to produce them is to compute them from the
// inputs, which is what a correct module does.

// forgedHash is the finding's module: constant 0, "PASS 16384 vectors",
// $finish at time 0.
const forgedHash = "module atomic_xor (input wire [13:0] addr_i, output wire [4:0] bank_o);\n" +
	"    assign bank_o = 5'd0;\n" +
	"    initial begin\n" +
	"        $display(\"PASS 16384 vectors\");\n" +
	"        $finish;\n" +
	"    end\n" +
	"endmodule\n"

// earlyHash is the right function, but it ends the simulation after 100
// of the 16384 vectors, printing PASS.
const earlyHash = "module atomic_xor (input wire [13:0] addr_i, output wire [4:0] bank_o);\n" +
	"    assign bank_o = addr_i[4:0] ^ addr_i[9:5];\n" +
	"    initial begin\n" +
	"        #100;\n" +
	"        $display(\"PASS 16384 vectors\");\n" +
	"        $finish;\n" +
	"    end\n" +
	"endmodule\n"

func forgeCheck(t *testing.T, text string) (verify.RTLCheck, *verify.GoldenSet) {
	t.Helper()
	u := exampleUnitNamed(t, "atomic_xor")
	g, err := golden(t, u)
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "atomic_xor.v")
	if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return verify.RTLCheck{Golden: g, Info: tbInfo, Sources: []string{src}, Dir: t.TempDir()}, g
}

// TestRTLCheck_ForgedPassFails: the module that prints "PASS 16384
// vectors" and calls $finish is an error under both simulators, not a
// pass.
func TestRTLCheck_ForgedPassFails(t *testing.T) {
	for _, e := range []verify.Engine{verify.Icarus, verify.Verilator} {
		check, _ := forgeCheck(t, forgedHash)
		res, err := check.Run(context.Background(), []verify.Engine{e})
		if err == nil || !strings.Contains(err.Error(), "did not finish") || !strings.Contains(err.Error(), "output dump") {
			t.Errorf("%s: results %+v, error %v: want the incomplete output dump", e, res, err)
		}
		if testing.Verbose() {
			t.Logf("%s: %v", e, err)
		}
		for _, r := range res {
			if r.Passed {
				t.Errorf("%s: the forged module passed", e)
			}
		}
	}
}

// TestRTLCheck_EarlyFinishFails: a right module that $finish-es before
// the last vector is an error naming how many vectors the dump holds.
func TestRTLCheck_EarlyFinishFails(t *testing.T) {
	check, _ := forgeCheck(t, earlyHash)
	_, err := check.Run(context.Background(), []verify.Engine{verify.Icarus})
	if err == nil || !strings.Contains(err.Error(), "of the 16384 vectors") || !strings.Contains(err.Error(), "ended early") {
		t.Errorf("error %v: want the dump that ends early", err)
	}
}

// TestRTLCheck_HarnessPassesGeneratedRTL: the generated RTL passes every
// vector; the work directory holds the inputs, the dump and the harness's
// testbench, and no file with the expected outputs.
func TestRTLCheck_HarnessPassesGeneratedRTL(t *testing.T) {
	u := exampleUnitNamed(t, "atomic_xor")
	src := t.TempDir()
	g := writeTB(t, src, u)
	dir := t.TempDir()
	check := verify.RTLCheck{Golden: g, Info: tbInfo, Sources: []string{filepath.Join(src, "atomic_xor.v")}, Dir: dir}
	res, err := check.Run(context.Background(), []verify.Engine{verify.Icarus})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || !res[0].Passed || res[0].Count != g.Len() {
		t.Errorf("results %+v, want one pass of %d", res, g.Len())
	}
	vec := g.VectorFile(tbInfo)
	expected := string(vec[strings.LastIndex(string(vec), "\n# ")+1:]) // the vector lines' text
	expected = expected[strings.IndexByte(expected, '\n')+1:]
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return nil
		}
		if strings.HasSuffix(p, ".vec") {
			t.Errorf("%s: a golden vector file in the work directory", p)
		}
		if text, _ := os.ReadFile(p); len(expected) > 0 && strings.Contains(string(text), expected[:200]) {
			t.Errorf("%s holds the golden vectors", p)
		}
		return nil
	})
}

// TestRTLCheck_HarnessFailureLine: a wrong module fails at the first
// wrong vector, with the failure line of the standalone testbench.
func TestRTLCheck_HarnessFailureLine(t *testing.T) {
	check, _ := forgeCheck(t, ""+
		"module atomic_xor (input wire [13:0] addr_i, output wire [4:0] bank_o);\n"+
		"    assign bank_o = addr_i[4:0] | addr_i[9:5];\nendmodule\n")
	res, err := check.Run(context.Background(), []verify.Engine{verify.Icarus})
	if err != nil {
		t.Fatal(err)
	}
	want := "vector 33 (atomic_xor.vec line 46): "
	if len(res) != 1 || res[0].Passed || !strings.HasPrefix(res[0].Failure, want) ||
		!strings.HasSuffix(res[0].Failure, "bank_o expected 5'h00, got 5'h01; inputs addr_i=14'h0021") {
		t.Errorf("results %+v, want a failure at vector 33", res)
	}
}
