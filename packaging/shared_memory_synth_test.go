package packaging_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/lsugen/lsugen/flow"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/toolchain"
)

// TestSharedMemory_YosysInfersOneMemoryPerBank: Yosys, reading the bank
// module as the behavioural array lsugen writes (not as a black box),
// infers one memory per bank of a generated shared memory: the storage is
// an SRAM, not flip-flops (rtl's bank tests check its ports). Full
// `synth` would go on to map the memories to flip-flops (memory_map), so
// the run stops before that stage.
func TestSharedMemory_YosysInfersOneMemoryPerBank(t *testing.T) {
	y, err := toolchain.Find("yosys")
	if err != nil {
		t.Skip(err)
	}
	u, err := flow.ExampleUnit("shmem_small")
	if err != nil {
		t.Fatal(err)
	}
	d := u.Design
	dir := t.TempDir()
	srcs, _, err := rtl.WriteDir(dir, d, rtl.Info{Version: "lsugen test", Source: "test"})
	if err != nil {
		t.Fatal(err)
	}
	script := ""
	for _, s := range srcs {
		script += "read_verilog " + s + "\n"
	}
	script += "synth -flatten -top " + d.Name + " -run :fine\nstat\n"
	ys := filepath.Join(dir, "synth.ys")
	if err := os.WriteFile(ys, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := (&toolchain.Cmd{Path: y.Path, Args: []string{"-q", "-s", ys, "-l", filepath.Join(dir, "synth.log")}}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(filepath.Join(dir, "synth.log"))
	if err != nil {
		t.Fatal(err, string(res.Output))
	}
	m := regexp.MustCompile(`\$mem_v2\s+(\d+)`).FindAllSubmatch(log, -1)
	if len(m) == 0 {
		t.Fatalf("no $mem_v2 in the statistics:\n%s", log)
	}
	if got := string(m[len(m)-1][1]); got != "8" {
		t.Errorf("%s: Yosys inferred %s memories, want one per bank (8)", d.Name, got)
	}
	if regexp.MustCompile(`\$(dff|sdff)\w*\s+\d+`).Find(log) == nil {
		t.Errorf("no flip-flops at all: the statistics are not of the whole unit:\n%s", log)
	}
}
