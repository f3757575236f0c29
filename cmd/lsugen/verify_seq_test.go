package main

import (
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
	words := strings.Join(strings.Fields(stdout), " ")
	for _, want := range []string{
		"ep stream: 3000 cycles (reset every 1500); ",
		"ep netlist ok 3000 cycles,",
		"ep icarus ok 3000 cycles,",
		"h netlist ok 1024 vectors, exhaustive",
		"verified 2 units: model = netlist = icarus",
	} {
		if !strings.Contains(words, want) {
			t.Errorf("stdout has no %q:\n%s", want, stdout)
		}
	}
	if code, _, stderr := lsugen(t, "verify", "--cycles", "0", spec); code != 2 || !strings.Contains(stderr, "--cycles") {
		t.Errorf("--cycles 0: exit %d, %s", code, stderr)
	}
}
