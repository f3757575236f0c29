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
	// ActiveMask adds the active_i input: only active lanes take part.
	ActiveMask bool
	// Requests adds the request outputs (req_count_o, req_addr_o,
	// req_mask_o, lane_req_o).
	Requests bool
	// Clocking pipelines the unit at clock_fo4 when set.
	Clocking

	Range      hcl.Range
	AttrRanges map[string]hcl.Range
}

func (c *Coalescer) UnitName() string     { return c.Name }
func (c *Coalescer) UnitKind() string     { return "coalescer" }
func (c *Coalescer) DeclRange() hcl.Range { return c.Range }

// Variant is the structure, then ", active_mask" and ", requests" for the
// options that are on.
func (c *Coalescer) Variant() string {
	v := string(c.Structure)
	if c.ActiveMask {
		v += ", active_mask"
	}
	if c.Requests {
		v += ", requests"
	}
	return v
}

// MonotonicityDetector is a decoded `monotonicity_detector "NAME" { ... }`
// block: it tells whether a warp's addresses are non-decreasing or
// non-increasing in lane order, compared unsigned.
type MonotonicityDetector struct {
	Name     string
	Lanes    int
	AddrBits int
	Adder    Adder // AdderCLA4, AdderCLA, AdderRipple or AdderPrefix
	// ActiveMask adds the active_i input: only active lanes' addresses
	// are compared.
	ActiveMask bool
	// Clocking pipelines the unit at clock_fo4 when set.
	Clocking

	Range      hcl.Range
	AttrRanges map[string]hcl.Range
}

func (m *MonotonicityDetector) UnitName() string     { return m.Name }
func (m *MonotonicityDetector) UnitKind() string     { return "monotonicity_detector" }
func (m *MonotonicityDetector) DeclRange() hcl.Range { return m.Range }

// Variant is the adder, then ", active_mask" when that option is on.
func (m *MonotonicityDetector) Variant() string {
	if m.ActiveMask {
		return string(m.Adder) + ", active_mask"
	}
	return string(m.Adder)
}

// Limits of the coalescer family.
const (
	MaxLanes        = 128
	MaxLaneAddrBits = 64
)
