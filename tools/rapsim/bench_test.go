package rapsim

import "testing"

// BenchmarkTrial_W32 is one trial of every Table II and Table IV cell at
// w = 32, the warp width of current GPUs.
func BenchmarkTrial_W32(b *testing.B) {
	var sims []*sim
	for _, m := range MatrixMappings {
		for _, a := range MatrixAccesses {
			sims = append(sims, newSim(cell{Matrix, 32, m, a}, 1))
		}
	}
	for _, m := range Array4Mappings {
		for _, a := range Array4Accesses[:len(Array4Accesses)-1] {
			sims = append(sims, newSim(cell{Array4, 32, m, a}, 1))
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, s := range sims {
			s.trial()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(sims)), "ns/cell-trial")
}
