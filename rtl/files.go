package rtl

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lsugen/lsugen/netlist"
)

// Files renders both Verilog files of a design, and the file of its bank
// module (BankFileName) when it has memories: file name -> contents.
func Files(d *netlist.Design, info Info) (map[string][]byte, error) {
	var r, g bytes.Buffer
	if err := WriteRTL(&r, d, info); err != nil {
		return nil, fmt.Errorf("%s: %w", d.Name, err)
	}
	if err := WriteGates(&g, d, info); err != nil {
		return nil, fmt.Errorf("%s: %w", d.Name, err)
	}
	out := map[string][]byte{RTLFileName(d): r.Bytes(), GatesFileName(d): g.Bytes()}
	if len(d.Memories) > 0 {
		var m bytes.Buffer
		if err := WriteBank(&m, d, info); err != nil {
			return nil, fmt.Errorf("%s: %w", d.Name, err)
		}
		out[BankFileName(d)] = m.Bytes()
	}
	return out, nil
}

// Sources names the files a tool reads to elaborate d: for the RTL, the
// bank module's file when d has memories (both views instantiate it),
// its submodules' RTL files (deepest first) and then its own; likewise
// for the gate-level netlist. Submodule files are generated from their
// own units, once, beside d's; the bank file by Files.
func Sources(d *netlist.Design) (rtlFiles, gateFiles []string) {
	if bank := BankFileName(d); bank != "" {
		rtlFiles, gateFiles = []string{bank}, []string{bank}
	}
	for _, sub := range d.Submodules() {
		rtlFiles = append(rtlFiles, RTLFileName(sub))
		gateFiles = append(gateFiles, GatesFileName(sub))
	}
	return append(rtlFiles, RTLFileName(d)), append(gateFiles, GatesFileName(d))
}

// FilesWithSubmodules renders d's two files and those of every unit d
// instantiates (the files rtl.Sources names), with the same info.
func FilesWithSubmodules(d *netlist.Design, info Info) (map[string][]byte, error) {
	out, err := Files(d, info)
	if err != nil {
		return nil, err
	}
	for _, sub := range d.Submodules() {
		files, err := Files(sub, info)
		if err != nil {
			return nil, err
		}
		for name, b := range files {
			out[name] = b
		}
	}
	return out, nil
}

// WriteDir writes d's files and its submodules' (FilesWithSubmodules)
// into dir, as a tool run on them reads them (a testbench, a lint, a
// proof), and returns their paths in Sources' order. It writes in place:
// a command's outputs go through its own atomic writer instead.
func WriteDir(dir string, d *netlist.Design, info Info) (rtlFiles, gateFiles []string, err error) {
	files, err := FilesWithSubmodules(d, info)
	if err != nil {
		return nil, nil, err
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return nil, nil, err
		}
	}
	rtlFiles, gateFiles = Sources(d)
	for i := range rtlFiles {
		rtlFiles[i] = filepath.Join(dir, rtlFiles[i])
	}
	for i := range gateFiles {
		gateFiles[i] = filepath.Join(dir, gateFiles[i])
	}
	return rtlFiles, gateFiles, nil
}
