//go:build unix && !linux

package store

import "syscall"

// allocChunk takes n bytes of zeroed memory from the system, outside the Go
// heap. Pages cost nothing until they are written.
func allocChunk(n int) ([]byte, error) {
	return syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
}
