package model

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/specs"
)

// TestHashConfig_PortsAndText: the registers follow the cfg_* ports,
// fields pack field 0 low, and String reads back as the same
// configuration.
func TestHashConfig_PortsAndText(t *testing.T) {
	for _, c := range []struct {
		h        *specs.Hash
		text     string
		regs     string
		literals string
	}{
		{&specs.Hash{Name: "x", Function: specs.BitvectorXor, AddrBits: 14, BankBits: 5, Configurable: true},
			"mask=30, k2=4,k1=0", "k1:cfg_k1_i:1x4 k2:cfg_k2_i:1x4 mask:cfg_mask_i:1x5", "4'h0 4'h4 5'h1e"},
		{&specs.Hash{Name: "p", Function: specs.BitwisePerm, AddrBits: 14, BankBits: 5, Configurable: true},
			"sel=[0, 3,4,5,13]", "sel:cfg_sel_i:5x4", "20'hd5430"},
		{&specs.Hash{Name: "r", Function: specs.RAP, W: 4, AddrBits: 4, Configurable: true},
			"perm=[2,0,3,1]", "perm:cfg_perm_i:4x2", "8'h72"},
		{&specs.Hash{Name: "w", Function: specs.RAP, W: 64, AddrBits: 12, Configurable: true},
			"perm=[" + strings.Repeat("63,", 63) + "1]", "perm:cfg_perm_i:64x6", "384'h07" + strings.Repeat("f", 94)},
	} {
		cfg, err := ParseHashConfig(c.h, c.text)
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		var regs, lits []string
		for i, r := range cfg.Regs {
			regs = append(regs, fmt.Sprintf("%s:%s:%dx%d", r.Key, r.Port, r.Fields, r.FieldBits))
			lits = append(lits, cfg.PortLiteral(i))
		}
		if got := strings.Join(regs, " "); got != c.regs {
			t.Errorf("%s: registers %s, want %s", c.h.Name, got, c.regs)
		}
		if got := strings.Join(lits, " "); got != c.literals {
			t.Errorf("%s: ports %s, want %s", c.h.Name, got, c.literals)
		}
		again, err := ParseHashConfig(c.h, cfg.String())
		if err != nil || again.String() != cfg.String() {
			t.Errorf("%s: %q reads back as %v, %v", c.h.Name, cfg.String(), again, err)
		}
	}
}
