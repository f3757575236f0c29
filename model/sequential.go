package model

// Sequential is the port-level model of a clocked unit, for the lockstep
// harness. Port values follow the Model conventions (little-endian 64-bit
// words per port); Ports lists the inputs, then the outputs, without the
// clock. The synchronous reset rst is an ordinary input.
type Sequential interface {
	Ports() []Port
	// Reset puts the model in the state a reset cycle leaves.
	Reset()
	// Cycle computes this cycle's outputs from the state and in (indexed
	// like the input ports; out like the output ports, allocated by the
	// caller and overwritten), then advances the state by one rising
	// clock edge.
	Cycle(in, out [][]uint64)
}
