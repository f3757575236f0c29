package pipesim

import (
	"context"
	"testing"

	"github.com/lsugen/lsugen/specs"
)

// benchRun simulates the aes_encrypt preset (16 warps, 17088 warp
// instructions) on the paper's core and reports simulated cycles per
// second of wall time.
func benchRun(b *testing.B, variant specs.PipelineVariant, mask bool) {
	p := specs.ElasticPipeline{Name: "bench", MemStages: 4, WarpSize: 32, SIMDWidth: 8, ShmemPorts: 1, TagBits: 16, PipeVariant: variant}
	pre, _ := LookupPreset("aes_encrypt")
	g := pre.Synthetic(32, 32, 1)
	wl, err := g.Generate(Shape{Subwarps: 4, SIMDWidth: 8, PCBits: 14, Warps: 32})
	if err != nil {
		b.Fatal(err)
	}
	var m *specs.WarpReadyMask
	if mask {
		m = DefaultMask(&p, g.Warps)
	}
	var cycles int64
	b.ReportAllocs()
	for b.Loop() {
		r, err := Simulate(context.Background(), wl, p, m, Options{})
		if err != nil {
			b.Fatal(err)
		}
		cycles += r.Cycles
	}
	b.ReportMetric(float64(cycles)/b.Elapsed().Seconds(), "cycles/s")
}

func BenchmarkSimulate_AESElasticMask(b *testing.B) { benchRun(b, specs.PipeElastic, true) }
func BenchmarkSimulate_AESUnified(b *testing.B)     { benchRun(b, specs.PipeUnified, false) }
func BenchmarkSimulate_AESSplitMask(b *testing.B)   { benchRun(b, specs.PipeSplit, true) }
