package main

import (
	"encoding/csv"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/tools/conflicts"
)

// reportRow is what the report says of one instruction group: requests,
// wavefronts, ideal and excess wavefronts, the largest way.
type reportRow [5]int

func rowOf(t conflicts.Totals) reportRow {
	return reportRow{t.Requests, t.Wavefronts, t.IdealWavefronts, t.ExcessWavefronts, t.MaxBankDegree}
}

// conflictsJSON runs conflicts --json with args and decodes the report.
func conflictsJSON(t *testing.T, args ...string) *conflicts.Report {
	t.Helper()
	code, out, errOut := lsugen(t, append([]string{"conflicts", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("conflicts --json %v: code %d: %s", args, code, errOut)
	}
	var rep conflicts.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	return &rep
}

// TestConflictsReport_AccelSimColumns checks the Nsight-like columns of
// the example traces per PC, computed by hand on 32 four-byte banks
// (ideal = per phase ceil(distinct words / 32), excess = wavefronts -
// ideal):
//   - k1 LDS 0x0020 (kernel-1.traceg lines 25 and 33, source line 15):
//     two requests; warp 0 reads a column, words 32i all in bank 0, one
//     phase of 32 passes; warp 1's 8 lanes at stride 132 bytes hit 8
//     banks, 1 pass: 33 wavefronts, 2 ideal, 31 excess, 31 of the
//     kernel's 38 (the LDS.128's 7 are the rest).
//   - k1 LDS.64 0x0030 (line 16): one request, two half-warp phases of 32
//     words on 32 banks: 2 wavefronts, 2 ideal.
//   - k1 LDS.128 0x0040 (line 17): 8 lanes at stride 256 bytes, one phase
//     of 32 words, 8 in each of banks 0-3: 8 wavefronts, 1 ideal.
//   - k2 ATOMS.ADD 0x0020 (kernel-2, no line info): 32 lanes on one word,
//     no broadcast: 32 wavefronts, ideal ceil(32 lanes / 32) = 1.
//   - volta lud LDS.U.128 0x0cd0: lanes 16-31, two phases of 8 lanes, each
//     32 distinct words 4-way: 8 wavefronts, 2 ideal, 6 excess.
//   - pascal matrixmul LDS.U.128 0x0278: 4 warps, every lane on words 0-3
//     (a broadcast): 4 phases of 8 lanes per warp, 1 pass each: 4
//     requests, 16 wavefronts, 16 ideal.
func TestConflictsReport_AccelSimColumns(t *testing.T) {
	rep := conflictsJSON(t, accelSimList, realTraces+"volta-lud-excerpt.traceg", realTraces+"pascal-matrixmul.traceg")
	type want struct {
		row                       reportRow
		id                        int
		kernel, demangled, opcode string
		pc                        uint64
		source                    string
		line                      int
		share                     float64
	}
	wants := map[string]want{
		"k1 _Z9transposePfS_ LDS 0x0020":                 {reportRow{2, 33, 2, 31, 32}, 1, "_Z9transposePfS_", "transpose(float*, float*)", "LDS", 0x20, "line 15", 15, 31.0 / 38},
		"k1 _Z9transposePfS_ LDS.64 0x0030":              {reportRow{1, 2, 2, 0, 1}, 1, "_Z9transposePfS_", "transpose(float*, float*)", "LDS.64", 0x30, "line 16", 16, 0},
		"k1 _Z9transposePfS_ LDS.128 0x0040":             {reportRow{1, 8, 1, 7, 8}, 1, "_Z9transposePfS_", "transpose(float*, float*)", "LDS.128", 0x40, "line 17", 17, 7.0 / 38},
		"k2 _Z6reducePi ATOMS.ADD 0x0020":                {reportRow{1, 32, 1, 31, 32}, 2, "_Z6reducePi", "reduce(int*)", "ATOMS.ADD", 0x20, "", 0, 31.0 / 39},
		"k8 _Z13lud_perimeterPfii LDS.U.128 0x0cd0":      {reportRow{1, 8, 2, 6, 4}, 8, "_Z13lud_perimeterPfii", "lud_perimeter(float*, int, int)", "LDS.U.128", 0xcd0, "", 0, 6.0 / 20},
		"k1 _Z8mult_gpuIfEvPT_S1_S1_ii LDS.U.128 0x0278": {reportRow{4, 16, 16, 0, 1}, 1, "_Z8mult_gpuIfEvPT_S1_S1_ii", "void mult_gpu<float>(float*, float*, float*, int, int)", "LDS.U.128", 0x278, "", 0, 0},
	}
	seen := 0
	for _, in := range rep.Inputs {
		for _, it := range in.Instrs {
			w, ok := wants[it.Instr]
			if !ok {
				continue
			}
			seen++
			if rowOf(it.Totals) != w.row {
				t.Errorf("%s: requests, wavefronts, ideal, excess, way %v, want %v", it.Instr, rowOf(it.Totals), w.row)
			}
			if it.KernelID == nil || *it.KernelID != w.id || it.Kernel != w.kernel || it.KernelDemangled != w.demangled ||
				it.Opcode != w.opcode || it.PC == nil || *it.PC != w.pc || it.Source != w.source || it.SourceLine != w.line {
				t.Errorf("%s: fields %+v, want %+v", it.Instr, it, w)
			}
			if d := it.ExcessShare - w.share; d > 1e-9 || d < -1e-9 {
				t.Errorf("%s: share %v, want %v", it.Instr, it.ExcessShare, w.share)
			}
		}
	}
	if seen != len(wants) {
		t.Errorf("%d of %d groups found", seen, len(wants))
	}
	k := rep.Inputs[0].Kernels
	if len(k) != 2 || rowOf(k[0].Totals) != (reportRow{5, 44, 6, 38, 32}) || k[0].KernelID == nil || *k[0].KernelID != 1 ||
		k[0].KernelName != "_Z9transposePfS_" || k[0].KernelDemangled != "transpose(float*, float*)" || k[0].Kernel != "k1 _Z9transposePfS_" {
		t.Errorf("kernels %+v", k)
	}
	// The excess wavefronts are the bank conflicts wherever every phase
	// fits the banks in one pass, as here.
	if rep.Total.ExcessWavefronts != rep.Total.BankConflicts {
		t.Errorf("total %+v", rep.Total)
	}
	// An lsugen trace: each access one request, its words in one phase.
	rep = conflictsJSON(t, "../../specs/traces/transpose.trace")
	for _, it := range rep.Inputs[0].Instrs {
		if it.KernelID != nil || it.PC != nil || it.Opcode != "" {
			t.Errorf("%s: Accel-Sim fields on an lsugen trace: %+v", it.Instr, it)
		}
		if it.Instr == "store_tile" && (rowOf(it.Totals) != reportRow{4, 128, 4, 124, 32} || it.ExcessShare != 1) {
			t.Errorf("store_tile %+v", it)
		}
	}
}

// TestConflictsReport_TextSourceLines: the text report gives each
// instruction's CUDA source line (kernel-1.traceg has -enable lineinfo =
// 1) in its own column, kernel 2's trace has none ("-"), and --accesses
// lists the trace line and the source line apart.
func TestConflictsReport_TextSourceLines(t *testing.T) {
	code, out, errOut := lsugen(t, "conflicts", "--accesses", accelSimList)
	if code != 0 {
		t.Fatalf("code %d: %s", code, errOut)
	}
	for _, want := range []string{
		"_Z9transposePfS_  transpose(float*, float*)",
		"k1  0x0020        LDS  line 15         2          33      2      31  81.6%       32",
		"k2  0x0020  ATOMS.ADD        -         1          32      1      31  79.5%       32",
		"trace line   source",
		"33  line 15      k1 _Z9transposePfS_ LDS 0x0020      8         1",
		"total: 9 accesses, 77 bank conflicts (max 32-way)\nwavefronts: 8 requests, 86 wavefronts, 9 ideal, 77 excess\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// TestConflictsReport_SortTop checks each --sort key's order on the
// example list (ties keep the order of first appearance) and --top.
func TestConflictsReport_SortTop(t *testing.T) {
	order := func(args ...string) []string {
		rep := conflictsJSON(t, append(args, accelSimList)...)
		var names []string
		for _, it := range rep.Inputs[0].Instrs {
			names = append(names, strings.SplitN(it.Instr, " ", 3)[0]+" "+strings.SplitN(it.Instr, " ", 3)[2])
		}
		return names
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "k1 STS 0x0010,k1 LDS 0x0020,k1 LDS.64 0x0030,k1 LDS.128 0x0040,k2 LDS.U.32 0x0010,k2 ATOMS.ADD 0x0020,k2 ATOMS.ADD 0x0030"},
		{[]string{"--sort", "excess"}, "k1 LDS 0x0020,k2 ATOMS.ADD 0x0020,k1 LDS.128 0x0040,k2 ATOMS.ADD 0x0030,k2 LDS.U.32 0x0010,k1 STS 0x0010,k1 LDS.64 0x0030"},
		{[]string{"--sort", "wavefronts"}, "k1 LDS 0x0020,k2 ATOMS.ADD 0x0020,k1 LDS.128 0x0040,k2 ATOMS.ADD 0x0030,k1 LDS.64 0x0030,k2 LDS.U.32 0x0010,k1 STS 0x0010"},
		{[]string{"--sort", "requests"}, "k1 LDS 0x0020,k1 STS 0x0010,k1 LDS.64 0x0030,k1 LDS.128 0x0040,k2 LDS.U.32 0x0010,k2 ATOMS.ADD 0x0020,k2 ATOMS.ADD 0x0030"},
		{[]string{"--sort", "way"}, "k1 LDS 0x0020,k2 ATOMS.ADD 0x0020,k1 LDS.128 0x0040,k2 ATOMS.ADD 0x0030,k2 LDS.U.32 0x0010,k1 STS 0x0010,k1 LDS.64 0x0030"},
		{[]string{"--sort", "pc", "--top", "3"}, "k1 STS 0x0010,k1 LDS 0x0020,k1 LDS.64 0x0030"},
		{[]string{"--top", "2"}, "k1 LDS 0x0020,k2 ATOMS.ADD 0x0020"},
	} {
		if got := strings.Join(order(tc.args...), ","); got != tc.want {
			t.Errorf("%v:\n got %s\nwant %s", tc.args, got, tc.want)
		}
	}
	rep := conflictsJSON(t, "--top", "2", accelSimList)
	if in := rep.Inputs[0]; in.InstrsOmitted != 5 || in.Total.ExcessWavefronts != 77 || in.Kernels[0].ExcessWavefronts != 38 {
		t.Errorf("--top 2: %d omitted, totals %+v", in.InstrsOmitted, in.Total)
	}
	code, out, _ := lsugen(t, "conflicts", "--top", "1", accelSimList)
	if code != 0 || !strings.Contains(out, "(6 more instructions, in the totals; --top)") {
		t.Errorf("code %d\n%s", code, out)
	}
}

// TestConflictsReport_CSV parses the CSV report with encoding/csv: one
// header, rows of the same width, per input the instruction rows, then
// the kernels' rows (pc empty), then the input's total.
func TestConflictsReport_CSV(t *testing.T) {
	code, out, errOut := lsugen(t, "conflicts", "--csv", "--lock-bits", "4", accelSimList, "../../specs/traces/transpose.trace")
	if code != 0 {
		t.Fatalf("code %d: %s", code, errOut)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll() // also checks every row has the header's width
	if err != nil {
		t.Fatal(err)
	}
	head := rows[0]
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	for _, h := range []string{"input", "row", "kernel_id", "kernel", "kernel_demangled", "pc", "opcode", "source_line", "instr",
		"requests", "wavefronts", "ideal_wavefronts", "excess_wavefronts", "excess_share", "max_way", "lock_conflicts"} {
		if _, ok := col[h]; !ok {
			t.Errorf("no column %s in %v", h, head)
		}
	}
	var kinds []string
	for _, r := range rows[1:] {
		kinds = append(kinds, r[col["row"]])
		if r[col["instr"]] == "k1 _Z9transposePfS_ LDS 0x0020" {
			got := strings.Join([]string{r[col["kernel_id"]], r[col["kernel"]], r[col["kernel_demangled"]], r[col["pc"]], r[col["opcode"]],
				r[col["source_line"]], r[col["requests"]], r[col["wavefronts"]], r[col["ideal_wavefronts"]], r[col["excess_wavefronts"]],
				r[col["excess_share"]], r[col["max_way"]]}, "|")
			if want := "1|_Z9transposePfS_|transpose(float*, float*)|0x0020|LDS|15|2|33|2|31|0.8158|32"; got != want {
				t.Errorf("LDS 0x0020 row %s, want %s", got, want)
			}
		}
		if r[col["row"]] == "kernel" && r[col["pc"]] != "" {
			t.Errorf("kernel row with a pc: %v", r)
		}
	}
	if got := strings.Join(kinds, ","); got != "instr,instr,instr,instr,instr,instr,instr,kernel,kernel,total,instr,instr,total" {
		t.Errorf("rows %s", got)
	}
}

// TestConflictsReport_Diff compares mod 32 with the transpose hash of
// Table 5 of 000_* (specs/hash_table5.hcl: bitvector_xor k1 = 0, k2 = 4,
// mask = 14, bank = w[4:0] xor (w[8:4] & 01110)). By hand: a column
// store (words 32i + ty) is 32-way under mod 32; under the hash w[8:4] &
// 14 = 2i & 14 takes 8 values, 4 words each: 4-way, so transpose.trace's
// store_tile drops from 4 x 31 to 4 x 3 excess wavefronts (-112). In
// kernel-1.traceg the column read (words 32i) drops from 31 to 3 and the
// padded read (words 264 + 33i, i < 8: banks 8, 11, 14, 13, 4, 7, 2, 1)
// stays conflict-free: -28; the LDS.128 (words 64i + j, j < 4: w[8:4] &
// 14 = 4i & 14 takes 4 values, twice each) drops from 8-way to 2-way: -6.
func TestConflictsReport_Diff(t *testing.T) {
	const hash = "../../specs/hash_table5.hcl:transpose_bvxor"
	code, out, errOut := lsugen(t, "conflicts", "--json", "--diff", hash, "../../specs/traces/transpose.trace", accelSimList)
	if code != 0 {
		t.Fatalf("code %d: %s", code, errOut)
	}
	var d conflicts.Diff
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if d.BanksA != "mod 32" || d.BanksB != "hash transpose_bvxor" || len(d.Inputs) != 2 {
		t.Fatalf("%+v", d)
	}
	first := d.Inputs[0].Instrs[0]
	if first.Instr != "store_tile" || first.ExcessA != 124 || first.ExcessB != 12 || first.Change != -112 {
		t.Errorf("transpose.trace first row %+v, want store_tile 124 -> 12", first)
	}
	got := map[string]int{}
	prev := -1 << 30
	for _, r := range d.Inputs[1].Instrs {
		got[r.Instr] = r.Change
		if r.Change < prev {
			t.Errorf("not sorted by improvement: %+v after %d", r, prev)
		}
		prev = r.Change
	}
	if got["k1 _Z9transposePfS_ LDS 0x0020"] != -28 || got["k1 _Z9transposePfS_ LDS.128 0x0040"] != -6 || d.Inputs[1].Instrs[0].Instr != "k1 _Z9transposePfS_ LDS 0x0020" {
		t.Errorf("kernelslist.g changes %v, first %s", got, d.Inputs[1].Instrs[0].Instr)
	}
	// The hash `make run` searches for the transpose trace removes all of
	// its 124 excess wavefronts, as search reported (conflicts after: 0).
	searched := filepath.Join(t.TempDir(), "transpose_hash.hcl")
	if code, _, errOut := lsugen(t, "search", "--function", "bitvector_xor", "--addr-bits", "10", "--bank-bits", "5",
		"--name", "transpose_bvxor", "-o", searched, "../../specs/traces/transpose.trace"); code != 0 {
		t.Fatalf("search: code %d: %s", code, errOut)
	}
	code, out, errOut = lsugen(t, "conflicts", "--json", "--diff", searched+":transpose_bvxor", "../../specs/traces/transpose.trace")
	var found conflicts.Diff
	if code != 0 || json.Unmarshal([]byte(out), &found) != nil || found.Total.ExcessA != 124 || found.Total.ExcessB != 0 || found.Total.Change != -124 {
		t.Errorf("--diff with the searched hash: code %d, total %+v: %s", code, found.Total, errOut)
	}
	// Two hash units: --hash gives A. The same unit twice changes nothing.
	code, out, errOut = lsugen(t, "conflicts", "--json", "--hash", hash, "--diff", hash, accelSimList)
	var same conflicts.Diff
	if code != 0 || json.Unmarshal([]byte(out), &same) != nil || same.BanksA != "hash transpose_bvxor" || same.BanksB != same.BanksA ||
		same.Total.Change != 0 || same.Total.ExcessA != d.Inputs[1].Total.ExcessB {
		t.Errorf("--hash X --diff X: code %d, %+v: %s", code, same, errOut)
	}
	code, out, errOut = lsugen(t, "conflicts", "--diff", hash, "--top", "1", "../../specs/traces/transpose.trace")
	if code != 0 || !strings.Contains(out, "A: mod 32 (32 banks); B: hash transpose_bvxor (32 banks)") ||
		!strings.Contains(out, "store_tile         4       124        12    -112") || strings.Contains(out, "load_tile  ") ||
		!strings.Contains(out, "total: 124 excess wavefronts under A, 12 under B (-112)") {
		t.Errorf("code %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = lsugen(t, "conflicts", "--diff", hash, "--csv", "../../specs/traces/transpose.trace")
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != 0 || err != nil || len(rows) != 4 || strings.Join(rows[1][8:], ",") != "store_tile,4,124,12,-112,128,16" {
		t.Errorf("code %d, %v: %q %s", code, err, rows, errOut)
	}
}

// TestConflictsReport_FlagsRefused: a flag that another would make
// meaningless is refused, not ignored.
func TestConflictsReport_FlagsRefused(t *testing.T) {
	tr := "../../specs/traces/transpose.trace"
	hash := "../../specs/hash_table5.hcl:transpose_bvxor"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--json", "--csv"}, "--json and --csv"},
		{[]string{"--csv", "--accesses"}, "not in CSV"},
		{[]string{"--diff", hash, "--accesses"}, "--diff compares instructions"},
		{[]string{"--diff", hash, "--sort", "pc"}, "--diff sorts by the largest improvement"},
		{[]string{"--diff", hash, "--lock-bits", "4"}, "--diff compares bank mappings"},
		{[]string{"--diff", "../../specs/hash_table5.hcl"}, "declares 12 hash units (transpose_bvxor, "},
		{[]string{"--sort", "size"}, `--sort "size": want one of excess, wavefronts, requests, pc, way`},
		{[]string{"--top", "-1"}, "--top -1"},
	} {
		code, out, errOut := lsugen(t, append(append([]string{"conflicts"}, tc.args...), tr)...)
		if code != 2 || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: code %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, out, errOut, tc.want)
		}
	}
}
