package rap

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/lsugen/lsugen/tools/rapsim"
)

// Algorithm is one of the paper's matrix transposes (Section III).
type Algorithm string

const (
	// CRSW reads a in row-major order and writes b in column-major order:
	// thread T(i·w+j) does b[j][i] ← a[i][j].
	CRSW Algorithm = "CRSW"
	// SRCW reads column-major and writes row-major: b[i][j] ← a[j][i].
	SRCW Algorithm = "SRCW"
	// DRDW reads and writes along diagonals:
	// b[j][(i+j) mod w] ← a[(i+j) mod w][j].
	DRDW Algorithm = "DRDW"
)

// Algorithms and TransposeMappings are Table III's rows and column groups.
var (
	Algorithms        = []Algorithm{CRSW, SRCW, DRDW}
	TransposeMappings = []rapsim.Mapping{rapsim.RAW, rapsim.RAS, rapsim.RAP}
)

// elements returns the matrix elements (row, column) that thread T(i·w+j)
// reads (in a) and writes (in b).
func (alg Algorithm) elements(i, j, w int) (rd, wr [2]int) {
	switch alg {
	case CRSW:
		return [2]int{i, j}, [2]int{j, i}
	case SRCW:
		return [2]int{j, i}, [2]int{i, j}
	default: // DRDW
		d := (i + j) % w
		return [2]int{d, j}, [2]int{j, d}
	}
}

// TransposeResult is one (algorithm, mapping) cell of Table III, over
// the trials (each drawing the mapping's random numbers afresh).
type TransposeResult struct {
	Algorithm Algorithm      `json:"algorithm"`
	Mapping   rapsim.Mapping `json:"mapping"`
	// ReadCongestion and WriteCongestion are the mean congestion of one
	// warp's read and write access; ReadMax and WriteMax the largest seen.
	ReadCongestion  float64 `json:"read_congestion"`
	WriteCongestion float64 `json:"write_congestion"`
	ReadMax         int     `json:"read_max"`
	WriteMax        int     `json:"write_max"`
	// Stages is the mean total congestion of the transpose (every warp's
	// read and write): the pipeline stages it occupies.
	Stages float64 `json:"stages"`
	// Time is the mean DMM time in time units; TimeMin and TimeMax bound it.
	Time    float64 `json:"time"`
	TimeMin int     `json:"time_min"`
	TimeMax int     `json:"time_max"`
}

// shifts draws a mapping's row shifts r_0..r_{w-1}: none for RAW,
// independent uniform numbers for RAS, a uniform random permutation for RAP.
func shifts(m rapsim.Mapping, w int, rng *rand.Rand, r []int) {
	switch m {
	case rapsim.RAW:
		clear(r)
	case rapsim.RAS:
		for i := range r {
			r[i] = rng.IntN(w)
		}
	default: // RAP
		for i := range r {
			r[i] = i
		}
		rng.Shuffle(w, func(a, b int) { r[a], r[b] = r[b], r[a] })
	}
}

// transpose simulates trials runs of one transpose under one mapping, on a
// w×w matrix a transposed into b (both mapped with the same shifts, as the
// paper's CUDA code does), with latency l. stream names the cell's random
// stream; step is called after each trial.
func transpose(ctx context.Context, alg Algorithm, m rapsim.Mapping, w, l, trials int, seed, stream uint64, step func()) (TransposeResult, error) {
	rng := rand.New(rand.NewPCG(seed, stream))
	r := make([]int, w)
	cc := newCongestionCounter(w, 2*w*w)
	rd, wr := make([]request, w), make([]request, w)
	stages := make([][]int, w)
	for v := range stages {
		stages[v] = make([]int, 2)
	}
	// place maps element (x, y) of matrix mat (0: a, 1: b) to its request:
	// address mat·w² + x·w + (y + r_x) mod w, in bank (y + r_x) mod w.
	place := func(mat int, e [2]int) request {
		bank := (e[1] + r[e[0]]) % w
		return request{addr: mat*w*w + e[0]*w + bank, bank: bank}
	}
	res := TransposeResult{Algorithm: alg, Mapping: m}
	var readSum, writeSum, stageSum, timeSum int
	for trial := range trials {
		if ctx.Err() != nil {
			return TransposeResult{}, ctx.Err()
		}
		shifts(m, w, rng, r)
		for i := range w { // warp W(i) is threads T(i·w) .. T(i·w+w-1)
			for j := range w {
				re, we := alg.elements(i, j, w)
				rd[j], wr[j] = place(0, re), place(1, we)
			}
			cr, cw := cc.of(rd), cc.of(wr)
			stages[i][0], stages[i][1] = cr, cw
			readSum += cr
			writeSum += cw
			stageSum += cr + cw
			res.ReadMax = max(res.ReadMax, cr)
			res.WriteMax = max(res.WriteMax, cw)
		}
		t := dmmTime(stages, l)
		timeSum += t
		if trial == 0 || t < res.TimeMin {
			res.TimeMin = t
		}
		res.TimeMax = max(res.TimeMax, t)
		if step != nil {
			step()
		}
	}
	n := float64(trials)
	res.ReadCongestion = float64(readSum) / (n * float64(w))
	res.WriteCongestion = float64(writeSum) / (n * float64(w))
	res.Stages = float64(stageSum) / n
	res.Time = float64(timeSum) / n
	return res, nil
}

// Transposes simulates Table III: every algorithm under every mapping.
// Each cell has its own random stream, so a cell's result does not depend
// on the others.
func Transposes(ctx context.Context, w, l, trials int, seed uint64, step func()) ([]TransposeResult, error) {
	var out []TransposeResult
	for a, alg := range Algorithms {
		for mi, m := range TransposeMappings {
			res, err := transpose(ctx, alg, m, w, l, trials, seed, uint64(a*len(TransposeMappings)+mi+1), step)
			if err != nil {
				return nil, fmt.Errorf("rap-dmm: stopped: %w", err)
			}
			out = append(out, res)
		}
	}
	return out, nil
}
