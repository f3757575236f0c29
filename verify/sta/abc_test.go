package sta

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/toolchain"
)

// TestABCScript_YosysDefaults: the flow's ABC scripts are the ones Yosys's
// own abc pass runs for a liberty mapping, plain and with a delay target,
// but for &fraig's conflict limit: with ABC's default limit (1,000,000)
// abcScript gives, command for command, the script Yosys writes (read from
// the temporary directory that abc -nocleanup keeps).
func TestABCScript_YosysDefaults(t *testing.T) {
	// ABC reads plain liberty only: the prepared copy of sky130's.
	prepared, err := PrepareLibrary(needFlow(t), t.TempDir(), DefaultDontUse)
	if err != nil {
		t.Fatal(err)
	}
	lib := prepared.Path
	yosys, err := toolchain.Find("yosys")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		targetPS float64
		abcArgs  string
	}{
		{"plain", 0, ""},
		{"timing_driven", 1, "-D 1 -constr c.constr "},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{
				"m.v":      "module m(input a, b, c, output y); assign y = (a & b) | c; endmodule\n",
				"c.constr": "set_driving_cell sky130_fd_sc_hd__inv_1\nset_load 9.21\n",
			}
			for name, text := range files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			yosysCmd := yosys.Command(dir, "-q", "-p", "read_verilog m.v; synth -top m; abc -nocleanup "+c.abcArgs+"-liberty "+yosysQuote(lib))
			if _, err := yosysCmd.Run(context.Background()); err != nil {
				t.Fatalf("yosys: %v", err)
			}
			scripts, _ := filepath.Glob(filepath.Join(dir, "*yosys-abc-*", "abc.script"))
			if len(scripts) != 1 {
				t.Fatalf("found %d abc.script files, want 1", len(scripts))
			}
			text, err := os.ReadFile(scripts[0])
			if err != nil {
				t.Fatal(err)
			}
			// Yosys's script: echo lines, the reads and the write around
			// the synthesis commands, one command a line ending in ';'.
			var yosysCmds []string
			for _, l := range strings.Split(string(text), "\n") {
				l = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(l), ";"))
				if l == "" || strings.HasPrefix(l, "echo ") || strings.HasPrefix(l, "read_") || strings.HasPrefix(l, "write_blif") {
					continue
				}
				yosysCmds = append(yosysCmds, l)
			}
			ours := strings.Split(strings.TrimSpace(abcScript(c.targetPS, 1000000)), "; ")
			for i := range ours {
				ours[i] = strings.Replace(ours[i], "&fraig -x -C 1000000", "&fraig -x", 1)
			}
			if strings.Join(ours, "\n") != strings.Join(yosysCmds, "\n") {
				t.Errorf("abcScript:\n  %s\nYosys's default:\n  %s", strings.Join(ours, "\n  "), strings.Join(yosysCmds, "\n  "))
			}
			if s := abcScript(c.targetPS, DefaultFraigConflicts); !strings.Contains(s, "&fraig -x -C 10000;") {
				t.Errorf("the flow's script has no bounded &fraig: %s", s)
			}
		})
	}
}
