package specs

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// coalescerDoc introduces the coalescer block in the spec reference.
const coalescerDoc = `A coalescer (003_*): finds the lanes of a warp whose cache-block address
no later lane repeats. Combinational.

Ports: ` + "`addr_i [lanes*addr_bits-1:0]`" + ` (lane 0 in the least significant bits) in,
` + "`unique_o [lanes-1:0]`" + ` out. ` + "`all_to_all`" + ` sets lane i when no later lane j > i holds the
same block address; ` + "`neighbor`" + ` sets lane i when its block differs from lane
i+1's (exact only for monotonic warps), the last lane always; ` + "`speculative`" + `
outputs the neighbor result when the warp's full addresses are monotonic
(unsigned) and the all-to-all result otherwise, and ` + "`monotonic_o`" + `.

With ` + "`active_mask = true`" + ` an input ` + "`active_i [lanes-1:0]`" + ` follows ` + "`addr_i`" + ` and only
active lanes take part: ` + "`unique_o[i]`" + ` is set for an active lane i that no later
active lane repeats (` + "`all_to_all`" + `), or whose block differs from the next active
lane's or that is the last active lane (` + "`neighbor`" + `, exact when the active
lanes' addresses are monotonic); ` + "`speculative`" + `'s ` + "`monotonic_o`" + ` looks at the active
lanes only. A parallel-prefix network of ceil(log2(lanes-1)) multiplexer
levels finds each lane's next active lane.

With ` + "`requests = true`" + ` the coalescer also numbers its memory requests, in the
order of their lowest active lane (every lane is active without
` + "`active_mask`" + `): ` + "`req_count_o [clog2(lanes+1)-1:0]`" + ` the number of distinct blocks among the
active lanes; ` + "`req_addr_o [lanes*(addr_bits-block_bits)-1:0]`" + `, field r the block address
of request r; ` + "`req_mask_o [lanes*lanes-1:0]`" + `, bit i of field r set when request r
serves lane i; ` + "`lane_req_o [lanes*clog2(lanes)-1:0]`" + `, field i the request of lane i
(0 for an inactive lane). Fields at or above the count are 0. ` + "`neighbor`" + `
starts a request at each active lane whose block differs from the previous
active lane's, exact when the active addresses are monotonic; ` + "`all_to_all`" + `
is exact for any warp, and ` + "`speculative`" + ` uses the neighbor requests when
` + "`monotonic_o`" + ` is set and the all-to-all ones otherwise.`

// subtractorAdderDoc is the adder argument of the units with a
// monotonicity detector.
const subtractorAdderDoc = "Subtractor architecture of the monotonicity detector: `cla4` (the thesis's: 4-bit carry-lookahead blocks, carry passed block to block; default), `cla` (tree of 4-bit lookahead units), `ripple` or `prefix` (Sklansky)."

var coalescerAttrs = []Attr{
	{Name: "structure", Required: true, Type: "string", Doc: "`all_to_all`, `neighbor` or `speculative`."},
	{Name: "lanes", Required: true, Type: "number", Doc: "Lanes of the warp, 2..128."},
	{Name: "addr_bits", Required: true, Type: "number", Doc: "Address bits per lane, 1..64."},
	{Name: "block_bits", Type: "number", Doc: "Low address bits ignored (the cache-block offset), 0..addr_bits-1; default 0."},
	{Name: "adder", Type: "string", Doc: "speculative only. " + subtractorAdderDoc},
	{Name: "active_mask", Type: "bool", Doc: "Add the input `active_i [lanes-1:0]`: only active lanes take part (default false)."},
	{Name: "requests", Type: "bool", Doc: "Add the request outputs `req_count_o`, `req_addr_o`, `req_mask_o` and `lane_req_o` (default false)."},
	clockingAttrs[0], clockingAttrs[1], clockingAttrs[2],
	pipelineAttr,
}

