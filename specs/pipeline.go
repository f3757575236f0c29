package specs

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
)

var elasticPipelineSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "mem_stages", Required: true},
		{Name: "warp_size", Required: true},
		{Name: "simd_width", Required: true},
		{Name: "shmem_ports"},
		{Name: "tag_bits", Required: true},
		{Name: "variant"},
	},
}

var pipeVariants = []string{PipeElastic, PipeUnified, PipeSplit}

// decodeElasticPipelineBlock decodes an `elastic_pipeline "NAME"` block. It
// returns nil when the block has errors.
func (d *decoder) decodeElasticPipelineBlock(block *hcl.Block) (*ElasticPipeline, hcl.Diagnostics) {
	bd, ranges := d.newBlockDecoder(block, elasticPipelineSchema)
	p := &ElasticPipeline{Name: block.Labels[0], Range: block.DefRange, AttrRanges: ranges, PipeVariant: PipeElastic}
	p.MemStages = bd.intIn("mem_stages", 1, MaxMemStages)
	p.WarpSize, p.SIMDWidth, p.ShmemPorts = bd.simdSizes()
	p.TagBits = bd.intIn("tag_bits", 1, MaxTagBits)
	if bd.has("variant") {
		if s, ok := bd.str("variant"); ok {
			if oneOf(s, pipeVariants) {
				p.PipeVariant = s
			} else {
				bd.errorf(bd.rng("variant"), "Unsupported variant", "%q is not a pipeline variant.%s The variants are %s.",
					s, didYouMean(s, pipeVariants), strings.Join(pipeVariants, ", "))
			}
		}
	}
	if bd.failed {
		return nil, bd.diags
	}
	return p, bd.diags
}

var warpReadyMaskSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "warp_contexts", Required: true},
		{Name: "history_sets", Required: true},
		{Name: "history_ways", Required: true},
		{Name: "pc_bits", Required: true},
		{Name: "warp_size", Required: true},
		{Name: "simd_width", Required: true},
		{Name: "shmem_ports"},
	},
}

// decodeWarpReadyMaskBlock decodes a `warp_ready_mask "NAME"` block. It
// returns nil when the block has errors.
func (d *decoder) decodeWarpReadyMaskBlock(block *hcl.Block) (*WarpReadyMask, hcl.Diagnostics) {
	bd, ranges := d.newBlockDecoder(block, warpReadyMaskSchema)
	w := &WarpReadyMask{Name: block.Labels[0], Range: block.DefRange, AttrRanges: ranges}
	w.WarpContexts = bd.intIn("warp_contexts", 1, MaxWarpContexts)
	w.HistorySets = bd.intIn("history_sets", 2, MaxHistorySets)
	if w.HistorySets > 0 && !isPow2(w.HistorySets) {
		bd.errorf(bd.rng("history_sets"), "Invalid history_sets", "history_sets must be a power of two (the low PC bits index the cache); got %d.", w.HistorySets)
		w.HistorySets = 0
	}
	w.HistoryWays = bd.intIn("history_ways", 1, MaxHistoryWays)
	w.PCBits = bd.intIn("pc_bits", 1, MaxPCBits)
	if w.PCBits > 0 && w.HistorySets > 0 && w.PCBits < w.IndexBits() {
		bd.errorf(bd.rng("pc_bits"), "Invalid pc_bits", "pc_bits must be at least log2(history_sets) = %d, the index width; got %d.", w.IndexBits(), w.PCBits)
	}
	w.WarpSize, w.SIMDWidth, w.ShmemPorts = bd.simdSizes()
	if w.WarpSize == 1 {
		bd.errorf(bd.rng("warp_size"), "Invalid warp_size", "warp_size must be at least 2 for the history cache's log2(warp_size)-bit degrees; got 1.")
	}
	if bd.failed {
		return nil, bd.diags
	}
	return w, bd.diags
}

// intIn decodes a whole number in [lo, hi] (a missing required one is
// reported by the schema); it reports a value out of range and returns 0
// for it.
func (bd *blockDecoder) intIn(name string, lo, hi int) int {
	v, ok := bd.int(name)
	if !ok {
		return 0
	}
	if v < int64(lo) || v > int64(hi) {
		bd.errorf(bd.rng(name), "Invalid "+name, "%s must be between %d and %d; got %d.", name, lo, hi, v)
		return 0
	}
	return int(v)
}

// simdSizes decodes warp_size, simd_width and shmem_ports (default 1): powers
// of two with shmem_ports <= simd_width <= warp_size and at most
// MaxQueueDepth+1 subwarps per warp. Values in error come back as 0.
func (bd *blockDecoder) simdSizes() (warp, simd, ports int) {
	pow2 := func(name string, hi int) int {
		v := bd.intIn(name, 1, hi)
		if v > 0 && !isPow2(v) {
			bd.errorf(bd.rng(name), "Invalid "+name, "%s must be a power of two; got %d.", name, v)
			return 0
		}
		return v
	}
	warp = pow2("warp_size", MaxPipeWarpSize)
	simd = pow2("simd_width", MaxPipeWarpSize)
	ports = 1
	if bd.has("shmem_ports") {
		ports = pow2("shmem_ports", MaxPipeWarpSize)
	}
	if warp > 0 && simd > 0 {
		switch {
		case simd > warp:
			bd.errorf(bd.rng("simd_width"), "Invalid simd_width", "simd_width must not exceed warp_size = %d; got %d.", warp, simd)
			simd = 0
		case warp/simd-1 > MaxQueueDepth:
			bd.errorf(bd.rng("simd_width"), "Invalid simd_width",
				"warp_size / simd_width must be at most %d (the PREMEM queue holds warp_size/simd_width - 1 subwarps); got %d.", MaxQueueDepth+1, warp/simd)
			simd = 0
		}
	}
	if simd > 0 && ports > simd {
		bd.errorf(bd.rng("shmem_ports"), "Invalid shmem_ports", "shmem_ports must not exceed simd_width = %d; got %d.", simd, ports)
		ports = 0
	}
	return warp, simd, ports
}

func isPow2(n int) bool { return n > 0 && n&(n-1) == 0 }
