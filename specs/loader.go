// Package specs decodes and validates lsugen's HCL spec files into typed
// unit specs. Every decoded spec keeps the source range of its block and of
// each attribute, so later stages can point a diagnostic at the attribute
// that caused it.
//
// # Spec language
//
// A spec file is written in HCL native syntax. It holds any number of unit
// blocks (`hash`, `coalescer`, `monotonicity_detector`, each describing
// one hardware unit), `pattern "NAME" { ... }` blocks (access patterns for
// the analysis tools; see [Pattern]) and `locals { ... }` blocks:
//
//	locals {
//	  ways = 16
//	  m    = log2(local.ways)
//	}
//
//	hash "smem_xor" {
//	  function  = "xor_matrix"
//	  addr_bits = 12
//	  bank_bits = local.m
//	  bits      = [for b in range(local.m) : [b, b + 4, b + 8]]
//	}
//
// NAME becomes the Verilog module and file name, so it must be a Verilog
// identifier that is not a keyword. Names are unique across all files loaded
// together.
//
// The arguments of a hash block are function (bitvector_perm, bitvector_xor,
// bitwise_perm, bitwise_xor, xor_matrix, fixed_xor, add or rap), addr_bits,
// bank_bits, configurable, and the function's own configuration: k;
// k1, k2 and mask; bits; adder; w with permutation or seed. A configurable
// unit takes its configuration on input ports at run time, so it must not
// give the constant configuration arguments. See [Hash] for their meaning.
//
// Expressions may use arithmetic, conditionals, for expressions, local.NAME
// references and the functions log2, clog2, pow2, range, min, max, abs,
// floor, ceil, length, concat, reverse and flatten. Locals belong to the
// file that declares them and may refer to each other in any order (but
// not in a cycle). No other variables exist.
//
// Sizes are bounded (see [MaxAddrBits] and friends, and [MaxSpecBytes]);
// oversized inputs are refused with a diagnostic before any work
// proportional to their size is done.
package specs

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// MaxSpecBytes is the size limit of one spec file. Real specs are a few
// kilobytes; the limit keeps the recursive HCL parser and evaluator within
// sane stack and time bounds on hostile input.
const MaxSpecBytes = 256 << 10

// Loader reads spec files. It keeps every file it parsed so that a caller
// can print diagnostics with source snippets (see Files). A Loader is not
// safe for concurrent use.
type Loader struct {
	parser *hclparse.Parser
	// redefined holds the header ranges of blocks with an attribute set
	// twice (see markRedefined).
	redefined map[hcl.Range]bool
}

// NewLoader returns a Loader with no files loaded.
func NewLoader() *Loader {
	return &Loader{parser: hclparse.NewParser()}
}

// Files returns the parsed files by name, for hcl.NewDiagnosticTextWriter.
func (l *Loader) Files() map[string]*hcl.File {
	return l.parser.Files()
}

// Load reads, parses and decodes the named files. Each file has its own
// locals; unit names must be unique across all of them. A file that cannot
// be read or parsed is reported and skipped; the others are still decoded.
//
// The returned File is never nil; when diags has errors it holds the units
// that were fully valid, if any. Units are in source order, files in the
// order given.
func (l *Loader) Load(paths ...string) (file *File, diags hcl.Diagnostics) {
	defer recoverInternal(&file, &diags)
	var files []*hcl.File
	for _, path := range paths {
		src, d := readSpec(path)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		f, d := l.parse(src, path)
		diags = append(diags, d...)
		if f != nil {
			files = append(files, f)
		}
	}
	file, d := decode(files)
	l.dropRedefined(file)
	return file, boundDiags(sortDiags(append(diags, d...), paths))
}

// Parse decodes one in-memory spec file. Like Load, it never returns a nil
// File.
func (l *Loader) Parse(src []byte, filename string) (file *File, diags hcl.Diagnostics) {
	defer recoverInternal(&file, &diags)
	f, diags := l.parse(src, filename)
	if f == nil || (diags.HasErrors() && !onlyRedefined(diags)) {
		return &File{}, boundDiags(sortDiags(diags, nil))
	}
	file, d := decode([]*hcl.File{f})
	l.dropRedefined(file)
	return file, boundDiags(sortDiags(append(diags, d...), nil))
}

// sortDiags orders diagnostics by file (in the order given) and position,
// so that output does not depend on map order inside HCL.
func sortDiags(diags hcl.Diagnostics, files []string) hcl.Diagnostics {
	rank := map[string]int{}
	for i, f := range files {
		if _, ok := rank[f]; !ok {
			rank[f] = i
		}
	}
	sort.SliceStable(diags, func(i, j int) bool {
		a, b := diags[i].Subject, diags[j].Subject
		if a == nil || b == nil {
			return a != nil // diagnostics without a position go last
		}
		if a.Filename != b.Filename {
			return rank[a.Filename] < rank[b.Filename]
		}
		return a.Start.Byte < b.Start.Byte
	})
	return diags
}

