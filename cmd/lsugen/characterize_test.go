package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sky130Lib is the SkyWater liberty beside the repository, or "" (the
// test then skips: the library is not part of the repository).
func sky130Lib(t *testing.T) string {
	t.Helper()
	lib, _ := filepath.Abs(filepath.Join("..", "..", "..", "shared", "liberty", "sky130_fd_sc_hd__tt_025C_1v80.lib.gz"))
	if _, err := os.Stat(lib); err != nil {
		t.Skipf("no sky130 liberty: %v", err)
	}
	return lib
}

func TestCharacterize_Sky130TableAndJSON(t *testing.T) {
	lib := sky130Lib(t)
	code, stdout, stderr := lsugen(t, "characterize", lib)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"unit       sky130_fd_sc_hd__inv_1", "wire load Small", "XOR2   sky130_fd_sc_hd__xor2_2", "DFF    sky130_fd_sc_hd__dfxtp_1"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in\n%s", want, stdout)
		}
	}
	code, stdout, stderr = lsugen(t, "characterize", "--json", lib)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	validateJSON(t, "characterize.json", stdout)
	var ch struct {
		TauPS float64 `json:"tau_ps"`
		Kinds []struct {
			Kind string `json:"kind"`
		} `json:"kinds"`
	}
	if err := json.Unmarshal([]byte(stdout), &ch); err != nil || !(ch.TauPS > 0) || len(ch.Kinds) != 20 {
		t.Errorf("JSON: %v, tau %v, %d kinds", err, ch.TauPS, len(ch.Kinds))
	}
	// Leaving out every XOR cell leaves XOR2 without a cell.
	code, _, stderr = lsugen(t, "characterize", "--dont-use", "*xor2*", lib)
	if code != 2 || !strings.Contains(stderr, "XOR2") {
		t.Errorf("no XOR cell: exit %d, %s", code, stderr)
	}
}

func TestTiming_LibertyAddsPicoseconds(t *testing.T) {
	lib := sky130Lib(t)
	dir := t.TempDir()
	spec := writeSpec(t, dir, "a.hcl", goodSpec)
	code, stdout, stderr := lsugen(t, "timing", "--liberty", lib, spec)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "     ps") || !strings.Contains(stdout, "h ") {
		t.Errorf("no ps column:\n%s", stdout)
	}
	code, stdout, _ = lsugen(t, "timing", "--json", "--liberty", lib, spec)
	validateJSON(t, "timing.json", stdout)
	var rep struct {
		Units []struct {
			Tech    string  `json:"tech"`
			DelayPS float64 `json:"delay_ps"`
			FO4     float64 `json:"fo4"`
		} `json:"units"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); code != 0 || err != nil || len(rep.Units) != 1 {
		t.Fatalf("exit %d, %v", code, err)
	}
	// One XOR gate in sky130: about 2.5 FO4, 200 to 250 ps.
	if u := rep.Units[0]; u.Tech != "sky130_fd_sc_hd__tt_025C_1v80" || u.DelayPS < 150 || u.DelayPS > 300 || u.FO4 < 1.5 || u.FO4 > 3.5 {
		t.Errorf("unit %+v", u)
	}
}

func TestCharacterize_Errors(t *testing.T) {
	if code, _, _ := lsugen(t, "characterize"); code != 2 {
		t.Errorf("no file: exit %d, want 2", code)
	}
	code, _, stderr := lsugen(t, "characterize", filepath.Join(t.TempDir(), "none.lib"))
	if code != 2 || !strings.Contains(stderr, "none.lib") {
		t.Errorf("missing file: exit %d, %s", code, stderr)
	}
	bad := filepath.Join(t.TempDir(), "bad.lib")
	os.WriteFile(bad, []byte("library (x) {"), 0o644)
	code, _, stderr = lsugen(t, "characterize", bad)
	if code != 2 || !strings.Contains(stderr, "not closed") {
		t.Errorf("bad file: exit %d, %s", code, stderr)
	}
	code, _, stderr = lsugen(t, "timing", "--liberty", bad, "x.hcl")
	if code != 2 || !strings.Contains(stderr, "not closed") {
		t.Errorf("timing with a bad library: exit %d, %s", code, stderr)
	}
}
