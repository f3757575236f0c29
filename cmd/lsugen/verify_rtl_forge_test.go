package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lsugen/lsugen/internal/testenv"
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

// Issue 30: a module that holds only a table of the fixed golden vectors'
// answers (taken from the .vec file `gen --tb` writes) passed `verify
// --rtl`. The check now adds as many vectors drawn for the run, which no
// table written before the run can hold; the same table as a testbench's
// golden file still matches (gen --tb is unchanged).
func TestVerifyRTL_MemorisedTableFails(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir, "a.hcl", tableSpec)
	out := filepath.Join(dir, "out")
	if code, _, stderr := lsugen(t, "gen", "--tb", "-o", out, spec); code != 0 {
		t.Fatalf("gen --tb: exit %d:\n%s", code, stderr)
	}
	vec, err := os.ReadFile(filepath.Join(out, "h.vec"))
	if err != nil {
		t.Fatal(err)
	}
	src, n := memorisedTable(vec)
	if n < 256 {
		t.Fatalf("%d golden vectors in h.vec, want at least 256", n)
	}
	table := writeSpec(t, dir, "table.v", src)
	code, stdout, stderr := lsugen(t, "verify", "--rtl", table, "--sim", "icarus", spec)
	if code != 1 || !strings.Contains(stdout, "FAIL") {
		t.Errorf("a table of %d golden answers: exit %d, want 1 (FAIL):\n%s%s", n, code, stdout, stderr)
	}
}

// tableSpec is a hash unit whose golden vectors are not exhaustive.
const tableSpec = "hash \"h\" {\n  function  = \"fixed_xor\"\n  addr_bits = 32\n  bank_bits = 5\n}\n"

// memorisedTable is module h answering the n golden vectors of vec (a
// .vec file of tableSpec's unit) from a table, and 0 to any other input.
func memorisedTable(vec []byte) (src string, n int) {
	var b strings.Builder
	b.WriteString("module h (input wire [31:0] addr_i, output reg [4:0] bank_o);\n  always @* case (addr_i)\n")
	seen := map[string]bool{}
	for _, line := range strings.Split(string(vec), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 || strings.HasPrefix(line, "#") || seen[f[0]] {
			continue
		}
		seen[f[0]] = true
		n++
		fmt.Fprintf(&b, "    32'h%s: bank_o = 5'h%s;\n", f[0], f[1])
	}
	b.WriteString("    default: bank_o = 5'h0;\n  endcase\nendmodule\n")
	return b.String(), n
}

// Issue 30: processes a checked module starts with $system under
// Verilator (Icarus 11 has no $system), in the background (&) or in a
// session of their own (setsid), outlived lsugen. The simulator's run now
// ends them: the group's kill takes the first, lsugen as their subreaper
// the second (toolchain).
func TestVerifyRTL_SystemChildrenDoNotOutliveTheRun(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc; a child subreaper is Linux's")
	}
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	dir := t.TempDir()
	spec := writeSpec(t, dir, "a.hcl", goodSpec)
	for _, e := range []string{"verilator"} {
		for form, start := range map[string]string{"background": "sleep 600", "setsid": "setsid sleep 600"} {
			pidFile := filepath.Join(dir, e+"_"+form+".pid")
			v := writeSpec(t, dir, e+"_"+form+".v", "module h (input wire [9:0] addr_i, output wire [4:0] bank_o);\n"+
				"    assign bank_o = addr_i[4:0] ^ addr_i[9:5];\n"+
				fmt.Sprintf("    initial begin\n        if ($system(\"%s >/dev/null 2>&1 & echo $! > %s\") != 0) $display(\"no system\");\n    end\nendmodule\n", start, pidFile))
			if code, stdout, stderr := lsugen(t, "verify", "--sim", e, "--rtl", v, spec); code != 0 {
				t.Fatalf("%s %s: exit %d:\n%s%s", e, form, code, stdout, stderr)
			}
			b, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatalf("%s %s: the module's $system did not run: %v", e, form, err)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(testenv.Limit(10 * time.Second)); ; time.Sleep(50 * time.Millisecond) {
				stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
				if err != nil || bytes.Contains(stat, []byte(") Z ")) {
					break
				}
				if time.Now().After(deadline) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Fatalf("%s %s: the module's child %d outlived lsugen: %s", e, form, pid, stat)
				}
			}
		}
	}
}
