package specs

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// wantHashes are the decoded units of every file under testdata/valid, by
// file and unit name. Range and AttrRanges are checked separately.
var wantHashes = map[string]map[string]Hash{
	"arith.hcl": {
		"fx":          {Function: FixedXor, AddrBits: 8, BankBits: 4},
		"add_default": {Function: Add, AddrBits: 10, BankBits: 5, Adder: AdderRipple},
		"add_cla":     {Function: Add, AddrBits: 20, BankBits: 3, Adder: AdderCLA},
	},
	"bitvector.hcl": {
		"bv_perm":        {Function: BitvectorPerm, AddrBits: 12, BankBits: 4, K: 2},
		"bv_perm_cfg":    {Function: BitvectorPerm, AddrBits: 12, BankBits: 4, Configurable: true},
		"bv_xor":         {Function: BitvectorXor, AddrBits: 16, BankBits: 4, K1: 0, K2: 8, Mask: 15},
		"bv_xor_cfg":     {Function: BitvectorXor, AddrBits: 16, BankBits: 4, Configurable: true},
		"bv_xor_partial": {Function: BitvectorXor, AddrBits: 10, BankBits: 3, K1: 7, K2: 3, Mask: 5},
	},
	"bitwise.hcl": {
		"bw_perm":       {Function: BitwisePerm, AddrBits: 16, BankBits: 4, Bits: [][]int{{3}, {7}, {11}, {15}}},
		"bw_perm_range": {Function: BitwisePerm, AddrBits: 8, BankBits: 3, Bits: [][]int{{6}, {4}, {2}}},
		"bw_perm_cfg":   {Function: BitwisePerm, AddrBits: 32, BankBits: 5, Configurable: true},
		"bw_xor":        {Function: BitwiseXor, AddrBits: 12, BankBits: 3, Bits: [][]int{{0, 6}, {1}, {2, 8}}},
		"bw_xor_for":    {Function: BitwiseXor, AddrBits: 16, BankBits: 4, Bits: [][]int{{0, 8}, {1, 9}, {2, 10}, {3, 11}}},
		"bw_xor_cfg":    {Function: BitwiseXor, AddrBits: 16, BankBits: 4, Configurable: true},
	},
	"locals.hcl": {
		"from_locals": {Function: BitwiseXor, AddrBits: 15, BankBits: 4, Bits: [][]int{{0, 4}, {1, 5}, {2, 6}, {3, 7}}},
		"conditional": {Function: BitvectorPerm, AddrBits: 15, BankBits: 4, K: 5},
	},
	"rap.hcl": {
		"rap_perm": {Function: RAP, AddrBits: 4, BankBits: 2, W: 4, Permutation: []int{2, 0, 3, 1}, Adder: AdderRipple},
		"rap_seed": {Function: RAP, AddrBits: 16, BankBits: 5, W: 32, Seed: 42, HasSeed: true, Adder: AdderCLA,
			Permutation: rand.New(rand.NewPCG(42, 0x6c737567656e)).Perm(32)},
		"rap_cfg":    {Function: RAP, AddrBits: 6, BankBits: 3, W: 8, Configurable: true, Adder: AdderRipple},
		"rap_ripple": {Function: RAP, AddrBits: 2, BankBits: 1, W: 2, Permutation: []int{1, 0}, Adder: AdderRipple},
		"rap_3p": {Function: RAP, Scheme: RAP3P, AddrBits: 8, BankBits: 2, W: 4, Adder: AdderRipple,
			Permutations: [][]int{{2, 0, 3, 1}, {1, 3, 0, 2}, {3, 2, 1, 0}}},
		"rap_3p_seed": {Function: RAP, Scheme: RAP3P, AddrBits: 14, BankBits: 3, W: 8, Adder: AdderRipple, Seed: 42, HasSeed: true,
			Permutations: threePerms(42, 8)},
		"rap_r1p": {Function: RAP, Scheme: RAPR1P, AddrBits: 8, BankBits: 2, W: 4, Permutation: []int{2, 0, 3, 1}, Adder: AdderRipple},
		"rap_ras": {Function: RAP, Scheme: RAPRAS, AddrBits: 5, BankBits: 2, W: 4, Shifts: []int{3, 3, 0, 1, 2, 2, 2, 0}, Adder: AdderRipple},
		"rap_ras_rows": {Function: RAP, Scheme: RAPRAS, AddrBits: 8, BankBits: 2, W: 4, Adder: AdderRipple, Seed: 9, HasSeed: true,
			Shifts: rasShifts(9, 64, 4)},
		"rap_1p_written": {Function: RAP, Scheme: RAP1P, AddrBits: 2, BankBits: 1, W: 2, Permutation: []int{1, 0}, Adder: AdderRipple},
	},
	"xor_matrix.hcl": {
		"xm_literal": {Function: XorMatrix, AddrBits: 12, BankBits: 3, Bits: [][]int{{0, 3, 6, 9}, {1, 4}, {2, 5, 8, 11}}},
		"xm_for":     {Function: XorMatrix, AddrBits: 16, BankBits: 4, Bits: [][]int{{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}}},
		"xm_flatten": {Function: XorMatrix, AddrBits: 8, BankBits: 2, Bits: [][]int{{0, 2, 4}, {1}}},
	},
}

