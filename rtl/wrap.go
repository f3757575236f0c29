package rtl

import "strings"

// MaxLineLength is the longest line the writers emit: a longer statement
// is broken over lines at a space (before an operator, after a comma),
// preferring the shallowest nesting, and its continuation lines are
// indented by their nesting so that the structure reads down the page.
const MaxLineLength = 200

// WrapText breaks every line of a Verilog text longer than MaxLineLength
// as the writers of this package do (wrap): for the other writers of
// generated Verilog (testbenches).
func WrapText(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		for j, w := range wrap(l, MaxLineLength) {
			if j > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(w)
		}
		if i < len(lines)-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// wrap breaks line into lines of at most limit characters where it can:
// only at spaces outside string literals, so that the Verilog's tokens are
// unchanged. A comment line wraps into comment lines; a trailing comment
// that does not fit beside its code goes on lines of its own before it. A
// single token longer than the limit stays whole.
func wrap(line string, limit int) []string {
	if len(line) <= limit {
		return []string{line}
	}
	indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
	code, comment := splitComment(line)
	if strings.TrimSpace(code) == "" {
		return wrapComment(indent, strings.TrimPrefix(strings.TrimLeft(line, " "), "//"), limit)
	}
	code = strings.TrimRight(code, " ")
	if comment != "" {
		if len(code) < limit-4 {
			// The comment wraps in its own column, beside the code.
			col := len(line) - len(comment)
			if col+20 > limit {
				col = len(code) + 2
			}
			lead := strings.Repeat(" ", col)
			cs := wrapComment(lead, strings.TrimPrefix(comment, "//"), limit)
			out := []string{pad(code, col) + strings.TrimLeft(cs[0], " ")}
			return append(out, cs[1:]...)
		}
		return append(wrapComment(indent, strings.TrimPrefix(comment, "//"), limit), wrapCode(code, indent, limit)...)
	}
	return wrapCode(code, indent, limit)
}

// splitComment splits a line at a // that is not in a string literal.
func splitComment(line string) (code, comment string) {
	inStr := false
	for i := 0; i < len(line); i++ {
		switch {
		case inStr && line[i] == '\\':
			i++
		case line[i] == '"':
			inStr = !inStr
		case !inStr && strings.HasPrefix(line[i:], "//"):
			return line[:i], line[i:]
		}
	}
	return line, ""
}

// wrapComment word-wraps text as // lines at indent.
func wrapComment(indent, text string, limit int) []string {
	words := strings.Fields(text)
	var out []string
	cur := indent + "//"
	for _, w := range words {
		if len(cur)+1+len(w) > limit && cur != indent+"//" {
			out = append(out, cur)
			cur = indent + "//"
		}
		cur += " " + w
	}
	return append(out, cur)
}

// wrapCode breaks a statement at spaces outside string literals. Each
// line ends at the shallowest break that keeps it within the limit (the
// last of those, so lines stay full), and the next line is indented four
// spaces past the statement plus two per open bracket.
func wrapCode(code, indent string, limit int) []string {
	type brk struct{ at, depth int } // code[at] is the space broken at
	var brks []brk
	depth, inStr := 0, false
	for i := len(indent); i < len(code); i++ {
		c := code[i]
		switch {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '(' || c == '{' || c == '[':
			depth++
		case c == ')' || c == '}' || c == ']':
			depth--
		case c == ' ' && i+1 < len(code) && code[i+1] != ' ' && code[i-1] != ' ':
			brks = append(brks, brk{i, max(depth, 0)})
		}
	}
	var out []string
	start, lead := len(indent), indent
	for len(lead)+len(code)-start > limit {
		best := -1
		for j, b := range brks {
			if b.at <= start {
				continue
			}
			if len(lead)+b.at-start > limit {
				break
			}
			if best < 0 || b.depth <= brks[best].depth {
				best = j
			}
		}
		if best < 0 {
			// No space within the limit: break at the first one after it.
			for j, b := range brks {
				if b.at > start {
					best = j
					break
				}
			}
			if best < 0 {
				break
			}
		}
		b := brks[best]
		out = append(out, lead+code[start:b.at])
		start = b.at + 1
		lead = indent + "    " + strings.Repeat("  ", min(b.depth, 16))
	}
	return append(out, lead+code[start:])
}
