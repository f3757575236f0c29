package csource

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/lsugen/lsugen/internal/testenv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/toolchain"
)

// constructedSpec adds units the example specs lack: 64-bit addresses,
// 16 bank bits, every address bit in play, an empty XOR row, w = 1024, a
// degree-16 polynomial, mod with 1023, 24 and 1024 banks, and a 1-bit
// address.
const constructedSpec = `
hash "w64_bvperm" {
  function  = "bitvector_perm"
  addr_bits = 64
  bank_bits = 16
  k         = 48
}
hash "w64_bvxor" {
  function  = "bitvector_xor"
  addr_bits = 64
  bank_bits = 16
  k1        = 3
  k2        = 47
  mask      = 43690
}
hash "w64_bwperm" {
  function  = "bitwise_perm"
  addr_bits = 64
  bank_bits = 16
  bits      = [63, 0, 17, 31, 32, 5, 62, 40, 1, 2, 3, 50, 33, 34, 12, 13]
}
hash "w64_bwxor" {
  function  = "bitwise_xor"
  addr_bits = 64
  bank_bits = 16
  bits      = [for b in range(16) : b == 5 ? [5, 5] : [b, 63 - b]]
}
hash "w64_matrix" {
  function  = "xor_matrix"
  addr_bits = 64
  bank_bits = 16
  bits      = [for b in range(16) : b == 7 ? [] : [for i in range(64) : i if (i * 7 + b) % 3 == 0]]
}
hash "w32_fixed" {
  function  = "fixed_xor"
  addr_bits = 32
  bank_bits = 16
}
hash "w64_add" {
  function  = "add"
  addr_bits = 64
  bank_bits = 16
}
hash "w64_rap" {
  function  = "rap"
  w         = 1024
  addr_bits = 64
  seed      = 3
}
hash "w64_ipoly" {
  function   = "ipoly"
  addr_bits  = 64
  polynomial = [16, 12, 3, 1, 0]
}
hash "w64_mod1023" {
  function  = "mod"
  addr_bits = 64
  banks     = 1023
}
hash "w64_mod24" {
  function  = "mod"
  addr_bits = 64
  banks     = 24
}
hash "w40_mod1024" {
  function  = "mod"
  addr_bits = 40
  banks     = 1024
}
hash "one_bit" {
  function  = "bitwise_perm"
  addr_bits = 1
  bank_bits = 1
  bits      = [0]
}
`

// constructedFile is constructedSpec's file name in diagnostics and ranges.
const constructedFile = "constructed.hcl"

// exhaustiveBits: a unit of at most this many address bits is checked on
// every address; a wider one of the example specs on wideSamples random
// addresses, a wider constructed one, there to cover widths and forms
// rather than values, on constructedSamples.
const (
	exhaustiveBits     = 20
	wideSamples        = 1 << 20
	constructedSamples = 1 << 16
	maskSamples        = 256 // more addresses with bits above addr_bits, for every unit
)

// testUnits loads every constant hash unit of the example specs and of
// constructedSpec, renaming a unit whose name an earlier file used so that
// one driver includes them all. It checks that the configurable ones are
// refused.
func testUnits(t *testing.T) []*specs.Hash {
	t.Helper()
	paths, err := filepath.Glob("../specs/*.hcl")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no example specs (%v)", err)
	}
	var files []*specs.File
	for _, p := range paths {
		f, diags := specs.NewLoader().Load(p)
		if diags.HasErrors() {
			t.Fatalf("%s: %s", p, diags.Error())
		}
		files = append(files, f)
	}
	f, diags := specs.NewLoader().Parse([]byte(constructedSpec), constructedFile)
	if diags.HasErrors() {
		t.Fatalf("constructed units: %s", diags.Error())
	}
	files = append(files, f)
	// The loader refuses a bit listed twice; the model cancels it, and so
	// must the header.
	files = append(files, &specs.File{Units: []specs.Unit{&specs.Hash{
		Name: "repeated_bits", Function: specs.XorMatrix, AddrBits: 12, BankBits: 3,
		Bits: [][]int{{0, 0, 5}, {}, {1, 2, 3, 1, 11}},
	}}})

	var hs []*specs.Hash
	seen := map[string]bool{}
	configurable := 0
	for _, f := range files {
		for _, su := range f.Units {
			h, ok := su.(*specs.Hash)
			if !ok {
				continue
			}
			if h.Configurable {
				configurable++
				if _, err := Header(h, Info{}); !errors.Is(err, ErrConfigurable) {
					t.Errorf("%s is configurable: Header error %v, want ErrConfigurable", h.Name, err)
				}
				continue
			}
			if seen[h.Name] {
				c := *h
				c.Name = fmt.Sprintf("%s_%d", h.Name, len(hs))
				h = &c
			}
			seen[h.Name] = true
			hs = append(hs, h)
		}
	}
	if configurable == 0 {
		t.Error("no configurable example unit: the refusal is untested")
	}
	return hs
}

