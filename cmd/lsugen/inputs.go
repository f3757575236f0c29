package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/tools/trace"
)

// inputOptions say how Accel-Sim byte addresses become lsugen word
// accesses: the bank width in bytes (4 or 8) and the bank count, which
// together set how a 64- or 128-bit access splits into phases.
type inputOptions struct {
	BankBytes int // 4 (default when 0) or 8
	Banks     int // 32 (default when 0)
}

func (o inputOptions) withDefaults() inputOptions {
	if o.BankBytes == 0 {
		o.BankBytes = 4
	}
	if o.Banks == 0 {
		o.Banks = 32
	}
	return o
}

// loadTraces reads inputs with the default options (4-byte banks, 32
// banks).
func loadTraces(inputs []string, stderr io.Writer) ([]*trace.Trace, error) {
	return loadTracesWith(inputs, inputOptions{}, stderr)
}

// loadTracesWith reads lsugen trace files, expands the pattern blocks of
// spec files (named *.hcl), one trace per input in the order given.
func loadTracesWith(inputs []string, opt inputOptions, stderr io.Writer) ([]*trace.Trace, error) {
	opt = opt.withDefaults()
	var out []*trace.Trace
	for _, in := range inputs {
		if strings.HasSuffix(in, ".hcl") {
			t, err := loadPatterns(in, stderr)
			if err != nil {
				return nil, err
			}
			out = append(out, t)
			continue
		}
		t, err := trace.ParseFile(in)
		if err != nil {
			return nil, badInput(err)
		}
		out = append(out, t)
	}
	return out, nil
}

// loadPatterns expands the pattern blocks of a spec file into one trace.
func loadPatterns(in string, stderr io.Writer) (*trace.Trace, error) {
	loader := specs.NewLoader()
	file, diags := loader.Load(in)
	if len(diags) > 0 {
		printDiagnostics(stderr, loader, diags)
	}
	if diags.HasErrors() {
		return nil, errBadInput
	}
	if len(file.Patterns) == 0 {
		return nil, badInput(fmt.Errorf("%s declares no pattern blocks", in))
	}
	t := &trace.Trace{File: in}
	for _, p := range file.Patterns {
		t.Accesses = append(t.Accesses, trace.FromPattern(p)...)
	}
	return t, nil
}