func TestSpecs_ValidFiles(t *testing.T) {
	paths, err := filepath.Glob("testdata/valid/*.hcl")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no valid test files: %v", err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want, ok := wantHashes[filepath.Base(path)]
			if !ok {
				t.Fatalf("no expected units for %s in wantHashes", path)
			}
			file, diags := NewLoader().Load(path)
			if len(diags) > 0 {
				t.Fatalf("unexpected diagnostics:\n%s", diagList(diags))
			}
			got := map[string]*Hash{}
			for _, u := range file.Units {
				h, ok := u.(*Hash)
				if !ok {
					t.Fatalf("unit %q is a %T, want *Hash", u.UnitName(), u)
				}
				got[h.Name] = h
				if u.UnitKind() != "hash" || u.UnitName() != h.Name {
					t.Errorf("unit %q: kind %q name %q", h.Name, u.UnitKind(), u.UnitName())
				}
			}
			if len(got) != len(file.Units) || len(got) != len(want) {
				t.Fatalf("got units %v, want %d units %v", sortedKeys(got), len(want), sortedKeys(want))
			}
			for name, w := range want {
				h := got[name]
				if h == nil {
					t.Errorf("unit %q missing", name)
					continue
				}
				checkRanges(t, h, path)
				g := *h
				g.Range, g.AttrRanges = hcl.Range{}, nil
				w.Name = name
				if !reflect.DeepEqual(g, w) {
					t.Errorf("unit %q:\n got  %+v\n want %+v", name, g, w)
				}
			}
		})
	}
}

// checkRanges checks that the block range and one range per written
// argument point into the file.
func checkRanges(t *testing.T, h *Hash, path string) {
	t.Helper()
	if h.Range.Filename != path || h.Range.Start.Line < 1 || h.DeclRange() != h.Range {
		t.Errorf("unit %q: bad Range %v", h.Name, h.Range)
	}
	if _, ok := h.AttrRanges["function"]; !ok {
		t.Errorf("unit %q: AttrRanges lacks function: %v", h.Name, h.AttrRanges)
	}
	for name, r := range h.AttrRanges {
		if r.Filename != path || r.Start.Line <= h.Range.Start.Line || r.End.Byte <= r.Start.Byte {
			t.Errorf("unit %q: bad range for %s: %v", h.Name, name, r)
		}
		if h.AttrRange(name) != r {
			t.Errorf("unit %q: AttrRange(%q) disagrees", h.Name, name)
		}
	}
	if h.AttrRange("no_such_argument") != h.Range {
		t.Errorf("unit %q: AttrRange of an unwritten argument should be the block range", h.Name)
	}
}

func TestSpecs_InvalidDiagnostics(t *testing.T) {
	testDiagnostics(t, "testdata/invalid", hcl.DiagError, 20)
}

func TestSpecs_WarningDiagnostics(t *testing.T) {
	testDiagnostics(t, "testdata/warning", hcl.DiagWarning, 3)
}

