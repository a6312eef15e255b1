package client

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/chaindata/harness/conformance/config"
)

// endlessReader is a body that never ends.
type endlessReader struct{}

func (endlessReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

func TestBodyBudgetRead(t *testing.T) {
	big := strings.Repeat("x", 3*bodyChunk+17)
	tests := []struct {
		name  string
		r     io.Reader
		limit int
		// want is the body read; wantErr a part of the error ("" for none).
		want, wantErr string
	}{
		{"empty", strings.NewReader(""), MaxBody, "", ""},
		{"small", strings.NewReader(`{"a":1}`), MaxBody, `{"a":1}`, ""},
		{"a byte at a time", iotest.OneByteReader(strings.NewReader(`{"a":1}`)), MaxBody, `{"a":1}`, ""},
		{"several chunks", strings.NewReader(big), MaxBody, big, ""},
		{"exactly the limit", strings.NewReader(big), len(big), big, ""},
		{"a byte over the limit", strings.NewReader(big), len(big) - 1, big[:bodyPrefix], "body larger than"},
		{"endless", endlessReader{}, 10 * bodyChunk, strings.Repeat("a", bodyPrefix), "body larger than"},
		{"cut off", io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(io.ErrUnexpectedEOF)), MaxBody, "abc", "read body: unexpected EOF"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBodyBudget(bodyBudgetBytes)
			got, err := b.read(context.Background(), tc.r, tc.limit)
			if string(got) != tc.want {
				t.Errorf("read %d bytes %.20q..., want %d bytes %.20q...", len(got), got, len(tc.want), tc.want)
			}
			if cap(got) != len(got) {
				t.Errorf("the body has capacity %d for %d bytes: it should be a slice of its own size", cap(got), len(got))
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("error %v, want one with %q", err, tc.wantErr)
			}
			if b.inUse != 0 || b.holders != 0 {
				t.Errorf("after the read %d chunks are in use by %d readers, want none", b.inUse, b.holders)
			}
		})
	}
}

// TestBodyBudgetBoundsConcurrentReads: endless bodies read side by side
// never hold more than the budget, and none waits for ever.
func TestBodyBudgetBoundsConcurrentReads(t *testing.T) {
	const readers, chunks = 8, 16
	b := newBodyBudget(chunks * bodyChunk)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, readers)
	for i := range readers {
		wg.Go(func() { _, errs[i] = b.read(ctx, endlessReader{}, 12*bodyChunk) })
	}
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatal("the readers waited for each other until the test's deadline")
	}
	for i, err := range errs {
		if !errors.Is(err, ErrBodyTooLarge) && !errors.Is(err, errBodyBudget) {
			t.Errorf("reader %d: %v, want too large or given up", i, err)
		}
	}
	if peak := b.peakBytes(); peak > chunks*bodyChunk {
		t.Errorf("the readers held %d bytes at once, more than the budget of %d", peak, chunks*bodyChunk)
	}
	if b.inUse != 0 || b.holders != 0 || b.waiting != 0 {
		t.Errorf("after the reads: %d chunks in use, %d holders, %d waiting; want none", b.inUse, b.holders, b.waiting)
	}
}

