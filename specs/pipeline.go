package specs

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// elasticPipelineDoc introduces the elastic_pipeline block in the spec
// reference.
const elasticPipelineDoc = `The back end of an in-order SIMD pipeline from EXE to writeback (001_*,
Figures 4 and 6). Synchronous: one clock ` + "`clk`" + ` (rising edge) and a synchronous,
active-high reset ` + "`rst`" + `; outputs are combinational in the state and that
cycle's inputs.

Ports: ` + "`rst`, `in_valid_i`, `in_kind_i[1:0]`" + ` (0 alu, 1 shmem, 2 mem, 3 as 2),
` + "`in_degree_i`" + ` (bank-conflict degree, enough bits for 0..simd_width), ` + "`in_tag_i`" + `;
outputs ` + "`stall_o`, `wb_valid_o`, `wb_tag_o`" + `.

- Each cycle EXE may offer one instruction. It is accepted when
  ` + "`in_valid_i & !stall_o`" + `; on ` + "`stall_o`" + ` EXE keeps it and offers it again.
- A shmem instruction occupies MEM0 for max(1, ceil(degree / P)) cycles
  (degree 0 counts as 1), every other kind one cycle; then MEM1..MEM(M-1)
  one cycle each. The memory path has writeback priority and never waits.
- ` + "`wb_valid_o`/`wb_tag_o`" + `: what the writeback multiplexer selects this cycle
  (one instruction at most; the tag is 0 when nothing is written back).
- ` + "`baseline_unified`" + `: everything goes through MEM0..MEM(M-1); an offer is
  accepted when MEM0 is free (empty, or finishing this cycle). A stall here
  is a bank-conflict stall.
- ` + "`baseline_split`" + `: alu instructions take an M-stage NONMEM pipeline. When
  the memory path and NONMEM(M-1) deliver in the same cycle (writeback
  conflict) the NONMEM pipeline holds and an alu offer stalls.
- ` + "`elastic`" + `: writeback takes the memory path, else the oldest entry of the
  M-entry NONMEM queue, else EXE's alu instruction directly. An alu offer
  that is not forwarded joins the NONMEM queue, or stalls when it is full
  (writeback conflict); a memory offer goes to a free MEM0 when the N-entry
  PREMEM queue is empty, else joins the PREMEM queue, or stalls when it is
  full (bank conflict); a free MEM0 takes the oldest PREMEM entry first.`

// simdAttrs are the warp geometry arguments shared by the two sequential
// units.
var simdAttrs = []Attr{
	{Name: "warp_size", Required: true, Type: "number", Doc: "Threads per warp, a power of two; at most 17 subwarps (warp_size/simd_width) per warp."},
	{Name: "simd_width", Required: true, Type: "number", Doc: "SIMD lanes, a power of two <= warp_size; N = warp_size/simd_width - 1 is the PREMEM queue depth."},
	{Name: "shmem_ports", Type: "number", Doc: "Shared-memory ports P, a power of two <= simd_width (default 1)."},
}

var elasticPipelineAttrs = append([]Attr{
	{Name: "mem_stages", Required: true, Type: "number", Doc: "M, memory stages MEM0..MEM(M-1), 1..16."},
}, append(append([]Attr(nil), simdAttrs...),
	Attr{Name: "tag_bits", Required: true, Type: "number", Doc: "Width of the instruction tag carried to writeback, 1..64."},
	Attr{Name: "variant", Type: "string", Doc: "`elastic` (Figure 6, default), `baseline_unified` (Figure 4a) or `baseline_split` (Figure 4b)."},
	Attr{Name: "arbiter", Type: "reference", Refers: "bank_arbiter", Doc: "A combinational `bank_arbiter` with simd_width lanes, written `bank_arbiter.NAME`: the module instantiates it and takes the subwarp's addresses `in_addr_i` and lanes `in_active_i` in place of `in_degree_i`, whose value is the arbiter's `degree_o` (its bank hashes must be constant)."},
)...)

var elasticPipelineSchema = schemaOf(elasticPipelineAttrs)

var pipeVariants = names([]PipelineVariant{PipeElastic, PipeUnified, PipeSplit})

// decodeElasticPipelineBlock decodes an `elastic_pipeline "NAME"` block. It
// returns nil when the block has errors.
func (d *decoder) decodeElasticPipelineBlock(block *hcl.Block) (*ElasticPipeline, hcl.Diagnostics) {
	bd, ranges := d.newBlockDecoder(block, elasticPipelineSchema)
	p := &ElasticPipeline{Name: block.Labels[0], Range: block.DefRange, AttrRanges: ranges, PipeVariant: PipeElastic}
	p.MemStages = bd.intIn("mem_stages", 1, MaxMemStages)
	p.WarpSize, p.SIMDWidth, p.ShmemPorts = bd.simdSizes()
	p.TagBits = bd.intIn("tag_bits", 1, MaxTagBits)
	p.Arbiter = bd.ref("arbiter", "bank_arbiter")
	if bd.has("variant") {
		if s, ok := bd.str("variant"); ok {
			if oneOf(s, pipeVariants) {
				p.PipeVariant = PipelineVariant(s)
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

// warpReadyMaskDoc introduces the warp_ready_mask block in the spec
// reference.
const warpReadyMaskDoc = `Bank-conflict-aware warp ready signal generation (001_*, Figure 7).
Synchronous, like elastic_pipeline.

Inputs ` + "`rst`, `launch_i`" + ` (kernel launch), ` + "`warp_ready_i[W]`, `warp_is_mem_i[W]`" + `,
` + "`sched_valid_i`, `sched_shmem_i`, `sched_pc_i`, `res_valid_i`, `res_pc_i`" + `,
` + "`res_degree_i`" + `; outputs ` + "`warp_ready_o[W]`, `mask_o`" + `.

- ` + "`mask_o = counter != 0`; `warp_ready_o = warp_ready_i & ~(warp_is_mem_i & mask_o)`" + `.
- Scheduling a shared-memory warp looks its PC up in the history cache
  (miss: 0) and loads the counter with warp_safe_mem_dist - 1 =
  (pred + S - 1) >> log2(P) (eq. 5 with the stored degree sum - S of
  footnote 9); otherwise a nonzero counter counts down.
- ` + "`res_valid_i`" + ` delivers one subwarp's conflict degree; the sum of
  (degree - 1) over the warp's S subwarps is written for ` + "`res_pc_i`" + ` with the
  last one: to the hit way, else the lowest invalid way, else the way the
  set's replacement pointer names (round robin over replacements). A lookup
  in the same cycle sees the cache before the write. ` + "`rst` and `launch_i`" + `
  clear the cache's valid bits and the counter.`

var warpReadyMaskAttrs = append([]Attr{
	{Name: "warp_contexts", Required: true, Type: "number", Doc: "W, one ready bit per hardware warp, 1..64."},
	{Name: "history_sets", Required: true, Type: "number", Doc: "Sets of the bank-conflict history cache, a power of two 2..4096."},
	{Name: "history_ways", Required: true, Type: "number", Doc: "Ways per set, 1..8."},
	{Name: "pc_bits", Required: true, Type: "number", Doc: "PC width, >= log2(history_sets); the low log2(sets) bits index the cache, the rest is the tag."},
}, simdAttrs...)

var warpReadyMaskSchema = schemaOf(warpReadyMaskAttrs)

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
