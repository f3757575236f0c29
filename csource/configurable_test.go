package csource

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lsugen/lsugen/internal/testenv"
	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/toolchain"
)

// configurableSpec adds shapes the example configurable units lack: shifts
// and selections reaching past a 6-bit address, 64-bit addresses, and a
// rap that passes one address bit through.
const configurableSpec = `
hash "c6_bvperm" {
  function     = "bitvector_perm"
  addr_bits    = 6
  bank_bits    = 2
  configurable = true
}
hash "c6_bvxor" {
  function     = "bitvector_xor"
  addr_bits    = 6
  bank_bits    = 3
  configurable = true
}
hash "c64_bwperm" {
  function     = "bitwise_perm"
  addr_bits    = 64
  bank_bits    = 8
  configurable = true
}
hash "c6_bwxor" {
  function     = "bitwise_xor"
  addr_bits    = 6
  bank_bits    = 2
  configurable = true
}
hash "c_rap_w8" {
  function     = "rap"
  w            = 8
  addr_bits    = 7
  configurable = true
}
`

// TestConfigurableHeader_MatchesModel compiles the header of every
// configurable unit of the examples and of configurableSpec, calls its
// functions at random configurations (each argument with bits above its
// field's width, which the port drops) on random addresses, and compares
// each output with the behavioural model at the same port values.
func TestConfigurableHeader_MatchesModel(t *testing.T) {
	var hs []*specs.Hash
	f, diags := specs.NewLoader().Load("../specs/hash_configurable.hcl")
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	g, diags := specs.NewLoader().Parse([]byte(configurableSpec), "configurable.hcl")
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	for _, u := range append(f.Units, g.Units...) {
		if h, ok := u.(*specs.Hash); ok && h.Configurable {
			hs = append(hs, h)
		}
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(30, 3))
	var drv strings.Builder
	drv.WriteString("#include <stdio.h>\n#include <inttypes.h>\n")
	for _, h := range hs {
		b, err := ConfigurableHeader(h, Info{Version: "lsugen test", Source: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, h.Name+".h"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&drv, "#include \"%s.h\"\n", h.Name)
	}
	drv.WriteString("int main(void)\n{\n\tint i;\n\n")
	var want []string
	for _, h := range hs {
		m, err := model.ForHash(h)
		if err != nil {
			t.Fatal(err)
		}
		regs, err := model.HashRegisters(h)
		if err != nil {
			t.Fatal(err)
		}
		as := []uint64{0, ^uint64(0)}
		for range 64 {
			as = append(as, rng.Uint64())
		}
		fmt.Fprintf(&drv, "\t{\n\t\tstatic const uint64_t as[%d] = {", len(as))
		for _, a := range as {
			fmt.Fprintf(&drv, "UINT64_C(%#x), ", a)
		}
		drv.WriteString("};\n")
		for c := range 6 {
			cfg := &model.HashConfig{Regs: regs, Values: make([][]uint64, len(regs))}
			var args []string
			for i, r := range regs {
				vals := make([]string, r.Fields)
				cfg.Values[i] = make([]uint64, r.Fields)
				extraBits := 8 - r.FieldBits // uint8_t arrays
				if r.Fields == 1 || h.Function == specs.RAP {
					extraBits = 32 - r.FieldBits
				}
				for k := range r.Fields {
					v := rng.Uint64() & r.Max()
					if c == 0 {
						v = r.Max() // every selection past the address where it can be
					}
					cfg.Values[i][k] = v
					arg := v
					if extraBits > 0 {
						arg |= (rng.Uint64() & (1<<extraBits - 1)) << r.FieldBits
					}
					vals[k] = strconv.FormatUint(arg, 10) + "u"
				}
				if r.Fields == 1 {
					args = append(args, vals[0])
					continue
				}
				typ := "uint8_t"
				if h.Function == specs.RAP {
					typ = "uint32_t"
				}
				fmt.Fprintf(&drv, "\t\t{ static const %s %s_%d[%d] = {%s};\n", typ, r.Key, c, r.Fields, strings.Join(vals, ", "))
				args = append(args, fmt.Sprintf("%s_%d", r.Key, c))
			}
			call := strings.Join(args, ", ")
			fmt.Fprintf(&drv, "\t\tfor (i = 0; i < %d; i++) {\n", len(as))
			fmt.Fprintf(&drv, "\t\t\tprintf(\"%%\" PRIx64 \"\\n\", (uint64_t)%s_bank(as[i], %s));\n", h.Name, call)
			if h.Function == specs.RAP {
				fmt.Fprintf(&drv, "\t\t\tprintf(\"%%\" PRIx64 \"\\n\", (uint64_t)%s_addr(as[i], %s));\n", h.Name, call)
			}
			drv.WriteString("\t\t}\n")
			for _, r := range regs {
				if r.Fields > 1 {
					drv.WriteString("\t\t}\n")
				}
			}
			// the model at the same port values
			var in, out [][]uint64
			ci := 0
			for _, p := range m.Ports() {
				v := make([]uint64, (p.Width+63)/64)
				switch {
				case p.Output:
					out = append(out, v)
				case p.Name == "addr_i":
					in = append(in, v)
				default:
					copy(v, cfg.Port(ci))
					ci++
					in = append(in, v)
				}
			}
			for _, a := range as {
				in[0][0] = a
				m.Eval(in, out)
				for _, o := range out {
					want = append(want, fmt.Sprintf("%x", o[0]))
				}
			}
		}
		drv.WriteString("\t}\n")
	}
	drv.WriteString("\treturn 0;\n}\n")
	if err := os.WriteFile(filepath.Join(dir, "drv.c"), []byte(drv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tc, err := toolchain.Find("cc")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cc := tc.Command(dir, append([]string{"-std=c99", "-O2", "-o", "drv", "drv.c"}, warnFlags...)...)
	cc.Timeout = time.Minute
	if _, err := cc.Run(ctx); err != nil {
		t.Fatal(err)
	}
	run := &toolchain.Cmd{Path: filepath.Join(dir, "drv"), Dir: dir, Timeout: testenv.Limit(time.Minute), SplitStdout: true}
	res, err := run.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Fields(string(res.Stdout))
	if len(got) != len(want) {
		t.Fatalf("%d outputs, want %d", len(got), len(want))
	}
	bad := 0
	for i := range want {
		if got[i] != want[i] {
			if bad < 5 {
				t.Errorf("output %d = %s, model %s", i, got[i], want[i])
			}
			bad++
		}
	}
	t.Logf("%d units, %d outputs compared, %d differ", len(hs), len(want), bad)
}

// TestConfigurableHeader_Refuses: a constant unit and a configurable one
// of a function with no configurable form are errors.
func TestConfigurableHeader_Refuses(t *testing.T) {
	for _, h := range []*specs.Hash{
		nil,
		{Name: "c", Function: specs.BitvectorPerm, AddrBits: 8, BankBits: 3, K: 1},
		{Name: "x", Function: specs.XorMatrix, AddrBits: 8, BankBits: 3, Configurable: true},
		{Name: "r", Function: specs.RAP, W: 3, AddrBits: 8, Configurable: true},
	} {
		if b, err := ConfigurableHeader(h, Info{}); err == nil {
			t.Errorf("%+v: a header of %d bytes, want an error", h, len(b))
		}
	}
}
