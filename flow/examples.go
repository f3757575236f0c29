package flow

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/lsugen/lsugen/specs"
)

// modulePath is the module whose root holds the example specs.
const modulePath = "github.com/lsugen/lsugen"

// Examples are the example specs (specs/*.hcl under the module root), each
// file loaded alone and generated with no budget and no clock override,
// as `lsugen gen specs/FILE.hcl` run from the module root does: their
// units' sources read specs/FILE.hcl. They are loaded once per process
// and shared: callers must not modify a session, a spec or a design (copy
// a design before changing it).
func Examples() ([]*Session, error) {
	examples.once.Do(loadExamples)
	return examples.sessions, examples.err
}

// ExampleUnits are the units of Examples, every file's in order.
func ExampleUnits() ([]Unit, error) {
	ss, err := Examples()
	if err != nil {
		return nil, err
	}
	var us []Unit
	for _, s := range ss {
		us = append(us, s.Units...)
	}
	return us, nil
}

// ExampleUnit is the example unit named name (unit names are unique
// across the example specs).
func ExampleUnit(name string) (Unit, error) {
	us, err := ExampleUnits()
	if err != nil {
		return Unit{}, err
	}
	for _, u := range us {
		if u.Design.Name == name {
			return u, nil
		}
	}
	return Unit{}, fmt.Errorf("no example unit %s", name)
}

var examples struct {
	once     sync.Once
	sessions []*Session
	err      error
}

func loadExamples() {
	root, err := ModuleRoot()
	if err != nil {
		examples.err = err
		return
	}
	files, err := filepath.Glob(filepath.Join(root, "specs", "*.hcl"))
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("no example specs in %s", filepath.Join(root, "specs"))
	}
	if err != nil {
		examples.err = err
		return
	}
	for _, f := range files {
		s, err := loadExample(f, path.Join("specs", filepath.Base(f)))
		if err != nil {
			examples.err = err
			return
		}
		examples.sessions = append(examples.sessions, s)
	}
}

// loadExample loads the spec file at file under the name name (its
// units' source), with no limits.
func loadExample(file, name string) (*Session, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	s := &Session{Paths: []string{name}, Loader: specs.NewLoader()}
	f, diags := s.Loader.Parse(src, name)
	s.Diags = diags
	if !diags.HasErrors() && s.resolveClocks(f.Units, &specs.Clocking{}, nil) {
		// No work budget: generate returns no error.
		s.Units, _ = s.generate(f.Units, f.Units, specs.Clocking{}, nil, nil)
	}
	if s.Diags.HasErrors() {
		return nil, fmt.Errorf("%s: %s", name, s.Diags.Error())
	}
	return s, nil
}

// ModuleRoot is the root of the lsugen module: the first directory at or
// above the working directory whose go.mod declares it.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if isModuleRoot(filepath.Join(dir, "go.mod")) {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("the lsugen module's root (its go.mod) is not at or above the working directory")
		}
		dir = up
	}
}

// isModuleRoot reports whether the go.mod file gomod declares modulePath.
func isModuleRoot(gomod string) bool {
	f, err := os.Open(gomod)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if mod, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(mod), `"`) == modulePath
		}
	}
	return false
}
