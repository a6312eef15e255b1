package faults

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Options configure an Injector.
type Options struct {
	// Rules are the rules in force at start (nil: none).
	Rules *RuleSet
	// Seed seeds the streams that choose which requests fail and draw
	// latencies: the same seed, rules and order of requests fail the same
	// requests.
	Seed int64
	// ListingOf names the listing a request path serves ("" for none); rules
	// with a listing match by it. Nil matches no listing.
	ListingOf func(path string) string
	// Observe, when set, is told of each fault about to be applied, with
	// what asked for it ("rule 2", "X-Harness-Fault header"), before the
	// request is delayed or failed, with the writer the request is answered
	// through: a request journal records it.
	Observe func(w http.ResponseWriter, f Fault, source string)
}

// Injector is the middleware that applies faults: the one a request's
// X-Harness-Fault header asks for, or else those of the rules that fire. It
// counts the faults it applies, by kind. It is safe for concurrent use, and
// costs a request that asks for nothing, while no rule is set, one map
// lookup and one atomic load.
type Injector struct {
	seed      int64
	listingOf func(string) string
	observe   func(http.ResponseWriter, Fault, string)
	start     *RuleSet

	rules atomic.Pointer[ruleState] // nil while there are no rules

	headerMu  sync.Mutex
	headerRNG *rand.Rand // latencies of header faults, apart from the rules' stream

	counts [len(kindNames)]atomic.Int64 // by Kind; None counts latencies
}

// ruleState is a rule set with the state of its rules.
type ruleState struct {
	set *RuleSet

	mu      sync.Mutex
	rng     *rand.Rand
	matched []int // matching requests since the rule last fired, per every-n rule
	fired   []int // requests failed, per rule
}

// New returns an injector configured by opts.
func New(opts Options) *Injector {
	inj := &Injector{seed: opts.Seed, listingOf: opts.ListingOf, observe: opts.Observe, start: opts.Rules}
	if inj.listingOf == nil {
		inj.listingOf = func(string) string { return "" }
	}
	inj.Reset()
	return inj
}

// SetRules replaces the rules (nil or empty: none); the stream that chooses
// the requests to fail starts again from the seed.
func (inj *Injector) SetRules(rs *RuleSet) {
	if rs.Len() == 0 {
		inj.rules.Store(nil)
		return
	}
	inj.rules.Store(&ruleState{
		set: rs, rng: rand.New(rand.NewSource(inj.seed)),
		matched: make([]int, rs.Len()), fired: make([]int, rs.Len()),
	})
}

// Rules returns the rules in force (nil when none).
func (inj *Injector) Rules() *RuleSet {
	if st := inj.rules.Load(); st != nil {
		return st.set
	}
	return nil
}

// Reset goes back to the start: the rules of Options, both streams started
// again from the seed, and every count at zero.
func (inj *Injector) Reset() {
	inj.SetRules(inj.start)
	inj.headerMu.Lock()
	inj.headerRNG = rand.New(rand.NewSource(inj.seed ^ 0x5eed))
	inj.headerMu.Unlock()
	for i := range inj.counts {
		inj.counts[i].Store(0)
	}
}

// Counts returns the faults applied so far by kind name ("latency" for the
// latencies added, whatever came after them), every kind present.
func (inj *Injector) Counts() map[string]int64 {
	out := make(map[string]int64, len(kindNames))
	for k := range kindNames {
		name := kindNames[k]
		if Kind(k) == None {
			name = "latency"
		}
		out[name] = inj.counts[k].Load()
	}
	return out
}

// decided is what happens to one request.
type decided struct {
	fault   Fault
	latency time.Duration
	source  string // what asked for it, for the error body
}

