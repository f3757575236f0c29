package testenv

import (
	"testing"
	"time"
)

// TestLimit_ScaleEnv: the variable multiplies every limit; values under 1
// and garbage are ignored (the load factor still applies, and it is ≥ 1).
func TestLimit_ScaleEnv(t *testing.T) {
	for _, c := range []struct {
		env string
		min float64
	}{{"", 1}, {"4", 4}, {"0.5", 1}, {"x", 1}, {"2.5", 2.5}} {
		t.Setenv(ScaleEnv, c.env)
		if s := Scale(); s < c.min {
			t.Errorf("%s=%q: scale %v, want at least %v", ScaleEnv, c.env, s, c.min)
		}
		if l := Limit(time.Second); l < time.Duration(c.min*float64(time.Second)) {
			t.Errorf("%s=%q: Limit(1s) = %v", ScaleEnv, c.env, l)
		}
	}
	if f := loadFactor(); f < 1 {
		t.Errorf("load factor %v, want at least 1", f)
	}
}

// TestRemembered: a passing check's output is kept and given back for the
// same key without running it; another key, a failing check and no cache
// root run.
func TestRemembered(t *testing.T) {
	root := t.TempDir()
	runs := 0
	check := func(out string, pass bool) func() ([]byte, bool) {
		return func() ([]byte, bool) { runs++; return []byte(out), pass }
	}
	key := func(parts ...string) *Key { k := &Key{}; k.Add(parts...); return k }
	if out, passed, cached := Remembered(root, "k", key("a", "b"), check("PASS 1", true)); string(out) != "PASS 1" || !passed || cached || runs != 1 {
		t.Fatalf("first run: %q %v %v, %d runs", out, passed, cached, runs)
	}
	if out, passed, cached := Remembered(root, "k", key("a", "b"), check("other", true)); string(out) != "PASS 1" || !passed || !cached || runs != 1 {
		t.Errorf("same key: %q %v %v, %d runs; want the kept output, no run", out, passed, cached, runs)
	}
	// Parts are length-prefixed: "ab" is not "a" then "b".
	if _, _, cached := Remembered(root, "k", key("ab"), check("PASS 2", true)); cached || runs != 2 {
		t.Errorf("another key answered from the cache")
	}
	if _, _, cached := Remembered(root, "other-kind", key("a", "b"), check("PASS 3", true)); cached || runs != 3 {
		t.Errorf("another kind answered from the cache")
	}
	for range 2 {
		if _, passed, cached := Remembered(root, "k", key("fails"), check("FAIL", false)); passed || cached {
			t.Errorf("a failing check: passed %v, cached %v", passed, cached)
		}
	}
	if runs != 5 {
		t.Errorf("%d runs, want 5: a failing check is run every time", runs)
	}
	if _, _, cached := Remembered("", "k", key("a", "b"), check("PASS 1", true)); cached || runs != 6 {
		t.Errorf("no cache root answered from the cache")
	}
	k := &Key{}
	if err := k.AddFiles(t.TempDir() + "/missing"); err == nil {
		t.Error("AddFiles of a missing file: no error")
	}
}
