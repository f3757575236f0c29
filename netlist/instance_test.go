package netlist

import (
	"strings"
	"testing"
)

// xorSub is a 4-bit unit: y = a[1:0] ^ a[3:2], z = a[0] (a pass-through).
func xorSub(t *testing.T) *Design {
	t.Helper()
	b := NewBuilder("xsub")
	a := b.Input("a", 4, "")
	b.Output("y", Bus{b.Xor(a[0], a[2]), b.Xor(a[1], a[3])}, "")
	b.Output("z", Bus{a[0]}, "")
	d, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestInstance_FlatCopy places a unit twice and checks that the parent
// simulates as the composition, keeps both copies whole (even an unused
// output's logic) and knows which gates are whose.
func TestInstance_FlatCopy(t *testing.T) {
	sub := xorSub(t)
	b := NewBuilder("top")
	in := b.Input("in", 8, "")
	u0 := b.Instance("u0", sub, map[string]Bus{"a": in[0:4]})
	u1 := b.Instance("u1", sub, map[string]Bus{"a": in[4:8]})
	// u1's y is unused: its gates must stay, as the printed instance has them.
	b.Output("o", Bus{b.And(u0["y"][0], u1["z"][0]), u0["y"][1]}, "")
	d, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Instances) != 2 || d.Instances[1].Last-d.Instances[1].First != len(sub.Gates) {
		t.Fatalf("instances %+v, want two whole copies of %d gates", d.Instances, len(sub.Gates))
	}
	own := d.InstanceOf()
	for k, inst := range d.Instances {
		for i := inst.First; i < inst.Last; i++ {
			if own[i] != k {
				t.Errorf("gate %d belongs to %d, want %d", i, own[i], k)
			}
		}
	}
	if got := d.Submodules(); len(got) != 1 || got[0] != sub {
		t.Errorf("Submodules = %v, want [xsub]", got)
	}
	s := NewSim(d)
	for v := uint64(0); v < 256; v++ {
		words := make([]uint64, 8) // bit i of the port in every lane of the simulator
		for i := range words {
			words[i] = -(v >> i & 1)
		}
		s.SetInput(0, words)
		s.Eval()
		out := make([]uint64, 2)
		s.Output(1, out)
		got := out[0]&1 | out[1]&1<<1
		y0 := (v ^ v>>2) & 3
		want := (y0 & 1 & (v >> 4)) | (y0>>1)<<1
		if got != want {
			t.Fatalf("in %#x: o = %b, want %b", v, got, want)
		}
	}
}

// TestInstance_Refused: widths, unknown ports, clocked units and a
// repeated instance name are errors at Build.
func TestInstance_Refused(t *testing.T) {
	sub := xorSub(t)
	clocked := NewBuilder("reg1")
	clocked.Clock("clk", "")
	x := clocked.Input("x", 1, "")
	q := clocked.Reg("q", 1)
	clocked.Next(q, Bus{x[0]})
	clocked.Output("q", q, "")
	cd, err := clocked.Build()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		add  func(b *Builder, in Bus)
		want string
	}{
		{"width", func(b *Builder, in Bus) { b.Instance("u", sub, map[string]Bus{"a": in[:3]}) }, "input a wants 4 bits, got 3"},
		{"port", func(b *Builder, in Bus) { b.Instance("u", sub, map[string]Bus{"a": in, "y": in[:2]}) }, "y is not an input port"},
		{"clocked", func(b *Builder, in Bus) { b.Instance("u", cd, map[string]Bus{"x": in[:1]}) }, "only combinational"},
		{"twice", func(b *Builder, in Bus) {
			b.Instance("u", sub, map[string]Bus{"a": in})
			b.Instance("u", sub, map[string]Bus{"a": in})
		}, "used twice"},
	}
	for _, c := range cases {
		b := NewBuilder("top")
		in := b.Input("in", 4, "")
		c.add(b, in)
		b.Output("o", Bus{in[0]}, "")
		if _, err := b.Build(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}
