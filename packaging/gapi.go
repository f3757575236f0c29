package packaging

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// GAPI is the input FuseSoC hands a generator: a YAML file whose path is
// the generator's one argument (FuseSoC's GAPI reference, version 1.0).
type GAPI struct {
	// FilesRoot is the directory of the calling core, where the
	// generator's input files are found; "" when the file has none.
	FilesRoot string
	// VLNV is the name FuseSoC proposes for the generated core; "" when
	// the file has none.
	VLNV string
	// Parameters are the calling core's parameters of this generator
	// instance, passed through unchanged; empty when there are none.
	Parameters map[string]any
}

// Bounds of a GAPI file: its size (FuseSoC writes a few hundred bytes)
// and the spec files it names.
const (
	MaxGAPIBytes = 1 << 20
	MaxGAPISpecs = 1024
)

// ParseGAPI reads a GAPI file. It requires `gapi: "1.0"`, the only version
// FuseSoC defines, and checks the types of files_root, vlnv and
// parameters; other top-level keys are ignored, as a generator should.
func ParseGAPI(b []byte) (*GAPI, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("not a YAML mapping: %v", err)
	}
	if doc == nil {
		return nil, errors.New("empty: want the keys gapi, files_root, vlnv and parameters")
	}
	g := &GAPI{Parameters: map[string]any{}}
	switch v := doc["gapi"].(type) {
	case string:
		if v != "1.0" {
			return nil, fmt.Errorf("gapi: version %q; lsugen reads version 1.0", v)
		}
	case float64:
		if v != 1 {
			return nil, fmt.Errorf("gapi: version %s; lsugen reads version 1.0", strconv.FormatFloat(v, 'g', -1, 64))
		}
	case nil:
		return nil, errors.New(`gapi: missing; want gapi: "1.0"`)
	default:
		return nil, fmt.Errorf("gapi: %v is not a version; want \"1.0\"", v)
	}
	var err error
	if g.FilesRoot, err = optString(doc, "files_root"); err != nil {
		return nil, err
	}
	if g.VLNV, err = optString(doc, "vlnv"); err != nil {
		return nil, err
	}
	if g.VLNV != "" {
		if err := checkVLNV(g.VLNV); err != nil {
			return nil, fmt.Errorf("vlnv: %w", err)
		}
	}
	switch p := doc["parameters"].(type) {
	case nil:
	case map[string]any:
		g.Parameters = p
	default:
		return nil, fmt.Errorf("parameters: want a mapping, got %s", yamlType(p))
	}
	return g, nil
}

func optString(doc map[string]any, key string) (string, error) {
	switch v := doc[key].(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	default:
		return "", fmt.Errorf("%s: want a string, got %s", key, yamlType(v))
	}
}

// checkVLNV accepts vendor:library:name:version with a non-empty name and
// version, vendor and library possibly empty, and no spaces.
func checkVLNV(s string) error {
	parts := strings.Split(s, ":")
	if len(parts) != 4 || parts[2] == "" || parts[3] == "" || strings.ContainsAny(s, " \t\r\n") {
		return fmt.Errorf("%q is not vendor:library:name:version", s)
	}
	return nil
}

// SplitVLNV returns the four parts of a VLNV that ParseGAPI accepted.
func SplitVLNV(s string) (vendor, library, name, version string, err error) {
	if err := checkVLNV(s); err != nil {
		return "", "", "", "", err
	}
	p := strings.Split(s, ":")
	return p[0], p[1], p[2], p[3], nil
}

// yamlType names the YAML type of a decoded value, for messages.
func yamlType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int, int64, uint64, float64:
		return "a number"
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	}
	return fmt.Sprintf("%T", v)
}

// SpecPath resolves p, a file name of the GAPI file's parameters, inside
// files_root (the current directory when the file has none) and returns
// it joined to files_root. An absolute path, a path whose `..` leaves
// files_root, and a path that leads out of files_root through a symbolic
// link (to the file or to a directory on the way) are refused before
// anything is opened, so that no file outside the calling core is read or
// quoted. A path that does not exist is returned joined to files_root, for
// its reader to report.
func (g *GAPI) SpecPath(p string) (string, error) {
	root := g.FilesRoot
	if root == "" {
		root = "."
	}
	if filepath.IsAbs(p) {
		return "", fmt.Errorf("spec %q: an absolute path; name a file inside files_root %q, relative to it", p, root)
	}
	if !filepath.IsLocal(p) {
		return "", fmt.Errorf("spec %q: leaves files_root %q; name a file inside it", p, root)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("files_root %q: %w", root, err)
	}
	joined := filepath.Join(root, p)
	real, err := filepath.EvalSymlinks(joined)
	if errors.Is(err, fs.ErrNotExist) {
		return joined, nil
	}
	if err != nil {
		return "", fmt.Errorf("spec %q in files_root %q: %w", p, root, err)
	}
	if rel, err := filepath.Rel(realRoot, real); err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("spec %q: a symbolic link out of files_root %q; name a file inside it", p, root)
	}
	return joined, nil
}
