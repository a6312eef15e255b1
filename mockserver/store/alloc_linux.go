//go:build linux

package store

import "syscall"

// allocChunk takes n bytes of zeroed memory from the system, outside the Go
// heap. Pages cost nothing until they are written. The store fills its
// chunks front to back, so it asks for huge pages: a fault per 2 MiB rather
// than per 4 KiB, which is most of the cost of filling fresh memory.
func allocChunk(n int) ([]byte, error) {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err == nil && n >= 2<<20 {
		syscall.Madvise(b, madvHugepage) // advice only: without it, small pages
	}
	return b, err
}

// madvHugepage is MADV_HUGEPAGE, which package syscall does not name.
const madvHugepage = 14