// testDiagnostics loads every .hcl file in dir and checks its diagnostics
// of the given severity against the same-named .want file: one line
// "LINE:COL: SUMMARY-SUBSTRING" per expected diagnostic.
func testDiagnostics(t *testing.T, dir string, severity hcl.DiagnosticSeverity, minFiles int) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.hcl"))
	if err != nil || len(paths) < minFiles {
		t.Fatalf("want at least %d test files in %s, found %d (%v)", minFiles, dir, len(paths), err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			wants := readWant(t, strings.TrimSuffix(path, ".hcl")+".want")
			file, diags := NewLoader().Load(path)
			if file == nil {
				t.Fatal("Load returned a nil File")
			}
			checkDiagShape(t, diags)
			var got hcl.Diagnostics
			for _, d := range diags {
				if d.Severity == severity {
					got = append(got, d)
				}
			}
			for _, w := range wants {
				found := false
				for _, d := range got {
					if d.Subject.Start.Line == w.line && d.Subject.Start.Column == w.col && strings.Contains(d.Summary, w.summary) {
						found = true
					}
				}
				if !found {
					t.Errorf("missing diagnostic %d:%d: %s", w.line, w.col, w.summary)
				}
			}
			if len(got) != len(wants) {
				t.Errorf("got %d diagnostics of severity %v, want %d:\n%s", len(got), severity, len(wants), diagList(diags))
			}
			if severity == hcl.DiagWarning {
				if diags.HasErrors() {
					t.Errorf("unexpected errors:\n%s", diagList(diags))
				}
				if len(file.Units) == 0 {
					t.Error("a unit with only warnings must still be returned")
				}
			}
		})
	}
}

type wantDiag struct {
	line, col int
	summary   string
}

func readWant(t *testing.T, path string) []wantDiag {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("every test file needs a .want file: %v", err)
	}
	defer f.Close()
	var wants []wantDiag
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		pos, summary, ok := strings.Cut(line, ": ")
		lineStr, colStr, ok2 := strings.Cut(pos, ":")
		l, err1 := strconv.Atoi(lineStr)
		c, err2 := strconv.Atoi(colStr)
		if !ok || !ok2 || err1 != nil || err2 != nil || summary == "" {
			t.Fatalf("%s: bad line %q, want LINE:COL: SUMMARY", path, line)
		}
		wants = append(wants, wantDiag{l, c, summary})
	}
	if len(wants) == 0 {
		t.Fatalf("%s: no expected diagnostics", path)
	}
	return wants
}

// checkDiagShape checks that every diagnostic can be shown to a user.
func checkDiagShape(t *testing.T, diags hcl.Diagnostics) {
	t.Helper()
	for _, d := range diags {
		if d.Summary == "" || d.Detail == "" || d.Subject == nil || d.Subject.Filename == "" {
			t.Errorf("incomplete diagnostic: %+v", d)
		}
		if d.Summary == internalErrorSummary {
			t.Errorf("internal error: %s", d.Detail)
		}
	}
}

func TestSpecs_LoadMultipleFiles(t *testing.T) {
	l := NewLoader()
	a, b := filepath.Join("testdata", "multi", "a.hcl"), filepath.Join("testdata", "multi", "b.hcl")
	file, diags := l.Load(a, b)
	if len(diags) > 0 {
		t.Fatalf("unexpected diagnostics:\n%s", diagList(diags))
	}
	if len(file.Units) != 2 {
		t.Fatalf("got %d units, want 2", len(file.Units))
	}
	ha, hb := file.Units[0].(*Hash), file.Units[1].(*Hash)
	if ha.Name != "multi_a" || ha.BankBits != 3 || ha.Range.Filename != a {
		t.Errorf("first unit: %+v", ha)
	}
	if hb.Name != "multi_b" || hb.AddrBits != 6 || hb.BankBits != 2 || hb.Range.Filename != b {
		t.Errorf("second unit: %+v", hb)
	}
	if files := l.Files(); files[a] == nil || files[b] == nil {
		t.Errorf("Files() = %v, want both files", files)
	}
}

