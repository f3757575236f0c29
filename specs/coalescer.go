package specs

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

var coalescerBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "structure", Required: true},
		{Name: "lanes", Required: true},
		{Name: "addr_bits", Required: true},
		{Name: "block_bits"},
		{Name: "adder"},
	},
}

var coalescerStructures = []string{AllToAll, Neighbor, Speculative}

// decodeCoalescerBlock decodes and validates a `coalescer "NAME" { ... }`
// block. It returns nil when the block has errors.
func (d *decoder) decodeCoalescerBlock(block *hcl.Block) (*Coalescer, hcl.Diagnostics) {
	cd, ranges := d.newBlockDecoder(block, coalescerBlockSchema)
	c := &Coalescer{Name: block.Labels[0], Range: block.DefRange, AttrRanges: ranges}
	if s, ok := cd.str("structure"); ok {
		if oneOf(s, coalescerStructures) {
			c.Structure = s
		} else {
			cd.errorf(cd.rng("structure"), "Unsupported structure", "%q is not a coalescer structure.%s The structures are %s.",
				s, didYouMean(s, coalescerStructures), strings.Join(coalescerStructures, ", "))
		}
	}
	c.Lanes, c.AddrBits = cd.warpSizes()
	if cd.has("block_bits") {
		if b, ok := cd.int("block_bits"); ok {
			if c.AddrBits > 0 && (b < 0 || b >= int64(c.AddrBits)) {
				cd.errorf(cd.rng("block_bits"), "Invalid block_bits",
					"block_bits must be between 0 and addr_bits - 1 = %d; got %d.", c.AddrBits-1, b)
			} else {
				c.BlockBits = int(b)
			}
		}
	}
	if cd.has("adder") && c.Structure != "" && c.Structure != Speculative {
		cd.errorf(cd.rng("adder"), "Argument not allowed",
			"adder chooses the subtractors of the speculative coalescer's monotonicity detector; the %s structure has none.", c.Structure)
	} else {
		c.Adder = cd.subtractorAdder()
	}
	if cd.failed {
		return nil, cd.diags
	}
	return c, cd.diags
}

var detectorBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "lanes", Required: true},
		{Name: "addr_bits", Required: true},
		{Name: "adder"},
	},
}

// decodeMonotonicityDetectorBlock decodes a `monotonicity_detector "NAME"`
// block. It returns nil when the block has errors.
func (d *decoder) decodeMonotonicityDetectorBlock(block *hcl.Block) (*MonotonicityDetector, hcl.Diagnostics) {
	md, ranges := d.newBlockDecoder(block, detectorBlockSchema)
	m := &MonotonicityDetector{Name: block.Labels[0], Range: block.DefRange, AttrRanges: ranges}
	m.Lanes, m.AddrBits = md.warpSizes()
	m.Adder = md.subtractorAdder()
	if md.failed {
		return nil, md.diags
	}
	return m, md.diags
}

// warpSizes decodes lanes and addr_bits of a warp-wide unit; a value
// out of range is reported and returned as 0.
func (bd *blockDecoder) warpSizes() (lanes, addrBits int) {
	if l, ok := bd.int("lanes"); ok {
		if l < 2 || l > MaxLanes {
			bd.errorf(bd.rng("lanes"), "Invalid lanes", "lanes must be between 2 and %d; got %d.", MaxLanes, l)
		} else {
			lanes = int(l)
		}
	}
	if a, ok := bd.int("addr_bits"); ok {
		if a < 1 || a > MaxLaneAddrBits {
			bd.errorf(bd.rng("addr_bits"), "Invalid addr_bits", "addr_bits must be between 1 and %d; got %d.", MaxLaneAddrBits, a)
		} else {
			addrBits = int(a)
		}
	}
	return lanes, addrBits
}

var subtractorAdders = []string{AdderCLA4, AdderCLA, AdderRipple, AdderPrefix}

// subtractorAdder decodes the optional adder of a monotonicity detector
// (default cla4, the thesis's 4-bit carry-lookahead blocks).
func (bd *blockDecoder) subtractorAdder() string {
	if !bd.has("adder") {
		return AdderCLA4
	}
	s, ok := bd.str("adder")
	if !ok {
		return ""
	}
	if !oneOf(s, subtractorAdders) {
		bd.errorf(bd.rng("adder"), "Unsupported adder", "adder must be one of %s; got %q.%s",
			strings.Join(subtractorAdders, ", "), s, didYouMean(s, subtractorAdders))
		return ""
	}
	return s
}

func oneOf(s string, set []string) bool {
	for _, x := range set {
		if x == s {
			return true
		}
	}
	return false
}

func didYouMean(s string, candidates []string) string {
	if best := closest(s, candidates); best != "" {
		return fmt.Sprintf(" Did you mean %q?", best)
	}
	return ""
}