// decide applies the rules to a request: every rule that matches and fires
// adds its latency; the first of them with another kind gives that kind.
func (st *ruleState) decide(path, listing string) (d decided, any bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for i := range st.set.rules {
		r, f := &st.set.rules[i], st.set.faults[i]
		if (r.Listing != "" && r.Listing != listing) || (r.Path != "" && r.Path != path) || (r.Times > 0 && st.fired[i] >= r.Times) {
			continue
		}
		if r.Every != 0 {
			// Counts the matching requests since the rule last fired.
			st.matched[i]++
			if st.matched[i] != r.Every {
				continue
			}
			st.matched[i] = 0
		}
		if r.Probability != 0 && st.rng.Float64() >= r.Probability {
			continue
		}
		st.fired[i]++
		any = true
		lat := d.fault.Latency
		if f.Latency.Dist != NoLatency {
			d.latency += f.Latency.Sample(st.rng)
			lat = f.Latency // the text names the last one
		}
		if f.Kind != None && d.fault.Kind == None {
			d.fault, d.source = f, r.label(i+1)
		}
		d.fault.Latency = lat
	}
	return d, any
}

// Wrap returns next behind the injector.
func (inj *Injector) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked, ok := r.Header[Header]
		if !ok {
			st := inj.rules.Load()
			if st == nil {
				next.ServeHTTP(w, r)
				return
			}
			d, any := st.decide(r.URL.Path, inj.listingOf(r.URL.Path))
			if !any {
				next.ServeHTTP(w, r)
				return
			}
			inj.apply(w, r, next, d)
			return
		}
		if len(asked) != 1 {
			writeBadHeader(w, Header+" given "+strconv.Itoa(len(asked))+" times: give it once")
			return
		}
		f, err := Parse(asked[0])
		if err != nil {
			writeBadHeader(w, err.Error())
			return
		}
		d := decided{fault: f, source: Header + " header"}
		if f.Latency.Dist != NoLatency {
			inj.headerMu.Lock()
			d.latency = f.Latency.Sample(inj.headerRNG)
			inj.headerMu.Unlock()
		}
		inj.apply(w, r, next, d)
	})
}

// apply carries out a decided fault.
func (inj *Injector) apply(w http.ResponseWriter, r *http.Request, next http.Handler, d decided) {
	if inj.observe != nil && !d.fault.IsZero() {
		inj.observe(w, d.fault, d.source)
	}
	if d.fault.Latency.Dist != NoLatency {
		inj.counts[None].Add(1)
		t := time.NewTimer(d.latency)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return // the client gave up: nobody to answer
		}
	}
	f := d.fault
	if f.Kind != None {
		inj.counts[f.Kind].Add(1)
	}
	switch f.Kind {
	case None:
		next.ServeHTTP(w, r)
	case Status:
		writeStatus(w, f, d.source)
	case Reset:
		reset(w)
	case Garbage:
		writeGarbage(w)
	default:
		c := &capture{header: w.Header(), to: w}
		next.ServeHTTP(c, r)
		c.replay(w, r, f)
	}
}

// capture keeps an answer to replay it faulted. Its header is the real
// writer's, so the handler's headers (Content-Length above all) go out as
// they are.
type capture struct {
	header http.Header
	to     http.ResponseWriter // what the answer is replayed to
	status int
	body   bytes.Buffer
}

// Unwrap returns the writer the answer is replayed to, so that what wraps
// the injector finds its own writer through the capture (the mock's
// request journal notes the page its handler makes). The handler writes to
// the capture, never to that writer.
func (c *capture) Unwrap() http.ResponseWriter { return c.to }

func (c *capture) Header() http.Header { return c.header }

func (c *capture) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
	}
}

func (c *capture) Write(b []byte) (int, error) {
	c.WriteHeader(http.StatusOK)
	return c.body.Write(b)
}

// replay sends the captured answer as an Empty, Truncate or SlowBody fault
// has it: headers promising the whole body, then part of it (and the
// connection closed), or all of it slowly.
func (c *capture) replay(w http.ResponseWriter, r *http.Request, f Fault) {
	c.WriteHeader(http.StatusOK)
	body := c.body.Bytes()
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(c.status)
	rc := http.NewResponseController(w)
	switch f.Kind {
	case SlowBody:
		dribble(w, rc, r, body, f.Rate)
		return
	case Truncate:
		w.Write(body[:int(f.Fraction*float64(len(body)))])
	}
	rc.Flush()
	hangUp(rc, false)
}

