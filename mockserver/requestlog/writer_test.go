package requestlog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// output is a Writer's output that a test can read while it is written,
// hold (every Write waits until released), and make fail.
type output struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes int
	fail   error
	held   chan struct{} // non-nil: each Write waits until it is closed
	wrote  chan int      // non-nil: each Write sends its length
	called chan struct{} // non-nil: each Write sends as it starts
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	held, called := o.held, o.called
	o.mu.Unlock()
	if called != nil {
		called <- struct{}{}
	}
	if held != nil {
		<-held
	}
	o.mu.Lock()
	o.writes++
	o.buf.Write(p)
	fail, wrote := o.fail, o.wrote
	o.mu.Unlock()
	if wrote != nil {
		wrote <- len(p)
	}
	if fail != nil {
		return 0, fail
	}
	return len(p), nil
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// within waits up to 10 s for c, or fails t saying what did not happen.
func within[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("%s within 10 s", what)
	}
	var zero T
	return zero
}

// TestWriterKeepsEveryLine checks that lines written by many goroutines
// at once all reach the output once Close returns, each once and whole,
// each goroutine's in the order written.
func TestWriterKeepsEveryLine(t *testing.T) {
	const writers, lines = 8, 2000
	out := &output{}
	w := NewWriter(out, time.Millisecond)
	var wg sync.WaitGroup
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range lines {
				fmt.Fprintf(w, "writer=%d line=%d %s\n", g, i, strings.Repeat("x", i%300))
			}
		}()
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	next := make([]int, writers)
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	for _, line := range got {
		var g, i int
		if _, err := fmt.Sscanf(line, "writer=%d line=%d", &g, &i); err != nil || g < 0 || g >= writers ||
			line != fmt.Sprintf("writer=%d line=%d %s", g, i, strings.Repeat("x", i%300)) {
			t.Fatalf("a broken line %q (%v)", line, err)
		}
		if i != next[g] {
			t.Fatalf("writer %d: line %d after line %d", g, i, next[g]-1)
		}
		next[g]++
	}
	if len(got) != writers*lines {
		t.Errorf("%d lines out, want %d", len(got), writers*lines)
	}
}

