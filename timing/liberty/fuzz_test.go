package liberty

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseLibrary: no input makes the reader panic or loop; a library it
// accepts can be characterized without a panic (an error is fine).
func FuzzParseLibrary(f *testing.F) {
	f.Add([]byte(tinyLib(f)))
	f.Add([]byte(linearLibrary("")))
	f.Add([]byte(linearLibrary("DFF")))
	f.Add([]byte(`library (x) { wire_load ("w") { fanout_length (3, 1); slope : -1; } default_wire_load : w; }`))
	f.Fuzz(func(t *testing.T, src []byte) {
		l, err := ParseLibrary(src)
		if err != nil {
			return
		}
		Characterize(l, Options{})
	})
}

// FuzzParseFunction: no function text makes the parser panic; one it
// accepts evaluates over its own variables.
func FuzzParseFunction(f *testing.F) {
	for _, s := range []string{"!A", "(A&!B) | (!A&B)", "A1 A2 + B1'", "(A0&!S)|(A1&S)", "1", "A^B^C"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fn, err := ParseFunction(s)
		if err != nil {
			return
		}
		if len(fn.Vars()) <= 6 {
			if _, err := fn.TruthTable(fn.Vars()); err != nil {
				t.Fatalf("%q over its own variables: %v", s, err)
			}
		}
	})
}

// FuzzParse: the reader, from a file's bytes (plain, or gzipped when gz)
// through ReadFile and ParseLibrary (FuzzParseLibrary goes on to
// Characterize), under a 64 KiB inflated cap and a 1 KiB token cap: nothing panics, an inflated
// input past the cap is refused, and no message is long or carries raw
// bytes.
func FuzzParse(f *testing.F) {
	f.Add([]byte(tinyLib(f)), false)
	f.Add([]byte(tinyLib(f)), true)
	f.Add([]byte(linearLibrary("DFF")), true)
	f.Add([]byte("library (x) { a : \"\x1b[2J\xff\"; }\n\x00\x01"), false)
	f.Add([]byte(strings.Repeat("A", 2000)), true)
	f.Add(gzipped(f, make([]byte, 100<<10)), false) // a small bomb
	name := filepath.Join(f.TempDir(), "f.lib")
	f.Fuzz(func(t *testing.T, data []byte, gz bool) {
		ob, ot := maxBytes, maxToken
		maxBytes, maxToken = 64<<10, 1<<10
		defer func() { maxBytes, maxToken = ob, ot }()
		file := data
		if gz {
			file = gzipped(t, data)
		}
		if err := os.WriteFile(name, file, 0o644); err != nil {
			t.Fatal(err)
		}
		src, err := ReadFile(name)
		if err != nil {
			if gz && len(data) <= 64<<10 {
				t.Fatalf("%d bytes gzipped: %v", len(data), err)
			}
			checkMessage(t, err)
			return
		}
		if len(src) > 64<<10 {
			t.Fatalf("ReadFile returned %d bytes past the 64 KiB cap", len(src))
		}
		if _, err := ParseLibrary(src); err != nil {
			checkMessage(t, err)
		}
	})
}

// checkMessage: a message is at most 2 KB of printable UTF-8.
func checkMessage(t *testing.T, err error) {
	t.Helper()
	msg := err.Error()
	if len(msg) > 2000 || !utf8.ValidString(msg) || strings.ContainsAny(msg, "\x00\x1b\r\n") {
		t.Fatalf("message of %d bytes: %.300q", len(msg), msg)
	}
}
