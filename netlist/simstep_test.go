package netlist

import "testing"

// BenchmarkSim_StepRegisters clocks a design of 4,096 DFFs and no memory
// (64 registers of 64 bits, each loading its neighbour XOR an input): the
// cost of Step where memories play no part.
func BenchmarkSim_StepRegisters(b *testing.B) {
	bd := NewBuilder("regs")
	bd.Clock("clk", "")
	x := bd.Input("x", 64, "")
	regs := make([]Bus, 64)
	for i := range regs {
		regs[i] = bd.Reg("r", 64)
	}
	for i := range regs {
		next := make(Bus, 64)
		for j := range next {
			next[j] = bd.Xor(regs[(i+1)%64][j], x[j])
		}
		bd.Next(regs[i], next)
		bd.Output("q"+string(rune('a'+i%26))+string(rune('a'+i/26)), regs[i], "")
	}
	s := NewSim(mustBuild(b, bd))
	for b.Loop() {
		s.Eval()
		s.Step()
	}
}
