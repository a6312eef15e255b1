//go:build unix

package mockserver

import (
	"fmt"
	"os"
	"syscall"
)

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
