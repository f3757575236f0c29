package rtl

import (
	"strings"
	"testing"
)

// TestWrap_BreaksAtSpacesOnly checks that wrapped lines fit, keep the
// text's tokens (only whitespace changes) and break at the shallowest
// nesting first.
func TestWrap_BreaksAtSpacesOnly(t *testing.T) {
	var terms []string
	for i := 0; i < 40; i++ {
		terms = append(terms, "(a_"+strings.Repeat("x", i%7)+"[3] & b[4])")
	}
	line := "    assign y = " + strings.Join(terms, " | ") + ";"
	out := wrap(line, 80)
	if len(out) < 2 {
		t.Fatalf("a %d-character line was not broken", len(line))
	}
	for _, l := range out {
		if len(l) > 80 {
			t.Errorf("line of %d characters: %q", len(l), l)
		}
		if !strings.HasPrefix(l, "    ") {
			t.Errorf("continuation not indented: %q", l)
		}
	}
	for _, l := range out[1:] {
		if !strings.HasPrefix(strings.TrimLeft(l, " "), "| (") && !strings.HasPrefix(strings.TrimLeft(l, " "), "(") {
			t.Errorf("line broken inside a term, not before an operator of the top level: %q", l)
		}
	}
	if got, want := strings.Fields(strings.Join(out, "\n")), strings.Fields(line); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("tokens changed:\n%v\n%v", got, want)
	}
}

// TestWrap_CommentsAndStrings checks that a long comment wraps as
// comment lines, a trailing comment stays a comment and a string literal
// is never broken.
func TestWrap_CommentsAndStrings(t *testing.T) {
	long := "    // " + strings.Repeat("word ", 30)
	for _, l := range wrap(long, 60) {
		if !strings.HasPrefix(l, "    // ") || len(l) > 60 {
			t.Errorf("comment line %q", l)
		}
	}
	code := `    x = f("` + strings.Repeat("a b ", 20) + `", y, z); // ` + strings.Repeat("note ", 10)
	out := wrap(code, 60)
	joined := strings.Join(out, "\n")
	if !strings.Contains(joined, `"`+strings.Repeat("a b ", 20)+`"`) {
		t.Errorf("string literal broken:\n%s", joined)
	}
	for _, l := range out {
		if _, c := splitComment(l); c == "" && strings.Contains(l, "note") {
			t.Errorf("comment text outside a comment: %q", l)
		}
	}
	if short := "    assign y = a;"; len(wrap(short, 60)) != 1 || wrap(short, 60)[0] != short {
		t.Errorf("short line changed")
	}
}
