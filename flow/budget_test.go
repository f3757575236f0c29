package flow

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/units"
)

// largestReadyMask is the largest warp_ready_mask the loader accepts
// (every size at its limit).
func largestReadyMask(name string) string {
	return fmt.Sprintf(`warp_ready_mask %q {
  warp_contexts = %d
  history_sets  = %d
  history_ways  = %d
  pc_bits       = %d
  warp_size     = %d
  simd_width    = 64
}
`, name, specs.MaxWarpContexts, specs.MaxHistorySets, specs.MaxHistoryWays, specs.MaxPCBits, specs.MaxPipeWarpSize)
}

// TestBudget_DefaultFits: the default budget holds every example spec and
// one largest accepted unit of every family, and not two of the largest
// warp_ready_mask (estimates only; nothing is generated).
func TestBudget_DefaultFits(t *testing.T) {
	b := DefaultOptions(true)
	paths, _ := filepath.Glob("../specs/*.hcl")
	if len(paths) == 0 {
		t.Fatal("no example specs")
	}
	for _, p := range paths {
		file, diags := specs.NewLoader().Load(p)
		if diags.HasErrors() {
			t.Fatalf("%s: %v", p, diags)
		}
		if err := b.Check(file.Units); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	largest := map[string]string{
		"warp_ready_mask": largestReadyMask("w"),
		"coalescer": `coalescer "c" {
  structure   = "speculative"
  lanes       = 128
  addr_bits   = 64
  adder       = "prefix"
  active_mask = true
  requests    = true
}`,
		"monotonicity_detector": `monotonicity_detector "m" {
  lanes       = 128
  addr_bits   = 64
  adder       = "prefix"
  active_mask = true
}`,
		"bank_arbiter": `bank_arbiter "a" {
  lanes     = 64
  addr_bits = 64
  hash      = hash.h
  lock_hash = hash.l
}
hash "h" {
  function  = "mod"
  addr_bits = 64
  banks     = 1021
}
hash "l" {
  function     = "bitwise_xor"
  addr_bits    = 64
  bank_bits    = 16
  configurable = true
}`,
		"elastic_pipeline": `elastic_pipeline "p" {
  mem_stages  = 16
  warp_size   = 1024
  simd_width  = 64
  shmem_ports = 1
  tag_bits    = 64
  variant     = "elastic"
}`,
		"shared_memory": `shared_memory "s" {
  lanes      = 64
  bytes      = 1048576
  bank_bytes = 8
  banks      = 64
}`,
		"hash": `hash "r" {
  function     = "rap"
  w            = 1024
  configurable = true
  config       = "register"
}`,
	}
	for _, kind := range units.Kinds() {
		src, ok := largest[kind]
		if !ok {
			t.Errorf("no largest unit for family %s", kind)
			continue
		}
		file, diags := specs.NewLoader().Parse([]byte(src), kind+".hcl")
		if diags.HasErrors() {
			t.Fatalf("%s: %v", kind, diags)
		}
		if err := b.Check(file.Units); err != nil {
			t.Errorf("the largest %s: %v", kind, err)
		}
	}
	file, diags := specs.NewLoader().Parse([]byte(largestReadyMask("a")+largestReadyMask("b")), "two.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if err := b.Check(file.Units); err == nil {
		t.Error("two of the largest warp_ready_mask units fit the default budget; want them refused")
	}
}
