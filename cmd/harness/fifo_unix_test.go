//go:build unix

package main

import (
	"bytes"
	"os"
	"syscall"
	"testing"
)

// fifo makes a named pipe at path that yields size bytes to its first
// reader, for as long as the reader reads ("" on a system without named
// pipes: fifo_other_test.go).
func fifo(t *testing.T, path string, size int) string {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no named pipe: %v", err)
	}
	go func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		f.Write(bytes.Repeat([]byte("x"), size)) // fails once the reader closes
	}()
	return path
}
