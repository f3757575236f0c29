package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/invopop/jsonschema"
	orderedmap "github.com/pb33f/ordered-map/v2"
	validator "github.com/santhosh-tekuri/jsonschema/v6"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/schema/*.json from the Go types of the --json documents")

const (
	modulePath = "github.com/lsugen/lsugen"
	schemaDir  = "../../docs/schema"
)

// goComments reads the doc comments of the types and struct fields of the
// packages whose types the documents use: "pkgpath.Type" is a type's first
// sentence, "pkgpath.Type.Field" a field's comment, each on one line.
// Unexported types count: the command's documents are.
func goComments(t *testing.T, pkgs []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	oneLine := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	for _, pkg := range pkgs {
		dir := filepath.Join("..", "..", strings.TrimPrefix(pkg, modulePath+"/"))
		fset := token.NewFileSet()
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			for _, decl := range f.Decls {
				gd, ok := decl.(*ast.GenDecl)
				if !ok || gd.Tok != token.TYPE {
					continue
				}
				for _, spec := range gd.Specs {
					ts := spec.(*ast.TypeSpec)
					text := ts.Doc.Text()
					if text == "" && len(gd.Specs) == 1 {
						text = gd.Doc.Text()
					}
					if text != "" {
						out[pkg+"."+ts.Name.Name] = oneLine(new(doc.Package).Synopsis(text))
					}
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						continue
					}
					for _, field := range st.Fields.List {
						text := field.Doc.Text()
						if text == "" {
							text = field.Comment.Text()
						}
						for _, n := range field.Names {
							if text != "" {
								out[pkg+"."+ts.Name.Name+"."+n.Name] = oneLine(text)
							}
						}
					}
				}
			}
		}
	}
	return out
}

// reachableTypes are the named types reachable from t, each once.
func reachableTypes(t reflect.Type, seen map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if seen[t] || t.Kind() != reflect.Struct {
		return
	}
	seen[t] = true
	for i := range t.NumField() {
		reachableTypes(t.Field(i).Type, seen)
	}
}

// searchConfigSchema is the schema of searchConfig: the four shapes of a
// hash configuration.
func searchConfigSchema() *jsonschema.Schema {
	integer := func() *jsonschema.Schema { return &jsonschema.Schema{Type: "integer"} }
	object := func(desc string, props ...any) *jsonschema.Schema {
		s := &jsonschema.Schema{Type: "object", Description: desc, Properties: orderedmap.New[string, *jsonschema.Schema](),
			AdditionalProperties: jsonschema.FalseSchema}
		for i := 0; i < len(props); i += 2 {
			s.Properties.Set(props[i].(string), props[i+1].(*jsonschema.Schema))
			s.Required = append(s.Required, props[i].(string))
		}
		return s
	}
	pair := &jsonschema.Schema{Type: "array", Items: integer(), MinItems: ptr(uint64(2)), MaxItems: ptr(uint64(2))}
	return &jsonschema.Schema{
		Description: "the chosen configuration under the hash block's attribute names",
		AnyOf: []*jsonschema.Schema{
			object("bitvector_perm", "k", integer()),
			object("bitvector_xor", "k1", integer(), "k2", integer(), "mask", integer()),
			object("bitwise_perm: the address bit of each bank bit", "bits", &jsonschema.Schema{Type: "array", Items: integer()}),
			object("bitwise_xor: the two address bits XORed into each bank bit", "bits", &jsonschema.Schema{Type: "array", Items: pair}),
		},
	}
}

func ptr[T any](v T) *T { return &v }

// jsonSchema is the JSON Schema of one document, as docs/schema keeps it.
func jsonSchema(t *testing.T, file, title string, v any) []byte {
	t.Helper()
	seen := map[reflect.Type]bool{}
	reachableTypes(reflect.TypeOf(v), seen)
	var pkgs []string
	names := map[string]reflect.Type{}
	for typ := range seen {
		if !slices.Contains(pkgs, typ.PkgPath()) {
			pkgs = append(pkgs, typ.PkgPath())
		}
		if other, ok := names[typ.Name()]; ok {
			t.Fatalf("%s: two types named %s (%s and %s): the schema's definitions would merge them", file, typ.Name(), typ.PkgPath(), other.PkgPath())
		}
		names[typ.Name()] = typ
	}
	comments := goComments(t, pkgs)
	r := &jsonschema.Reflector{
		Anonymous:      true,
		ExpandedStruct: true,
		LookupComment: func(t reflect.Type, field string) string {
			if field == "" {
				return comments[t.PkgPath()+"."+t.Name()]
			}
			return comments[t.PkgPath()+"."+t.Name()+"."+field]
		},
		Mapper: func(t reflect.Type) *jsonschema.Schema {
			if t == reflect.TypeOf(searchConfig{}) {
				return searchConfigSchema()
			}
			return nil
		},
	}
	s := r.Reflect(v)
	s.Title = title
	s.Description = "lsugen's " + title + " document; see docs/json-reports.md. Generated from the Go types by `make docs`: do not edit."
	// encoding/json writes a nil pointer, slice or map as null unless the
	// field is omitempty: such fields may be null.
	for typ := range seen {
		def := s.Definitions[typ.Name()]
		if typ == reflect.TypeOf(v) {
			def = s
		}
		if def != nil {
			allowNull(def, typ)
		}
	}
	b, err := s.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		t.Fatal(err)
	}
	out.WriteByte('\n')
	return out.Bytes()
}

// allowNull lets the fields of the struct type typ whose Go value may be
// nil and that are not omitempty be null in its schema def; it follows
// embedded structs, whose fields are inlined.
func allowNull(def *jsonschema.Schema, typ reflect.Type) {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	for i := range typ.NumField() {
		f := typ.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		if f.Anonymous && name == "" {
			allowNull(def, f.Type)
			continue
		}
		if name == "" {
			name = f.Name
		}
		switch f.Type.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map:
		default:
			continue
		}
		if strings.Contains(opts, "omitempty") || def.Properties == nil {
			continue
		}
		if p, ok := def.Properties.Get(name); ok {
			def.Properties.Set(name, &jsonschema.Schema{AnyOf: []*jsonschema.Schema{p, {Type: "null"}}})
		}
	}
}

// TestJSONSchemas_UpToDate: docs/schema holds the schema of every --json
// document, as generated from its Go type (go test ./cmd/lsugen -run
// JSONSchemas -update-docs, or make docs, rewrites them).
func TestJSONSchemas_UpToDate(t *testing.T) {
	want := map[string]bool{}
	for _, d := range jsonDocs {
		want[d.schema] = true
		b := jsonSchema(t, d.schema, d.title, d.value)
		path := filepath.Join(schemaDir, d.schema)
		if *updateDocs {
			if err := os.MkdirAll(schemaDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		old, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(old, b) {
			t.Errorf("%s is stale: run make docs (%v)", path, err)
		}
		// The schema itself is valid.
		compileSchema(t, d.schema)
	}
	entries, _ := os.ReadDir(schemaDir)
	for _, e := range entries {
		if !want[e.Name()] {
			t.Errorf("%s/%s: no document has this schema", schemaDir, e.Name())
		}
	}
}

// compileSchema compiles docs/schema/file.
func compileSchema(t *testing.T, file string) *validator.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join(schemaDir, file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := validator.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	c := validator.NewCompiler()
	if err := c.AddResource(file, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(file)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return s
}

// validateJSON checks a command's --json output against its schema in
// docs/schema.
func validateJSON(t *testing.T, file, output string) {
	t.Helper()
	inst, err := validator.UnmarshalJSON(strings.NewReader(output))
	if err != nil {
		t.Fatalf("%s: the output is not JSON: %v\n%.500s", file, err, output)
	}
	if err := compileSchema(t, file).Validate(inst); err != nil {
		t.Errorf("the output does not follow %s: %v\n%.2000s", file, err, output)
	}
}

// TestJSONSchemas_Outputs: every command's --json output follows its
// schema, over the variants of each document (characterize, timing
// --liberty and crosscheck-timing are validated in their own tests, which
// need the cell library and tools).
func TestJSONSchemas_Outputs(t *testing.T) {
	t.Setenv("LSUGEN_VERILATOR", "/nonexistent/verilator")
	dir := t.TempDir()
	spec := writeSpec(t, dir, "a.hcl", goodSpec)
	seq := writeSpec(t, dir, "p.hcl", verifySeqSpec)
	trace := writeSpec(t, dir, "t.trace", transposeTrace())
	gapi := writeSpec(t, dir, "g.yml", "gapi: '1.0'\nfiles_root: "+dir+"\nparameters:\n  spec: "+filepath.Base(spec)+"\n  tb: true\n")
	search := []string{"search", "--json", "--addr-bits", "10", "--bank-bits", "5", trace}
	validated := map[string]bool{}
	for _, c := range []struct {
		schema string
		args   []string
		code   int
	}{
		{"gen.json", []string{"gen", "--json", "-o", filepath.Join(dir, "g1"), spec}, 0},
		{"gen.json", []string{"gen", "--json", "--tb", "--fusesoc", "-o", filepath.Join(dir, "g2"), seq}, 0},
		{"gen.json", []string{"fusesoc-gen", "--json", "-o", filepath.Join(dir, "g3"), gapi}, 0},
		{"timing.json", []string{"timing", "--json", "--clock", "2,4", "../../specs/hash_atomics.hcl", "../../specs/pipeline_figure4.hcl"}, 0},
		{"timing.json", []string{"timing", "--json", "--mode", "sized", "--no-wire", "../../specs/pipeline.hcl"}, 0},
		{"verify.json", []string{"verify", "--json", "--sim", "netlist", "--cycles", "300", seq}, 0},
		{"verify.json", []string{"verify", "--json", "--sim", "netlist,verilator", spec}, 1},
		{"conflicts.json", []string{"conflicts", "--json", trace, "../../specs/patterns_000.hcl"}, 0},
		{"conflicts.json", []string{"conflicts", "--json", "--lock-bits", "10", "--accesses", trace}, 0},
		{"conflicts.json", []string{"conflicts", "--json", "--sort", "pc", "--top", "3", "--accesses", "../../specs/traces/accelsim/kernelslist.g"}, 0},
		{"conflicts-diff.json", []string{"conflicts", "--json", "--diff", "../../specs/hash_table5.hcl:transpose_bvxor", trace, "../../specs/traces/accelsim/kernelslist.g"}, 0},
		{"replay.json", []string{"replay", "--json", "../../specs/large/shared_memory_fermi.hcl:shmem_fermi", trace, "../../specs/traces/accelsim/kernelslist.g"}, 0},
		{"search.json", append(search, "--function", "bitvector_xor"), 0},
		{"search.json", append(search, "--function", "bitvector_perm"), 0},
		{"search.json", append(search, "--function", "bitwise_perm", "--method", "givargis"), 0},
		{"search.json", append(search, "--function", "bitwise_xor", "--method", "mih"), 0},
		{"search-count.json", []string{"search", "--count", "--json", "--addr-bits", "14", "--bank-bits", "5"}, 0},
		{"search-for.json", []string{"search", "--json", "--for", "../../specs/hash_configurable.hcl:cfg_bitvector_xor", trace}, 0},
		{"search-for.json", []string{"search", "--json", "--for", "../../specs/hash_configurable.hcl:cfg_bitwise_perm", trace, "../../specs/traces/accelsim/kernelslist.g"}, 0},
		{"search-count.json", []string{"search", "--count", "--json", "--addr-bits", "14", "--bank-bits", "5", "--stride", "4"}, 0},
		{"rapsim.json", []string{"rapsim", "--json", "--w", "16", "--trials", "20"}, 0},
		{"study.json", []string{"study", "--json", "atomics-fig5"}, 0},
		{"study.json", []string{"study", "--json", "hough", "--set", "angles=4", "--set", "replication=1,2"}, 0},
		{"pipesim.json", []string{"pipesim", "--json", fig4Spec, "--trace", fig4Trace}, 0},
		{"pipesim.json", []string{"pipesim", "--json", studySpec, "--preset", "transpose", "--instructions", "50"}, 0},
		{"profile.json", []string{"profile", "--json", "../../specs/traces/accelsim/profile_spmv.traceg"}, 0},
		{"profile.json", []string{"profile", "--json", "--spec-timing", "separate", "../../specs/traces/accelsim/profile_copy.traceg"}, 0},
		{"version.json", []string{"version", "--json"}, 0},
		{"timing.json", []string{"timing", "--json", "../../specs/clocked.hcl"}, 0},
		{"timing-sweep.json", []string{"timing", "--json", "--sweep-clock", "20:40:10", "../../specs/coalescer_small.hcl"}, 0},
	} {
		validated[c.schema] = true
		code, stdout, stderr := lsugen(t, c.args...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d: %s", c.args, code, c.code, stderr)
			continue
		}
		validateJSON(t, c.schema, stdout)
	}
	// A job list's point writes its result file, not stdout.
	pointDir := filepath.Join(dir, "points")
	if code, _, stderr := lsugen(t, "timing", "--sweep-point=monotonic_8_cla@20", "--out-dir", pointDir, "../../specs/coalescer_small.hcl"); code != 0 {
		t.Errorf("--sweep-point: exit %d: %s", code, stderr)
	} else if b, err := os.ReadFile(filepath.Join(pointDir, "monotonic_8_cla@20.json")); err != nil {
		t.Error(err)
	} else {
		validated["timing-sweep-point.json"] = true
		validateJSON(t, "timing-sweep-point.json", string(b))
	}
	// Every document is validated somewhere.
	for _, d := range jsonDocs {
		if d.schema == "characterize.json" || d.schema == "crosscheck-timing.json" {
			continue
		}
		if !validated[d.schema] {
			t.Errorf("%s: no output validated against it", d.schema)
		}
	}
}
