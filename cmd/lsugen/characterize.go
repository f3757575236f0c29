package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/timing/liberty"
)

// characterizeFile reads a liberty file and characterizes it with the
// default options (the smallest inverter as the unit, the default
// don't-use cells left out).
func characterizeFile(path string) (*liberty.Characterization, error) {
	l, err := liberty.Load(path)
	if err != nil {
		return nil, err
	}
	return liberty.Characterize(l, liberty.Options{})
}

const characterizeLong = `Describes a cell library in the terms of lsugen's logical-effort model, as
lsugen timing --liberty and crosscheck-timing use it: for every gate kind
the unit-drive cell that implements it, each pin's input capacitance,
logical effort g and parasitic delay p (fitted to the cell's delay tables
at the input transition of an FO4 chain), tau in ps, the wire load and
the library's FO4: the unit inverter driving four copies of itself and a
fanout-4 net's wire, rise and fall averaged, the one FO4 figure lsugen
uses for the library everywhere (SDC, crosscheck-timing, periods).
Each pin's delay and output transition for a rising and a falling output,
as functions of its input transition and load, are sampled from the tables
too: timing with the library propagates both edges' transitions net by
net.`

func newCharacterizeCmd(a *app) *cobra.Command {
	var (
		asJSON            bool
		inverter, dontUse string
	)
	cmd := &cobra.Command{
		Use:   "characterize [--json] [--inverter CELL] [--dont-use PATTERNS] LIBERTY",
		Short: "a cell library as the FO4 model sees it (gate table, tau, wire load)",
		Long:  characterizeLong,
		RunE: func(cmd *cobra.Command, pos []string) error {
			if len(pos) != 1 {
				return usagef("want one liberty file")
			}
			l, err := liberty.Load(pos[0])
			if err != nil {
				return badInput(err)
			}
			var patterns []string
			for _, p := range strings.Split(dontUse, ",") {
				if p = strings.TrimSpace(p); p != "" {
					patterns = append(patterns, p)
				}
			}
			if patterns == nil {
				patterns = []string{}
			}
			ch, err := liberty.Characterize(l, liberty.Options{DontUse: patterns, Inverter: inverter})
			if err != nil {
				return badInput(err)
			}
			if asJSON {
				return printJSON(a.stdout, characterizeDoc{Version: gen.Version, Characterization: ch})
			}
			return writeCharacterization(a.stdout, ch)
		},
	}
	fs := cmd.Flags()
	addJSONFlag(fs, &asJSON)
	fs.StringVar(&inverter, "inverter", "", "the reference (unit) inverter (default: the library's smallest)")
	fs.StringVar(&dontUse, "dont-use", strings.Join(liberty.DefaultDontUse, ","), "comma-separated cell name patterns to leave out")
	return cmd
}

// writeCharacterization prints the characterization as a table.
func writeCharacterization(stdout io.Writer, ch *liberty.Characterization) error {
	fmt.Fprintf(stdout, "library    %s\n", ch.Library)
	fmt.Fprintf(stdout, "unit       %s: input %.3f fF\n", ch.Inverter, ch.RefCapFF)
	fmt.Fprintf(stdout, "tau        %.3f ps; p_inv %.3f tau (%.3f tau from an ideal input); fitted at %.1f ps input transition\n", ch.TauPS, ch.PInv, ch.InputPInv, ch.SlewPS)
	if ch.FixedSlew == "" {
		fmt.Fprintf(stdout, "slew       transitions propagated, rising and falling apart: each pin's delay and output transition per edge sampled from its tables\n")
	} else {
		fmt.Fprintf(stdout, "slew       every table read at %.1f ps: %s\n", ch.SlewPS, ch.FixedSlew)
	}
	wl := ch.WireLoad
	if wl == "" {
		wl = "none"
	}
	fmt.Fprintf(stdout, "FO4        %.2f ps (%.3f tau): the library's FO4, %s driving four copies of itself and a fanout-4 net's wire; wire load %s\n\n",
		ch.FO4PS, ch.FO4PS/ch.TauPS, ch.Inverter, wl)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "kind\tcell\tcandidates\tarea GE\tpin\tcap fF\tCin\tg\tp\td = a + b·C (ps, fF)")
	for _, k := range ch.Kinds {
		for i, p := range k.Pins {
			kind, cell, cands, area := "", "", "", ""
			if i == 0 {
				kind, cell, cands, area = k.Kind, k.Cell, fmt.Sprint(k.Candidates), fmt.Sprintf("%.2f", k.AreaGE)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.3f\t%.2f\t%.2f\t%.2f\t%.1f + %.2f·C\n", kind, cell, cands, area, p.Pin, p.CapFF, p.Cin, p.G, p.P, p.InterceptPS, p.SlopePSPerFF)
		}
	}
	return tw.Flush()
}
