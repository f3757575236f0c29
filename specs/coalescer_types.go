package specs

import "github.com/hashicorp/hcl/v2"

// Coalescer structures (003_*).
const (
	AllToAll    = "all_to_all"  // compare every lane with every later lane
	Neighbor    = "neighbor"    // compare each lane with the next; exact for monotonic warps
	Speculative = "speculative" // neighbor when monotonic, else all_to_all
)

// Subtractor adders of the monotonicity detector.
const (
	// AdderCLA4 is 003_*'s subtractor: 4-bit carry-lookahead blocks
	// composed into 8, 16 and 32 bits and a 33rd, the carry passed from
	// block to block.
	AdderCLA4   = "cla4"
	AdderPrefix = "prefix" // parallel prefix (Sklansky)
	// AdderRipple and AdderCLA (a tree of 4-bit lookahead units) are
	// shared with the hash adders.
)

// Coalescer is a decoded `coalescer "NAME" { ... }` block: it finds the
// lanes of a warp whose cache-block address no later lane repeats.
type Coalescer struct {
	Name      string
	Structure string // AllToAll, Neighbor or Speculative
	Lanes     int    // 2..MaxLanes
	AddrBits  int    // 1..MaxLaneAddrBits
	BlockBits int    // low address bits ignored (cache-block offset), < AddrBits
	// Adder is the subtractor of the speculative coalescer's monotonicity
	// detector (AdderCLA4 by default).
	Adder string

	Range      hcl.Range
	AttrRanges map[string]hcl.Range
}

func (c *Coalescer) UnitName() string     { return c.Name }
func (c *Coalescer) UnitKind() string     { return "coalescer" }
func (c *Coalescer) DeclRange() hcl.Range { return c.Range }
func (c *Coalescer) Variant() string      { return c.Structure }

// MonotonicityDetector is a decoded `monotonicity_detector "NAME" { ... }`
// block: it tells whether a warp's addresses are non-decreasing or
// non-increasing in lane order, compared unsigned.
type MonotonicityDetector struct {
	Name     string
	Lanes    int
	AddrBits int
	Adder    string // AdderCLA4, AdderCLA, AdderRipple or AdderPrefix

	Range      hcl.Range
	AttrRanges map[string]hcl.Range
}

func (m *MonotonicityDetector) UnitName() string     { return m.Name }
func (m *MonotonicityDetector) UnitKind() string     { return "monotonicity_detector" }
func (m *MonotonicityDetector) DeclRange() hcl.Range { return m.Range }
func (m *MonotonicityDetector) Variant() string      { return m.Adder }

// Limits of the coalescer family.
const (
	MaxLanes        = 128
	MaxLaneAddrBits = 64
)
