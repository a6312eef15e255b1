package client

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chaindata/harness/conformance/config"
)

// Bounds of the waits before retries.
const (
	// MaxRetryWait is the longest Retry-After the suite honours. A
	// deployment that asks for a longer wait gets no retry: the exchange
	// is marked refused at once, rather than the run stalling or asking
	// again before the deployment said it may.
	MaxRetryWait = 60 * time.Second
	// MaxRetryBudget bounds the waits before the retries of one request,
	// all together; a retry that would go beyond it is not made.
	MaxRetryBudget = 2 * time.Minute
	// firstBackoff is the wait before the first retry of an answer without
	// Retry-After, doubled for each further retry up to maxBackoff.
	firstBackoff = 500 * time.Millisecond
	maxBackoff   = 8 * time.Second
	// maxRefusedURLs is how many refused URLs Traffic lists.
	maxRefusedURLs = 5
	// rateMargin widens the spacing of requests a little beyond 1/rate, so
	// that the deployment, which sees them later and with jitter, still
	// counts no more than rate in any one second.
	rateMargin = 1.05
)

// CurrentTraffic returns the counters of the current run: every request
// sent by every client of the process since the run's configuration was
// set.
func CurrentTraffic() Traffic {
	return Current().snapshot()
}

var (
	trafficMu sync.Mutex
	// activeTraffic is the process-wide rate limit, in-flight bound and
	// counters: the suite makes a client per listing, and the limits hold
	// for all of them together.
	activeTraffic *RunState
)

// ConfigureTraffic sets the rate limit, in-flight bound, retries and headers
// of every client made from now on, and resets the counters. rule.SetActive
// calls it for each run.
func ConfigureTraffic(cfg config.Config) {
	t := newTraffic(cfg.WithDefaults())
	trafficMu.Lock()
	defer trafficMu.Unlock()
	if activeTraffic != nil {
		activeTraffic.Stop()
	}
	activeTraffic = t
}

// Current returns the configured traffic state, or one with the
// defaults of an empty Config when no run configured it.
func Current() *RunState {
	trafficMu.Lock()
	defer trafficMu.Unlock()
	if activeTraffic == nil {
		activeTraffic = newTraffic(config.Config{}.WithDefaults())
	}
	return activeTraffic
}

// ErrRunDeadline is the cause of a run's context when its deadline passed.
var ErrRunDeadline = errors.New("the run deadline passed")

// ErrRunMemory is the cause of a run's context when the run held more of
// the deployment's answers than HeapGuard: it stops as at its deadline.
var ErrRunMemory = fmt.Errorf("the run holds more than %d MiB of the deployment's answers", HeapGuard>>20)

// RunState is what every client of a run shares: the rate limit, the
// bound on requests in flight, the counters and the run deadline.
type RunState struct {
	retries int
	headers []header
	http    *http.Client
	// slots holds one token per request in flight.
	slots chan struct{}
	pace  *pacer
	// Ctx ends when the run deadline passes (cause ErrRunDeadline) or the
	// run is over; every request and every wait of the run ends with it.
	Ctx        context.Context
	cancel     context.CancelFunc
	runTimeout time.Duration
	// bodies is the memory for the bodies being read.
	bodies *bodyBudget

	// observer is called with every exchange of the run that brought a
	// whole answer (SetObserver).
	observer atomic.Pointer[func(*Exchange)]

	mu     sync.Mutex
	counts Traffic
	// kept is the bytes of the bodies kept for the schema rules, at most
	// keptLimit (MaxKeptBodies).
	kept, KeptLimit int
}

// header is one configured request header.
type header struct{ name, value string }

func newTraffic(cfg config.Config) *RunState {
	t := &RunState{
		retries:    max(cfg.Retries, 0),
		slots:      make(chan struct{}, cfg.Concurrency),
		pace:       newPacer(cfg.Rate),
		runTimeout: cfg.RunTimeout,
		bodies:     newBodyBudget(bodyBudgetBytes),
		KeptLimit:  MaxKeptBodies,
	}
	// The guard counts what the run holds, above what the process held
	// when it began (a test process may hold worlds of its own).
	t.bodies.guard = t.bodies.heapLive() + HeapGuard
	base, stop := context.WithCancelCause(context.Background())
	t.Ctx, t.cancel = context.WithTimeoutCause(base, cfg.RunTimeout, ErrRunDeadline)
	t.bodies.overGuard = func() { stop(ErrRunMemory) }
	for _, line := range cfg.Headers {
		name, value, err := config.ParseHeader(line)
		if err != nil {
			continue // Validate refused it before the run
		}
		t.headers = append(t.headers, header{name, value})
	}
	// Timeouts are per attempt, by context. A redirect to another host
	// must not carry the configured headers (an API key) with it; Go only
	// drops Authorization and Cookie itself.
	t.http = &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		if !strings.EqualFold(req.URL.Host, via[0].URL.Host) {
			for _, h := range t.headers {
				req.Header.Del(h.name)
			}
		}
		return nil
	}}
	return t
}

// apply sets the configured headers on a request.
func (t *RunState) apply(req *http.Request) {
	for _, h := range t.headers {
		if strings.EqualFold(h.name, "Host") {
			req.Host = h.value
			continue
		}
		req.Header.Set(h.name, h.value)
	}
}

