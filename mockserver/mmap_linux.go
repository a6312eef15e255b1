//go:build linux

package mockserver

import (
	"fmt"
	"os"
	"syscall"
)

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

// freeChunk gives memory from allocChunk back to the system.
func freeChunk(b []byte) {
	if len(b) > 0 {
		syscall.Munmap(b)
	}
}

// mapFile maps a whole file read-only: its pages are read on demand and
// belong to the page cache, not to the process's anonymous memory.
func mapFile(f *os.File) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() == 0 {
		return nil, nil
	}
	if int64(int(st.Size())) != st.Size() {
		return nil, fmt.Errorf("%s: %d bytes cannot be mapped", f.Name(), st.Size())
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", f.Name(), err)
	}
	return b, nil
}

// unmapFile undoes mapFile.
func unmapFile(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return syscall.Munmap(b)
}
