// Package architecture holds the test that keeps docs/architecture.md
// true to the code: every package is on the page, and the page's import
// table is the import graph that `go list` reports. It has no code of its
// own.
package architecture