// MaxDiagnosticText bounds the summary and the detail of a diagnostic in
// bytes. A message that quotes a value from the spec (a name, a string, a
// local) would otherwise repeat a value of hundreds of kilobytes in every
// error about it.
const MaxDiagnosticText = 2 << 10

// boundDiags cuts every summary and detail longer than MaxDiagnosticText,
// noting how many bytes were left out.
func boundDiags(diags hcl.Diagnostics) hcl.Diagnostics {
	for _, d := range diags {
		d.Summary = boundString(d.Summary)
		d.Detail = boundString(d.Detail)
	}
	return diags
}

func boundString(s string) string {
	if len(s) <= MaxDiagnosticText {
		return s
	}
	cut := MaxDiagnosticText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d more bytes not shown)", len(s)-cut)
}

// internalErrorSummary marks a panic turned into a diagnostic. It is a bug
// in this package; the fuzz test fails on it.
const internalErrorSummary = "Internal error in spec loader"

// recoverInternal turns a panic into an error diagnostic, so that a bug in
// the loader costs the user a bug report rather than the whole tool.
func recoverInternal(file **File, diags *hcl.Diagnostics) {
	r := recover()
	if r == nil {
		return
	}
	*file = &File{}
	*diags = append(*diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  internalErrorSummary,
		Detail:   fmt.Sprintf("The spec loader failed unexpectedly; please report this bug: %v\n%s", r, debug.Stack()),
		Subject:  &hcl.Range{Filename: "<internal>", Start: hcl.InitialPos, End: hcl.InitialPos},
	})
}

// fileStart is the range used for diagnostics about a file as a whole.
func fileStart(filename string) *hcl.Range {
	return &hcl.Range{Filename: filename, Start: hcl.InitialPos, End: hcl.InitialPos}
}

// readSpec reads a spec file, refusing one larger than MaxSpecBytes without
// reading it all.
func readSpec(path string) ([]byte, hcl.Diagnostics) {
	failed := func(err error) hcl.Diagnostics {
		return hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Failed to read spec file",
			Detail:   fmt.Sprintf("Cannot read %s: %s.", path, err),
			Subject:  fileStart(path),
		}}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, failed(err)
	}
	defer f.Close()
	// Read one byte past the limit so a too-large file (or endless pipe) is
	// detected without reading it all.
	src, err := io.ReadAll(io.LimitReader(f, MaxSpecBytes+1))
	if err != nil {
		return nil, failed(err)
	}
	return src, nil
}

// parse parses one file and prepares its syntax tree for evaluation. It
// returns a nil file when the source has errors.
func (l *Loader) parse(src []byte, filename string) (*hcl.File, hcl.Diagnostics) {
	if len(src) > MaxSpecBytes {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Spec file too large",
			Detail:   fmt.Sprintf("%s is larger than %d bytes, the limit for one spec file.", filename, MaxSpecBytes),
			Subject:  fileStart(filename),
		}}
	}
	if isVerilog(filename, src) {
		l.parser.AddFile(filename, &hcl.File{Body: hcl.EmptyBody(), Bytes: src})
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Verilog, not an HCL spec",
			Detail:   fmt.Sprintf("%s is Verilog, not an HCL spec: give the .hcl spec it was generated from (or use verify --rtl).", filename),
			Subject:  fileStart(filename),
		}}
	}
	// The HCL parser is recursive: refuse deep nesting before parsing.
	if diags := checkNesting(src, filename); diags.HasErrors() {
		l.parser.AddFile(filename, &hcl.File{Body: hcl.EmptyBody(), Bytes: src})
		return nil, diags
	}
	f, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	l.parser.AddFile(filename, f)
	if diags.HasErrors() && !onlyRedefined(diags) {
		// A partial body gives confusing follow-up errors: fix syntax first.
		return nil, diags
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return nil, append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Unsupported spec syntax",
			Detail:   "Spec files must use HCL native syntax.",
			Subject:  fileStart(filename),
		})
	}
	redefined := diags.HasErrors()
	diags = append(diags, prepareBody(body)...)
	if diags.HasErrors() && !(redefined && onlyRedefined(diags)) {
		return nil, diags
	}
	if redefined {
		l.markRedefined(body, diags)
	}
	return f, diags
}

// redefinedSummary is the summary of HCL's parse error for an attribute set
// twice in one body.
const redefinedSummary = "Attribute redefined"

// onlyRedefined reports whether every error in diags is an attribute set
// twice. The parser has then built the whole body (keeping the first
// definition), so the rest of the file can still be decoded and its other
// errors reported.
func onlyRedefined(diags hcl.Diagnostics) bool {
	for _, d := range diags {
		if d.Severity == hcl.DiagError && d.Summary != redefinedSummary {
			return false
		}
	}
	return true
}

