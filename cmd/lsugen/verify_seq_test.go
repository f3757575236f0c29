package main

import (
	"regexp"
	"strings"
	"testing"
)

// verifySeqSpec is a small sequential unit next to a combinational one.
const verifySeqSpec = `
elastic_pipeline "ep" {
  mem_stages  = 2
  warp_size   = 16
  simd_width  = 8
  shmem_ports = 2
  tag_bits    = 4
}

hash "h" {
  function  = "fixed_xor"
  addr_bits = 10
  bank_bits = 5
}
`

// TestVerify_Sequential: a clocked unit runs --cycles cycles in lockstep
// with its sequential model, a combinational one its vectors as before.
func TestVerify_Sequential(t *testing.T) {
	spec := writeSpec(t, t.TempDir(), "p.hcl", verifySeqSpec)
	code, stdout, stderr := lsugen(t, "verify", "--sim", "netlist,icarus", "--cycles", "3000", spec)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		`(?m)^ep +stream: 3000 cycles \(reset every 1500\); `,
		`(?m)^ep +netlist +PASS +\S+  3000 cycles, lockstep with the sequential model$`,
		`(?m)^ep +icarus +PASS +\S+  3000 cycles, lockstep with the sequential model( \(outputs from the run cache\))?$`,
		`(?m)^h +netlist +PASS +\S+  1024 vectors, exhaustive$`,
		`(?m)^verified 2 units: model = netlist = icarus$`,
	} {
		if !regexp.MustCompile(want).MatchString(stdout) {
			t.Errorf("stdout does not match %s:\n%s", want, stdout)
		}
	}
	if code, _, stderr := lsugen(t, "verify", "--cycles", "0", spec); code != 2 || !strings.Contains(stderr, "--cycles") {
		t.Errorf("--cycles 0: exit %d, %s", code, stderr)
	}
}
