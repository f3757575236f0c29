package liberty

import "testing"

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
