package sta

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"regexp"
	"sort"

	"github.com/lsugen/lsugen/timing/liberty"
)

// DefaultDontUse are the cells the flow removes from the liberty before
// synthesis (see liberty.DefaultDontUse). Yosys 0.23 has no -dont_use
// option for abc or dfflibmap, so the flow does what OpenLane's "trimmed"
// liberty does: the cells are cut from a copy of the file in the work
// directory. Without this ABC maps AND-with-inverted-input to sky130's
// lpflow_isobufsrc.
var DefaultDontUse = liberty.DefaultDontUse

// Library is a liberty file prepared for the flow: decompressed, with the
// don't-use cells cut out and written into the work directory, and parsed.
type Library struct {
	*liberty.Library
	// Path is the prepared liberty file the tools read.
	Path string
	// Source is the file it was prepared from.
	Source string
	// Removed are the names of the cells cut out, sorted.
	Removed []string
}

// LibCell is a cell of the library.
type LibCell = liberty.Cell

// PrepareLibrary reads the liberty file src (gzipped when it starts with
// gzip's magic number), removes the cells whose names match a dontUse
// pattern, and writes the result to dir/NAME.lib.
func PrepareLibrary(src, dir string, dontUse []string) (*Library, error) {
	raw, err := liberty.ReadFile(src)
	if err != nil {
		return nil, fmt.Errorf("sta: %w", err)
	}
	for _, p := range dontUse {
		if _, err := path.Match(p, ""); err != nil {
			return nil, fmt.Errorf("sta: don't-use pattern %q: %w", p, err)
		}
	}
	parsed, err := liberty.ParseLibrary(raw)
	if err != nil {
		return nil, fmt.Errorf("sta: %s: %w", src, err)
	}
	lib := &Library{Library: parsed, Source: src}
	var cuts [][2]int
	kept := parsed.Order[:0:0]
	for _, name := range parsed.Order {
		if liberty.MatchAny(dontUse, name) {
			lib.Removed = append(lib.Removed, name)
			cuts = append(cuts, parsed.Cells[name].Span)
			delete(parsed.Cells, name)
		} else {
			kept = append(kept, name)
		}
	}
	parsed.Order = kept
	sort.Slice(cuts, func(i, j int) bool { return cuts[i][0] < cuts[j][0] })
	sort.Strings(lib.Removed)
	var out bytes.Buffer
	out.Grow(len(raw))
	last := 0
	for _, c := range cuts {
		if c[0] < last {
			continue // a duplicate cell name: cut once
		}
		out.Write(raw[last:c[0]])
		last = c[1]
	}
	out.Write(raw[last:])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	lib.Path = dir + string(os.PathSeparator) + safeFileName(lib.Name) + ".lib"
	if err := os.WriteFile(lib.Path, out.Bytes(), 0o644); err != nil {
		return nil, err
	}
	return lib, nil
}

// SmallestInverter is the library's counterpart of lsugen's unit
// inverter and the flow's default driver (liberty.SmallestInverter among
// the cells kept).
func (l *Library) SmallestInverter() (*LibCell, error) {
	c, err := l.Library.SmallestInverter(nil)
	if err != nil {
		return nil, fmt.Errorf("sta: %w", err)
	}
	return c, nil
}

// Driver returns the cell to drive the inputs with: name, or the smallest
// inverter when name is "". The cell must have one input and one output
// pin and be combinational.
func (l *Library) Driver(name string) (*LibCell, error) {
	if name == "" {
		return l.SmallestInverter()
	}
	c, ok := l.Cells[name]
	if !ok {
		hint := ""
		for _, r := range l.Removed {
			if r == name {
				hint = " (it is one of the don't-use cells the flow removes)"
			}
		}
		return nil, fmt.Errorf("sta: library %s has no cell %q%s", l.Name, name, hint)
	}
	if len(c.Inputs) != 1 || len(c.Outputs) != 1 || c.Sequential {
		return nil, fmt.Errorf("sta: driver cell %s must have one input and one output pin", name)
	}
	return c, nil
}

// hasOutput reports whether c has an output pin named name.
func hasOutput(c *LibCell, name string) bool {
	for _, p := range c.Outputs {
		if p.Name == name {
			return true
		}
	}
	return false
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9_.+-]`)

func safeFileName(s string) string {
	s = unsafeChars.ReplaceAllString(s, "_")
	if s == "" || s[0] == '.' {
		s = "lib" + s
	}
	return s
}
