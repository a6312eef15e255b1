//go:build !unix

package mockserver

import (
	"io"
	"os"
)

// allocChunk takes n bytes of zeroed memory (from the Go heap on this
// platform).
func allocChunk(n int) ([]byte, error) { return make([]byte, n), nil }

// freeChunk leaves the memory to the collector.
func freeChunk([]byte) {}

// mapFile reads a whole file into memory: this platform has no mapping the
// store uses.
func mapFile(f *os.File) ([]byte, error) { return io.ReadAll(f) }

// unmapFile leaves the memory to the collector.
func unmapFile([]byte) error { return nil }