// dribbleStep is how often a slow body sends its next bytes.
const dribbleStep = 50 * time.Millisecond

// dribble writes body at rate bytes a second: each piece once the time for
// the bytes up to its end has passed, so that the body's last byte leaves
// len(body)/rate after the headers.
func dribble(w http.ResponseWriter, rc *http.ResponseController, r *http.Request, body []byte, rate int) {
	rc.Flush()
	chunk := dribbleChunk(rate)
	start := time.Now()
	for sent := 0; sent != len(body); {
		n := min(chunk, len(body)-sent)
		due := start.Add(time.Duration(float64(sent+n) / float64(rate) * float64(time.Second)))
		t := time.NewTimer(time.Until(due))
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
		if _, err := w.Write(body[sent : sent+n]); err != nil {
			return
		}
		rc.Flush()
		sent += n
	}
}

// dribbleChunk is the bytes a slow body sends each dribbleStep at rate
// bytes a second: at least one.
func dribbleChunk(rate int) int {
	return max(1, int(int64(rate)*int64(dribbleStep)/int64(time.Second)))
}

// reset closes the connection without an answer, with a TCP reset where the
// connection is TCP.
func reset(w http.ResponseWriter) { hangUp(http.NewResponseController(w), true) }

// hangUp takes the connection from the server and closes it: with a TCP
// reset (rst), or after the bytes sent so far. Where the connection cannot
// be taken (HTTP/2), the answer is aborted instead.
func hangUp(rc *http.ResponseController, rst bool) {
	conn, _, err := rc.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	// A TCP connection, or one that wraps it (the mock's Listener).
	if tc, ok := conn.(interface{ SetLinger(sec int) error }); ok && rst {
		tc.SetLinger(0)
	}
	conn.Close()
}

// GarbageBody is the body of a Garbage fault: a 200 labelled JSON whose body
// is a proxy's HTML page.
const GarbageBody = "<!DOCTYPE html>\n<html><head><title>Gateway</title></head><body><p>This is not JSON: injected fault garbage.</p></body></html>\n"

func writeGarbage(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(GarbageBody)))
	w.WriteHeader(http.StatusOK)
	w.Write([]byte(GarbageBody))
}

// statusErrors maps each status a fault may answer with to the gRPC code and
// message the gateway gives it.
var statusErrors = map[int]struct {
	code    int32
	message string
}{
	429: {8, "ResourceExhausted error"},
	500: {13, "Internal error"},
	502: {14, "Unavailable error"},
	503: {14, "Unavailable error"},
	504: {4, "DeadlineExceeded error"},
}

// Error detail of the API's error bodies.
const (
	errorDetailType = "type.googleapis.com/core.ErrorDetail"
	detailNotMapped = 10000
)

type errorDetail struct {
	Type    string `json:"@type"`
	Code    int32  `json:"code"`
	Message string `json:"message"`
	Inner   string `json:"inner"`
}

// writeError answers with the spec's error body.
func writeError(w http.ResponseWriter, status int, code int32, message string, detail errorDetail) {
	body, _ := json.Marshal(struct {
		Code    int32         `json:"code"`
		Message string        `json:"message"`
		Details []errorDetail `json:"details"`
	}{code, message, []errorDetail{detail}})
	body = append(body, '\n')
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

func writeStatus(w http.ResponseWriter, f Fault, source string) {
	e := statusErrors[f.Status]
	if f.HasRetryAfter {
		w.Header().Set("Retry-After", strconv.Itoa(f.RetryAfter))
	}
	writeError(w, f.Status, e.code, e.message, errorDetail{
		Type: errorDetailType, Code: detailNotMapped, Message: "injected fault", Inner: f.String() + " (" + source + ")",
	})
}

// writeBadHeader answers a malformed fault header: 400, InvalidArgument.
func writeBadHeader(w http.ResponseWriter, inner string) {
	writeError(w, http.StatusBadRequest, 3, "InvalidArgument error", errorDetail{
		Type: errorDetailType, Code: detailNotMapped, Message: "invalid " + Header + " header", Inner: inner,
	})
}
