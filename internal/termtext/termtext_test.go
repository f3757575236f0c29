package termtext

import "testing"

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain ±…":              "plain ±…",
		"a\nb\tc":               "a\nb\tc",
		"\x1b]0;title\x07":      `\x1b]0;title\x07`,
		"csi \u009b31m":         `csi \u009b31m`,
		"bad \xff\xfe utf-8":    `bad \xff\xfe utf-8`,
		"rtl \u202eevil\u2066x": `rtl \u202eevil\u2066x`,
		"del \x7f cr \r":        `del \x7f cr \x0d`,
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
		if got := Escape(Escape(in)); got != Escape(in) {
			t.Errorf("Escape is not idempotent on %q", in)
		}
	}
}

func TestPieces_Offsets(t *testing.T) {
	ps := Pieces([]byte("a\x1b\n±"), false)
	want := []Piece{{0, "a"}, {1, `\x1b`}, {2, `\x0a`}, {3, "±"}}
	if len(ps) != len(want) {
		t.Fatalf("Pieces = %v, want %v", ps, want)
	}
	for i := range want {
		if ps[i] != want[i] {
			t.Errorf("piece %d = %v, want %v", i, ps[i], want[i])
		}
	}
}