// SetObserver makes f see every exchange of the run that brings a whole
// answer, whatever client asked it (every rule's traffic, retries done):
// f is called once an exchange, on the goroutine that asked it, before
// Fetch returns, and may set the exchange's Decoded. nil stops it.
func (t *RunState) SetObserver(f func(*Exchange)) {
	if f == nil {
		t.observer.Store(nil)
		return
	}
	t.observer.Store(&f)
}

// observe hands an exchange to the run's observer, if it brought a whole
// answer.
func (t *RunState) observe(ex *Exchange) {
	if f := t.observer.Load(); f != nil && ex.Err == nil {
		(*f)(ex)
	}
}

// Stop ends the run's context, abandoning whatever still waits on it.
func (t *RunState) Stop() { t.cancel() }

// Expired reports whether the run stopped before its end: its deadline
// passed, or it held more than HeapGuard of the deployment's answers.
func (t *RunState) Expired() bool {
	cause := context.Cause(t.Ctx)
	return errors.Is(cause, ErrRunDeadline) || errors.Is(cause, ErrRunMemory)
}

// DeadlineMessage says why the run stopped (Expired), naming what to
// change.
func (t *RunState) DeadlineMessage() string {
	if errors.Is(context.Cause(t.Ctx), ErrRunMemory) {
		return fmt.Sprintf("%v: its walks hold too many rows to judge (lower --page-size or --max-pages), or its pages are too large", ErrRunMemory)
	}
	return fmt.Sprintf("%v (--run-timeout %s)", ErrRunDeadline, t.runTimeout)
}

// Ended returns why the run's context ended: the deadline message, or
// the context's cause.
func (t *RunState) Ended() error {
	if t.Expired() {
		return errors.New(t.DeadlineMessage())
	}
	return context.Cause(t.Ctx)
}

// acquire waits for a slot for one request and for its turn under the rate
// limit, and counts the request. release gives the slot back; it is called
// only when acquire succeeded. acquire fails when the run's context ends
// first.
func (t *RunState) acquire() error {
	select {
	case t.slots <- struct{}{}:
	case <-t.Ctx.Done():
		return t.Ended()
	}
	if !t.pace.wait(t.Ctx) {
		t.release()
		return t.Ended()
	}
	t.mu.Lock()
	t.counts.Requests++
	t.mu.Unlock()
	return nil
}

func (t *RunState) release() { <-t.slots }

// retrying counts a retry after a wait and holds back every request of the
// run for that long: a 429 usually speaks for the client, not one URL.
func (t *RunState) retrying(wait time.Duration) {
	t.pace.holdUntil(time.Now().Add(wait))
	t.mu.Lock()
	t.counts.Retries++
	t.counts.RetryWait += wait
	t.mu.Unlock()
}

// refused counts an exchange the deployment still refused after the last
// retry.
func (t *RunState) refused(u string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.counts.Refused++
	if len(t.counts.RefusedURLs) < maxRefusedURLs {
		t.counts.RefusedURLs = append(t.counts.RefusedURLs, u)
	}
}

// keepBody reports whether a body of n bytes may be kept for the schema
// rules within MaxKeptBodies, and counts it when it may.
func (t *RunState) keepBody(n int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.kept+n > t.KeptLimit {
		return false
	}
	t.kept += n
	return true
}

func (t *RunState) snapshot() Traffic {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.counts
	c.RefusedURLs = append([]string(nil), c.RefusedURLs...)
	return c
}

// pacer spaces requests by an interval (one token every interval, burst
// one), and can hold every request back until a time.
type pacer struct {
	interval time.Duration
	// turn lets one request at a time wait for its time, so that each is
	// spaced from the one before by the time it really went.
	turn sync.Mutex

	mu   sync.Mutex
	next time.Time // the earliest time the next request may go
}

// newPacer returns a pacer for rate requests per second; 0 or +Inf means
// no spacing.
func newPacer(rate float64) *pacer {
	p := &pacer{}
	if rate > 0 && !math.IsInf(rate, 1) {
		p.interval = time.Duration(float64(time.Second) / rate * rateMargin)
	}
	return p
}

// wait returns true when the caller may send a request, or false when
// ctx ended first.
func (p *pacer) wait(ctx context.Context) bool {
	p.turn.Lock()
	defer p.turn.Unlock()
	for {
		p.mu.Lock()
		now := time.Now()
		d := p.next.Sub(now)
		if d <= 0 {
			p.next = now.Add(p.interval)
			p.mu.Unlock()
			return true
		}
		p.mu.Unlock()
		if !Sleep(ctx, d) {
			return false
		}
	}
}

// Sleep waits for d, and reports false when ctx ended first.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// holdUntil lets no request go before t.
func (p *pacer) holdUntil(t time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t.After(p.next) {
		p.next = t
	}
}

// Traffic counts the requests of a run.
type Traffic struct {
	// Requests is every request sent, retries included.
	Requests int
	// Retries is how many requests were repeated after a 429 or 503, and
	// RetryWait the time spent waiting before them.
	Retries   int
	RetryWait time.Duration
	// Refused is how many requests were still refused after the last
	// retry; RefusedURLs lists the first few.
	Refused     int
	RefusedURLs []string
}
