package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/tools/accelsim"
	"github.com/lsugen/lsugen/tools/conflicts"
	"github.com/lsugen/lsugen/tools/trace"
)

// inputOptions say how Accel-Sim byte addresses become lsugen word
// accesses: the bank width in bytes (4 or 8) and the bank count, which
// together set how a 64- or 128-bit access splits into phases
// (accelsim.Phases).
type inputOptions struct {
	BankBytes int // 4 (default when 0) or 8
	Banks     int // 32 (default when 0)

	run *runLimits // shared by a run's inputs; set by withDefaults
}

// runLimits is what one run may read of Accel-Sim traces, all its inputs
// together: trace text and distinct shared-memory instructions (each held
// by name until the report), so that no input list makes a run's time or
// memory unbounded.
type runLimits struct {
	budget    *accelsim.Budget
	instrs    int // distinct shared-memory instructions
	nameBytes int // bytes of their names
}

func (o inputOptions) withDefaults() inputOptions {
	if o.run == nil {
		o.run = &runLimits{budget: accelsim.NewBudget()}
	}
	if o.BankBytes == 0 {
		o.BankBytes = 4
	}
	if o.Banks == 0 {
		o.Banks = 32
	}
	return o
}

// checkBankBytes refuses --bank-bytes when no input is an Accel-Sim trace:
// it divides byte addresses, and lsugen traces, pattern specs and --stride
// accesses hold word addresses already.
func checkBankBytes(fs *pflag.FlagSet, inputs []string) error {
	if !fs.Changed("bank-bytes") {
		return nil
	}
	for _, in := range inputs {
		if accelsim.IsTracePath(in) {
			return nil
		}
	}
	return usagef("--bank-bytes applies to Accel-Sim traces (byte addresses) only; the inputs hold word addresses")
}

// isSpecInput reports whether an input goes to the spec loader: a .hcl
// file, or a Verilog one, which the loader names as such rather than
// the trace reader failing at its first line.
func isSpecInput(in string) bool {
	switch strings.ToLower(filepath.Ext(in)) {
	case ".hcl", ".v", ".sv", ".vh", ".svh":
		return true
	}
	return false
}

// loadTraces reads inputs with the default options (4-byte banks, 32
// banks).
func loadTraces(inputs []string, stderr io.Writer) ([]*trace.Trace, error) {
	return loadTracesWith(inputs, inputOptions{}, stderr)
}

// loadTracesWith reads lsugen trace files, expands the pattern blocks of
// spec files (named *.hcl) and reads the shared-memory accesses of
// Accel-Sim traces (kernelslist.g, *.traceg, *.traceg.xz; see
// accelSimAccesses), one trace per input in the order given. Every input
// is held whole, within trace.MaxAccesses and trace.MaxHeldAddrs: commands
// that can take one access at a time call streamTraces instead.
func loadTracesWith(inputs []string, opt inputOptions, stderr io.Writer) ([]*trace.Trace, error) {
	opt = opt.withDefaults() // one run's limits for every input
	var out []*trace.Trace
	for _, in := range inputs {
		switch {
		case isSpecInput(in):
			t, err := loadPatterns(in, stderr)
			if err != nil {
				return nil, err
			}
			out = append(out, t)
		case accelsim.IsTracePath(in):
			t := &trace.Trace{File: in}
			err := accelSimAccesses(in, opt, trace.Holder(t), nil)
			if err != nil {
				return nil, badInput(err)
			}
			out = append(out, t)
		default:
			t, err := trace.ParseFile(in)
			if err != nil {
				return nil, badInput(err)
			}
			out = append(out, t)
		}
	}
	return out, nil
}