// addresses are the addresses a unit is checked on: all of them below
// 2^addr_bits up to exhaustiveBits, else wideSamples random ones
// (constructedSamples for a constructed unit), the corners first, and for
// every unit maskSamples with random bits above addr_bits, which the
// header, like the hardware, must ignore.
func addresses(h *specs.Hash, rng *rand.Rand) []uint64 {
	n := h.AddrBits
	samples := wideSamples
	if h.Range.Filename == constructedFile {
		samples = constructedSamples
	}
	var as []uint64
	if n <= exhaustiveBits {
		as = make([]uint64, 0, 1<<n+maskSamples)
		for a := range uint64(1) << n {
			as = append(as, a)
		}
	} else {
		as = append(make([]uint64, 0, samples+maskSamples), 0, ^uint64(0), 0x5555555555555555, 0xaaaaaaaaaaaaaaaa)
		for i := range 64 {
			as = append(as, 1<<i, ^uint64(1<<i))
		}
		for len(as) < samples {
			as = append(as, rng.Uint64())
		}
	}
	for range maskSamples {
		as = append(as, rng.Uint64())
	}
	return as
}

// expected evaluates the model on every address: per address the output
// ports in order (bank, then index or addr).
func expected(h *specs.Hash, as []uint64) (outs int, want []uint64, err error) {
	m, err := model.ForHash(h)
	if err != nil {
		return 0, nil, err
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
	if len(in) != 1 || len(out) < 1 || len(out) > 2 {
		return 0, nil, fmt.Errorf("%s: model has %d inputs and %d outputs, want addr_i and one or two outputs", h.Name, len(in), len(out))
	}
	want = make([]uint64, 0, len(as)*len(out))
	for _, a := range as {
		in[0][0] = a
		m.Eval(in, out)
		for _, o := range out {
			want = append(want, o[0])
		}
	}
	return len(out), want, nil
}

// driverSource is a C program that includes the headers of the units
// (indices into all) and, for each job of its input file (the unit's
// number among them, an address count, the addresses, all uint64 in the
// machine's order), writes each address's outputs.
func driverSource(all []*specs.Hash, units []int) string {
	hs := make([]*specs.Hash, len(units))
	for k, i := range units {
		hs[k] = all[i]
	}
	var b strings.Builder
	b.WriteString(`#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#if defined(LSUGEN_TEST_PORTABLE)
#undef __GNUC__ /* the headers' portable fallbacks */
#endif
`)
	for _, h := range hs {
		fmt.Fprintf(&b, "#include \"%s\"\n", FileName(h))
	}
	for i, h := range hs {
		fmt.Fprintf(&b, "static void eval%d(uint64_t a, uint64_t *out)\n{\n\tout[0] = %s_bank(a);\n", i, h.Name)
		switch h.Function {
		case specs.Mod:
			fmt.Fprintf(&b, "\tout[1] = %s_index(a);\n", h.Name)
		case specs.RAP:
			fmt.Fprintf(&b, "\tout[1] = %s_addr(a);\n", h.Name)
		}
		b.WriteString("}\n")
	}
	b.WriteString("static void (*const evals[])(uint64_t, uint64_t *) = {\n")
	for i := range hs {
		fmt.Fprintf(&b, "\teval%d,\n", i)
	}
	b.WriteString("};\nstatic const size_t nouts[] = {")
	for _, h := range hs {
		n := 1
		if h.Function == specs.Mod || h.Function == specs.RAP {
			n = 2
		}
		fmt.Fprintf(&b, "%d, ", n)
	}
	b.WriteString(`};

int main(int argc, char **argv)
{
	static uint64_t as[4096], res[2 * 4096];
	FILE *in, *out;
	uint64_t job[2];
	size_t n, k, o, nout;

	if (argc != 3 || !(in = fopen(argv[1], "rb")) || !(out = fopen(argv[2], "wb"))) {
		fprintf(stderr, "usage: driver IN OUT\n");
		return 2;
	}
	while (fread(job, sizeof job[0], 2, in) == 2) {
		if (job[0] >= sizeof nouts / sizeof nouts[0]) {
			fprintf(stderr, "bad unit %lu\n", (unsigned long)job[0]);
			return 3;
		}
		nout = nouts[job[0]];
		for (; job[1] > 0; job[1] -= n) {
			n = job[1] < 4096 ? (size_t)job[1] : 4096;
			if (fread(as, sizeof as[0], n, in) != n) {
				fprintf(stderr, "short input\n");
				return 4;
			}
			for (k = 0, o = 0; k < n; k++, o += nout) {
				evals[job[0]](as[k], res + o);
			}
			if (fwrite(res, sizeof res[0], o, out) != o) {
				perror("write");
				return 5;
			}
		}
	}
	if (fclose(out) != 0) {
		perror("close");
		return 5;
	}
	return 0;
}
`)
	return b.String()
}

// cudaPrelude stands in for nvcc: no memory-space qualifiers, and
// __popcll as the CUDA device library defines it.
const cudaPrelude = `#define __host__
#define __device__
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
`

// Warnings the headers must compile clean under, in C and C++.
var warnFlags = []string{"-Wall", "-Wextra", "-Werror", "-pedantic", "-Wconversion", "-Wsign-conversion", "-Wshadow"}

// usesParity reports whether a header calls lsugen_parity64, the only code
// whose C, portable and CUDA device branches differ.
func usesParity(b []byte) bool { return bytes.Contains(b, []byte("lsugen_parity64(addr")) }

// build is one compiler run over a set of units; a driver build is run
// and its output compared with the model.
type build struct {
	name, tool, file string
	source           string
	args             []string
	units            []int // indices into the units; nil: syntax only
}

func (b build) run(ctx context.Context, dir string) error {
	if err := os.WriteFile(filepath.Join(dir, b.file), []byte(b.source), 0o644); err != nil {
		return err
	}
	args := append(append([]string(nil), b.args...), warnFlags...)
	if b.units == nil {
		args = append(args, "-fsyntax-only", b.file)
	} else {
		args = append(args, "-O2", "-o", "drv_"+b.name, b.file)
	}
	tc, err := toolchain.Find(b.tool)
	if err != nil {
		return err
	}
	c := tc.Command(dir, args...)
	c.Timeout = time.Minute
	_, err = c.Run(ctx)
	return err
}

// TestHeaders_MatchModel writes the header of every constant hash unit
// of the example specs and of constructedSpec, compiles a driver that
// includes them all with the C compiler (-std=c99 -O2, warnings as
// errors), and compares its output with the behavioural model on every
// address below 2^20, else on 2^20 random ones (2^16 for constructed
// units). The units that
// use the parity helper are compiled and compared twice more: with its
// portable fallback, and as C++ with the CUDA device branch (__popcll)
// under stand-ins for nvcc. Every header is also compiled as C++11 and as
// the host pass of CUDA.
func TestHeaders_MatchModel(t *testing.T) {
	hs := testUnits(t)
	dir := t.TempDir()
	var all, parity []int
	for i, h := range hs {
		b, err := Header(h, Info{Version: "lsugen test", Source: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, FileName(h)), b, 0o644); err != nil {
			t.Fatal(err)
		}
		all = append(all, i)
		if usesParity(b) {
			parity = append(parity, i)
		}
	}
	if len(parity) == 0 {
		t.Fatal("no unit uses the parity helper: its branches are untested")
	}
	includes := func(units []int) string {
		var b strings.Builder
		for _, i := range units {
			fmt.Fprintf(&b, "#include \"%s\"\n", FileName(hs[i]))
		}
		return b.String()
	}
	builds := []build{
		{name: "c", tool: "cc", file: "drv_c.c", source: driverSource(hs, all), args: []string{"-std=c99"}, units: all},
		{name: "portable", tool: "cc", file: "drv_portable.c", source: driverSource(hs, parity),
			args: []string{"-std=c99", "-DLSUGEN_TEST_PORTABLE", "-Wno-builtin-macro-redefined"}, units: parity},
		{name: "cuda_device", tool: "g++", file: "drv_cuda_device.cpp", source: cudaPrelude + driverSource(hs, parity),
			args: []string{"-std=c++11", "-D__CUDACC__", "-D__CUDA_ARCH__=800"}, units: parity},
		{name: "cxx", tool: "g++", file: "all.cpp", source: includes(all), args: []string{"-std=c++11"}},
		{name: "cuda_host", tool: "g++", file: "all_cuda.cpp", source: cudaPrelude + includes(all), args: []string{"-std=c++11", "-D__CUDACC__"}},
	}

	// The compilers run while every core computes the addresses and the
	// model's answers, unit by unit.
	ctx := context.Background()
	errs := make([]error, len(builds))
	var wg sync.WaitGroup
	for i, b := range builds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = b.run(ctx, dir)
		}()
	}
	type expect struct {
		as   []uint64
		outs int
		want []uint64
	}
	exp := make([]expect, len(hs))
	next := make(chan int, len(hs))
	for i := range hs {
		next <- i
	}
	close(next)
	var mu sync.Mutex
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				as := addresses(hs[i], rand.New(rand.NewPCG(uint64(i), 17)))
				outs, want, err := expected(hs[i], as)
				if err != nil {
					mu.Lock()
					t.Error(err)
					mu.Unlock()
				}
				exp[i] = expect{as, outs, want}
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("%s build: %v", builds[i].name, err)
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	checked := 0
	for _, b := range builds {
		if b.units == nil {
			continue
		}
		size := 0
		for _, i := range b.units {
			size += 8 * (2 + len(exp[i].as))
		}
		in := make([]byte, 0, size)
		for k, i := range b.units {
			in = binary.NativeEndian.AppendUint64(in, uint64(k))
			in = binary.NativeEndian.AppendUint64(in, uint64(len(exp[i].as)))
			for _, a := range exp[i].as {
				in = binary.NativeEndian.AppendUint64(in, a)
			}
		}
		inFile, outFile := "in_"+b.name+".bin", "out_"+b.name+".bin"
		if err := os.WriteFile(filepath.Join(dir, inFile), in, 0o644); err != nil {
			t.Fatal(err)
		}
		c := &toolchain.Cmd{Path: filepath.Join(dir, "drv_"+b.name), Args: []string{inFile, outFile}, Dir: dir, Timeout: testenv.Limit(5 * time.Minute)}
		if _, err := c.Run(ctx); err != nil {
			t.Fatalf("%s driver: %v", b.name, err)
		}
		raw, err := os.ReadFile(filepath.Join(dir, outFile))
		if err != nil {
			t.Fatal(err)
		}
		got := make([]uint64, len(raw)/8)
		binary.Decode(raw, binary.NativeEndian, got)
		for _, i := range b.units {
			e := exp[i]
			n := len(e.want)
			if len(got) < n {
				t.Fatalf("%s: the output ends in unit %s", b.name, hs[i].Name)
			}
			bad := 0
			for k := range n {
				if got[k] != e.want[k] {
					if bad < 3 {
						t.Errorf("%s: %s output %d of addr %#x = %#x, model %#x",
							b.name, hs[i].Name, k%e.outs, e.as[k/e.outs], got[k], e.want[k])
					}
					bad++
				}
			}
			if bad > 0 {
				t.Errorf("%s: %s: %d of %d outputs differ", b.name, hs[i].Name, bad, n)
			}
			got = got[n:]
			checked += len(e.as)
		}
		if len(got) != 0 {
			t.Errorf("%s: %d outputs too many", b.name, len(got))
		}
	}
	t.Logf("%d units (%d with the parity helper), %d addresses compared", len(hs), len(parity), checked)
}

