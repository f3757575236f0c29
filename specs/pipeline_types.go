package specs

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// PipelineVariant names an elastic_pipeline variant (001_*, Figures 4
// and 6).
type PipelineVariant string

const (
	// PipeElastic is Figure 6: a PREMEM queue of depth N before MEM0, the
	// NONMEM path as a queue of depth M whose entries, and EXE's output,
	// are forwarded to writeback by a priority multiplexer.
	PipeElastic = PipelineVariant("elastic")
	// PipeUnified is Figure 4(a): every instruction goes through the M
	// memory stages; a bank conflict holds MEM0 and stalls EXE.
	PipeUnified = PipelineVariant("baseline_unified")
	// PipeSplit is Figure 4(b): non-memory instructions take an M-stage
	// NONMEM pipeline beside the memory stages; the two meet at writeback.
	PipeSplit = PipelineVariant("baseline_split")
)

// Valid reports whether v is one of the variants.
func (v PipelineVariant) Valid() bool { return v == PipeElastic || v == PipeUnified || v == PipeSplit }

// ElasticPipeline is a decoded `elastic_pipeline "NAME" { ... }` block: the
// back end of an in-order SIMD pipeline from EXE to writeback.
type ElasticPipeline struct {
	Name        string
	MemStages   int // M, the number of memory stages, 1..MaxMemStages
	WarpSize    int // threads per warp, a power of two
	SIMDWidth   int // lanes, a power of two <= WarpSize
	ShmemPorts  int // shared-memory ports, a power of two <= SIMDWidth
	TagBits     int // width of the instruction tag carried to writeback
	PipeVariant PipelineVariant
	// Arbiter, when set, computes each offer's conflict degree from its
	// addresses: a combinational bank_arbiter of SIMDWidth lanes.
	Arbiter *UnitRef

	Range      hcl.Range
	AttrRanges map[string]hcl.Range
}

func (p *ElasticPipeline) UnitName() string     { return p.Name }
func (p *ElasticPipeline) UnitKind() string     { return "elastic_pipeline" }
func (p *ElasticPipeline) DeclRange() hcl.Range { return p.Range }
func (p *ElasticPipeline) Variant() string      { return string(p.PipeVariant) }

// BankArbiter is the referenced arbiter, or nil.
func (p *ElasticPipeline) BankArbiter() *BankArbiter {
	if p.Arbiter == nil {
		return nil
	}
	a, _ := p.Arbiter.Unit.(*BankArbiter)
	return a
}

func (p *ElasticPipeline) refs() []*UnitRef {
	if p.Arbiter == nil {
		return nil
	}
	return []*UnitRef{p.Arbiter}
}

// checkRefs checks the arbiter against the pipeline: one lane per SIMD
// lane, combinational, and no configuration ports to wire through.
func (p *ElasticPipeline) checkRefs() hcl.Diagnostics {
	a := p.BankArbiter()
	if a == nil {
		return nil
	}
	var problems []string
	if a.Lanes != p.SIMDWidth {
		problems = append(problems, fmt.Sprintf("it has %d lanes, the pipeline's simd_width is %d", a.Lanes, p.SIMDWidth))
	}
	if a.Serialize {
		problems = append(problems, "it serializes (serialize = true); the pipeline needs the degree in the cycle of the offer")
	}
	for _, r := range a.refs() {
		if h := r.Hash(); h != nil && h.Configurable {
			problems = append(problems, fmt.Sprintf("its %s %q is configurable, and the pipeline has no configuration ports to wire through", r.Attr, h.Name))
		}
	}
	var diags hcl.Diagnostics
	for _, why := range problems {
		diags = append(diags, refDiag(p.Arbiter, "Unsuitable arbiter", fmt.Sprintf("bank_arbiter %q cannot give this pipeline its degrees: %s.", a.Name, why)))
	}
	return diags
}

// PremDepth is N = ceil(warp_size / simd_width) - 1, the PREMEM queue depth
// of the elastic variant (eq. 3); the baselines have no PREMEM queue.
func (p *ElasticPipeline) PremDepth() int {
	if p.PipeVariant != PipeElastic {
		return 0
	}
	return p.WarpSize/p.SIMDWidth - 1
}

// DegreeBits is the width of a conflict degree input: enough for 0..simd_width.
func (p *ElasticPipeline) DegreeBits() int { return bitsFor(p.SIMDWidth) }

// WarpReadyMask is a decoded `warp_ready_mask "NAME" { ... }` block: the
// bank-conflict-aware warp ready signal generation of 001_* Figure 7.
type WarpReadyMask struct {
	Name         string
	WarpContexts int // hardware warp contexts, one ready bit each
	HistorySets  int // sets of the bank conflict history cache, a power of two
	HistoryWays  int // ways per set
	PCBits       int // instruction PC width; the low log2(sets) bits index the cache
	WarpSize     int
	SIMDWidth    int
	ShmemPorts   int

	Range      hcl.Range
	AttrRanges map[string]hcl.Range
}

func (w *WarpReadyMask) UnitName() string     { return w.Name }
func (w *WarpReadyMask) UnitKind() string     { return "warp_ready_mask" }
func (w *WarpReadyMask) DeclRange() hcl.Range { return w.Range }
func (w *WarpReadyMask) Variant() string      { return "history cache" }

// Subwarps is ceil(warp_size / simd_width), the SIMD accesses per warp.
func (w *WarpReadyMask) Subwarps() int { return w.WarpSize / w.SIMDWidth }

// IndexBits is log2(history_sets).
func (w *WarpReadyMask) IndexBits() int { return log2(w.HistorySets) }

// TagBits is pc_bits - log2(history_sets), the tag stored per entry.
func (w *WarpReadyMask) TagBits() int { return w.PCBits - w.IndexBits() }

// HistoryBits is log2(warp_size), the width of a stored warp conflict
// degree (001_* §4.4) and of the accumulator and counter.
func (w *WarpReadyMask) HistoryBits() int { return log2(w.WarpSize) }

// DegreeBits is the width of a subwarp conflict degree input: 0..simd_width.
func (w *WarpReadyMask) DegreeBits() int { return bitsFor(w.SIMDWidth) }

// Limits of the pipeline family.
const (
	MaxMemStages    = 16
	MaxPipeWarpSize = 1024
	MaxQueueDepth   = 16 // PREMEM depth N = warp_size/simd_width - 1
	MaxTagBits      = 64
	MaxWarpContexts = 64
	MaxHistorySets  = 4096
	MaxHistoryWays  = 8
	MaxPCBits       = 32
)

// bitsFor is the number of bits that hold 0..n.
func bitsFor(n int) int {
	b := 1
	for (1 << b) <= n {
		b++
	}
	return b
}

// log2 of a power of two.
func log2(n int) int {
	b := 0
	for (1 << b) < n {
		b++
	}
	return b
}
