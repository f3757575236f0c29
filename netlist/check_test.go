package netlist

import (
	"strings"
	"testing"
)

func TestCheck_FindsCombinationalCycle(t *testing.T) {
	// a -> NAND2(a, n7) -> n4 -> INV -> n5 -> INV -> n6 ... and a loop
	// g1 -> g2 -> g3 -> g1 through n5, n6, n7, with a DFF outside it.
	d := &Design{
		Name:    "loop",
		NumNets: 9,
		Ports:   []Port{{Name: "a", Dir: In, Bits: Bus{2, 3}}, {Name: "y", Dir: Out, Bits: Bus{8}}},
		Gates: []Gate{
			{Kind: DFF, In: []Net{5}, Out: 4},
			{Kind: NAND2, In: []Net{2, 7}, Out: 5},
			{Kind: INV, In: []Net{5}, Out: 6},
			{Kind: XOR2, In: []Net{6, 4}, Out: 7},
			{Kind: BUF, In: []Net{7}, Out: 8},
		},
	}
	err := d.Check()
	if err == nil {
		t.Fatal("cycle not found")
	}
	msg := err.Error()
	if !strings.Contains(msg, "cycle through 3 gates") {
		t.Errorf("error %q does not count 3 gates", msg)
	}
	for _, g := range []string{"NAND2 g1", "INV g2", "XOR2 g3"} {
		if !strings.Contains(msg, g) {
			t.Errorf("error %q does not name %s", msg, g)
		}
	}
	for _, g := range []string{"g0", "g4"} {
		if strings.Contains(msg, g+" ") {
			t.Errorf("error %q names %s, which is not on the cycle", msg, g)
		}
	}

	// The same loop through the DFF is legal.
	d.Gates[3].In = []Net{2, 4}
	d.Gates[1].In = []Net{2, 4}
	d.Gates[0].In = []Net{6}
	if err := d.Check(); err != nil {
		t.Errorf("loop through a DFF: %v", err)
	}
}

func TestCheck_RejectsMultipleDrivers(t *testing.T) {
	base := func() *Design {
		return &Design{
			Name:    "drivers",
			NumNets: 6,
			Ports:   []Port{{Name: "a", Dir: In, Bits: Bus{2, 3}}, {Name: "y", Dir: Out, Bits: Bus{4, 5}}},
			Gates: []Gate{
				{Kind: AND2, In: []Net{2, 3}, Out: 4},
				{Kind: OR2, In: []Net{2, 3}, Out: 5},
			},
		}
	}
	if err := base().Check(); err != nil {
		t.Fatalf("valid design: %v", err)
	}
	for name, mutate := range map[string]func(d *Design){
		"two gates":  func(d *Design) { d.Gates[1].Out = 4 },
		"gate+input": func(d *Design) { d.Gates[1].Out = 3 },
	} {
		d := base()
		mutate(d)
		if err := d.Check(); err == nil || !strings.Contains(err.Error(), "more than one driver") {
			t.Errorf("%s: err %v", name, err)
		}
	}
	for name, mutate := range map[string]func(d *Design){
		"constant output": func(d *Design) { d.Gates[1].Out = Const1 },
		"wrong arity":     func(d *Design) { d.Gates[1].In = []Net{2} },
		"undriven input":  func(d *Design) { d.NumNets = 7; d.Gates[1].In = []Net{2, 6} },
		"undriven port":   func(d *Design) { d.Ports[1].Bits = Bus{4, 5, 6} },
		"unknown kind":    func(d *Design) { d.Gates[0].Kind = Kind(200) },
	} {
		d := base()
		mutate(d)
		if err := d.Check(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