// TestHeader_Refuses: units the header cannot compute are errors that
// say why, never a panic or a header.
func TestHeader_Refuses(t *testing.T) {
	bits := func(rows ...[]int) [][]int { return rows }
	for _, c := range []struct {
		h    *specs.Hash
		want string
	}{
		{nil, "nil hash unit"},
		{&specs.Hash{Name: "c", Function: specs.BitvectorPerm, AddrBits: 10, BankBits: 5, Configurable: true}, "configurable hash units have no constant C function"},
		{&specs.Hash{Name: "a", Function: specs.BitvectorPerm, AddrBits: 65, BankBits: 5}, "addr_bits = 65, want 1..64"},
		{&specs.Hash{Name: "a", Function: specs.BitvectorPerm, AddrBits: 0, BankBits: 5}, "addr_bits = 0"},
		{&specs.Hash{Name: "b", Function: specs.BitvectorPerm, AddrBits: 64, BankBits: 33}, "bank_bits = 33, want 1..32"},
		{&specs.Hash{Name: "b", Function: specs.BitvectorPerm, AddrBits: 4, BankBits: 5}, "at most addr_bits = 4"},
		{&specs.Hash{Name: "k", Function: specs.BitvectorPerm, AddrBits: 10, BankBits: 5, K: -1}, "k = -1"},
		{&specs.Hash{Name: "k", Function: specs.BitvectorXor, AddrBits: 10, BankBits: 5, K2: -3}, "k2 = -3"},
		{&specs.Hash{Name: "m", Function: specs.BitvectorXor, AddrBits: 10, BankBits: 5, Mask: 32}, "mask = 0x20, want < 2^bank_bits"},
		{&specs.Hash{Name: "p", Function: specs.BitwisePerm, AddrBits: 10, BankBits: 2, Bits: bits([]int{1})}, "bits has 1 entries, want bank_bits = 2"},
		{&specs.Hash{Name: "p", Function: specs.BitwisePerm, AddrBits: 10, BankBits: 1, Bits: bits([]int{1, 2})}, "bits[0] has 2 elements, want 1..1"},
		{&specs.Hash{Name: "x", Function: specs.BitwiseXor, AddrBits: 10, BankBits: 1, Bits: bits([]int{3, 3})}, "bits[0] = [3 3] lists one address bit twice"},
		{&specs.Hash{Name: "x", Function: specs.XorMatrix, AddrBits: 10, BankBits: 1, Bits: bits([]int{-1})}, "bits[0] lists address bit -1"},
		{&specs.Hash{Name: "i", Function: specs.IPoly, AddrBits: 10, BankBits: 2, Bits: bits([]int{0}, []int{1}), Polynomial: []int{3, 1, 0}}, "want degree bank_bits = 2"},
		{&specs.Hash{Name: "f", Function: specs.FixedXor, AddrBits: 9, BankBits: 5}, "2*bank_bits = 10 > addr_bits = 9"},
		{&specs.Hash{Name: "r", Function: specs.RAP, AddrBits: 4, W: 3, Permutation: []int{0, 1, 2}}, "w = 3, want a power of two"},
		{&specs.Hash{Name: "r", Function: specs.RAP, AddrBits: 4, W: 4, Permutation: []int{0, 1, 2}}, "permutation has 3 entries, want w = 4"},
		{&specs.Hash{Name: "r", Function: specs.RAP, AddrBits: 4, W: 4, Permutation: []int{0, 1, 2, 4}}, "permutation[3] = 4, want 0..3"},
		{&specs.Hash{Name: "r", Function: specs.RAP, AddrBits: 1, W: 4, Permutation: []int{0, 1, 2, 3}}, "addr_bits = 1, want at least log2(w) = 2"},
		{&specs.Hash{Name: "d", Function: specs.Mod, AddrBits: 10, Banks: 1}, "banks = 1, want 2.."},
		{&specs.Hash{Name: "u", Function: "crc", AddrBits: 10, BankBits: 2}, `unknown hash function "crc"`},
		{&specs.Hash{Name: "9lives", Function: specs.FixedXor, AddrBits: 10, BankBits: 5}, "not a C identifier"},
	} {
		b, err := Header(c.h, Info{})
		if err == nil || !strings.Contains(err.Error(), c.want) || b != nil {
			t.Errorf("%+v: error %v, want %q", c.h, err, c.want)
		}
	}
}

