package main

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"sync"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/units"
	"github.com/lsugen/lsugen/verify"
)

// testbenchFiles renders every unit's standalone testbench NAME_tb.v and
// golden vector file NAME.vec (`lsugen gen --tb`).
func testbenchFiles(us []unit) (map[string][]byte, error) {
	set := map[string][]byte{}
	for _, u := range us {
		g, err := units.Golden(u.spec, u.design)
		if err != nil {
			return nil, err
		}
		info := rtl.Info{Version: "lsugen " + gen.Version, Source: source(u.spec)}
		set[verify.TestbenchFileName(u.design)] = g.Testbench(info)
		set[verify.VectorFileName(u.design)] = g.VectorFile(info)
	}
	return set, nil
}

// mergeFiles adds the files of src to dst; two files of one name (a unit
// named like another unit's testbench, say) are an error, not an overwrite.
func mergeFiles(dst, src map[string][]byte) error {
	names := make([]string, 0, len(src))
	for name := range src {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if _, dup := dst[name]; dup {
			return fmt.Errorf("two generated files are named %s: rename one of the units", name)
		}
		dst[name] = src[name]
	}
	return nil
}

// rtlChecks are the checks of lsugen verify --rtl FILE.v...: for each
// unit and engine, the unit's standalone testbench and golden vectors,
// exactly as lsugen gen --tb writes them, run against the module in the
// files (the unit's name, or --top). Each check works in its own
// directory, DIR/UNIT/ENGINE; a unit's golden vectors are made once.
func rtlChecks(sel []unit, engines []verify.Engine, files []string, top, dir string) []verifyCheck {
	var checks []verifyCheck
	for i, u := range sel {
		golden := sync.OnceValues(func() (*verify.GoldenSet, error) { return units.Golden(u.spec, u.design) })
		for _, e := range engines {
			checks = append(checks, verifyCheck{unit: i, engine: string(e), run: func(ctx context.Context) (verifyResult, string) {
				return rtlCheck(ctx, u, golden, e, files, cmp.Or(top, u.design.Name), filepath.Join(dir, u.design.Name, string(e)))
			}})
		}
	}
	return checks
}

// rtlCheck runs one engine of verify --rtl on one unit.
func rtlCheck(ctx context.Context, u unit, golden func() (*verify.GoldenSet, error), e verify.Engine, files []string, top, dir string) (verifyResult, string) {
	res := verifyResult{Engine: string(e)}
	fail := func(err error) (verifyResult, string) {
		res.Status, res.Error = statusError, err.Error()
		return res, fmt.Sprintf("%s: module %s (%s): %v", u.design.Name, top, e, err)
	}
	g, err := golden()
	if err != nil {
		return fail(err)
	}
	check := verify.RTLCheck{
		Golden:  g,
		Info:    rtl.Info{Version: "lsugen " + gen.Version, Source: source(u.spec)},
		Sources: files,
		Top:     top,
		Dir:     dir,
	}
	results, err := check.Run(ctx, []verify.Engine{e})
	if err != nil {
		return fail(err)
	}
	r := results[0]
	res.Vectors, res.Seconds = r.Count, seconds(r.Elapsed)
	if r.Passed {
		res.Status = statusPass
		return res, ""
	}
	res.Status, res.Failure = statusFail, r.Failure
	return res, fmt.Sprintf("%s: module %s (%s): %s", u.design.Name, top, e, r.Failure)
}
