// Package demotest holds the end-to-end tests of idemstress demo: the
// command, built as users install it, runs a row of each kind of the demo
// (JSON output) and runs from a directory outside any checkout with no Go
// toolchain. They live apart from package main's tests, whose binary must
// stay well inside go test's ten minutes on a loaded machine.
package demotest
