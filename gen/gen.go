// Package gen turns typed unit specs into netlist designs: the gate-level
// netlist and, from the same generator, the word-level view the readable
// RTL is printed from. Generators do no I/O; their errors are HCL
// diagnostics pointing at the spec attribute that caused them.
package gen

// Version is the generator version written into every generated file;
// bump it when generated output changes.
const Version = "0.1.0"
