package accelsim

// Instr is one executed instruction of one warp, memory or not: what a
// timing model of the whole instruction stream (lsugen pipesim) needs,
// where Next yields only the memory instructions.
type Instr struct {
	// WarpAccess holds the instruction's place (File, Line, Kernel,
	// KernelName, Block, Warp, SourceLine), PC, Opcode and Mask; for a
	// memory instruction also Space, Op, Width and Addrs, which are zero
	// for the others.
	WarpAccess
	IsMemory bool // mem_width > 0: Space, Op, Width and Addrs are set
	// WarpSeq numbers the warps of all files in trace order from 0: it
	// grows by one at every "warp = N" line, so two sections of one warp
	// number are told apart even when their thread block repeats. In a
	// raw trace it numbers the distinct (thread block, warp) pairs in the
	// order of their first lines.
	WarpSeq int
	// Raw: the instruction comes from a raw trace (the tracer's output
	// before post-processing), whose warps' instructions interleave.
	Raw bool
}

// NextInstr returns the next instruction of the traces, memory or not, in
// trace order, io.EOF after the last. It reads the same lines and refuses
// the same errors as Next ("FILE:LINE: message"); a Reader should be read
// with one of the two methods only.
func (r *Reader) NextInstr() (*Instr, error) {
	a, err := r.advance(true)
	if err != nil {
		return nil, err
	}
	return &Instr{WarpAccess: *a, IsMemory: a.Width > 0, WarpSeq: r.warpBase + r.k.seq, Raw: r.k.raw}, nil
}
