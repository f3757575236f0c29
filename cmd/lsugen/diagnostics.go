package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	wordwrap "github.com/mitchellh/go-wordwrap"
	"github.com/zclconf/go-cty/cty"

	"github.com/lsugen/lsugen/internal/termtext"
	"github.com/lsugen/lsugen/specs"
)

// Bounds on what a diagnostic echoes from the user's input (issue 18): a
// snippet line is cut around its highlighted range, a long summary or detail
// is cut with a note of how much was left out, and a value is shown by its
// type and size past a few dozen characters. At most maxDiagnostics
// diagnostics are shown, the others counted.
const (
	maxSnippetCols = 200
	maxSummary     = 500
	maxDetail      = 4 << 10
	maxValueChars  = 60
	maxDiagnostics = 100
)

// writeDiagnostics prints diags in HCL's text layout (summary, file line,
// snippet with the subject highlighted, detail), then one
// file:line:column line per diagnostic. Everything echoed from the input is
// escaped (control characters, invalid UTF-8) and bounded.
func writeDiagnostics(w io.Writer, loader *specs.Loader, diags hcl.Diagnostics) {
	// Colour only on a terminal, and never when NO_COLOR is set.
	color := os.Getenv("NO_COLOR") == "" && isTerminal(w)
	files := loader.Files()
	var shown hcl.Diagnostics
	for _, d := range diags {
		if d != nil {
			shown = append(shown, d)
		}
	}
	// A file named many times, or many files, repeat their errors: the
	// first maxDiagnostics are shown, the rest counted.
	more := len(shown) - maxDiagnostics
	if more > 0 {
		shown = shown[:maxDiagnostics]
	}
	for _, d := range shown {
		writeDiagnostic(w, files, d, color)
	}
	if more > 0 {
		fmt.Fprintf(w, "... and %d more diagnostics\n\n", more)
	}
	// Then one file:line:column line per diagnostic, for editors and grep.
	for _, d := range shown {
		sev := "error"
		if d.Severity == hcl.DiagWarning {
			sev = "warning"
		}
		pos := "lsugen"
		if d.Subject != nil {
			pos = fmt.Sprintf("%s:%d:%d", escapeText(d.Subject.Filename), d.Subject.Start.Line, d.Subject.Start.Column)
		}
		fmt.Fprintf(w, "%s: %s: %s\n", pos, sev, boundText(d.Summary, maxSummary))
	}
	if more > 0 {
		fmt.Fprintf(w, "... and %d more diagnostics\n", more)
	}
}

// writeDiagnostic renders one diagnostic through HCL's text writer, giving it
// a sanitized copy of the diagnostic and of the source lines it shows.
func writeDiagnostic(w io.Writer, files map[string]*hcl.File, d *hcl.Diagnostic, color bool) {
	c := *d
	c.Summary = boundText(d.Summary, maxSummary)
	c.Detail = ""
	c.Expression, c.EvalContext = nil, nil
	view := map[string]*hcl.File{}
	if d.Subject != nil {
		name := escapeText(d.Subject.Filename)
		subj := *d.Subject
		subj.Filename = name
		c.Subject = &subj
		if d.Context != nil {
			ctx := *d.Context
			ctx.Filename = name
			c.Context = &ctx
		}
		if f := files[d.Subject.Filename]; f != nil && f.Bytes != nil {
			view[name] = snippetFile(f, &c)
		}
	}
	dw := hcl.NewDiagnosticTextWriter(w, view, 100, color)
	_ = dw.WriteDiagnostic(&c)
	if d.Subject != nil && d.Expression != nil && d.EvalContext != nil {
		writeValues(w, d)
	}
	if d.Detail != "" {
		detail := wordwrap.WrapString(boundText(d.Detail, maxDetail), 100)
		fmt.Fprintf(w, "%s\n\n", detail)
	}
}