// TestHeader_NeverPanics: random parameters give a header or an error.
func TestHeader_NeverPanics(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	fns := append(append([]specs.HashFunction(nil), specs.HashFunctions...), specs.IPoly, specs.Mod, "")
	small := func() int { return rng.IntN(140) - 6 }
	written := 0
	for range 20000 {
		h := &specs.Hash{
			Name: "u", Function: fns[rng.IntN(len(fns))],
			AddrBits: small(), BankBits: small(), K: small(), K1: small(), K2: small(),
			Mask: rng.Uint64() >> rng.IntN(65), W: 1 << rng.IntN(12), Banks: small(),
		}
		for range rng.IntN(4) {
			var row []int
			for range rng.IntN(4) {
				row = append(row, small())
			}
			h.Bits = append(h.Bits, row)
		}
		for range rng.IntN(5) {
			h.Polynomial = append(h.Polynomial, small())
		}
		if rng.IntN(2) == 0 {
			h.Permutation = rng.Perm(h.W)
		}
		b, err := Header(h, Info{})
		if (b == nil) == (err == nil) {
			t.Fatalf("%+v: header %d bytes and error %v", h, len(b), err)
		}
		if b != nil {
			written++
		}
	}
	if written < 100 {
		t.Errorf("only %d of the random units gave a header: the parameters miss the valid space", written)
	}
	t.Logf("%d headers", written)
}

