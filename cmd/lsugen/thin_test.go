package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// The most lines and cyclomatic complexity of a run* function: a command
// parses its flags, calls a library function that does the work and
// prints (docs/architecture.md).
const (
	maxRunLines      = 60
	maxRunComplexity = 15
)

// TestCommands_RunFunctionsThin: every function named run* in the
// package's non-test files is at most maxRunLines lines long and of
// cyclomatic complexity at most maxRunComplexity (1 + each if, for,
// range, case but default, select case, && and ||, as gocyclo counts,
// function literals included).
func TestCommands_RunFunctionsThin(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	seen := 0
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil || !strings.HasPrefix(fd.Name.Name, "run") {
				continue
			}
			seen++
			name := fd.Name.Name
			lines := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
			c := complexity(fd)
			if lines > maxRunLines || c > maxRunComplexity {
				t.Errorf("%s (%s): %d lines, complexity %d; want at most %d and %d: move the work into a library function",
					name, fset.Position(fd.Pos()), lines, c, maxRunLines, maxRunComplexity)
			}
		}
	}
	if seen < 5 {
		t.Errorf("found %d run* functions: the walk missed the commands", seen)
	}
}

// complexity is gocyclo's cyclomatic complexity of fd.
func complexity(fd *ast.FuncDecl) int {
	c := 1
	ast.Inspect(fd, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			c++
		case *ast.CaseClause:
			if n.List != nil {
				c++
			}
		case *ast.CommClause:
			if n.Comm != nil {
				c++
			}
		case *ast.BinaryExpr:
			if n.Op == token.LAND || n.Op == token.LOR {
				c++
			}
		}
		return true
	})
	return c
}

// TestComplexity_Counts: complexity counts each branch once.
func TestComplexity_Counts(t *testing.T) {
	src := `package p
func f(a, b bool, xs []int, ch chan int) {
	if a && b || a {}
	for i := 0; i < 1; i++ {}
	for range xs {}
	switch { case a: case b: default: }
	select { case <-ch: default: }
	_ = func() { if b {} }
}`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	// 1 + if + && + || + for + range + 2 cases + 1 select case + the literal's if
	if got := complexity(f.Decls[0].(*ast.FuncDecl)); got != 10 {
		t.Errorf("complexity %d, want 10", got)
	}
}
