package proxy

import (
	"context"
	"math"
	"math/bits"
	rtmetrics "runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// pendingCheck is a response the client already has, waiting for its check.
type pendingCheck struct {
	ctx  context.Context
	ex   *exchange
	seq  uint64 // its entry in pending
	size int64  // the bytes its body holds
}

// checkPool runs checks off the request path: at most checkers at once,
// with more waiting in a FIFO queue of at most size entries holding at
// most maxBytes of bodies. submit never blocks; it refuses a check when
// every checker is busy and the queue is full, so a client is never held
// to the pace of the checks and the memory held for checking is bounded.
// Its goroutines live only while there is work, so a pool needs no Close.
type checkPool struct {
	run      func(pendingCheck) // does one check
	checkers int
	maxBytes int64
	// duty is the fraction of its time a checker may spend checking while
	// requests are being forwarded (forwarding reports whether any are):
	// after a check it rests the rest.
	duty       float64
	forwarding func() bool
	// beforeCheck, when set (by tests), runs on the checker's goroutine
	// before each check: a test holds the checkers with it.
	beforeCheck func()

	mu        sync.Mutex
	busy      int            // goroutines checking, at most checkers
	queue     []pendingCheck // a ring of len size
	head, n   int            // its first entry and its length
	bytes     int64          // the bytes of the bodies queued
	peak      int            // the longest the queue has been
	peakBytes int64          // the most bytes it has held
}

func newCheckPool(checkers, size int, maxBytes int64, duty float64, forwarding func() bool, run func(pendingCheck)) *checkPool {
	return &checkPool{run: run, checkers: checkers, maxBytes: maxBytes, duty: duty, forwarding: forwarding, queue: make([]pendingCheck, size)}
}

// submit hands c to a checker, or queues it, and reports whether it did:
// false means every checker is busy and the queue is full (in entries or
// in bytes).
func (cp *checkPool) submit(c pendingCheck) bool {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cp.busy < cp.checkers {
		cp.busy++
		go cp.work(c)
		return true
	}
	if cp.n == len(cp.queue) || cp.bytes+c.size > cp.maxBytes {
		return false
	}
	cp.queue[(cp.head+cp.n)%len(cp.queue)] = c
	cp.n++
	cp.bytes += c.size
	cp.peak = max(cp.peak, cp.n)
	cp.peakBytes = max(cp.peakBytes, cp.bytes)
	return true
}

// full reports whether submit would refuse a check of size bytes now:
// every checker is busy and the queue has no room for it.
func (cp *checkPool) full(size int64) bool {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return cp.busy == cp.checkers && (cp.n == len(cp.queue) || cp.bytes+size > cp.maxBytes)
}

// work checks c, then each queued check in turn, and ends when the queue
// is empty.
func (cp *checkPool) work(c pendingCheck) {
	for {
		waitForSpareCPU(cp.forwarding)
		if cp.beforeCheck != nil {
			cp.beforeCheck()
		}
		start := time.Now()
		cp.run(c)
		cp.rest(time.Since(start))
		var ok bool
		if c, ok = cp.next(); !ok {
			return
		}
	}
}

// maxRest bounds a checker's rest after one check.
const maxRest = 5 * time.Second

// restStep is how often a resting checker looks whether requests are
// still being forwarded.
const restStep = 5 * time.Millisecond

// rest pauses a checker after a check that took d, while requests are being
// forwarded and goroutines wait for a CPU, so that under such a load it
// checks for at most duty of its time. It ends early when no request is in
// flight any more. Without contention for the CPUs it does not rest: the
// checks then take only CPU nobody else wants.
func (cp *checkPool) rest(d time.Duration) {
	if cp.duty >= 1 || !cp.forwarding() || runnable() == 0 {
		return
	}
	end := time.Now().Add(min(time.Duration(float64(d)*(1/cp.duty-1)), maxRest))
	for cp.forwarding() {
		left := time.Until(end)
		if left <= 0 {
			return
		}
		time.Sleep(min(left, restStep))
	}
}

// next takes the oldest queued check; false (and one checker less busy)
// when there is none.
func (cp *checkPool) next() (pendingCheck, bool) {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cp.n == 0 {
		cp.busy--
		return pendingCheck{}, false
	}
	c := cp.queue[cp.head]
	cp.queue[cp.head] = pendingCheck{} // the body it holds can be collected once checked
	cp.head = (cp.head + 1) % len(cp.queue)
	cp.n--
	cp.bytes -= c.size
	return c, true
}

// stats returns the pool's gauges.
func (cp *checkPool) stats() PoolMetrics {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return PoolMetrics{
		Checkers: cp.checkers, QueueSize: len(cp.queue), QueueBytes: cp.maxBytes,
		Running: cp.busy, Queued: cp.n, QueuedPeak: cp.peak, QueuedBytes: cp.bytes, QueuedBytesPeak: cp.peakBytes,
	}
}

// sampleScale is the resolution of Config.CheckSample: it is rounded to a
// whole number of billionths.
const sampleScale = 1_000_000_000

// sampler chooses the listing responses to check, by a counter rather than
// at random, so that a run is repeatable: the listing requests are numbered
// in the order they arrive, i = 0, 1, 2, ..., and request i is checked when
// ceil((i+1)·F) > ceil(i·F). Of the first N requests exactly ceil(N·F) are
// checked, the first among them, spread evenly (F = 0.25 checks requests 0,
// 4, 8, ...).
type sampler struct {
	rate uint64 // F in billionths, 1 to sampleScale
	next atomic.Uint64
}

func newSampler(f float64) *sampler {
	rate := uint64(math.Round(f * sampleScale))
	return &sampler{rate: min(max(rate, 1), sampleScale)}
}

// take numbers the next listing request and reports whether it is checked.
func (s *sampler) take() bool {
	if s.rate == sampleScale {
		return true
	}
	i := s.next.Add(1) - 1
	return ceilScaled(i+1, s.rate) > ceilScaled(i, s.rate)
}

// ceilScaled returns ceil(i·rate/sampleScale) without overflow. Div64
// cannot panic: the high word of i·rate is below rate, at most sampleScale.
func ceilScaled(i, rate uint64) uint64 {
	hi, lo := bits.Mul64(i, rate)
	q, r := bits.Div64(hi, lo, sampleScale)
	if r != 0 {
		q++
	}
	return q
}

// runnableMetric counts the goroutines ready to run but waiting for a P.
const runnableMetric = "/sched/goroutines/runnable:goroutines"

// Bounds of the pause between two looks at the scheduler while it has no
// CPU to spare, and of the whole wait: the count is approximate, and on a
// machine that other processes load it may stay above 0 with the proxy
// idle, so a check waits no longer than spareCPUMaxWait (the rest after it
// still bounds its share of the CPUs).
const (
	spareCPUFirstPause = time.Millisecond
	spareCPUMaxPause   = 20 * time.Millisecond
	spareCPUMaxWait    = time.Second
)

// waitForSpareCPU returns once no goroutine is waiting for a CPU (a P), so
// that a check starts only when it takes no CPU the forwarding wants: a
// check is CPU-bound and runs tens of milliseconds for a large page, and
// while every P runs one, the goroutines forwarding responses would wait
// for the scheduler to preempt it. While the proxy is saturated checks
// wait here and rest after (checkPool.rest), the queue fills, and
// responses pass unchecked (busy) rather than slowed. It looks again after
// a pause that doubles up to spareCPUMaxPause, for at most
// spareCPUMaxWait; with no request in flight (nothing to make room for),
// or a runtime without the metric, it never waits.
func waitForSpareCPU(forwarding func() bool) {
	pause := spareCPUFirstPause
	deadline := time.Now().Add(spareCPUMaxWait)
	for time.Now().Before(deadline) && forwarding() && runnable() > 0 {
		time.Sleep(pause)
		pause = min(2*pause, spareCPUMaxPause)
	}
}

// runnable returns the goroutines waiting for a CPU, 0 when the runtime
// does not say.
func runnable() uint64 {
	sample := []rtmetrics.Sample{{Name: runnableMetric}}
	rtmetrics.Read(sample)
	if sample[0].Value.Kind() != rtmetrics.KindUint64 {
		return 0
	}
	return sample[0].Value.Uint64()
}