// TestHeader_SwizzleNote: the header calls the section 7.2 index
// (addr with its low bank_bits bits replaced by the bank; rap's addr) a
// permutation exactly when, by the model, no two addresses below
// 2^addr_bits share it. Hand-checked: transpose_bvxor and add are
// permutations, lavamd_bvxor (k1 = 1: no bank bit reads addr[0]) and
// stride16_bvperm (the bank is addr[8:4]) are not.
func TestHeader_SwizzleNote(t *testing.T) {
	hand := map[string]bool{"transpose_bvxor": true, "atomic_add_ripple": true, "lavamd_bvxor": false, "stride16_bvperm": false}
	seen := 0
	for _, h := range testUnits(t) {
		if h.AddrBits > 16 || h.Function == specs.Mod {
			continue
		}
		b, err := Header(h, Info{})
		if err != nil {
			t.Fatal(err)
		}
		says := strings.Contains(string(b), "index is a permutation of each aligned block")
		if !says && !strings.Contains(string(b), "index is NOT one-to-one") {
			t.Errorf("%s: the header says nothing about its index", h.Name)
		}
		as := make([]uint64, 1<<h.AddrBits)
		for a := range as {
			as[a] = uint64(a)
		}
		outs, want, err := expected(h, as)
		if err != nil {
			t.Fatal(err)
		}
		low := uint64(1)<<h.BankBits - 1
		if h.Function == specs.RAP {
			low = uint64(h.W - 1)
		}
		used := map[uint64]bool{}
		for a := range as {
			idx := uint64(a)&^low | want[a*outs]
			if h.Function == specs.RAP {
				idx = want[a*outs+1]
			}
			used[idx] = true
		}
		if is := len(used) == len(as); is != says {
			t.Errorf("%s: the header says permutation = %v, the model gives %v", h.Name, says, is)
		}
		if w, ok := hand[h.Name]; ok {
			seen++
			if says != w {
				t.Errorf("%s: permutation = %v, hand-checked %v", h.Name, says, w)
			}
		}
	}
	if seen != len(hand) {
		t.Errorf("%d of the %d hand-checked units found", seen, len(hand))
	}
}