// writeValues prints the values of the variables an expression refers to,
// as HCL's writer does, but each bounded.
func writeValues(w io.Writer, d *hcl.Diagnostic) {
	var stmts []string
	seen := map[string]bool{}
	for _, t := range d.Expression.Variables() {
		val, diags := t.TraverseAbs(d.EvalContext)
		if diags.HasErrors() {
			continue
		}
		name := traversalStr(t)
		if seen[name] {
			continue
		}
		switch {
		case !val.IsKnown(), val.IsMarked():
			continue
		case val.IsNull():
			stmts = append(stmts, name+" set to null")
		default:
			stmts = append(stmts, name+" as "+valueStr(val))
		}
		seen[name] = true
	}
	sort.Strings(stmts)
	for i, s := range stmts {
		lead, end := "     ", ",\n"
		if i == 0 {
			lead = "with "
		}
		if i == len(stmts)-1 {
			end = ".\n\n"
		}
		fmt.Fprintf(w, "%s%s%s", lead, s, end)
	}
}

func traversalStr(t hcl.Traversal) string {
	var b strings.Builder
	for _, step := range t {
		switch s := step.(type) {
		case hcl.TraverseRoot:
			b.WriteString(escapeText(s.Name))
		case hcl.TraverseAttr:
			b.WriteString("." + escapeText(s.Name))
		case hcl.TraverseIndex:
			if s.Key.Type().IsPrimitiveType() {
				b.WriteString("[" + valueStr(s.Key) + "]")
			} else {
				b.WriteString("[...]")
			}
		}
	}
	return b.String()
}

// valueStr renders a value as HCL's writer does, except that a long string
// is shown by its first characters and its length.
func valueStr(val cty.Value) string {
	ty := val.Type()
	switch {
	case val.IsNull():
		return "null"
	case !val.IsKnown():
		return "(not yet known)"
	case ty == cty.Bool:
		if val.True() {
			return "true"
		}
		return "false"
	case ty == cty.Number:
		return val.AsBigFloat().Text('g', 10)
	case ty == cty.String:
		s := val.AsString()
		if len(s) <= maxValueChars {
			return fmt.Sprintf("%q", s)
		}
		cut := maxValueChars
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return fmt.Sprintf("%q… (a string of %d bytes)", s[:cut], len(s))
	case ty.IsCollectionType() || ty.IsTupleType():
		switch l := val.LengthInt(); l {
		case 0:
			return "empty " + ty.FriendlyName()
		case 1:
			return ty.FriendlyName() + " with 1 element"
		default:
			return fmt.Sprintf("%s with %d elements", ty.FriendlyName(), l)
		}
	case ty.IsObjectType():
		atys := ty.AttributeTypes()
		switch len(atys) {
		case 0:
			return "object with no attributes"
		case 1:
			for k := range atys {
				return fmt.Sprintf("object with 1 attribute %q", boundText(k, maxValueChars))
			}
		}
		return fmt.Sprintf("object with %d attributes", len(atys))
	}
	return ty.FriendlyName()
}

// boundText escapes s and cuts it past max bytes, noting how much was left
// out.
func boundText(s string, max int) string {
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return escapeText(s[:cut]) + fmt.Sprintf("… (%d more bytes not shown)", len(s)-cut)
	}
	return escapeText(s)
}

// escapeText escapes control characters other than newline and tab, and
// invalid UTF-8, so that text from the input cannot drive the terminal.
func escapeText(s string) string { return termtext.Escape(s) }

