package main

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/verify"
)

// The outcomes of a check (verifyResult.Status).
const (
	statusPass    = "pass"
	statusFail    = "fail"    // a mismatch, a failed proof
	statusError   = "error"   // the check could not run: a tool missing, a build failed
	statusSkipped = "skipped" // not run: the run was interrupted, or the simulator cannot read the sources (--rtl)
)

// verifyReport is the --json document of lsugen verify, in every mode.
type verifyReport struct {
	// Version is lsugen's version.
	Version string `json:"version"`
	// Mode is "simulation" (the default), "rtl" (--rtl) or "formal"
	// (--formal).
	Mode string `json:"mode"`
	// Engines are the engines run on every unit, in order: netlist,
	// icarus, verilator; formal for --formal.
	Engines []string `json:"engines"`
	// Passed is true when every check passed.
	Passed bool `json:"passed"`
	// Checks counts the checks (one engine on one unit) by status.
	Checks verifyCounts `json:"checks"`
	// Seconds is the wall time of the run.
	Seconds float64 `json:"seconds"`
	// Work is the work directory when it was kept (--work, or a failure).
	Work string `json:"work,omitempty"`
	// Units are the units checked, in spec order.
	Units []verifyUnit `json:"units"`
}

// verifyCounts counts checks by status.
type verifyCounts struct {
	Total   int `json:"total"`
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Errors  int `json:"errors"`
	Skipped int `json:"skipped"`
}

// verifyUnit is one unit's checks.
type verifyUnit struct {
	Name   string `json:"name"`
	Source string `json:"source"` // file:line of the unit's block
	// Clocked units run a stream of cycles in lockstep with their
	// sequential model: their vector counts are cycles.
	Clocked bool `json:"clocked"`
	// Coverage says how the vectors (the stream) cover the input space;
	// empty when no check got as far as making them.
	Coverage string `json:"coverage,omitempty"`
	// Module is the module checked with --rtl.
	Module  string         `json:"module,omitempty"`
	Results []verifyResult `json:"results"`

	vectorFile string // the golden vector file of --rtl, for the lines
}

// verifyResult is one engine's check of one unit.
type verifyResult struct {
	Engine string `json:"engine"`
	// Status is pass, fail (a mismatch, or a proof that failed), error
	// (the check could not run) or skipped (not run: the run was
	// interrupted, or with --rtl the simulator cannot read the sources,
	// Error saying why).
	Status string `json:"status"`
	// Vectors are the vectors (cycles of a clocked unit) checked; 0 for
	// a proof.
	Vectors int     `json:"vectors"`
	Seconds float64 `json:"seconds"`
	// Method is how --formal proved the unit; for a simulation, "outputs
	// from the run cache" when no simulator ran (an identical earlier
	// run's outputs, compared with the model as always).
	Method string `json:"method,omitempty"`
	// Mismatch is the first failing vector (cycle) of a simulation.
	Mismatch *verifyMismatch `json:"mismatch,omitempty"`
	// Failure is the failure in words: the mismatch, the testbench's
	// FAIL line with --rtl, the counterexample with --formal.
	Failure string `json:"failure,omitempty"`
	// Error is why the check could not run, or was skipped.
	Error string `json:"error,omitempty"`
}

// verifyMismatch is verify.Mismatch: the first failing vector.
type verifyMismatch struct {
	Module string `json:"module"`
	// Vector is the failing vector, or the failing cycle of a clocked
	// unit (counted from 0 after the reset cycle).
	Vector   int    `json:"vector"`
	Inputs   string `json:"inputs"` // port=value list
	Port     string `json:"port"`
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
	// VCD is the path of a waveform of the failing vector (cycles).
	VCD string `json:"vcd,omitempty"`
}

func mismatchJSON(m *verify.Mismatch) *verifyMismatch {
	if m == nil {
		return nil
	}
	return &verifyMismatch{Module: m.Module, Vector: m.Vector, Inputs: m.Inputs, Port: m.Port,
		Expected: m.Expected, Actual: m.Actual, VCD: m.VCD}
}

func seconds(d time.Duration) float64 { return d.Round(time.Millisecond).Seconds() }

// count tallies the results of the report.
func (r *verifyReport) count() {
	r.Checks = verifyCounts{}
	for _, u := range r.Units {
		for _, res := range u.Results {
			r.Checks.Total++
			switch res.Status {
			case statusPass:
				r.Checks.Passed++
			case statusFail:
				r.Checks.Failed++
			case statusError:
				r.Checks.Errors++
			default:
				r.Checks.Skipped++
			}
		}
	}
	r.Passed = r.Checks.Passed == r.Checks.Total
}

