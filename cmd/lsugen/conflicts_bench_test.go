package main

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/tools/conflicts"
)

// writeSyntheticTrace writes a version-4 Accel-Sim kernel trace of about
// size bytes: thread blocks of 8 warps, each warp a mix of non-memory,
// global and shared instructions in all three address compressions, with
// random strides and masks (deterministic).
func writeSyntheticTrace(path string, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprint(w, "-kernel name = _Z9syntheticPf\n-kernel id = 1\n-shmem base_addr = 0x00007f0000000000\n-local mem base_addr = 0x00007f0001000000\n-accelsim tracer version = 4\n-enable lineinfo = 0\n\n")
	r := rand.New(rand.NewPCG(17, 1))
	var warp strings.Builder
	var written int64
	for tb := 0; written < size; tb++ {
		n, _ := fmt.Fprintf(w, "#BEGIN_TB\nthread block = %d,0,0\n", tb)
		written += int64(n)
		for wp := 0; wp < 8; wp++ {
			warp.Reset()
			insts := 0
			for pc := 0; pc < 64; pc++ {
				insts++
				base := 0x7f0000000000 + r.Uint64N(1<<14)*4
				switch pc % 8 {
				case 0, 4:
					fmt.Fprintf(&warp, "%04x ffffffff 1 R%d IMAD 2 R1 R2 0 0\n", pc*16, pc%32)
				case 1:
					fmt.Fprintf(&warp, "%04x ffffffff 1 R4 LDS 1 R5 4 1 0x%x %d 0\n", pc*16, base, 4*(1+r.IntN(33)))
				case 2:
					mask := r.Uint32() | 1
					fmt.Fprintf(&warp, "%04x %08x 1 R6 LDS.128 1 R5 16 2 0x%x", pc*16, mask, base&^15)
					for range bitsOn(mask) - 1 {
						fmt.Fprintf(&warp, " %d", 16*r.IntN(64))
					}
					warp.WriteString(" 0\n")
				case 3:
					fmt.Fprintf(&warp, "%04x ffffffff 0 STS 2 R2 R3 4 0", pc*16)
					for range 32 {
						fmt.Fprintf(&warp, " 0x%016x", 0x7f0000000000+r.Uint64N(1<<12)*4)
					}
					warp.WriteString(" 0\n")
				case 5:
					fmt.Fprintf(&warp, "%04x ffffffff 1 R8 LDG.E 1 R12 4 1 0x%x 4 0\n", pc*16, 0x7f5000000000+r.Uint64N(1<<20)*4)
				case 6:
					fmt.Fprintf(&warp, "%04x 0000ffff 1 R9 ATOMS.ADD 2 R5 R6 4 1 0x%x %d 0\n", pc*16, base, 4*r.IntN(3))
				case 7:
					fmt.Fprintf(&warp, "%04x ffffffff 1 R10 LDS.64 1 R5 8 1 0x%x 8 0\n", pc*16, base&^7)
				}
			}
			n, _ := fmt.Fprintf(w, "warp = %d\ninsts = %d\n%s", wp, insts, warp.String())
			written += int64(n)
		}
		n, _ = fmt.Fprint(w, "#END_TB\n")
		written += int64(n)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func bitsOn(m uint32) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}

// BenchmarkConflicts_AccelSim100MB streams a generated 100 MB kernel trace
// through the conflicts analysis (bounded memory: one line at a time).
// LSUGEN_TRACE_DIR keeps the trace there, for measuring the command
// (/usr/bin/time -v lsugen conflicts DIR/kernel-1.traceg).
func BenchmarkConflicts_AccelSim100MB(b *testing.B) {
	dir := os.Getenv("LSUGEN_TRACE_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	path := filepath.Join(dir, "kernel-1.traceg")
	if _, err := os.Stat(path); err != nil {
		if err := writeSyntheticTrace(path, 100<<20); err != nil {
			b.Fatal(err)
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	banks, _ := conflicts.Modulo(32)
	b.SetBytes(st.Size())
	for b.Loop() {
		rep, err := analyzeInputs([]string{path}, conflicts.Options{Banks: banks}, inputOptions{}, io.Discard)
		if err != nil {
			b.Fatal(err)
		}
		if rep.Total.Accesses == 0 {
			b.Fatal("no accesses")
		}
	}
}

// TestSyntheticTrace_Reads checks the generator's output reads without
// errors (a small one), so the benchmark measures a valid trace.
func TestSyntheticTrace_Reads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kernel-1.traceg")
	if err := writeSyntheticTrace(path, 64<<10); err != nil {
		t.Fatal(err)
	}
	banks, _ := conflicts.Modulo(32)
	rep, err := analyzeInputs([]string{path}, conflicts.Options{Banks: banks}, inputOptions{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if in := rep.Inputs[0]; len(in.Instrs) != 40 || in.SkippedNotShared == 0 || in.Total.Accesses == 0 {
		t.Fatalf("%+v", in)
	}
}
