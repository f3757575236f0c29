package trace

import (
	"strings"
	"testing"
)

// TestHolder_Caps: a trace held whole stops at its access and address
// caps with the line that passed them (issue 18: a 1 GiB trace within
// every other limit took 6.2 GB).
func TestHolder_Caps(t *testing.T) {
	src := "0 1 2 3\n@st\n4 5 6 7\n8 9\n"
	for _, c := range []struct {
		accesses, addrs int
		want            string
	}{
		{3, 10, ""},
		{2, 10, "t.trace:4: more than 2 accesses to hold at once"},
		{3, 9, "t.trace:4: more than 9 addresses to hold at once"},
		{3, 7, "t.trace:3: more than 7 addresses to hold at once"},
	} {
		tr := &Trace{File: "t.trace"}
		err := Scan(strings.NewReader(src), "t.trace", holder(tr, c.accesses, c.addrs))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("caps %d/%d: %v", c.accesses, c.addrs, err)
		case c.want == "" && (len(tr.Accesses) != 3 || tr.Accesses[1].Instr != "st" || tr.Accesses[2].Addrs[1] != 9):
			t.Errorf("caps %d/%d: held %+v", c.accesses, c.addrs, tr.Accesses)
		case c.want != "" && (err == nil || err.Error() != c.want):
			t.Errorf("caps %d/%d: error %v, want %q", c.accesses, c.addrs, err, c.want)
		}
	}
}

// TestScan_ReusesOneAccess: Scan hands out one reused access, so that a
// stream holds one line; Parse's copies are independent of it.
func TestScan_ReusesOneAccess(t *testing.T) {
	var seen []*Access
	var first []uint64
	err := Scan(strings.NewReader("1 2 3\n4 5 6\n"), "t", func(a *Access) error {
		if first == nil {
			first = a.Addrs
		}
		seen = append(seen, a)
		return nil
	})
	if err != nil || len(seen) != 2 || seen[0] != seen[1] || first[0] != 4 {
		t.Fatalf("Scan: err %v, %d calls, same access %v, first slice now %v", err, len(seen), len(seen) == 2 && seen[0] == seen[1], first)
	}
	tr, err := Parse(strings.NewReader("1 2 3\n4 5 6\n"), "t")
	if err != nil || tr.Accesses[0].Addrs[0] != 1 || tr.Accesses[1].Addrs[0] != 4 {
		t.Fatalf("Parse: %v %+v", err, tr)
	}
}