// TestBodyBudgetWaits: a reader that needs a chunk while another reader
// still reads waits for it; when every reader holding chunks would wait,
// one gives up instead.
func TestBodyBudgetWaits(t *testing.T) {
	ctx := context.Background()
	b := newBodyBudget(2 * bodyChunk)
	first, err := b.take(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	second, err := b.take(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		_, err := b.take(ctx, 1) // the first reader needs more
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("the first reader got a chunk (%v) while the budget was spent", err)
	case <-time.After(50 * time.Millisecond):
	}
	// The second reader needs more too: both would wait for ever.
	if _, err := b.take(ctx, 1); !errors.Is(err, errBodyBudget) {
		t.Fatalf("the second reader got %v, want errBodyBudget", err)
	}
	b.give([][]byte{second})
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("the first reader: %v, want a chunk", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the first reader still waits after the second gave its chunk back")
	}
	b.give([][]byte{first, second})
	if b.inUse != 0 {
		t.Errorf("%d chunks in use, want none", b.inUse)
	}
}

// TestBodyBudgetReusesChunks: chunks given back are lent again, not made
// anew.
func TestBodyBudgetReusesChunks(t *testing.T) {
	b := newBodyBudget(4 * bodyChunk)
	for range 10 {
		if _, err := b.read(context.Background(), bytes.NewReader(make([]byte, 3*bodyChunk-1)), MaxBody); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(b.free); n != 3 {
		t.Errorf("%d chunks were made for ten reads of three chunks, want 3", n)
	}
}

// TestBodyBudgetHeapGuard: a body is read while the process holds no more
// than the guard; above it, the read gives the body up, keeping its
// prefix, and calls overGuard once.
func TestBodyBudgetHeapGuard(t *testing.T) {
	body := strings.Repeat("y", 2*bodyChunk+5)
	tests := []struct {
		name       string
		live       []uint64 // what heapLive returns, call by call (the last repeats)
		guard      uint64
		want       string
		wantErr    error
		wantCalled int
	}{
		{name: "no guard", live: []uint64{1 << 40}, guard: 0, want: body},
		{name: "under the guard", live: []uint64{100}, guard: 100, want: body},
		{name: "over the guard before the first chunk", live: []uint64{101}, guard: 100, want: "", wantErr: ErrRunMemory, wantCalled: 1},
		{name: "crossing the guard mid-body", live: []uint64{50, 50, 150}, guard: 100, want: body[:bodyPrefix], wantErr: ErrRunMemory, wantCalled: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBodyBudget(bodyBudgetBytes)
			calls := 0
			b.heapLive = func() uint64 {
				v := tc.live[min(calls, len(tc.live)-1)]
				calls++
				return v
			}
			b.guard = tc.guard
			called := 0
			b.overGuard = func() { called++ }
			got, err := b.read(context.Background(), strings.NewReader(body), MaxBody)
			if string(got) != tc.want {
				t.Errorf("read %d bytes, want %d", len(got), len(tc.want))
			}
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Errorf("error %v, want %v", err, tc.wantErr)
			}
			if called != tc.wantCalled {
				t.Errorf("overGuard called %d times, want %d", called, tc.wantCalled)
			}
			if b.inUse != 0 {
				t.Errorf("%d chunks still in use", b.inUse)
			}
		})
	}
}

// TestRunStopsOverHeapGuard: a run whose body read finds the process over
// the guard stops as at its deadline, saying why and what to change.
func TestRunStopsOverHeapGuard(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"a":1}`)
	}))
	defer srv.Close()
	st := newTraffic(config.Config{BaseURL: srv.URL}.WithDefaults())
	defer st.Stop()
	if st.bodies.guard < HeapGuard {
		t.Fatalf("guard %d, want at least HeapGuard above the heap at the start", st.bodies.guard)
	}
	c := &Client{Config: config.Config{BaseURL: srv.URL}.WithDefaults(), State: st}
	if ex := c.Get(srv.URL, "/", nil); ex.Err != nil || st.Expired() {
		t.Fatalf("under the guard: error %v, stopped %v; want the body read", ex.Err, st.Expired())
	}
	st.bodies.heapLive = func() uint64 { return st.bodies.guard + 1 }
	ex := c.Get(srv.URL, "/", nil)
	if ex.Err == nil || !errors.Is(ex.Err, ErrRunMemory) {
		t.Errorf("over the guard: error %v, want ErrRunMemory", ex.Err)
	}
	if !st.Expired() {
		t.Fatal("the run did not stop over the guard")
	}
	for _, want := range []string{"more than 320 MiB", "--page-size", "--max-pages"} {
		if msg := st.DeadlineMessage(); !strings.Contains(msg, want) {
			t.Errorf("the stop says %q, want %q in it", msg, want)
		}
	}
	if !errors.Is(context.Cause(st.Ctx), ErrRunMemory) {
		t.Errorf("the run's cause is %v", context.Cause(st.Ctx))
	}
}

// TestHeapLive: the live heap is read, and it holds at least what this test
// keeps alive.
func TestHeapLive(t *testing.T) {
	keep := make([]byte, 8<<20)
	runtime.GC()
	if live := heapLive(); live < uint64(len(keep)) {
		t.Errorf("heapLive() = %d, want at least the %d bytes this test holds", live, len(keep))
	}
	runtime.KeepAlive(keep)
}
