package packaging

import (
	"bytes"
	"errors"
	"fmt"
	"sort"

	"gopkg.in/yaml.v3"
)

// CheckCore parses a CAPI2 core file and checks it against the parts of
// FuseSoC's CAPI2 schema that cores written for lsugen use. FuseSoC reads
// generated cores with additional properties refused, so unknown keys are
// errors here too. The checks: the first line is exactly "CAPI=2:"; the
// top-level keys are CAPI2's; name is a VLNV; every fileset, target,
// generator, generator instance and parameter has only the keys CAPI2
// allows there, with the types it requires (files a non-empty list of
// names or single-key mappings of a name to file attributes, a target's
// filesets and generate lists naming entries declared in the file,
// toplevel a string or list of strings, tools a mapping of mappings,
// generators with a command, parameters with datatype and paramtype); a
// file with targets has a default target. All problems are reported.
func CheckCore(b []byte) error {
	first, _, _ := bytes.Cut(b, []byte("\n"))
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if string(first) != "CAPI=2:" {
		bad("the first line is %q, want \"CAPI=2:\"", first)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return errors.Join(append(errs, fmt.Errorf("not YAML: %v", err))...)
	}
	delete(doc, "CAPI=2")
	keys(doc, "", bad, set("name", "description", "license", "filesets", "generate", "generators",
		"parameters", "provider", "scripts", "targets", "vpi", "virtual", "mapping"))

	if name, ok := doc["name"].(string); !ok {
		bad("name: want a VLNV string, got %s", yamlType(doc["name"]))
	} else if err := checkVLNV(name); err != nil {
		bad("name: %v", err)
	}
	if d, ok := doc["description"]; ok {
		if _, ok := d.(string); !ok {
			bad("description: want a string, got %s", yamlType(d))
		}
	}

	filesets := mapping(doc, "filesets", "", bad)
	for _, n := range sortedKeys(filesets) {
		at := "filesets." + n
		fs, ok := filesets[n].(map[string]any)
		if !ok {
			bad("%s: want a mapping, got %s", at, yamlType(filesets[n]))
			continue
		}
		keys(fs, at, bad, set("file_type", "logical_name", "tags", "files", "files_append", "depend", "depend_append"))
		strs(fs, at, bad, "file_type", "logical_name")
		lists(fs, at, bad, "tags", "depend", "depend_append")
		for _, k := range []string{"files", "files_append"} {
			if v, ok := fs[k]; ok {
				checkFiles(v, at+"."+k, bad)
			}
		}
	}

	generate := mapping(doc, "generate", "", bad)
	for _, n := range sortedKeys(generate) {
		at := "generate." + n
		g, ok := generate[n].(map[string]any)
		if !ok {
			bad("%s: want a mapping, got %s", at, yamlType(generate[n]))
			continue
		}
		keys(g, at, bad, set("generator", "position", "parameters"))
		required(g, at, bad, "generator")
		strs(g, at, bad, "generator", "position")
		if p, ok := g["parameters"]; ok {
			if _, ok := p.(map[string]any); !ok {
				bad("%s.parameters: want a mapping, got %s", at, yamlType(p))
			}
		}
	}

	generators := mapping(doc, "generators", "", bad)
	for _, n := range sortedKeys(generators) {
		at := "generators." + n
		g, ok := generators[n].(map[string]any)
		if !ok {
			bad("%s: want a mapping, got %s", at, yamlType(generators[n]))
			continue
		}
		keys(g, at, bad, set("command", "interpreter", "cache_type", "file_input_parameters", "description", "usage"))
		required(g, at, bad, "command")
		strs(g, at, bad, "command", "interpreter", "cache_type", "file_input_parameters", "description", "usage")
	}

	params := mapping(doc, "parameters", "", bad)
	for _, n := range sortedKeys(params) {
		at := "parameters." + n
		p, ok := params[n].(map[string]any)
		if !ok {
			bad("%s: want a mapping, got %s", at, yamlType(params[n]))
			continue
		}
		keys(p, at, bad, set("datatype", "default", "description", "paramtype", "scope"))
		required(p, at, bad, "datatype", "paramtype")
		strs(p, at, bad, "datatype", "description", "paramtype", "scope")
	}

	targets := mapping(doc, "targets", "", bad)
	if len(targets) > 0 {
		if _, ok := targets["default"]; !ok {
			bad("targets: no default target")
		}
	}
	for _, n := range sortedKeys(targets) {
		at := "targets." + n
		t, ok := targets[n].(map[string]any)
		if !ok {
			bad("%s: want a mapping, got %s", at, yamlType(targets[n]))
			continue
		}
		keys(t, at, bad, set("default_tool", "description", "flow", "flow_options", "hooks", "tools", "toplevel", "flags",
			"filesets", "filesets_append", "filters", "filters_append", "generate", "generate_append",
			"parameters", "parameters_append", "vpi", "vpi_append"))
		strs(t, at, bad, "default_tool", "description", "flow")
		lists(t, at, bad, "filesets", "filesets_append", "filters", "filters_append", "parameters", "parameters_append", "vpi", "vpi_append")
		for _, k := range []string{"filesets", "filesets_append"} {
			for _, f := range strList(t[k]) {
				if _, ok := filesets[f]; !ok {
					bad("%s.%s: no fileset %q", at, k, f)
				}
			}
		}
		for _, k := range []string{"generate", "generate_append"} {
			v, ok := t[k]
			if !ok {
				continue
			}
			l, ok := v.([]any)
			if !ok {
				bad("%s.%s: want a list, got %s", at, k, yamlType(v))
				continue
			}
			for _, e := range l {
				if s, ok := e.(string); ok {
					if _, ok := generate[s]; !ok {
						bad("%s.%s: no generate entry %q", at, k, s)
					}
				}
			}
		}
		if v, ok := t["toplevel"]; ok {
			switch v := v.(type) {
			case string:
			case []any:
				if strList(v) == nil || len(strList(v)) != len(v) {
					bad("%s.toplevel: want a string or a list of strings", at)
				}
			default:
				bad("%s.toplevel: want a string or a list of strings, got %s", at, yamlType(v))
			}
		}
		for _, n := range sortedKeys(mapping(t, "tools", at+".", bad)) {
			if _, ok := t["tools"].(map[string]any)[n].(map[string]any); !ok {
				bad("%s.tools.%s: want a mapping", at, n)
			}
		}
		mapping(t, "flow_options", at+".", bad)
		mapping(t, "flags", at+".", bad)
		mapping(t, "hooks", at+".", bad)
	}
	return errors.Join(errs...)
}