// markRedefined records the top-level blocks of body that hold an attribute
// set twice: they are decoded for their other diagnostics but never
// returned as valid units.
func (l *Loader) markRedefined(body *hclsyntax.Body, diags hcl.Diagnostics) {
	if l.redefined == nil {
		l.redefined = map[hcl.Range]bool{}
	}
	for _, d := range diags {
		if d.Summary != redefinedSummary || d.Subject == nil {
			continue
		}
		for _, b := range body.Blocks {
			r := b.Range()
			if r.Filename == d.Subject.Filename && r.ContainsOffset(d.Subject.Start.Byte) {
				l.redefined[b.DefRange()] = true
			}
		}
	}
}

// dropRedefined removes from file the units and patterns whose block holds
// an attribute set twice.
func (l *Loader) dropRedefined(file *File) {
	if len(l.redefined) == 0 || file == nil {
		return
	}
	units := file.Units[:0]
	for _, u := range file.Units {
		if !l.redefined[u.DeclRange()] {
			units = append(units, u)
		}
	}
	file.Units = units
	patterns := file.Patterns[:0]
	for _, p := range file.Patterns {
		if !l.redefined[p.Range] {
			patterns = append(patterns, p)
		}
	}
	file.Patterns = patterns
}

// decode decodes parsed files, each with its own locals, and checks that
// unit names are unique across all of them.
func decode(files []*hcl.File) (*File, hcl.Diagnostics) {
	out := &File{}
	var diags hcl.Diagnostics
	declared := map[string]hcl.Range{}
	failed := map[string]bool{}
	for _, f := range files {
		blocks, units, moreDiags := newDecoder().decodeFile(f)
		diags = append(diags, moreDiags...)
		for i, block := range blocks {
			name := block.Labels[0]
			if first, dup := declared[name]; dup {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Duplicate unit name",
					Detail: fmt.Sprintf("A unit named %q was already declared at %s. Unit names must be unique across all spec files loaded together, because they become Verilog module names.",
						name, first.String()),
					Subject: block.DefRange.Ptr(),
				})
				continue
			}
			declared[name] = block.DefRange
			if units[i] == nil {
				failed[name] = true
			}
			switch u := units[i].(type) {
			case *Pattern:
				out.Patterns = append(out.Patterns, u)
			case Unit:
				out.Units = append(out.Units, u)
			}
		}
	}
	bad, refDiags := resolveRefs(out.Units, declared, failed)
	diags = append(diags, refDiags...)
	if len(bad) > 0 {
		kept := out.Units[:0]
		for _, u := range out.Units {
			if !bad[u] {
				kept = append(kept, u)
			}
		}
		out.Units = kept
	}
	return out, diags
}

// decoded passes a block decoder's result on as an untyped value: nil (not
// a typed nil pointer) when the block had errors.
func decoded[T any](v *T, diags hcl.Diagnostics) (any, hcl.Diagnostics) {
	if v == nil {
		return nil, diags
	}
	return v, diags
}

// decodeFile decodes one file: its locals first, then its unit blocks in
// source order. units[i] is the Unit or *Pattern of blocks[i], or nil when
// the block has errors.
func (d *decoder) decodeFile(f *hcl.File) (blocks []*hcl.Block, units []any, diags hcl.Diagnostics) {
	content, diags := f.Body.Content(rootSchema)
	for _, block := range content.Blocks {
		if block.Type == "locals" {
			diags = append(diags, d.decodeLocalsBlock(block)...)
		} else {
			blocks = append(blocks, block)
		}
	}
	diags = append(diags, d.evalLocals()...)
	for _, block := range blocks {
		// Content has refused any type not in rootSchema, which is built
		// from blockKinds, so the lookup cannot miss.
		u, moreDiags := blockKindByType[block.Type].decode(d, block)
		diags = append(diags, moreDiags...)
		units = append(units, u)
	}
	return blocks, units, diags
}

// verilogStart is the start of a Verilog source after comments: a
// compiler directive (`timescale) or a module header. An HCL block named
// module would be written module "x" { or module x {.
var verilogStart = regexp.MustCompile("^(`[a-z_]+|(macro)?module\\s+[A-Za-z_\\\\][^\\s(;#{]*\\s*[(;#])")

// isVerilog reports whether a spec file is Verilog, by its name (.v, .sv,
// .vh, .svh) or by its first words, so that a user who names a generated
// module is told so rather than shown HCL parse errors.
func isVerilog(filename string, src []byte) bool {
	switch strings.ToLower(filepath.Ext(filename)) {
	case ".v", ".sv", ".vh", ".svh":
		return true
	}
	rest := src
	for {
		rest = bytes.TrimLeft(rest, " \t\r\n\ufeff")
		switch {
		case bytes.HasPrefix(rest, []byte("//")):
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				return false
			}
			rest = rest[i:]
		case bytes.HasPrefix(rest, []byte("/*")):
			i := bytes.Index(rest[2:], []byte("*/"))
			if i < 0 {
				return false
			}
			rest = rest[i+4:]
		default:
			if len(rest) > 256 {
				rest = rest[:256]
			}
			return verilogStart.Match(rest)
		}
	}
}
