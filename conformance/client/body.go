package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/metrics"
	"sync"
)

// Bounds of the memory the suite gives to response bodies.
const (
	// MaxBody bounds how much of one response the suite reads: well above
	// the largest page the mock writes (a 5000-game page of the default
	// world, about 6 MB), so that a larger body is a failure of the rule
	// that asked, given up at the cap, not held.
	MaxBody = 16 << 20
	// bodyBudgetBytes bounds the bytes of every body being read at once,
	// by all the requests of a run together: MaxBody counted across
	// concurrent requests, so that --concurrency endless bodies cost no
	// more than two of them.
	bodyBudgetBytes = 2 * MaxBody
	// bodyChunk is the unit bodies are read in and the budget counted in.
	bodyChunk = 64 << 10
	// bodyPrefix is how much of a body that could not be read whole (too
	// large, cut off, timed out) is kept for messages.
	bodyPrefix = 4 << 10
	// MaxKeptBodies bounds the bytes of the bodies a run keeps for the
	// schema rules; the answers past it are kept without their bodies. A
	// run with the default bounds keeps about 40 MB against the default
	// mock; one against a growing mock, or with --page-size 1000
	// --max-pages 100, reaches the bound.
	MaxKeptBodies = 64 << 20
	// MemoryLimit is the soft memory limit harness conform sets for its
	// process (runtime/debug's SetMemoryLimit): the garbage
	// collector works harder as the process nears it, so that what a run
	// holds, not its garbage, sets its size.
	MemoryLimit = 384 << 20
	// HeapGuard bounds the memory a run holds: when the live heap (as of
	// the last collection) is more than HeapGuard above the heap the
	// process held when the run began, the body being read is given up
	// and the run stops (ErrRunMemory), as at its deadline: the rules not
	// yet judged are skipped. Pages decoded and held by the rules then
	// cannot grow the process without end, whatever sizes the server's
	// answers come in. The whole suite against a mock that grows holds up
	// to about 230 MiB (270 MiB when the bodies kept were 128 MiB, which
	// met a guard of 256 MiB with one seed in six); against bodies of 15
	// MB the guard stops the run at about 410 MiB of RSS
	// (make bench-conform-memory).
	HeapGuard = 320 << 20
)

// ErrBodyTooLarge and errBodyBudget are the reasons a body was not read
// whole.
var (
	ErrBodyTooLarge = fmt.Errorf("body larger than %d bytes (%d MiB)", MaxBody, MaxBody>>20)
	errBodyBudget   = fmt.Errorf("the bodies being read at once hold the %d MiB the run gives them, and wait for each other: this one was given up", bodyBudgetBytes>>20)
)

// bodyBudget is the memory for bodies being read, shared by every request
// of a run: a semaphore of bytes, counted in chunks of bodyChunk whose
// buffers are reused, so that bodies given up leave no garbage behind.
//
// A reader that holds chunks and needs another waits for one to be given
// back, unless every reader holding chunks waits too: then no chunk would
// ever come back, and the reader gives its body up (errBodyBudget) instead.
type bodyBudget struct {
	mu    sync.Mutex
	limit int      // most chunks in use at once
	inUse int      // chunks taken and not given back
	free  [][]byte // buffers given back, for reuse
	// holders is the number of readers holding a chunk; waiting, how many
	// of them wait for another.
	holders, waiting int
	// given is closed, and replaced, whenever chunks are given back.
	given chan struct{}
	// peak is the most chunks in use at once, for tests.
	peak int
	// heapLive returns the bytes the process holds (the live heap as of
	// the last collection); guard is the most it may hold for a chunk to
	// be read (0: no guard); overGuard is called when a read finds the
	// process above it.
	heapLive  func() uint64
	guard     uint64
	overGuard func()
}

// newBodyBudget returns a budget of the given bytes (at least one chunk).
func newBodyBudget(bytes int) *bodyBudget {
	return &bodyBudget{limit: max(1, bytes/bodyChunk), given: make(chan struct{}), heapLive: heapLive}
}

