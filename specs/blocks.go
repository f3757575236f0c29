package specs

import (
	"github.com/hashicorp/hcl/v2"
)

// Attr is one argument of a block: what the decoder reads and what the
// spec reference (docs/spec-reference.md, generated from these tables)
// says about it. The tables sit beside their decoders.
type Attr struct {
	Name     string
	Required bool
	Type     string // as the reference shows it: number, string, bool, list, ...
	Doc      string // one paragraph of Markdown
	// Refers is, for a reference argument (Type "reference"), the kind of
	// unit it names, written KIND.NAME; the decoder does not evaluate it.
	Refers string
}

// BlockKind is one top-level block type of a spec file: its arguments, its
// documentation and its decoder. The loader's root schema and its dispatch
// both come from blockKinds, so a block type is declared once.
type BlockKind struct {
	Type string
	// Unit is true for hardware units (they reach gen, timing and
	// verify); false for analysis inputs such as pattern.
	Unit bool
	// Doc introduces the block in the spec reference (Markdown).
	Doc   string
	Attrs []Attr

	decode func(d *decoder, block *hcl.Block) (any, hcl.Diagnostics)
}

// blockKinds lists every labelled top-level block, in documentation order.
// Every Unit kind here has one row in the family table (package units); a
// test there fails when the two disagree.
var blockKinds = []BlockKind{
	{Type: "hash", Unit: true, Doc: hashDoc, Attrs: hashAttrs,
		decode: func(d *decoder, b *hcl.Block) (any, hcl.Diagnostics) { return decoded(d.decodeHashBlock(b)) }},
	{Type: "coalescer", Unit: true, Doc: coalescerDoc, Attrs: coalescerAttrs,
		decode: func(d *decoder, b *hcl.Block) (any, hcl.Diagnostics) { return decoded(d.decodeCoalescerBlock(b)) }},
	{Type: "monotonicity_detector", Unit: true, Doc: detectorDoc, Attrs: detectorAttrs,
		decode: func(d *decoder, b *hcl.Block) (any, hcl.Diagnostics) {
			return decoded(d.decodeMonotonicityDetectorBlock(b))
		}},
	{Type: "elastic_pipeline", Unit: true, Doc: elasticPipelineDoc, Attrs: elasticPipelineAttrs,
		decode: func(d *decoder, b *hcl.Block) (any, hcl.Diagnostics) {
			return decoded(d.decodeElasticPipelineBlock(b))
		}},
	{Type: "warp_ready_mask", Unit: true, Doc: warpReadyMaskDoc, Attrs: warpReadyMaskAttrs,
		decode: func(d *decoder, b *hcl.Block) (any, hcl.Diagnostics) { return decoded(d.decodeWarpReadyMaskBlock(b)) }},
	{Type: "bank_arbiter", Unit: true, Doc: bankArbiterDoc, Attrs: bankArbiterAttrs,
		decode: func(d *decoder, b *hcl.Block) (any, hcl.Diagnostics) { return decoded(d.decodeBankArbiterBlock(b)) }},
	{Type: "shared_memory", Unit: true, Doc: sharedMemoryDoc, Attrs: sharedMemoryAttrs,
		decode: func(d *decoder, b *hcl.Block) (any, hcl.Diagnostics) { return decoded(d.decodeSharedMemoryBlock(b)) }},
	{Type: "pattern", Doc: patternDoc, Attrs: patternAttrs,
		decode: func(d *decoder, b *hcl.Block) (any, hcl.Diagnostics) { return decoded(d.decodePatternBlock(b)) }},
}

// BlockKinds returns the labelled top-level block types in documentation
// order (locals, which has no label and no fixed arguments, is not listed).
func BlockKinds() []BlockKind {
	out := make([]BlockKind, len(blockKinds))
	copy(out, blockKinds)
	for i := range out {
		out[i].Attrs = append([]Attr(nil), out[i].Attrs...)
	}
	return out
}

// UnitKinds returns the block types that decode to hardware units.
func UnitKinds() []string {
	var out []string
	for _, k := range blockKinds {
		if k.Unit {
			out = append(out, k.Type)
		}
	}
	return out
}

// blockKindByType indexes blockKinds for the loader's dispatch.
var blockKindByType = func() map[string]*BlockKind {
	m := map[string]*BlockKind{}
	for i := range blockKinds {
		m[blockKinds[i].Type] = &blockKinds[i]
	}
	return m
}()

// rootSchema is the top level of a spec file: every block kind, and locals.
var rootSchema = func() *hcl.BodySchema {
	s := &hcl.BodySchema{}
	for _, k := range blockKinds {
		s.Blocks = append(s.Blocks, hcl.BlockHeaderSchema{Type: k.Type, LabelNames: []string{"name"}})
	}
	s.Blocks = append(s.Blocks, hcl.BlockHeaderSchema{Type: "locals"})
	return s
}()

// schemaOf is the HCL schema of an argument table.
func schemaOf(attrs []Attr) *hcl.BodySchema {
	s := &hcl.BodySchema{}
	for _, a := range attrs {
		s.Attributes = append(s.Attributes, hcl.AttributeSchema{Name: a.Name, Required: a.Required})
	}
	return s
}

// LanguageDoc introduces the spec language in the spec reference: what a
// file holds, expressions, locals and limits. Each block kind's own text
// is its BlockKind.Doc.
const LanguageDoc = `A spec file is written in HCL native syntax. It holds any number of unit
blocks (one hardware unit each), ` + "`pattern`" + ` blocks (access patterns for the
analysis tools) and ` + "`locals`" + ` blocks:

` + "```hcl" + `
locals {
  addr_bits = 14        # 48 kB of 4-byte words
  bank_bits = log2(32)  # 32 banks
}

hash "transpose_bvxor" {
  function  = "bitvector_xor"
  addr_bits = local.addr_bits
  bank_bits = local.bank_bits
  k1        = 0
  k2        = 4
  mask      = 14
}
` + "```" + `

A block's label (NAME) becomes the Verilog module and file name, so it must
be a Verilog identifier that is not a Verilog, SystemVerilog or C++ keyword;
names are unique across all files loaded together.

Expressions may use arithmetic, conditionals, ` + "`for`" + ` expressions,
` + "`local.NAME`" + ` references and the functions ` + "`log2(x)`" + ` (x a power of two),
` + "`clog2(x)`, `pow2(n)`, `range(...)`" + ` (at most 4096 elements), ` + "`min`, `max`,\n`abs`, `floor`, `ceil`, `length`, `concat`, `reverse` and `flatten`" + `. Locals belong
to the file that declares them and may refer to each other in any order
(but not in a cycle). No other variables exist.

Spec files are limited to 256 KiB and bounded in evaluation work; sizes
are bounded per argument (below) and refused before any work starts.
Every mistake is an HCL diagnostic with file, line, column and the source
snippet, and all of them are reported at once: unknown blocks and
arguments, wrong types, missing arguments, out-of-range values, duplicate
unit names, and warnings for hashes that cannot reach every bank.`
