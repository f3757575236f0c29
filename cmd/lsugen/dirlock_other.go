//go:build !unix

package main

// lockDir does nothing where there is no flock: concurrent runs into one
// directory are not ordered there.
func lockDir(string) func() { return func() {} }