// heapLive reads the live heap the last garbage collection marked (a
// metric of every Go since 1.21).
func heapLive() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// guarded reports whether the process holds more than the guard, and
// calls overGuard when it does.
func (b *bodyBudget) guarded() bool {
	if b.guard == 0 || b.heapLive() <= b.guard {
		return false
	}
	if b.overGuard != nil {
		b.overGuard()
	}
	return true
}

// take returns a chunk for a reader that holds held chunks already,
// waiting for one when the budget is spent. It fails with errBodyBudget
// when waiting could not end, and with the context's error when the
// context ends first.
func (b *bodyBudget) take(ctx context.Context, held int) ([]byte, error) {
	for {
		b.mu.Lock()
		if b.inUse < b.limit {
			chunk := b.takeLocked(held)
			b.mu.Unlock()
			return chunk, nil
		}
		if held > 0 && b.waiting+1 >= b.holders {
			b.mu.Unlock()
			return nil, errBodyBudget
		}
		if held > 0 {
			b.waiting++
		}
		given := b.given
		b.mu.Unlock()
		select {
		case <-given:
		case <-ctx.Done():
		}
		if held > 0 {
			b.mu.Lock()
			b.waiting--
			b.mu.Unlock()
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("waiting for memory to read the body into: %w", err)
		}
	}
}

// takeLocked hands out a chunk; b.mu is held and the budget has room.
func (b *bodyBudget) takeLocked(held int) []byte {
	b.inUse++
	b.peak = max(b.peak, b.inUse)
	if held == 0 {
		b.holders++
	}
	if n := len(b.free); n > 0 {
		chunk := b.free[n-1]
		b.free = b.free[:n-1]
		return chunk
	}
	return make([]byte, bodyChunk)
}

// give returns a reader's chunks, all it holds.
func (b *bodyBudget) give(chunks [][]byte) {
	if len(chunks) == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.inUse -= len(chunks)
	b.holders--
	b.free = append(b.free, chunks...)
	close(b.given)
	b.given = make(chan struct{})
}

// peakBytes is the most bytes the budget lent at once.
func (b *bodyBudget) peakBytes() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.peak * bodyChunk
}

// read reads r to its end, streaming into chunks of the budget, up to
// limit bytes. It returns the body in a slice of its own size. When the
// body cannot be read whole (larger than limit, the budget given up, the
// context ended, the connection broke), it returns the body's first
// bodyPrefix bytes, for messages, and an error saying why.
func (b *bodyBudget) read(ctx context.Context, r io.Reader, limit int) ([]byte, error) {
	var chunks [][]byte
	defer func() { b.give(chunks) }()
	n, fill := 0, bodyChunk // bytes read; bytes used of the last chunk
	for {
		if fill == bodyChunk {
			if b.guarded() {
				return joinChunks(chunks, min(n, bodyPrefix)), ErrRunMemory
			}
			chunk, err := b.take(ctx, len(chunks))
			if err != nil {
				return joinChunks(chunks, min(n, bodyPrefix)), err
			}
			chunks, fill = append(chunks, chunk), 0
		}
		m, err := r.Read(chunks[len(chunks)-1][fill:])
		n, fill = n+m, fill+m
		switch {
		case n > limit:
			return joinChunks(chunks, min(n, bodyPrefix)), ErrBodyTooLarge
		case errors.Is(err, io.EOF):
			return joinChunks(chunks, n), nil
		case err != nil:
			return joinChunks(chunks, min(n, bodyPrefix)), fmt.Errorf("read body: %w", err)
		}
	}
}

// joinChunks copies the first n bytes held in chunks into a slice of their
// own (nil when n is 0).
func joinChunks(chunks [][]byte, n int) []byte {
	if n == 0 {
		return nil
	}
	out := make([]byte, 0, n)
	for _, c := range chunks {
		out = append(out, c[:min(len(c), n-len(out))]...)
		if len(out) == n {
			break
		}
	}
	return out
}
