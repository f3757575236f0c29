package packaging_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/lsugen/lsugen/packaging"
)

// capi2Schema is FuseSoC's own JSON schema of CAPI2 core files, kept in
// testdata (see testdata/README.md for its source and licence).
var capi2Schema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	return jsonschema.NewCompiler().Compile("testdata/capi2_schema.json")
})

// validateCAPI2 checks a core file as FuseSoC reads it: the first line is
// the preamble "CAPI=2:", the rest is YAML whose value, converted to JSON
// values, satisfies FuseSoC's schema.
func validateCAPI2(t *testing.T, core []byte) error {
	t.Helper()
	sch, err := capi2Schema()
	if err != nil {
		t.Fatalf("compiling FuseSoC's CAPI2 schema: %v", err)
	}
	first, rest, _ := bytes.Cut(core, []byte("\n"))
	if string(first) != "CAPI=2:" {
		return errors.New("the first line is not CAPI=2:")
	}
	var doc any
	if err := yaml.Unmarshal(rest, &doc); err != nil {
		return err
	}
	// YAML -> JSON -> the JSON values the validator takes (numbers as
	// json.Number).
	j, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		return err
	}
	return sch.Validate(v)
}

// TestCoreFile_FuseSoCSchema: every core lsugen writes, with and without
// the testbench, and the hand-written cores of specs/fusesoc satisfy
// FuseSoC's CAPI2 schema.
func TestCoreFile_FuseSoCSchema(t *testing.T) {
	gs := append(generate(t), generateWith(t, true)...)
	for _, g := range gs {
		core := g.files[g.unit.Name+".core"]
		if err := validateCAPI2(t, core); err != nil {
			t.Errorf("%s.core (testbench %v): %v\n%s", g.unit.Name, g.unit.Testbench != nil, err, core)
		}
	}
	cores, err := filepath.Glob("../specs/fusesoc/*.core")
	if err != nil || len(cores) == 0 {
		t.Fatalf("no cores in specs/fusesoc (%v)", err)
	}
	for _, c := range cores {
		b, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		if err := validateCAPI2(t, b); err != nil {
			t.Errorf("%s: %v", c, err)
		}
	}
}

// TestFuseSoCSchema_RejectsBrokenCores: the schema check fails for cores
// FuseSoC would refuse, each a small edit of a generated core.
func TestFuseSoCSchema_RejectsBrokenCores(t *testing.T) {
	g := generateWith(t, true)[0]
	name := g.unit.Name
	good := string(g.files[name+".core"])
	if err := validateCAPI2(t, []byte(good)); err != nil {
		t.Fatalf("the unbroken core fails: %v", err)
	}
	edit := func(old, new string) string {
		t.Helper()
		if !strings.Contains(good, old) {
			t.Fatalf("%s.core lacks %q:\n%s", name, old, good)
		}
		return strings.Replace(good, old, new, 1)
	}
	for _, c := range []struct {
		name, core, want string // want: in the validator's message
	}{
		{"no name (required)", edit("name: "+packaging.DefaultVLNV(name, g.unit.Version)+"\n", ""), "missing property 'name'"},
		{"toplevel a number", edit("    toplevel: "+name+"\n", "    toplevel: 3\n"), "/targets/default/toplevel"},
		{"filesets a list", edit("    filesets:\n      - rtl\n    toplevel: "+name+"\n", "    filesets: rtl\n    toplevel: "+name+"\n"), "/targets/default/filesets"},
		{"unknown fileset key", edit("    file_type: SDC\n", "    file_type: SDC\n    type: SDC\n"), "additional properties 'type'"},
		{"no files", edit("    files:\n      - "+name+".sdc\n", "    files: []\n"), "/filesets/constraints/files"},
		{"unknown file attribute", edit("          copyto: ", "          copy_to: "), "additional properties 'copy_to'"},
		{"parameter without paramtype", edit("    paramtype: vlogdefine\n", ""), "missing property 'paramtype'"},
		{"unknown datatype", edit("    datatype: str\n", "    datatype: string\n"), "/parameters/DUT/datatype"},
		{"unknown top-level key", good + "toplevel: " + name + "\n", "additional properties 'toplevel'"},
		{"no preamble", strings.TrimPrefix(good, "CAPI=2:\n"), "CAPI=2:"},
	} {
		err := validateCAPI2(t, []byte(c.core))
		t.Logf("%s: %v", c.name, err)
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		if msg := strings.ReplaceAll(err.Error(), "\"", "'"); !strings.Contains(msg, c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		}
	}
}
