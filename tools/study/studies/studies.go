// Package studies lists every study lsugen runs, for `lsugen study`.
package studies

import (
	"github.com/lsugen/lsugen/tools/study"
	"github.com/lsugen/lsugen/tools/study/atomics"
	"github.com/lsugen/lsugen/tools/study/hashspeed"
	"github.com/lsugen/lsugen/tools/study/latency"
	"github.com/lsugen/lsugen/tools/study/pipeline"
	"github.com/lsugen/lsugen/tools/study/rap"
)

// All is every study, in the order `lsugen study --list` prints them
// (by paper, then as the paper presents them).
var All = []study.Study{
	hashspeed.Study{}, // 000_* Fig. 9, Table 6
	pipeline.Fig89{},
	pipeline.Fig1011{},
	atomics.Fig5{},
	atomics.Histogram{},
	atomics.Hough{},
	atomics.Traces{},
	latency.Study{}, // 003_* Figs. 5.1, 5.2
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
