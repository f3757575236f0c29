// Package termtext makes text from lsugen's inputs safe to print: control
// characters (escape and OSC sequences, C1 controls, DEL), invalid UTF-8
// and the bidirectional overrides that reorder what a reader sees are
// written as \xNN or \uNNNN, so that a spec, trace, manifest or file name
// cannot drive or deceive the terminal. The command's diagnostics, its
// error messages and the reports that quote input (the sweep's table) use
// it; nothing else escapes text for the terminal.
package termtext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Escape escapes s (see the package comment), keeping newlines and tabs.
func Escape(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || (r != '\n' && NeedsEscape(r)) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, p := range Pieces([]byte(s), true) {
		b.WriteString(p.S)
	}
	return b.String()
}

// NeedsEscape reports whether a rune must not reach the terminal as is: C0
// and C1 controls and DEL (tab excepted), and the bidirectional overrides
// that reorder what the reader sees.
func NeedsEscape(r rune) bool {
	switch {
	case r == '\t':
		return false
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

// Piece is one rune of a text as shown: Off is its byte offset in the
// text, S its (possibly escaped) rendering.
type Piece struct {
	Off int
	S   string
}

// Pieces splits src into runes, escaping those that need it. When
// keepNewline is set, '\n' is kept as is.
func Pieces(src []byte, keepNewline bool) []Piece {
	out := make([]Piece, 0, len(src))
	for i := 0; i < len(src); {
		r, n := utf8.DecodeRune(src[i:])
		var s string
		switch {
		case r == utf8.RuneError && n <= 1:
			s = fmt.Sprintf(`\x%02x`, src[i])
		case r == '\n' && keepNewline:
			s = "\n"
		case NeedsEscape(r) && r < 0x80:
			s = fmt.Sprintf(`\x%02x`, r)
		case NeedsEscape(r):
			s = fmt.Sprintf(`\u%04x`, r)
		default:
			s = string(src[i : i+n])
		}
		out = append(out, Piece{Off: i, S: s})
		i += n
	}
	return out
}
