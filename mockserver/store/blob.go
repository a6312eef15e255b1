package store

import (
	"fmt"

	"github.com/chaindata/harness/generators/fixtures/integrity"
)

// blob holds the bytes of a listing's rows back to back in large chunks:
// memory the store takes outside the Go heap where the platform allows
// (so the collector neither scans it nor counts it towards its goal), or a
// fixture file mapped read-only. A row is never split across chunks; row i
// is n[i] bytes at loc[i] (chunk index << locShift | offset in the chunk).
// A blob is not safe for concurrent use on its own: the Store's lock guards
// it.
type blob struct {
	chunks []chunk
	loc    []uint64
	n      []uint32
	// check, for a mapped fixture file, verifies the blocks of the file a
	// row lies in before the row is first read (fixtures.go).
	check *integrity.Blocks
}

// chunk is one run of memory: taken from the system (and given back by
// release) or a mapped file.
type chunk struct {
	data   []byte
	used   int  // bytes written; the rest is free
	mapped bool // a mapped file: read-only, never written to
}

const (
	locShift     = 40 // offsets below 1 TiB
	chunkSize    = 64 << 20
	minChunkSize = 1 << 20
)

// len returns the number of rows.
func (b *blob) len() int { return len(b.n) }

// get returns row i's bytes. They stay valid until the rows from i on are
// dropped by truncate or the blob is released.
//
// A row of a fixture file whose block does not match its checksum is never
// returned: get panics with the *integrity.CorruptError, which the
// server's answer recovers into an error answer (mockserver). The check
// sits here, where every row's bytes are read, so that no way of reading a
// row can miss it; a panic, so that the readers of rows, which cannot fail
// otherwise, need no error to pass on.
func (b *blob) get(i int) []byte {
	l := b.loc[i]
	off := l & (1<<locShift - 1)
	if b.check != nil && l>>locShift == 0 { // the file is chunk 0; rows added after it are not the file's
		if err := b.check.Check(off, b.n[i]); err != nil {
			panic(err)
		}
	}
	return b.chunks[l>>locShift].data[off : off+uint64(b.n[i])]
}

// add copies p in as the next row.
func (b *blob) add(p []byte) error {
	c := len(b.chunks) - 1
	if c < 0 || b.chunks[c].mapped || len(b.chunks[c].data)-b.chunks[c].used < len(p) {
		// Chunks grow with the blob, so that a small store takes little.
		size := max(min(chunkSize, max(minChunkSize, b.chunkBytes())), len(p))
		data, err := allocChunk(size)
		if err != nil {
			return fmt.Errorf("store: taking %d bytes of memory: %w", size, err)
		}
		b.chunks = append(b.chunks, chunk{data: data})
		c++
	}
	ch := &b.chunks[c]
	off := ch.used
	ch.used += copy(ch.data[off:], p)
	b.loc = append(b.loc, uint64(c)<<locShift|uint64(off))
	b.n = append(b.n, uint32(len(p)))
	return nil
}

// grow makes room for n more rows without reallocating the row tables.
func (b *blob) grow(n int) {
	if free := cap(b.n) - len(b.n); free < n {
		b.loc = append(make([]uint64, 0, len(b.loc)+n), b.loc...)
		b.n = append(make([]uint32, 0, len(b.n)+n), b.n...)
	}
}

// truncate drops the rows from i on, giving back the memory of every chunk
// only they used.
func (b *blob) truncate(i int) {
	if i >= len(b.n) {
		return
	}
	keep, used := 0, 0 // chunks to keep, and bytes used in the last one kept
	if i > 0 {
		l := b.loc[i-1]
		keep, used = int(l>>locShift)+1, int(l&(1<<locShift-1))+int(b.n[i-1])
	}
	for c := keep; c < len(b.chunks); c++ {
		b.chunks[c].free()
	}
	clear(b.chunks[keep:])
	b.chunks = b.chunks[:keep]
	if keep > 0 && !b.chunks[keep-1].mapped {
		b.chunks[keep-1].used = used
	}
	b.loc, b.n = b.loc[:i], b.n[:i]
}

// chunkBytes returns the size of every chunk taken so far.
func (b *blob) chunkBytes() int {
	n := 0
	for _, c := range b.chunks {
		n += len(c.data)
	}
	return n
}

// release gives back every chunk; the blob is empty after.
func (b *blob) release() { b.truncate(0) }

// bytes returns the number of bytes the rows take.
func (b *blob) bytes() int64 {
	var n int64
	for _, l := range b.n {
		n += int64(l)
	}
	return n
}

func (c *chunk) free() {
	if !c.mapped {
		freeChunk(c.data)
	}
	// A mapped file is unmapped by the store that mapped it, once.
	c.data = nil
}
