package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/lsugen/lsugen/gen"
)

func newVersionCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version [--json]",
		Short: "print lsugen's version (as lsugen --version does)",
		RunE: func(cmd *cobra.Command, pos []string) error {
			if len(pos) > 0 {
				return usagef("unexpected argument %q", pos[0])
			}
			doc := newVersionDoc()
			if asJSON {
				return printJSON(a.stdout, doc)
			}
			_, err := fmt.Fprintf(a.stdout, "lsugen %s\n", gen.ThisBuild().Stamp())
			return err
		},
	}
	addJSONFlag(cmd.Flags(), &asJSON)
	return cmd
}
