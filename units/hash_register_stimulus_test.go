package units

import (
	"strings"
	"testing"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/specs"
)

// TestHashRegisterStimulus_Covers drives the register model of a
// configurable rap (a multi-word cfg_perm_i) and checks that the stream
// writes back to back and after long gaps, resets, and is reproducible.
func TestHashRegisterStimulus_Covers(t *testing.T) {
	h := &specs.Hash{Name: "r", Function: specs.RAP, AddrBits: 12, BankBits: 5, W: 32, Adder: specs.AdderRipple,
		Configurable: true, Config: specs.ConfigRegister}
	run := func(seed uint64) string {
		m, err := model.ForHashRegister(h)
		if err != nil {
			t.Fatal(err)
		}
		s, err := hashRegisterStimulus(h)(m.Ports(), seed)
		if err != nil {
			t.Fatal(err)
		}
		var in, out [][]uint64
		for _, p := range m.Ports() {
			v := make([]uint64, (p.Width+63)/64)
			if p.Output {
				out = append(out, v)
			} else {
				in = append(in, v)
			}
		}
		var writes, b2b, resets, longGap, gap int
		last := false
		for range 20000 {
			for _, v := range in {
				clear(v)
			}
			s.Next(in)
			m.Cycle(in, out)
			s.Observe(in, out)
			rst, we := in[0][0]&1 == 1, in[1][0]&1 == 1
			switch {
			case rst:
				resets++
			case we:
				writes++
				if last {
					b2b++
				}
				longGap = max(longGap, gap)
				gap = 0
			default:
				gap++
			}
			last = we && !rst
		}
		if writes < 100 || b2b < 20 || resets < 5 || longGap < 300 {
			t.Errorf("seed %d: %d writes, %d back to back, %d resets, longest gap %d", seed, writes, b2b, resets, longGap)
		}
		return s.Coverage()
	}
	a := run(7)
	if b := run(7); a != b {
		t.Errorf("not reproducible:\n%s\n%s", a, b)
	}
	if !strings.Contains(a, "configuration writes") {
		t.Errorf("coverage %q", a)
	}
	if _, err := hashRegisterStimulus(h)([]model.Port{{Name: "rst", Width: 1}, {Name: "addr_i", Width: 12}}, 1); err == nil {
		t.Error("no cfg_we_i: want an error")
	}
}
