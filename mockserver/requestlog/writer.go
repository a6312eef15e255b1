package requestlog

import (
	"io"
	"sync"
	"time"
)

const (
	// FlushBytes is how much the buffer holds before its goroutine writes
	// it out without waiting for the tick: under load the log is written
	// in writes of this size or so, rather than one a line.
	FlushBytes = 64 << 10
	// MaxPending is how much the buffer holds at most: a Write that would
	// take it further waits until the output has taken what is pending.
	MaxPending = 4 << 20
	// DefaultInterval is the tick NewWriter's goroutine writes the buffer
	// out on when given no other: a line reaches the output within it.
	DefaultInterval = 100 * time.Millisecond
)

// Writer buffers what is written to it and writes it to its output from a
// goroutine of its own: every interval, as soon as it holds FlushBytes, on
// Flush, and at Close. A Write copies its bytes and returns, so that a
// request never waits for the output, unless MaxPending bytes are pending
// (the output has stopped taking them); it is then held until they are
// taken, so that nothing is dropped. What is written in one Write goes
// out in one piece, in the order written. A Write after Close goes
// straight to the output.
type Writer struct {
	out      io.Writer
	interval time.Duration

	mu      sync.Mutex
	pending []byte    // written, not yet taken
	spare   []byte    // empty: the buffer taken last, once written out
	room    sync.Cond // broadcast when pending was taken
	closed  bool

	// outMu is held while bytes are taken and written out, so that they
	// go out in the order written; err is the output's first error.
	outMu sync.Mutex
	err   error

	wake chan struct{} // a flush is due now
	stop chan struct{}
	done chan struct{}
}

// NewWriter returns a Writer to out whose goroutine writes it out every
// interval (DefaultInterval when 0 or less). Close stops the goroutine.
func NewWriter(out io.Writer, interval time.Duration) *Writer {
	if interval <= 0 {
		interval = DefaultInterval
	}
	w := &Writer{out: out, interval: interval, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	w.room.L = &w.mu
	go w.loop()
	return w
}

func (w *Writer) loop() {
	defer close(w.done)
	tick := time.NewTicker(w.interval)
	defer tick.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-tick.C:
		case <-w.wake:
		}
		w.Flush()
	}
}

// Write adds p to the buffer. It returns at once unless MaxPending bytes
// wait: then it waits until the output has taken them. It never fails; an
// error of the output is Flush's and Close's.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	for !w.closed && len(w.pending) > 0 && len(w.pending)+len(p) > MaxPending {
		w.kick()
		w.room.Wait()
	}
	if w.closed {
		w.mu.Unlock()
		w.outMu.Lock()
		defer w.outMu.Unlock()
		w.writeOut(p)
		return len(p), nil
	}
	w.pending = append(w.pending, p...)
	if len(w.pending) >= FlushBytes {
		w.kick()
	}
	w.mu.Unlock()
	return len(p), nil
}

// kick wakes the goroutine to write the buffer out now. w.mu is held.
func (w *Writer) kick() {
	select {
	case w.wake <- struct{}{}:
	default: // woken already
	}
}

// Flush writes out what is pending, and returns the first error the
// output has returned so far.
func (w *Writer) Flush() error {
	w.outMu.Lock()
	defer w.outMu.Unlock()
	w.flushLocked()
	return w.err
}

// flushLocked takes what is pending and writes it out. w.outMu is held,
// so that nobody else takes or recycles a buffer meanwhile.
func (w *Writer) flushLocked() {
	w.mu.Lock()
	taken := w.pending
	if len(taken) == 0 {
		w.mu.Unlock()
		return
	}
	w.pending, w.spare = w.spare, nil
	w.room.Broadcast()
	w.mu.Unlock()
	w.writeOut(taken)
	// Kept for the next lines: it holds at most MaxPending and a line.
	w.mu.Lock()
	w.spare = taken[:0]
	w.mu.Unlock()
}

// writeOut writes b to the output, keeping its first error. w.outMu is
// held.
func (w *Writer) writeOut(b []byte) {
	if _, err := w.out.Write(b); err != nil && w.err == nil {
		w.err = err
	}
}

// Close writes out what is pending and stops the goroutine; later Writes
// go straight to the output. It returns the output's first error. Closing
// twice does nothing more.
func (w *Writer) Close() error {
	w.outMu.Lock()
	w.mu.Lock()
	already := w.closed
	w.closed = true
	w.room.Broadcast()
	w.mu.Unlock()
	if !already {
		w.flushLocked()
		close(w.stop)
	}
	err := w.err
	w.outMu.Unlock()
	<-w.done
	return err
}