// TestWriterWritesOut checks when the buffer goes out without Flush or
// Close: on the tick, and before it as soon as FlushBytes are pending; and
// that Flush writes out at once, in one write.
func TestWriterWritesOut(t *testing.T) {
	t.Run("on the tick", func(t *testing.T) {
		out := &output{wrote: make(chan int, 16)}
		w := NewWriter(out, time.Millisecond)
		defer w.Close()
		w.Write([]byte("one line\n"))
		if n := within(t, out.wrote, "the line went out on the tick"); n != len("one line\n") {
			t.Errorf("wrote %d bytes, want %d", n, len("one line\n"))
		}
	})
	t.Run("when FlushBytes are pending", func(t *testing.T) {
		out := &output{wrote: make(chan int, 16)}
		w := NewWriter(out, time.Hour)
		defer w.Close()
		line := []byte(strings.Repeat("y", 1023) + "\n")
		for range FlushBytes/len(line) - 1 {
			w.Write(line)
		}
		select {
		case n := <-out.wrote:
			t.Fatalf("%d bytes went out before FlushBytes were pending", n)
		case <-time.After(50 * time.Millisecond):
		}
		w.Write(line)
		if n := within(t, out.wrote, "the buffer went out, full, before the hour's tick"); n != FlushBytes {
			t.Errorf("wrote %d bytes, want %d", n, FlushBytes)
		}
	})
	t.Run("the default tick", func(t *testing.T) {
		for interval, want := range map[time.Duration]time.Duration{0: DefaultInterval, -time.Second: DefaultInterval, time.Hour: time.Hour, time.Nanosecond: time.Nanosecond} {
			w := NewWriter(&output{}, interval)
			if w.interval != want {
				t.Errorf("NewWriter(%v) ticks every %v, want %v", interval, w.interval, want)
			}
			w.Close()
		}
	})
	t.Run("on Flush", func(t *testing.T) {
		out := &output{}
		w := NewWriter(out, time.Hour)
		defer w.Close()
		w.Write([]byte("a\n"))
		w.Write([]byte("b\n"))
		if out.String() != "" {
			t.Fatalf("written out before Flush: %q", out.String())
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if out.String() != "a\nb\n" || out.writes != 1 {
			t.Errorf("after Flush: %q in %d writes, want %q in 1", out.String(), out.writes, "a\nb\n")
		}
		if err := w.Flush(); err != nil || out.writes != 1 {
			t.Errorf("Flush with nothing pending: %v, %d writes, want no error and no write", err, out.writes)
		}
	})
}

// TestWriterDoesNotWaitForItsOutput checks a Write returns while the
// output is stuck, as long as less than MaxPending waits, and that once
// MaxPending waits the next Write is held until the output takes it, then
// everything goes out, in order.
func TestWriterDoesNotWaitForItsOutput(t *testing.T) {
	out := &output{held: make(chan struct{}), called: make(chan struct{}, 1)}
	w := NewWriter(out, time.Millisecond)
	line := []byte(strings.Repeat("z", 1023) + "\n")
	// The first write out takes the first line at the first tick and is
	// stuck; what follows fills the buffer to MaxPending.
	w.Write(line)
	within(t, out.called, "the first line went out on the tick")
	out.mu.Lock()
	out.called = nil
	out.mu.Unlock()
	filled := make(chan struct{})
	go func() {
		defer close(filled)
		for range MaxPending / len(line) {
			w.Write(line)
		}
	}()
	within(t, filled, "the writes below MaxPending returned while the output was stuck")
	over := make(chan struct{})
	go func() {
		defer close(over)
		w.Write([]byte("the last line\n"))
	}()
	select {
	case <-over:
		t.Fatal("a Write beyond MaxPending returned while the output was stuck: a line would be lost or the memory unbounded")
	case <-time.After(50 * time.Millisecond):
	}
	close(out.held)
	within(t, over, "the held Write returned once the output took the buffer")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := strings.Repeat(string(line), 1+MaxPending/len(line)) + "the last line\n"
	if got := out.String(); got != want {
		t.Errorf("out: %d bytes, want %d, the last line last", len(got), len(want))
	}
}

// TestWriterTakesALongLine checks a line longer than MaxPending is taken
// at once when nothing is pending, even while the output is stuck, and
// goes out whole.
func TestWriterTakesALongLine(t *testing.T) {
	out := &output{held: make(chan struct{})}
	w := NewWriter(out, time.Hour)
	long := []byte(strings.Repeat("l", MaxPending+10) + "\n")
	taken := make(chan struct{})
	go func() {
		w.Write(long)
		close(taken)
	}()
	within(t, taken, "a long line was taken")
	close(out.held)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if out.String() != string(long) || out.writes != 1 {
		t.Errorf("%d bytes in %d writes, want %d in 1", len(out.String()), out.writes, len(long))
	}
}

// TestWriterAllocates checks that once its buffers have grown, lines
// written and written out cost no allocation.
func TestWriterAllocates(t *testing.T) {
	w := NewWriter(io.Discard, time.Hour)
	defer w.Close()
	line := []byte("time=x level=INFO msg=request\n")
	if n := testing.AllocsPerRun(100, func() {
		for range 100 {
			w.Write(line)
		}
		w.Flush()
	}); n != 0 {
		t.Errorf("%v allocations for 100 lines and a flush", n)
	}
}

// TestWriterClose checks Close writes out what is pending, that a Write
// after it goes straight out, that a second Close does nothing more, and
// that the output's first error is Flush's and Close's.
func TestWriterClose(t *testing.T) {
	out := &output{}
	w := NewWriter(out, time.Hour)
	w.Write([]byte("before\n"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if out.String() != "before\n" {
		t.Fatalf("after Close: %q", out.String())
	}
	w.Write([]byte("after\n"))
	if out.String() != "before\nafter\n" {
		t.Errorf("a Write after Close: %q, want it out at once", out.String())
	}
	if err := w.Close(); err != nil || out.writes != 2 {
		t.Errorf("a second Close: %v, %d writes, want nothing more", err, out.writes)
	}

	broken := errors.New("disk full")
	bad := &output{fail: broken}
	w = NewWriter(bad, time.Hour)
	w.Write([]byte("lost\n"))
	if err := w.Flush(); !errors.Is(err, broken) {
		t.Errorf("Flush = %v, want %v", err, broken)
	}
	bad.mu.Lock()
	bad.fail = errors.New("a later error")
	bad.mu.Unlock()
	w.Write([]byte("lost too\n"))
	if err := w.Close(); !errors.Is(err, broken) {
		t.Errorf("Close = %v, want the first error, %v", err, broken)
	}
}
