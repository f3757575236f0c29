package specs

import "github.com/hashicorp/hcl/v2"

// Structure names a coalescer structure (003_*).
type Structure string

const (
	AllToAll    = Structure("all_to_all")  // compare every lane with every later lane
	Neighbor    = Structure("neighbor")    // compare each lane with the next; exact for monotonic warps
	Speculative = Structure("speculative") // neighbor when monotonic, else all_to_all
)

// Structures lists the coalescer structures in documentation order.
var Structures = []Structure{AllToAll, Neighbor, Speculative}

// Valid reports whether s is one of the structures.
func (s Structure) Valid() bool { return s == AllToAll || s == Neighbor || s == Speculative }

// Coalescer is a decoded `coalescer "NAME" { ... }` block: it finds the
// lanes of a warp whose cache-block address no later lane repeats.
type Coalescer struct {
	Name      string
	Structure Structure // AllToAll, Neighbor or Speculative
	Lanes     int       // 2..MaxLanes
	AddrBits  int       // 1..MaxLaneAddrBits
	BlockBits int       // low address bits ignored (cache-block offset), < AddrBits
	// Adder is the subtractor of the speculative coalescer's monotonicity
	// detector (AdderCLA4 by default).
	Adder Adder

	Range      hcl.Range
	AttrRanges map[string]hcl.Range
}

func (c *Coalescer) UnitName() string     { return c.Name }
func (c *Coalescer) UnitKind() string     { return "coalescer" }
func (c *Coalescer) DeclRange() hcl.Range { return c.Range }
func (c *Coalescer) Variant() string      { return string(c.Structure) }

// MonotonicityDetector is a decoded `monotonicity_detector "NAME" { ... }`
// block: it tells whether a warp's addresses are non-decreasing or
// non-increasing in lane order, compared unsigned.
type MonotonicityDetector struct {
	Name     string
	Lanes    int
	AddrBits int
	Adder    Adder // AdderCLA4, AdderCLA, AdderRipple or AdderPrefix

	Range      hcl.Range
	AttrRanges map[string]hcl.Range
}

func (m *MonotonicityDetector) UnitName() string     { return m.Name }
func (m *MonotonicityDetector) UnitKind() string     { return "monotonicity_detector" }
func (m *MonotonicityDetector) DeclRange() hcl.Range { return m.Range }
func (m *MonotonicityDetector) Variant() string      { return string(m.Adder) }

// Limits of the coalescer family.
const (
	MaxLanes        = 128
	MaxLaneAddrBits = 64
)