// streamTraces reads the inputs as loadTracesWith does, but one access at
// a time: begin is called with each input's name, then fn with each of
// its accesses (reused after fn returns), so that a trace of any length
// within trace.MaxFileBytes runs in the memory of one line. Only pattern
// specs, which are small, are expanded whole.
func streamTraces(inputs []string, opt inputOptions, begin func(file string), fn func(*trace.Access) error, skip skipCounter, stderr io.Writer) error {
	opt = opt.withDefaults() // one run's limits for every input
	for _, in := range inputs {
		begin(in)
		var err error
		switch {
		case isSpecInput(in):
			t, perr := loadPatterns(in, stderr)
			if perr != nil {
				return perr
			}
			for i := range t.Accesses {
				if err = fn(&t.Accesses[i]); err != nil {
					break
				}
			}
		case accelsim.IsTracePath(in):
			err = accelSimAccesses(in, opt, fn, skip)
		default:
			err = trace.ScanFile(in, fn)
		}
		if err != nil {
			return badInput(err)
		}
	}
	return nil
}

// skipCounter is told about the memory instructions accelSimAccesses
// leaves out, and what each instruction group is (its kernel, opcode, PC
// and source line), once, before its first access.
type skipCounter interface {
	SkipNotShared()
	SkipInactive()
	Describe(instr, kernel string, info conflicts.InstrInfo)
}

// accelSimAccesses streams the shared-memory instructions of an Accel-Sim
// input to fn as lsugen word accesses, one per phase (accelsim.Phases),
// holding one instruction at a time. Instr is "k<id> <kernel name>
// <opcode> 0x<pc>" (one PC of one kernel), Kernel "k<id> <kernel name>",
// Line the instruction's line in its kernel file. fn's access and its
// Addrs are reused after fn returns; Phase numbers an instruction's
// phases from 0. Instructions on other memory spaces and shared ones
// without an active lane go to skip (when not nil), as does each group's
// description.
func accelSimAccesses(path string, opt inputOptions, fn func(*trace.Access) error, skip skipCounter) error {
	opt = opt.withDefaults()
	r, err := accelsim.OpenBudget(path, opt.run.budget)
	if err != nil {
		return err
	}
	defer r.Close()
	var (
		phases [][]uint64
		acc    trace.Access
		names  = map[instrKey]string{} // one name per kernel and PC, built once
		labels = map[int]string{}      // kernel id -> label
	)
	for {
		w, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if w.Space != accelsim.Shared {
			if skip != nil {
				skip.SkipNotShared()
			}
			continue
		}
		if w.Mask == 0 {
			if skip != nil {
				skip.SkipInactive()
			}
			continue
		}
		label, ok := labels[w.Kernel]
		if !ok {
			label = accelsim.KernelLabel(w)
			labels[w.Kernel] = label
		}
		key := instrKey{w.Kernel, w.PC, w.Opcode}
		name, ok := names[key]
		if !ok {
			if opt.run.instrs++; opt.run.instrs > accelsim.MaxInstrs {
				return fmt.Errorf("%s:%d: more than %d distinct shared-memory instructions (kernel launch and PC) in one run", w.File, w.Line, accelsim.MaxInstrs)
			}
			name = accelsim.InstrName(label, w)
			if opt.run.nameBytes += len(name); opt.run.nameBytes > accelsim.MaxInstrNames {
				return fmt.Errorf("%s:%d: the names of the distinct shared-memory instructions (kernel name, opcode and PC each) pass %d MiB in one run, at instruction %d",
					w.File, w.Line, accelsim.MaxInstrNames>>20, opt.run.instrs)
			}
			names[key] = name
			if skip != nil {
				skip.Describe(name, label, conflicts.InstrInfo{KernelID: w.Kernel, KernelName: w.KernelName,
					Opcode: w.Opcode, PC: w.PC, SourceLine: w.SourceLine})
			}
		}
		if phases, err = accelsim.Phases(w, opt.BankBytes, opt.Banks, phases); err != nil {
			return fmt.Errorf("%s:%d: %v", w.File, w.Line, err)
		}
		acc = trace.Access{Instr: name, Line: w.Line, Kernel: label, Kind: w.Op.Kind()}
		for i, p := range phases {
			acc.Addrs, acc.Phase = p, i
			if err := fn(&acc); err != nil {
				return err
			}
		}
	}
}

// instrKey is one instruction of one kernel.
type instrKey struct {
	kernel int
	pc     uint64
	opcode string
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