func TestSpecs_DuplicateAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	first, second := filepath.Join(dir, "first.hcl"), filepath.Join(dir, "second.hcl")
	unit := "hash \"twice\" {\n  function  = \"fixed_xor\"\n  addr_bits = 8\n  bank_bits = 4\n}\n"
	for _, p := range []string{first, second} {
		if err := os.WriteFile(p, []byte(unit), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file, diags := NewLoader().Load(first, second)
	if len(diags) != 1 || diags[0].Summary != "Duplicate unit name" {
		t.Fatalf("want one duplicate error, got:\n%s", diagList(diags))
	}
	if d := diags[0]; d.Subject.Filename != second || !strings.Contains(d.Detail, first) {
		t.Errorf("the error should point at %s and mention %s: %s: %s", second, first, d.Subject, d.Detail)
	}
	if len(file.Units) != 1 || file.Units[0].DeclRange().Filename != first {
		t.Errorf("want the first unit kept, got %d units", len(file.Units))
	}
}

// TestSpecs_LocalsPerFile checks that a file cannot see the locals of
// another, and that a broken file does not stop the others.
func TestSpecs_LocalsPerFile(t *testing.T) {
	dir := t.TempDir()
	first, second, broken := filepath.Join(dir, "first.hcl"), filepath.Join(dir, "second.hcl"), filepath.Join(dir, "broken.hcl")
	files := map[string]string{
		first:  "locals {\n  m = 4\n}\n\nhash \"one\" {\n  function  = \"fixed_xor\"\n  addr_bits = 8\n  bank_bits = local.m\n}\n",
		second: "hash \"two\" {\n  function  = \"fixed_xor\"\n  addr_bits = 8\n  bank_bits = local.m\n}\n",
		broken: "hash \"three\" {\n",
	}
	for p, src := range files {
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file, diags := NewLoader().Load(first, second, broken)
	var summaries []string
	for _, d := range diags {
		summaries = append(summaries, d.Subject.Filename+": "+d.Summary)
	}
	want := []string{second + ": Reference to undeclared local value", broken + ": Unclosed configuration block"}
	if !reflect.DeepEqual(summaries, want) {
		t.Errorf("got diagnostics %q, want %q", summaries, want)
	}
	if len(file.Units) != 1 || file.Units[0].UnitName() != "one" {
		t.Errorf("want unit one only, got %d units", len(file.Units))
	}
}

func TestSpecs_LoadMissingFile(t *testing.T) {
	file, diags := NewLoader().Load(filepath.Join(t.TempDir(), "nope.hcl"))
	if file == nil || len(diags) != 1 || diags[0].Summary != "Failed to read spec file" {
		t.Fatalf("got %v", diagList(diags))
	}
}

func TestSpecs_Parse(t *testing.T) {
	l := NewLoader()
	src := []byte("hash \"mem\" {\n  function  = \"add\"\n  addr_bits = 8\n  bank_bits = 2\n}\n")
	file, diags := l.Parse(src, "mem.hcl")
	if len(diags) > 0 || len(file.Units) != 1 || file.Units[0].UnitName() != "mem" {
		t.Fatalf("got %d units, diagnostics:\n%s", len(file.Units), diagList(diags))
	}
	if l.Files()["mem.hcl"] == nil {
		t.Error("Files() lacks the parsed file")
	}
	// Parsing again under the same name parses the new source.
	file, _ = l.Parse([]byte(strings.Replace(string(src), "mem", "mem2", 1)), "mem.hcl")
	if len(file.Units) != 1 || file.Units[0].UnitName() != "mem2" {
		t.Errorf("second Parse returned stale units")
	}
}

// TestSpecs_Limits checks that absurd inputs are refused with a
// diagnostic, quickly.
func TestSpecs_Limits(t *testing.T) {
	hash := func(attrs string) string {
		return "hash \"h\" {\n  function = \"xor_matrix\"\n" + attrs + "\n}\n"
	}
	doubling := "locals {\n  s0 = \"xxxxxxxxxxxxxxxx\"\n"
	for i := 1; i <= 40; i++ {
		doubling += fmt.Sprintf("  s%d = \"${local.s%d}${local.s%d}\"\n", i, i-1, i-1)
	}
	doubling += "}\n"
	tests := []struct {
		name, src, summary string
	}{
		{"too large", strings.Repeat("#", MaxSpecBytes+1), "Spec file too large"},
		{"deep brackets", "locals {\n  a = " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n}\n", "Expression nested too deeply"},
		{"unary run", "locals {\n  a = " + strings.Repeat("-", 100000) + "1\n}\n", "Expression nested too deeply"},
		{"long operator chain", "locals {\n  a = 1" + strings.Repeat(" + 1", 50000) + "\n}\n", "Expression nested too deeply"},
		{"huge literal", hash("addr_bits = 1e100000000"), "Number out of range"},
		{"tiny literal", hash("addr_bits = 1e-100000000"), "Number out of range"},
		{"huge local", "locals {\n  a = pow2(62) * pow2(62)\n}\n", "Number out of range"},
		{"int64 overflow", hash("addr_bits = pow2(62) * 3"), "Number out of range"},
		{"huge bits list", hash("addr_bits = 16\n  bank_bits = 4\n  bits = range(1000000)"), "Error in function call"},
		{"long bits list", hash("addr_bits = 16\n  bank_bits = 4\n  bits = range(100)"), "List too long"},
		{"long row", hash("addr_bits = 16\n  bank_bits = 1\n  bits = [range(100)]"), "List too long"},
		{"huge w", "hash \"h\" {\n  function = \"rap\"\n  w = pow2(40)\n  seed = 1\n}\n", "Invalid w"},
		{"nested for", hash("bits = [for i in range(4096) : [for j in range(4096) : [for k in range(4096) : k]]]"), "Evaluation limit exceeded"},
		{"for over big local", "locals {\n  r = range(4096)\n  x = [for i in local.r : [for j in local.r : length(local.r)]]\n}\n", "Evaluation limit exceeded"},
		{"doubling strings", doubling, "Evaluation limit exceeded"},
		{"big local", "locals {\n  a = [for i in range(4096) : [i, i, i, i, i]]\n}\n", "Local value too large"},
		{"big concat", "locals {\n  a = concat(range(4096), range(4096))\n}\n", "Error in function call"},
		{"big flatten", "locals {\n  a = flatten([range(4096), range(4096)])\n}\n", "Error in function call"},
		{"equality in loop", "locals {\n  r = range(4096)\n  x = [for i in local.r : [for j in local.r : local.r == local.r]]\n}\n", "Evaluation limit exceeded"},
		{"splat in loop", "locals {\n  r = range(4096)\n  x = [for i in local.r : [for j in local.r : local.r[*]]]\n}\n", "Evaluation limit exceeded"},
		{"conditional in loop", "locals {\n  r = [for i in range(4096) : i]\n  x = [for i in local.r : true ? local.r : [1]]\n}\n", "Evaluation limit exceeded"},
		{"string to huge number", "locals {\n  a = true ? \"1e99999999\" + 0 : \"x\"\n}\n", "Number out of range"},
		{"negated huge string", "locals {\n  a = true ? -\"1e99999999\" : \"x\"\n}\n", "Number out of range"},
		{"huge object key", "locals {\n  a = {for x in [\"1e99999999\"] : x * 1 => 1}\n}\n", "Number out of range"},
		{"huge function result", "locals {\n  a = true ? abs(\"1e99999999\") : \"x\"\n}\n", "Error in function call"},
		{"infinity", "locals {\n  a = (1 / 0) * 2\n}\n", "Number out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := NewLoader().Parse([]byte(tt.src), "limits.hcl")
			checkDiagShape(t, diags)
			for _, d := range diags {
				if d.Severity == hcl.DiagError && strings.Contains(d.Summary, tt.summary) {
					return
				}
			}
			t.Errorf("want an error %q, got:\n%s", tt.summary, diagList(diags))
		})
	}
}

// TestSpecs_Functions evaluates expressions with the spec functions.
func TestSpecs_Functions(t *testing.T) {
	tests := []struct {
		expr string
		want cty.Value // cty.NilVal: an error is expected
	}{
		{"log2(1)", cty.NumberIntVal(0)},
		{"log2(1024)", cty.NumberIntVal(10)},
		{"log2(pow2(62))", cty.NumberIntVal(62)},
		{"log2(12)", cty.NilVal},
		{"log2(0)", cty.NilVal},
		{"log2(0.5)", cty.NilVal},
		{"clog2(1)", cty.NumberIntVal(0)},
		{"clog2(5)", cty.NumberIntVal(3)},
		{"clog2(8)", cty.NumberIntVal(3)},
		{"clog2(0)", cty.NilVal},
		{"pow2(0)", cty.NumberIntVal(1)},
		{"pow2(10)", cty.NumberIntVal(1024)},
		{"pow2(63)", cty.NilVal},
		{"pow2(-1)", cty.NilVal},
		{"pow2(1.5)", cty.NilVal},
		{"range(3)", listOf(0, 1, 2)},
		{"range(0)", cty.ListValEmpty(cty.Number)},
		{"range(-2)", listOf(0, -1)},
		{"range(2, 5)", listOf(2, 3, 4)},
		{"range(5, 2)", listOf(5, 4, 3)},
		{"range(0, 10, 3)", listOf(0, 3, 6, 9)},
		{"range(10, 0, -4)", listOf(10, 6, 2)},
		{"length(range(4096))", cty.NumberIntVal(4096)},
		{"range(4097)", cty.NilVal},
		{"range(0, 1, 0)", cty.NilVal},
		{"range(0, 5, -1)", cty.NilVal},
		{"range()", cty.NilVal},
		{"min(3, 1, 2)", cty.NumberIntVal(1)},
		{"max(3, 1, 2)", cty.NumberIntVal(3)},
		{"abs(-4)", cty.NumberIntVal(4)},
		{"floor(2.5)", cty.NumberIntVal(2)},
		{"ceil(2.5)", cty.NumberIntVal(3)},
		{"length([1, 2, 3])", cty.NumberIntVal(3)},
		{"concat([1], [2, 3])", cty.TupleVal([]cty.Value{cty.NumberIntVal(1), cty.NumberIntVal(2), cty.NumberIntVal(3)})},
		{"reverse([1, 2])", cty.TupleVal([]cty.Value{cty.NumberIntVal(2), cty.NumberIntVal(1)})},
		{"flatten([[1], [[2]]])", cty.TupleVal([]cty.Value{cty.NumberIntVal(1), cty.NumberIntVal(2)})},
		{"[for i in range(3) : i * 2 if i != 1]", cty.TupleVal([]cty.Value{cty.NumberIntVal(0), cty.NumberIntVal(4)})},
		{"\"${pow2(4)}-${true}\"", cty.StringVal("16-true")},
		{"unknown_function(1)", cty.NilVal},
		{"operand(1)", cty.NilVal}, // guards cannot be called
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			got, diags := evalExpr(t, tt.expr)
			if tt.want == cty.NilVal {
				if !diags.HasErrors() {
					t.Errorf("want an error, got %#v", got)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatalf("unexpected diagnostics:\n%s", diagList(diags))
			}
			if !got.Equals(tt.want).True() {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

// evalExpr evaluates one expression the way the loader does.
func evalExpr(t *testing.T, expr string) (cty.Value, hcl.Diagnostics) {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte("v = "+expr+"\n"), "expr.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("parse: %s", diags)
	}
	if diags := prepareBody(f.Body.(*hclsyntax.Body)); diags.HasErrors() {
		return cty.NilVal, diags
	}
	attrs, _ := f.Body.JustAttributes()
	v, _, diags := newDecoder().eval(attrs["v"].Expr)
	return v, diags
}

func listOf(xs ...int64) cty.Value {
	vals := make([]cty.Value, len(xs))
	for i, x := range xs {
		vals[i] = cty.NumberIntVal(x)
	}
	return cty.ListVal(vals)
}

func TestSpecs_UnitNames(t *testing.T) {
	for name, ok := range map[string]bool{
		"a": true, "_x9": true, "Module": true, "bank_hash_0": true, strings.Repeat("a", 64): true,
		"": false, "9a": false, "a-b": false, "a b": false, "módulo": false, "module": false,
		"wire": false, "always_ff": false, "logic": false, strings.Repeat("a", 65): false,
	} {
		if got := checkUnitName(name) == ""; got != ok {
			t.Errorf("checkUnitName(%q) valid = %v, want %v", name, got, ok)
		}
	}
}

func TestSpecs_DependentRow(t *testing.T) {
	tests := []struct {
		rows    []uint64
		dep     int
		earlier []int
		rank    int
	}{
		{[]uint64{1, 2, 4}, -1, nil, 3},
		{[]uint64{1, 2, 1}, 2, []int{0}, 2},
		{[]uint64{0b011, 0b110, 0b101}, 2, []int{0, 1}, 2},
		{[]uint64{1, 0}, 1, nil, 1},
		{[]uint64{1 << 63, 1<<63 | 1, 1}, 2, []int{0, 1}, 2},
	}
	for _, tt := range tests {
		dep, earlier, rank := dependentRow(tt.rows)
		if dep != tt.dep || !reflect.DeepEqual(earlier, tt.earlier) || rank != tt.rank {
			t.Errorf("dependentRow(%b) = %d %v %d, want %d %v %d", tt.rows, dep, earlier, rank, tt.dep, tt.earlier, tt.rank)
		}
	}
}

func diagList(diags hcl.Diagnostics) string {
	var b strings.Builder
	for _, d := range diags {
		fmt.Fprintf(&b, "  %v: %s: %s\n", d.Subject, d.Summary, d.Detail)
	}
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// threePerms are 3P's permutations drawn from seed: three in a row from
// the stream of a rap seed.
func threePerms(seed uint64, w int) [][]int {
	r := rand.New(rand.NewPCG(seed, 0x6c737567656e))
	return [][]int{r.Perm(w), r.Perm(w), r.Perm(w)}
}

// rasShifts are RAS's n shifts in 0..w-1 drawn from seed.
func rasShifts(seed uint64, n, w int) []int {
	r := rand.New(rand.NewPCG(seed, 0x6c737567656e))
	out := make([]int, n)
	for i := range out {
		out[i] = r.IntN(w)
	}
	return out
}