// checkFiles checks a files list: names, or single-key mappings of a name
// to its attributes.
func checkFiles(v any, at string, bad func(string, ...any)) {
	l, ok := v.([]any)
	if !ok || len(l) == 0 {
		bad("%s: want a non-empty list of files, got %s", at, yamlType(v))
		return
	}
	for i, f := range l {
		switch f := f.(type) {
		case string:
			if f == "" {
				bad("%s[%d]: empty file name", at, i)
			}
		case map[string]any:
			if len(f) != 1 {
				bad("%s[%d]: want one file name with its attributes", at, i)
				continue
			}
			for name, attrs := range f {
				a, ok := attrs.(map[string]any)
				if !ok {
					bad("%s[%d] %s: want a mapping of attributes, got %s", at, i, name, yamlType(attrs))
					continue
				}
				keys(a, fmt.Sprintf("%s[%d]", at, i), bad, set("define", "is_include_file", "include_path", "file_type",
					"logical_name", "tags", "copyto"))
			}
		default:
			bad("%s[%d]: want a file name, got %s", at, i, yamlType(f))
		}
	}
}

func set(ks ...string) map[string]bool {
	m := map[string]bool{}
	for _, k := range ks {
		m[k] = true
	}
	return m
}

// keys reports keys of m outside allowed.
func keys(m map[string]any, at string, bad func(string, ...any), allowed map[string]bool) {
	for _, k := range sortedKeys(m) {
		if !allowed[k] {
			if at == "" {
				bad("unknown top-level key %q", k)
			} else {
				bad("%s: unknown key %q", at, k)
			}
		}
	}
}

func required(m map[string]any, at string, bad func(string, ...any), ks ...string) {
	for _, k := range ks {
		if _, ok := m[k]; !ok {
			bad("%s: %s is required", at, k)
		}
	}
}

func strs(m map[string]any, at string, bad func(string, ...any), ks ...string) {
	for _, k := range ks {
		if v, ok := m[k]; ok {
			if _, ok := v.(string); !ok {
				bad("%s.%s: want a string, got %s", at, k, yamlType(v))
			}
		}
	}
}

func lists(m map[string]any, at string, bad func(string, ...any), ks ...string) {
	for _, k := range ks {
		if v, ok := m[k]; ok {
			l, ok := v.([]any)
			if !ok || len(strList(l)) != len(l) {
				bad("%s.%s: want a list of strings, got %s", at, k, yamlType(v))
			}
		}
	}
}

// strList returns v's strings when v is a list of strings, else nil.
func strList(v any) []string {
	l, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(l))
	for _, e := range l {
		s, ok := e.(string)
		if !ok {
			return nil
		}
		out = append(out, s)
	}
	return out
}

// mapping returns m[k] when it is a mapping (nil when absent), reporting
// any other type.
func mapping(m map[string]any, k, at string, bad func(string, ...any)) map[string]any {
	v, ok := m[k]
	if !ok {
		return nil
	}
	mm, ok := v.(map[string]any)
	if !ok {
		bad("%s%s: want a mapping, got %s", at, k, yamlType(v))
		return nil
	}
	return mm
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
