package selftest

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chaindata/harness/mockserver"
)

// TestLiveMockPasses runs the suite against the default mock while its live
// chain adds a block every 100 ms at the newest end of every listing (the
// first of them starts a new epoch, with its games): no rule may mistake the
// growth for a defect, and the run sees blocks arrive.
func TestLiveMockPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	t.Parallel()
	w, err := world()
	if err != nil {
		t.Fatal(err)
	}
	store, err := mockserver.NewStore(w) // its own: the shared store must not grow
	if err != nil {
		t.Fatal(err)
	}
	chain, err := mockserver.NewChain(store, w, 0)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(mockserver.New(mockserver.Config{Chain: chain}, store))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- chain.Run(ctx, 100*time.Millisecond, time.Now()) }()
	defer func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("the chain stopped: %v", err)
		}
	}()
	for deadline := time.Now().Add(10 * time.Second); chain.Added() == 0; { // the clock runs
		if time.Now().After(deadline) {
			t.Fatal("no block within 10 s of a 100 ms interval")
		}
		time.Sleep(10 * time.Millisecond)
	}

	r := conform(t, srv.URL)
	added := chain.Added()
	t.Logf("the suite ran for %s while %d blocks arrived", r.elapsed.Round(time.Millisecond), added)
	if r.exitCode != 0 {
		t.Errorf("exit code %d, want 0", r.exitCode)
	}
	for _, s := range r.failed() {
		t.Errorf("rule failed against a mock whose chain grows: %s\n%s", fullText(s), s.Failure.Message)
	}
	if added < 10 {
		t.Errorf("only %d blocks arrived during the run: the test tests little", added)
	}
}
