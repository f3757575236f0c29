package netlist

// Memory is a memory macro placed in a design: a bank of Words words of
// Width bits, not flip-flops. A 48 KB shared memory is 393,216 bits, far
// more than a gate netlist, its simulator or a proof should hold as gates;
// a real design puts an SRAM there. Both Verilog writers print an instance
// of the design's bank module (Module), which is written once, as a
// behavioural array that synthesis infers as a memory, in its own file.
//
// The macro has one synchronous read port and one write port, clocked by
// the design's clock. At a rising edge where RE is 1, RData takes word
// RAddr as it was before the edge (read-first: a write at the same edge is
// not seen); where RE is 0, RData holds. At a rising edge where WE is 1,
// the bits of word WAddr whose mask bit is 1 take WData's (mask bit j
// covers bits [j*Width/len(WMask), (j+1)*Width/len(WMask))). A read at
// or past Words gives 0 and a write there is ignored. The words have no
// reset value, and RData none until the first read.
type Memory struct {
	Name   string // instance name, unique in the design: "bank3"
	Module string // the bank module; every Memory of a design has the same geometry and module
	Words  int
	Width  int
	Doc    string // one line for the instance's comment

	// The macro's figures for the timing model, stated by the generator
	// (from the spec, or the documented defaults): clock to RData valid
	// and the setup of its inputs before the edge, in FO4, and its area
	// per bit in NAND2 equivalents (array and periphery together).
	AccessFO4, SetupFO4 float64
	AreaPerBit          float64

	RE    Net
	RAddr Bus
	RData Bus // driven by the memory: sources, like flip-flop outputs
	WE    Net
	WAddr Bus
	WData Bus // Width bits
	WMask Bus // at least one bit; Width is a multiple of its length
}
