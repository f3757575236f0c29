package trace

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParse_Format(t *testing.T) {
	src := `# header comment

0 1 2 0x3   # trailing comment
@load_a
  16 0X20 18446744073709551615
@ store_b
7
`
	got, err := Parse(strings.NewReader(src), "t.trace")
	if err != nil {
		t.Fatal(err)
	}
	want := &Trace{File: "t.trace", Accesses: []Access{
		{Instr: "", Line: 3, Addrs: []uint64{0, 1, 2, 3}},
		{Instr: "load_a", Line: 5, Addrs: []uint64{16, 32, 1<<64 - 1}},
		{Instr: "store_b", Line: 7, Addrs: []uint64{7}},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

func TestParse_Errors(t *testing.T) {
	many := strings.Repeat("1 ", MaxLanes+1)
	for _, c := range []struct{ name, src, want string }{
		{"bad number", "1 2\n3 x4\n", "f:2: address 2: \"x4\" is not a decimal or 0x-hex word address"},
		{"negative", "-1\n", "f:1: address 1: \"-1\" is not"},
		{"plus sign", "+1\n", "f:1: address 1: \"+1\" is not"},
		{"empty hex", "0x\n", "f:1: address 1: \"0x\" is not"},
		{"bad hex", "0xg\n", "f:1: address 1: \"0xg\" is not"},
		{"underscore", "1_000\n", "f:1: address 1: \"1_000\" is not"},
		{"overflow", "\n18446744073709551616\n", "f:2: address 1: \"18446744073709551616\" does not fit in 64 bits"},
		{"hex overflow", "0x10000000000000000\n", "f:1: address 1: \"0x10000000000000000\" does not fit in 64 bits"},
		{"at without name", "@   # nothing\n", "f:1: \"@\" without an instruction name"},
		{"name with space", "@a b\n", "f:1: instruction name \"a b\" contains white space"},
		{"too many lanes", many + "\n", "f:1: 1025 addresses in one access, at most 1024 lanes allowed"},
		{"line too long", "1" + strings.Repeat(" ", MaxLineBytes) + "\n", "f:1: line longer than"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(c.src), "f")
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("got error %v, want prefix %q", err, c.want)
			}
		})
	}
}

func TestParse_MaxLanesAccepted(t *testing.T) {
	tr, err := Parse(strings.NewReader(strings.Repeat("5 ", MaxLanes)), "f")
	if err != nil || len(tr.Accesses) != 1 || len(tr.Accesses[0].Addrs) != MaxLanes {
		t.Fatalf("got %v, %v", tr, err)
	}
}

// endless yields zeros and spaces forever, as a huge file would.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
		if i%64 == 0 {
			p[i] = '\n'
		}
	}
	return len(p), nil
}

func TestParse_FileTooBig(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 1 GiB")
	}
	_, err := Parse(endless{}, "big")
	if err == nil || !strings.Contains(err.Error(), "trace longer than") {
		t.Fatalf("got %v", err)
	}
}

type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestParse_ReadError(t *testing.T) {
	_, err := Parse(io.MultiReader(strings.NewReader("1\n"), failing{}), "f")
	if err == nil || !strings.Contains(err.Error(), "f:2: disk on fire") {
		t.Fatalf("got %v", err)
	}
}

func TestParseFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.trace")
	if err := os.WriteFile(p, []byte("@x\n1 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := ParseFile(p)
	if err != nil || tr.File != p || len(tr.Accesses) != 1 || tr.Accesses[0].Instr != "x" {
		t.Fatalf("got %+v, %v", tr, err)
	}
	if _, err := ParseFile(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("missing file accepted")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"0 1 2 3\n",
		"@ld\n0x10 0x20 # c\n\n",
		"@\n",
		"18446744073709551616\n",
		"0x 0xg -1 +1\n",
		"#only comment",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tr, err := Parse(strings.NewReader(s), "fuzz")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz:") {
				t.Fatalf("error without file name: %v", err)
			}
			return
		}
		for _, a := range tr.Accesses {
			if len(a.Addrs) == 0 || len(a.Addrs) > MaxLanes || a.Line < 1 {
				t.Fatalf("bad access %+v", a)
			}
		}
	})
}

// TestScan_QuickAndGeneralPaths: the ASCII lines read without strings give
// what the general reading gives, numbers at the edges of the quick
// parse included, and lines with Unicode white space still split on it.
func TestScan_QuickAndGeneralPaths(t *testing.T) {
	src := "1 0x1F 0XfF\t007  18446744073709551615 0xffffffffffffffff 0x0000000000000000001 \r\n" +
		"1\u00a02\u3000 3 # é\n" +
		"\u00a0 @ld\u00a0\n" +
		"\v9\f\n"
	tr, err := Parse(strings.NewReader(src), "q.trace")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]uint64{{1, 31, 255, 7, 1<<64 - 1, 1<<64 - 1, 1}, {1, 2, 3}, {9}}
	if len(tr.Accesses) != len(want) {
		t.Fatalf("%d accesses, want %d", len(tr.Accesses), len(want))
	}
	for i, a := range tr.Accesses {
		if !slices.Equal(a.Addrs, want[i]) {
			t.Errorf("access %d: %v, want %v", i, a.Addrs, want[i])
		}
	}
	if got := tr.Accesses[2].Instr; got != "ld" {
		t.Errorf("instruction %q, want ld", got)
	}
	for _, c := range []struct{ line, err string }{
		{"1 x2", `q.trace:1: address 2: "x2" is not a decimal or 0x-hex word address`},
		{"0x", `q.trace:1: address 1: "0x" is not a decimal or 0x-hex word address`},
		{"18446744073709551616", `q.trace:1: address 1: "18446744073709551616" does not fit in 64 bits`},
		{"0x1_0", `q.trace:1: address 1: "0x1_0" is not a decimal or 0x-hex word address`},
		{"+1", `q.trace:1: address 1: "+1" is not a decimal or 0x-hex word address`},
		{"1\u00a0y", `q.trace:1: address 2: "y" is not a decimal or 0x-hex word address`},
		{strings.Repeat("1 ", MaxLanes+1) + "z", fmt.Sprintf("q.trace:1: %d addresses in one access, at most %d lanes allowed", MaxLanes+2, MaxLanes)},
	} {
		_, err := Parse(strings.NewReader(c.line+"\n"), "q.trace")
		if err == nil || err.Error() != c.err {
			t.Errorf("%q: error %v, want %s", c.line, err, c.err)
		}
	}
}
