//go:build !unix

package main

import "testing"

// fifo returns "": named pipes are a Unix thing, and the case is skipped.
func fifo(t *testing.T, path string, size int) string { return "" }