var coalescerBlockSchema = schemaOf(coalescerAttrs)

var coalescerStructures = names(Structures)

// decodeCoalescerBlock decodes and validates a `coalescer "NAME" { ... }`
// block. It returns nil when the block has errors.
func (d *decoder) decodeCoalescerBlock(block *hcl.Block) (*Coalescer, hcl.Diagnostics) {
	cd, ranges := d.newBlockDecoder(block, coalescerBlockSchema)
	c := &Coalescer{Name: block.Labels[0], Range: block.DefRange, AttrRanges: ranges}
	if s, ok := cd.str("structure"); ok {
		if oneOf(s, coalescerStructures) {
			c.Structure = Structure(s)
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
	c.ActiveMask, _ = cd.bool("active_mask")
	c.Requests, _ = cd.bool("requests")
	c.Clocking = cd.clocking()
	if c.Style == PipelineRetime && c.Structure == Speculative {
		cd.errorf(cd.rng("pipeline"), "Unsupported pipeline", "pipeline = \"retime\" writes a fixed latency; the speculative coalescer at a clock has two (its fast and slow paths). Remove pipeline or use another structure.")
	}
	if cd.failed {
		return nil, cd.diags
	}
	return c, cd.diags
}

// detectorDoc introduces the monotonicity_detector block in the spec
// reference.
const detectorDoc = `The address-monotonicity detector (003_*): tells whether a warp's
addresses are non-decreasing or non-increasing in lane order, compared
unsigned. Combinational.

Ports: ` + "`addr_i [lanes*addr_bits-1:0]`" + ` in; ` + "`nondecreasing_o`, `nonincreasing_o`" + ` and
` + "`monotonic_o`" + ` out.

With ` + "`active_mask = true`" + ` an input ` + "`active_i [lanes-1:0]`" + ` follows ` + "`addr_i`" + `, and the
outputs look at the active lanes' addresses only, in lane order (true for
zero or one active lane): each active lane is compared with the next
active lane, which a parallel-prefix network of ceil(log2(lanes-1))
multiplexer levels finds.`

var detectorAttrs = []Attr{
	{Name: "lanes", Required: true, Type: "number", Doc: "Lanes of the warp, 2..128."},
	{Name: "addr_bits", Required: true, Type: "number", Doc: "Address bits per lane, 1..64."},
	{Name: "adder", Type: "string", Doc: subtractorAdderDoc},
	{Name: "active_mask", Type: "bool", Doc: "Add the input `active_i [lanes-1:0]`: only active lanes' addresses are compared (default false)."},
	clockingAttrs[0], clockingAttrs[1], clockingAttrs[2],
	pipelineAttr,
}

var detectorBlockSchema = schemaOf(detectorAttrs)

// decodeMonotonicityDetectorBlock decodes a `monotonicity_detector "NAME"`
// block. It returns nil when the block has errors.
func (d *decoder) decodeMonotonicityDetectorBlock(block *hcl.Block) (*MonotonicityDetector, hcl.Diagnostics) {
	md, ranges := d.newBlockDecoder(block, detectorBlockSchema)
	m := &MonotonicityDetector{Name: block.Labels[0], Range: block.DefRange, AttrRanges: ranges}
	m.Lanes, m.AddrBits = md.warpSizes()
	m.Adder = md.subtractorAdder()
	m.ActiveMask, _ = md.bool("active_mask")
	m.Clocking = md.clocking()
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

var subtractorAdders = names([]Adder{AdderCLA4, AdderCLA, AdderRipple, AdderPrefix})

// subtractorAdder decodes the optional adder of a monotonicity detector
// (default cla4, the thesis's 4-bit carry-lookahead blocks).
func (bd *blockDecoder) subtractorAdder() Adder {
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
	return Adder(s)
}

// names lists the values of a named string type as strings, for
// messages and did-you-mean suggestions.
func names[T ~string](values []T) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
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
