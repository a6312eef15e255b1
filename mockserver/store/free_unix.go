//go:build unix

package store

import "syscall"

// freeChunk gives memory from allocChunk back to the system.
func freeChunk(b []byte) {
	if len(b) > 0 {
		syscall.Munmap(b)
	}
}
