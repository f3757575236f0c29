package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// outsideSpec is a file outside files_root whose lines the spec loader
// would quote in its diagnostics if it read them.
const outsideSpec = "hash \"h\" {\n  outside_secret_line = 1\n}\n"

// TestFusesocGen_SpecConfinedToFilesRoot: a spec path of the GAPI file
// that is absolute, leaves files_root through `..`, or leads out of it
// through a symbolic link (to the file or to a directory) is refused with
// exit 2, naming the path and files_root, before the file is opened:
// nothing of the outside file reaches stderr, and nothing is written. A
// spec inside files_root, also through a symbolic link that stays inside,
// still works.
func TestFusesocGen_SpecConfinedToFilesRoot(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "core")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret := writeSpec(t, outside, "secret.hcl", outsideSpec)
	writeSpec(t, root, "a.hcl", goodSpec)
	for _, l := range [][2]string{
		{secret, filepath.Join(root, "link.hcl")},
		{outside, filepath.Join(root, "outdir")},
		{filepath.Join(root, "a.hcl"), filepath.Join(root, "sub", "inside.hcl")},
	} {
		if err := os.Symlink(l[0], l[1]); err != nil {
			t.Skipf("no symbolic links: %v", err)
		}
	}
	for _, c := range []struct{ name, spec, want string }{
		{"absolute", secret, "an absolute path"},
		{"dot-dot", "../outside/secret.hcl", "leaves files_root"},
		{"dot-dot inside a list", "[a.hcl, sub/../../outside/secret.hcl]", "leaves files_root"},
		{"symlinked file", "link.hcl", "a symbolic link out of files_root"},
		{"symlinked directory", "outdir/secret.hcl", "a symbolic link out of files_root"},
	} {
		gapi := writeSpec(t, base, "in.yml", "gapi: '1.0'\nfiles_root: "+root+"\nparameters:\n  spec: "+c.spec+"\n")
		out := filepath.Join(base, "out")
		code, stdout, stderr := lsugen(t, "fusesoc-gen", "-o", out, gapi)
		if code != 2 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, root) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2, %q and files_root %s", c.name, code, stderr, c.want, root)
		}
		if strings.Contains(stderr+stdout, "outside_secret_line") {
			t.Errorf("%s: the outside file was read and quoted: %q", c.name, stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: the output directory was created", c.name)
		}
	}
	for _, spec := range []string{"a.hcl", "sub/inside.hcl", "./sub/../a.hcl"} {
		gapi := writeSpec(t, base, "in.yml", "gapi: '1.0'\nfiles_root: "+root+"\nparameters:\n  spec: "+spec+"\n")
		out := t.TempDir()
		if code, _, stderr := lsugen(t, "fusesoc-gen", "-o", out, gapi); code != 0 {
			t.Errorf("spec %s inside files_root: exit %d: %s", spec, code, stderr)
		} else if _, err := os.Stat(filepath.Join(out, "h.v")); err != nil {
			t.Errorf("spec %s: %v", spec, err)
		}
	}
}
