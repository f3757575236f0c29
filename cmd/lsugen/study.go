package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/tools/study"
	"github.com/lsugen/lsugen/tools/study/studies"
)

const studyLong = `Runs one of the papers' experiments with lsugen's models and prints its
table: lsugen's figures, computed; docs/studies.md puts each beside the
paper's and explains the differences.

  lsugen study --list                 the studies, by paper
  lsugen study NAME --params          NAME's parameters and their defaults
  lsugen study NAME [--set K=V]... [--json] [--svg FILE] [INPUT...]

--set changes a parameter (repeatable); a parameter the study does not take,
or a value out of its range, is refused before the run. INPUT are trace files
for the studies that read workloads. A run that takes longer than 2 s shows
its progress on standard error (--quiet: none).`

// studyFlags are the flags of lsugen study.
type studyFlags struct {
	list, params, asJSON, quiet bool
	set                         []string
	svg                         string
}

func newStudyCmd(a *app) *cobra.Command {
	var f studyFlags
	cmd := &cobra.Command{
		Use:   "study --list | NAME [--params] [--set K=V]... [--json] [--svg FILE] [INPUT...]",
		Short: "run one of the papers' experiments in cycles (002_* atomics, ...)",
		Long:  studyLong,
		RunE: func(cmd *cobra.Command, pos []string) error {
			return runStudy(a, cmd, &f, pos)
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&f.list, "list", false, "list the studies")
	fs.BoolVar(&f.params, "params", false, "list the study's parameters with their defaults")
	fs.StringArrayVar(&f.set, "set", nil, "set a parameter, K=V (repeatable)")
	addJSONFlag(fs, &f.asJSON)
	fs.StringVar(&f.svg, "svg", "", "write the study's figure as SVG to FILE")
	addQuietFlag(fs, &f.quiet)
	return cmd
}

// runStudy parses, runs the study through tools/study, prints.
func runStudy(a *app, cmd *cobra.Command, f *studyFlags, pos []string) error {
	if f.list {
		if len(pos) > 0 || f.params || len(f.set) > 0 || f.asJSON || f.svg != "" {
			return usagef("--list takes no study and no other flag")
		}
		return listStudies(a)
	}
	s, err := findStudy(pos)
	if err != nil || f.params {
		if err == nil {
			err = listParams(a, s)
		}
		return err
	}
	opt, err := studyOptions(f.set, pos[1:])
	if err != nil {
		return err
	}
	if f.svg != "" {
		if err := checkOutputFile(f.svg); err != nil {
			return err
		}
	}
	prog := startProgress(a.context(), a.stderr, f.quiet, cmd.CommandPath()+" "+s.Name(), "steps", 0, 0)
	opt.Progress = func(done, total int) {
		prog.setTotal(int64(total))
		prog.done.Store(int64(done))
	}
	res, err := s.Run(a.context(), opt)
	prog.Stop()
	if err != nil {
		return studyError(err)
	}
	return printStudy(a, res, f)
}

// findStudy is the study pos names.
func findStudy(pos []string) (study.Study, error) {
	if len(pos) == 0 {
		return nil, usagef("name a study (lsugen study --list names them)")
	}
	if s := studies.ByName(pos[0]); s != nil {
		return s, nil
	}
	hint := ""
	if c := specs.Closest(pos[0], studyNames()); c != "" {
		hint = fmt.Sprintf("; did you mean %q?", c)
	}
	return nil, usagef("no study %q%s (lsugen study --list names them)", pos[0], hint)
}

// printStudy writes the figure (--svg) and prints the result.
func printStudy(a *app, res *study.Result, f *studyFlags) error {
	if f.svg != "" {
		b, err := res.SVG()
		if err != nil {
			return err
		}
		if err := writeFileAtomic(f.svg, b); err != nil {
			return err
		}
	}
	if f.asJSON {
		return printJSON(a.stdout, studyDoc{Version: gen.Version, Result: res})
	}
	return res.WriteText(a.stdout)
}

// studyOptions reads --set K=V and the inputs.
func studyOptions(set, inputs []string) (study.Options, error) {
	opt := study.Options{Set: map[string]string{}, Inputs: inputs}
	for _, kv := range set {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return opt, usagef("--set %q: want NAME=VALUE", kv)
		}
		if _, dup := opt.Set[k]; dup {
			return opt, usagef("--set %s given twice", k)
		}
		opt.Set[k] = v
	}
	return opt, nil
}

// studyError marks a study's refusal of its parameters as a usage error;
// a cancelled run stays what it is.
func studyError(err error) error {
	if study.IsParamError(err) {
		return usagef("%v", err)
	}
	return err
}

func listStudies(a *app) error {
	var b strings.Builder
	for _, s := range studies.All {
		fmt.Fprintf(&b, "%-20s %s_*  %s\n", s.Name(), s.Paper(), s.Summary())
	}
	_, err := fmt.Fprint(a.stdout, b.String())
	return err
}

func listParams(a *app, s study.Study) error {
	var b strings.Builder
	ps := s.Params()
	for _, p := range ps {
		fmt.Fprintf(&b, "%-14s default %-36s %s\n", p.Name, p.Default, p.Help)
	}
	if len(ps) == 0 {
		b.WriteString("(no parameters)\n")
	}
	_, err := fmt.Fprint(a.stdout, b.String())
	return err
}

func studyNames() []string {
	var n []string
	for _, s := range studies.All {
		n = append(n, s.Name())
	}
	return n
}

// studyDoc is `lsugen study --json`.
type studyDoc struct {
	// Version is lsugen's version.
	Version string `json:"version"`
	*study.Result
}