// snippetFile builds the source HCL's writer shows for diagnostic c: the
// lines its snippet covers, escaped and cut to maxSnippetCols columns around
// the highlighted range, preceded by empty lines so that line numbers stay
// right. It rewrites c's Subject and Context to the new byte offsets.
func snippetFile(f *hcl.File, c *hcl.Diagnostic) *hcl.File {
	src := f.Bytes
	clamp := func(b int) int { return max(0, min(b, len(src))) }
	lo, hi := clamp(c.Subject.Start.Byte), clamp(c.Subject.End.Byte)
	if c.Context != nil {
		lo, hi = min(lo, clamp(c.Context.Start.Byte)), max(hi, clamp(c.Context.End.Byte))
	}
	hlStart, hlEnd := clamp(c.Subject.Start.Byte), clamp(c.Subject.End.Byte)
	if hlEnd <= hlStart {
		hlEnd = hlStart + 1
	}
	// The lines covering [lo, hi].
	first := bytes.LastIndexByte(src[:lo], '\n') + 1
	lineNo := bytes.Count(src[:first], []byte{'\n'})
	var out bytes.Buffer
	out.Write(bytes.Repeat([]byte{'\n'}, lineNo))
	origStart := clamp(c.Subject.Start.Byte)
	var lineMaps []func(int) int
	var lineStarts []int
	for start := first; ; {
		end := bytes.IndexByte(src[start:], '\n')
		next := -1
		if end < 0 {
			end = len(src)
		} else {
			end += start
			next = end + 1
		}
		text := src[start:end]
		text = bytes.TrimSuffix(text, []byte{'\r'})
		pieces := termtext.Pieces(text, false)
		a, b := window(pieces, hlStart-start, hlEnd-start)
		newStart := out.Len()
		newOff := make([]int, 0, b-a+1)
		if a > 0 {
			out.WriteString("…")
		}
		for _, p := range pieces[a:b] {
			newOff = append(newOff, out.Len())
			out.WriteString(p.S)
		}
		if b < len(pieces) {
			out.WriteString("…")
		}
		newEnd := out.Len()
		out.WriteByte('\n')
		ps, lineStart, textLen := pieces, start, len(text)
		lineStarts = append(lineStarts, start)
		lineMaps = append(lineMaps, func(old int) int {
			rel := old - lineStart
			if a < len(ps) && rel < ps[a].Off || rel <= 0 {
				return newStart
			}
			if b < len(ps) && rel >= ps[b].Off || b == a || rel >= textLen {
				return newEnd
			}
			i := sort.Search(b-a, func(i int) bool { return ps[a+i].Off > rel }) - 1
			if i < 0 {
				return newStart
			}
			return newOff[i]
		})
		if next < 0 || next > hi {
			break
		}
		start = next
	}
	remap := func(p hcl.Pos) hcl.Pos {
		old := clamp(p.Byte)
		i := sort.SearchInts(lineStarts, old+1) - 1
		if i < 0 {
			i = 0
		}
		n := lineMaps[i](old)
		p.Byte = n
		p.Column = n - bytes.LastIndexByte(out.Bytes()[:min(n, out.Len())], '\n')
		return p
	}
	remapRange := func(r *hcl.Range) {
		if r == nil {
			return
		}
		empty := r.Empty()
		r.Start, r.End = remap(r.Start), remap(r.End)
		if empty {
			r.End = r.Start
		}
	}
	remapRange(c.Subject)
	remapRange(c.Context)
	nf := &hcl.File{Body: f.Body, Bytes: out.Bytes()}
	if cs, ok := f.Nav.(interface{ ContextString(int) string }); ok {
		nf.Nav = contextNav{cs, origStart}
	}
	return nf
}

// contextNav answers HCL's writer's "in BLOCK" question from the original
// file, whose offsets the snippet copy no longer shares.
type contextNav struct {
	nav interface{ ContextString(int) string }
	off int
}

func (n contextNav) ContextString(int) string { return escapeText(n.nav.ContextString(n.off)) }

// window picks the pieces [a, b) of a line to show: all of them when the
// line fits in maxSnippetCols columns, else a window around the highlighted
// byte range [hlStart, hlEnd) (relative to the line).
func window(pieces []termtext.Piece, hlStart, hlEnd int) (a, b int) {
	width := 0
	for _, p := range pieces {
		width += utf8.RuneCountInString(p.S)
		if width > maxSnippetCols {
			break
		}
	}
	if width <= maxSnippetCols {
		return 0, len(pieces)
	}
	hs := sort.Search(len(pieces), func(i int) bool { return pieces[i].Off >= hlStart })
	he := sort.Search(len(pieces), func(i int) bool { return pieces[i].Off >= hlEnd })
	budget := maxSnippetCols - 2 // room for the two ellipses
	hw := 0
	for i := hs; i < he && hw < budget; i++ {
		hw += utf8.RuneCountInString(pieces[i].S)
	}
	left := max(20, (budget-hw)/2)
	a, used := hs, 0
	for a > 0 && used+utf8.RuneCountInString(pieces[a-1].S) <= left {
		a--
		used += utf8.RuneCountInString(pieces[a].S)
	}
	b = a
	used = 0
	for b < len(pieces) && used+utf8.RuneCountInString(pieces[b].S) <= budget {
		used += utf8.RuneCountInString(pieces[b].S)
		b++
	}
	for a > 0 && used+utf8.RuneCountInString(pieces[a-1].S) <= budget {
		a--
		used += utf8.RuneCountInString(pieces[a].S)
	}
	return a, b
}
