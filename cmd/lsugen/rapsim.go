package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/lsugen/lsugen/tools/rapsim"
)

// cmdRapsim runs the Monte Carlo of RAW, RAS and RAP congestion (Nakano et
// al., Tables II and IV).
func cmdRapsim(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("rapsim", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, `print {"trials":N,"seed":S,"results":[{"w","array","mapping","access","congestion","min","max"},...]} as JSON`)
	wList := fs.String("w", joinRapsimWidths(rapsim.DefaultW), fmt.Sprintf("comma-separated bank counts w: powers of two in %d..%d", rapsim.MinW, rapsim.MaxW))
	trials := fs.Int("trials", rapsim.DefaultTrials, fmt.Sprintf("trials per cell, 1..%d", rapsim.MaxTrials))
	seed := fs.Uint64("seed", rapsim.DefaultSeed, "random seed; the same seed gives the same output")
	table := fs.String("table", "both", "II: the w×w matrix, IV: the w×w×w×w array, both")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: lsugen rapsim [--json] [--w 16,32,64,128,256] [--trials N] [--seed S] [--table II|IV|both]\n\nMonte Carlo of the memory access congestion (the most distinct addresses one\nwarp sends to one bank) of the RAW, RAS and RAP mappings: Table II (w×w matrix;\ncontiguous, stride, diagonal, random) and Table IV (w⁴ array; RAP variants 1P,\nR1P, 3P, w2P, 1Pw2R) of Nakano, Matsumae and Ito, \"Random Address Permute-Shift\nTechnique for the Shared Memory on GPUs\".")
		fs.PrintDefaults()
	}
	pos, err := parseFlags(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "lsugen rapsim: unexpected argument %q\n", pos[0])
		return errUsage
	}
	opt := rapsim.Options{Trials: *trials, Seed: *seed}
	switch strings.ToUpper(*table) {
	case "II", "2":
		opt.Matrix = true
	case "IV", "4":
		opt.Array4 = true
	case "BOTH":
		opt.Matrix, opt.Array4 = true, true
	default:
		fmt.Fprintf(stderr, "lsugen rapsim: --table %q: want II, IV or both\n", *table)
		return errUsage
	}
	if opt.W, err = parseRapsimWidths(*wList); err != nil {
		fmt.Fprintf(stderr, "lsugen rapsim: --w: %v\n", err)
		return errUsage
	}
	if err := opt.Validate(); err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintf(stderr, "lsugen rapsim: %s\n", line)
		}
		return errUsage
	}
	rep, err := rapsim.Run(opt)
	if err != nil {
		return err
	}
	if *asJSON {
		b, err := rep.JSON()
		if err != nil {
			return err
		}
		_, err = stdout.Write(b)
		return err
	}
	return rep.WriteTable(stdout)
}

// parseRapsimWidths reads --w "16,32,64" into integers.
func parseRapsimWidths(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func joinRapsimWidths(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}
