// Package studies lists every study lsugen runs, for `lsugen study`.
package studies

import (
	"github.com/lsugen/lsugen/tools/study"
	"github.com/lsugen/lsugen/tools/study/rap"
)

// All is every study, in the order `lsugen study --list` prints them
// (by paper, then as the paper presents them).
var All = []study.Study{
	rap.DMM{},
}

// ByName is the study called name, or nil.
func ByName(name string) study.Study {
	for _, s := range All {
		if s.Name() == name {
			return s
		}
	}
	return nil
}