// writeSummary prints the table of units by engines: status, vectors
// (cycles) and time of each check.
func (r *verifyReport) writeSummary(w io.Writer) {
	head := fmt.Sprintf("%-24s", "unit")
	for _, e := range r.Engines {
		head += fmt.Sprintf(" %-26s", e)
	}
	fmt.Fprintf(w, "\n%s\n", strings.TrimRight(head, " "))
	for _, u := range r.Units {
		line := fmt.Sprintf("%-24s", u.Name)
		for _, e := range r.Engines {
			cell := "-"
			for _, res := range u.Results {
				if res.Engine != e {
					continue
				}
				status := res.Status
				if status == statusFail {
					status = "FAIL"
				}
				cell = status
				if res.Status != statusSkipped && res.Status != statusError {
					count := ""
					if res.Vectors > 0 {
						count = fmt.Sprint(res.Vectors)
					}
					cell = fmt.Sprintf("%-4s %9s %9s", status, count, time.Duration(res.Seconds*float64(time.Second)).Round(time.Millisecond))
				}
			}
			line += fmt.Sprintf(" %-26s", cell)
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
	c := r.Checks
	fmt.Fprintf(w, "%d checks: %d passed, %d failed, %d could not run, %d skipped; %s\n",
		c.Total, c.Passed, c.Failed, c.Errors, c.Skipped, time.Duration(r.Seconds*float64(time.Second)).Round(time.Millisecond))
}

// JUnit XML as CI systems read it: one testsuite "lsugen verify", a
// testcase per unit (classname) and engine (name).
type junitTestsuites struct {
	XMLName  xml.Name         `xml:"testsuites"`
	Name     string           `xml:"name,attr"`
	Tests    int              `xml:"tests,attr"`
	Failures int              `xml:"failures,attr"`
	Errors   int              `xml:"errors,attr"`
	Skipped  int              `xml:"skipped,attr"`
	Time     string           `xml:"time,attr"`
	Suites   []junitTestsuite `xml:"testsuite"`
}

type junitTestsuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitTestcase `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitTestcase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
}

// junitMessage is a failure, error or skipped element: a one-line
// message, a type, and the whole text.
type junitMessage struct {
	Message string `xml:"message,attr,omitempty"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

func junitTime(s float64) string { return fmt.Sprintf("%.3f", s) }

// junit renders the report as JUnit XML.
func (r *verifyReport) junit() ([]byte, error) {
	c := r.Checks
	suite := junitTestsuite{
		Name: "lsugen verify", Tests: c.Total, Failures: c.Failed, Errors: c.Errors, Skipped: c.Skipped,
		Time: junitTime(r.Seconds),
		Properties: []junitProperty{
			{Name: "lsugen.version", Value: gen.Version},
			{Name: "lsugen.mode", Value: r.Mode},
		},
	}
	for _, u := range r.Units {
		for _, res := range u.Results {
			tc := junitTestcase{Classname: u.Name, Name: res.Engine, Time: junitTime(res.Seconds)}
			switch res.Status {
			case statusFail:
				text := res.Failure
				if res.Mismatch != nil && res.Mismatch.VCD != "" && !strings.Contains(text, res.Mismatch.VCD) {
					text += "\nwaveform: " + res.Mismatch.VCD
				}
				tc.Failure = &junitMessage{Message: firstLine(res.Failure), Type: "mismatch", Text: text}
			case statusError:
				tc.Error = &junitMessage{Message: firstLine(res.Error), Type: "error", Text: res.Error}
			case statusSkipped:
				tc.Skipped = &junitMessage{Message: res.Error}
			}
			suite.Cases = append(suite.Cases, tc)
		}
	}
	doc := junitTestsuites{Name: "lsugen verify", Tests: c.Total, Failures: c.Failed, Errors: c.Errors, Skipped: c.Skipped,
		Time: suite.Time, Suites: []junitTestsuite{suite}}
	b, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(append([]byte(xml.Header), b...), '\n'), nil
}

// writeJUnit writes the JUnit XML file through the output writer.
func (r *verifyReport) writeJUnit(path string) error {
	b, err := r.junit()
	if err != nil {
		return err
	}
	return writeFileAtomic(path, b)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
