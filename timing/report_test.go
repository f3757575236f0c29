package timing

import (
	"math"
	"testing"

	"github.com/lsugen/lsugen/netlist"
)

// TestCyclesAt_ThesisTables applies the cycle count to the FO4 figures that
// 003_* Tables 5.1 and 5.2 list, and gets the tables' cycle counts.
func TestCyclesAt_ThesisTables(t *testing.T) {
	cases := []struct {
		fo4, clock float64
		want       int
	}{
		{55.92, 40, 2}, {55.92, 48, 2}, {55.92, 56, 1}, // all-to-all, 32 lanes
		{46, 40, 2}, {46, 48, 1}, {46, 56, 1}, // detector, 32 lanes
		{112.25, 40, 3}, {112.25, 48, 3}, {112.25, 56, 3}, // all-to-all, 64 lanes
		{55.17, 40, 2}, {55.17, 48, 2}, {55.17, 56, 1}, // detector, 64 lanes
		{0, 40, 1}, {40, 40, 1}, {40.0001, 40, 2},
	}
	for _, c := range cases {
		if got := CyclesAt(c.fo4, c.clock); got != c.want {
			t.Errorf("CyclesAt(%v, %v) = %d, want %d", c.fo4, c.clock, got, c.want)
		}
	}
}

// TestSized_BufferChain: a unit inverter driving 64 unit loads takes 65τ
// unsized; sized, two inverters of sizes 4 and 16 bring it to
// 3·64^(1/3) + 1 + 2 = 15τ.
func TestSized_BufferChain(t *testing.T) {
	d, n, size := buffered(64, 1, 1)
	if math.Abs(d-15) > 1e-9 || n != 2 || math.Abs(size-20) > 1e-9 {
		t.Errorf("buffered(64, 1, 1) = %v τ, %d inverters of total size %v; want 15, 2, 20", d, n, size)
	}
	if d, n, _ := buffered(3, 1, 1); d != 4 || n != 0 {
		t.Errorf("a light load gets buffers: %v τ, %d", d, n)
	}
}

// TestSized_NeverSlower: on a wide-fanout design, sized mode is faster than
// unsized and grows with the logarithm of fanout, not linearly.
func TestSized_NeverSlower(t *testing.T) {
	delay := func(fanout int, mode Mode) float64 {
		b := netlist.NewBuilder("fan")
		a := b.Input("a_i", 1, "")
		c := b.Input("c_i", fanout, "")
		out := make(netlist.Bus, fanout)
		for i := range out {
			out[i] = b.Xor(a[0], c[i])
		}
		b.Output("y_o", out, "")
		d, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		opt := DefaultOptions()
		opt.Mode = mode
		r, err := Analyze(d, opt)
		if err != nil {
			t.Fatal(err)
		}
		return r.FO4
	}
	u16, u64 := delay(16, Unsized), delay(64, Unsized)
	s16, s64 := delay(16, Sized), delay(64, Sized)
	if s16 > u16 || s64 > u64 {
		t.Errorf("sized slower than unsized: %v > %v or %v > %v", s16, u16, s64, u64)
	}
	if u64-u16 < 3*(s64-s16) {
		t.Errorf("4x fanout: unsized grows %v FO4, sized %v FO4; want sized growth far smaller", u64-u16, s64-s16)
	}
}
