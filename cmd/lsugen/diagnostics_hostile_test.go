package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"

	"github.com/lsugen/lsugen/specs"
)

// Diagnostics of issue 18: what a diagnostic echoes from the input is
// escaped and bounded.

// genStderr runs lsugen gen on a spec with content src and returns its
// exit status and standard error.
func genStderr(t *testing.T, src string) (int, string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "s.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run([]string{"gen", "-o", filepath.Join(dir, "out"), path}, &out, &errb)
	return code, errb.String()
}

// checkPrintable fails when s holds a control character other than newline
// and tab, or invalid UTF-8.
func checkPrintable(t *testing.T, what, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Errorf("%s: invalid UTF-8 reaches the terminal: %q", what, s)
	}
	for _, r := range s {
		if r != '\n' && r != '\t' && (r < 0x20 || (r >= 0x7f && r <= 0x9f)) {
			t.Errorf("%s: control character %U reaches the terminal: %q", what, r, s)
			return
		}
	}
}

// TestHostile_DiagnosticsEscapeControlChars: terminal escape sequences,
// other control characters and invalid UTF-8 in a spec are shown escaped in
// the snippet and messages; an ordinary diagnostic is printed exactly as
// HCL's text writer prints it.
func TestHostile_DiagnosticsEscapeControlChars(t *testing.T) {
	for _, src := range []string{
		"hash \"a\" {\n  function  = \"xor\x1b[31mmatrix\x07\"\n  addr_bits = 12\n  bank_bits = 4\n}\n",
		"hash \"a\" {\n  function  = nosuch(\"\x1b]0;pwned\x07\")\n  addr_bits = 12\n  bank_bits = 4\n}\n",
		"hash \"a\" {\n  function  = \"x\xff\xfe\xc2\x9b\"\n  addr_bits = 12\n  bank_bits = 4\n}\n",
		"hash \"a\x1b[2J\" {\n  function  = \"fixed_xor\"\n  addr_bits = 12\n  bank_bits = 4\n}\n",
		"hash \"a\" {\n  function  = \"fixed_xor\" \x1b[2J\n}\n",
	} {
		code, stderr := genStderr(t, src)
		if code != 1 && code != 2 {
			t.Errorf("%q: exit %d", src, code)
		}
		checkPrintable(t, src, stderr)
		if !strings.Contains(stderr, `\x`) && !strings.Contains(stderr, `\u`) {
			t.Errorf("%q: no escaped character in %q", src, stderr)
		}
	}

	// An ordinary diagnostic is unchanged.
	src := "hash \"a\" {\n  function  = \"xor_matrx\"\n  addr_bits = 12\n  bank_bits = 4\n}\n"
	_, stderr := genStderr(t, src)
	loader := specs.NewLoader()
	_, diags := loader.Parse([]byte(src), "x.hcl")
	var want bytes.Buffer
	_ = hcl.NewDiagnosticTextWriter(&want, loader.Files(), 100, false).WriteDiagnostics(diags)
	wantS := want.String()
	// The paths differ: compare with the file name replaced.
	got := regexp.MustCompile(`/[^ :]*/s\.hcl`).ReplaceAllString(stderr, "x.hcl")
	if !strings.HasPrefix(got, wantS) {
		t.Errorf("ordinary diagnostic changed:\n%s\nwant\n%s", got, wantS)
	}
}

// TestHostile_DiagnosticsBounded: a 384 KB local used wrongly in 20 places
// prints a few kilobytes per error, and a long snippet line is cut around
// the highlighted range.
func TestHostile_DiagnosticsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("locals {\n  a = \"" + strings.Repeat("x", 2000) + "\"\n")
	b.WriteString("  b = \"${local.a}${local.a}${local.a}${local.a}\"\n")
	b.WriteString("  c = \"${local.b}${local.b}${local.b}${local.b}\"\n")
	b.WriteString("  d = \"" + strings.Repeat("${local.c}", 12) + "\"\n}\n")
	for i := 0; i < 10; i++ {
		b.WriteString("hash \"h" + string(rune('a'+i)) + "\" {\n  function  = local.d\n  addr_bits = local.d + 1\n  bank_bits = 4\n}\n")
	}
	// A 20 KB line with the error at its end.
	b.WriteString("locals {\n  e = [" + strings.Repeat("1, ", 7000) + "nosuch(1)]\n}\n")
	code, stderr := genStderr(t, b.String())
	if code != 1 && code != 2 {
		t.Errorf("exit %d", code)
	}
	if len(stderr) > 100<<10 {
		t.Errorf("%d bytes of diagnostics; want well under 100 KB", len(stderr))
	}
	if !strings.Contains(stderr, "nosuch") || !strings.Contains(stderr, "…") {
		t.Errorf("the long line's error is not shown cut around its subject")
	}
	for _, line := range strings.Split(stderr, "\n") {
		if regexp.MustCompile(`^ *[0-9]+: `).MatchString(line) && utf8.RuneCountInString(line) > 220 {
			t.Errorf("snippet line of %d characters", utf8.RuneCountInString(line))
		}
	}
}
