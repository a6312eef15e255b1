package mockserver

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/chaindata/harness/mockserver/faults"
	"github.com/chaindata/harness/mockserver/requestlog"
)

// recoverPanics answers a panic with a 500 error body instead of a dropped
// connection, and logs it with its stack.
func recoverPanics(next http.Handler, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				if log != nil {
					log.Error("panic serving request", "path", r.URL.Path, "query", r.URL.RawQuery, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				}
				writeError(w, internalError("the server failed to answer"))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// statusRecorder remembers the status and size of a response.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

// Unwrap gives http.ResponseController the writer underneath, for the
// faults that flush or take over the connection.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += n
	return n, err
}

// logRequests writes one line per request: through Config.RequestLog when
// set (requestlog: no allocation, no wait for the log's output), else
// through Config.Logger (log/slog). Its recorders are used again from
// request to request (s.recorders).
func (s *Server) logRequests(next http.Handler) http.Handler {
	fast, log := s.cfg.RequestLog, s.cfg.Logger
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := startOf(w)
		rec := s.recorders.Get().(*statusRecorder)
		*rec = statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		status, size := rec.status, rec.bytes
		*rec = statusRecorder{}
		s.recorders.Put(rec)
		end := since(start)
		// The answer's findings (warnings.go), one attribute each.
		warnings := w.Header()[WarningHeader]
		if fast != nil {
			fast.Add(&requestlog.Entry{
				Time: end, Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Status: status, Bytes: size,
				Duration: end.Sub(start), Remote: r.RemoteAddr, Warnings: warnings,
			})
			return
		}
		attrs := []slog.Attr{
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.String("query", r.URL.RawQuery),
			slog.Int("status", status),
			slog.Int("bytes", size),
			slog.Duration("duration", end.Sub(start)),
			slog.String("remote", r.RemoteAddr),
		}
		for _, text := range warnings {
			attrs = append(attrs, slog.String("warning", text))
		}
		log.LogAttrs(r.Context(), slog.LevelInfo, "request", attrs...)
	})
}

var (
	corsOrigin = []string{"*"}
	// Retry-After too, so that a browser client can honour an injected
	// 429 or 503, and the findings, so that it can show them.
	corsExpose = []string{"X-Block-Height, X-Block-Timestamp, Retry-After, " + WarningHeader}
)

// cors lets browser clients call the API from any origin. With control set,
// the control API's paths get no CORS headers, preflights included: no page
// of another origin may read its answers or send it what needs a preflight.
func cors(next http.Handler, control bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if control && isControlPath(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h["Access-Control-Allow-Origin"] = corsOrigin
		h["Access-Control-Expose-Headers"] = corsExpose
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
			// X-Harness-Fault: a browser client may ask for a fault too.
			h.Set("Access-Control-Allow-Headers", "Content-Type, Accept, Authorization, "+faults.Header)
			h.Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// writeDeadlines sets the connection's write deadline as an answer is
// written (Config.WriteTimeout): at the start, base from now, for what
// net/http writes on its own (a 100 Continue, an answer the handler left
// empty); before the header and each flush, base; before each write, base
// plus the time its bytes take at rate bytes a second. (A deadline is moved
// only when it moves by a tenth of base or more: see extend.) A client that stops reading thus fails the write that fills the
// connection's buffers, the handler returns and its answer's memory is
// freed, and net/http closes the connection. Where the writer cannot take
// a deadline (a test recorder) the answer is not wrapped.
//
// A failed write of at least reclaimMinBytes tells rc, which hands the
// memory of the dropped answers back to the operating system once the
// drops stop (see reclaimer).
//
// On a connection of HTTPServer's (HTTP/1), the deadline the last answer
// set is kept for the connection (connDeadline): an answer that finds it
// within a tenth of base of its own start's leaves it, so that answers in
// quick succession on one connection set it about once a tenth of base,
// not once each; one further (a long answer's) or nearer (a connection
// left idle) it sets again.
func writeDeadlines(next http.Handler, base time.Duration, rate int, rc *reclaimer) http.Handler {
	writers := sync.Pool{New: func() any { return new(deadlineWriter) }} // used again from answer to answer
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		set := deadlineSetterOf(w)
		if set == nil {
			next.ServeHTTP(w, r)
			return
		}
		dw := writers.Get().(*deadlineWriter)
		*dw = deadlineWriter{ResponseWriter: w, set: set, base: base, rate: rate, reclaim: rc, start: time.Now()}
		if r.ProtoMajor == 1 { // one answer at a time on the connection
			dw.conn, _ = r.Context().Value(connDeadlineKey{}).(*connDeadline)
		}
		// The connection's deadline is this answer's to start with, unless
		// it lies more than a tenth of base beyond its start's (a long
		// answer's, carried over); extendAt sets it again when it falls a
		// tenth short (a connection left idle).
		if dw.conn != nil && !dw.conn.at.After(dw.start.Add(base+base/10)) {
			dw.deadline = dw.conn.at
		}
		dw.extendAt(dw.start, 0)
		next.ServeHTTP(dw, r)
		*dw = deadlineWriter{}
		writers.Put(dw)
	})
}

// connDeadline is the write deadline a connection has, as the answers on
// it set it (writeDeadlines): HTTPServer gives each connection one. It
// also holds the connection itself when it can send a page in one write
// (Listener), for the answers to announce themselves to (pageconn.go).
type connDeadline struct {
	at    time.Time
	pages *pageConn // nil: not one of Listener's
}

type connDeadlineKey struct{}

// withConnDeadline is HTTPServer's ConnContext: each connection gets its
// connDeadline.
func withConnDeadline(ctx context.Context, c net.Conn) context.Context {
	pages, _ := c.(*pageConn)
	return context.WithValue(ctx, connDeadlineKey{}, &connDeadline{pages: pages})
}

// starter is a writer that knows when its answer began: the mock's
// outermost (deadlineWriter) reads the clock once for the middlewares
// inside it, which read it again only as time since then (time.Since, a
// reading of the monotonic clock alone): on a virtual machine each reading
// of the clock costs about as much as a tenth of a page.
type starter interface{ started() time.Time }

// startOf returns when the answer written to w began, as the writer that
// knows it underneath w says, or else now.
func startOf(w http.ResponseWriter) time.Time {
	for {
		switch t := w.(type) {
		case starter:
			return t.started()
		case interface{ Unwrap() http.ResponseWriter }:
			w = t.Unwrap()
		default:
			return time.Now()
		}
	}
}

// since returns start moved on by the time since it: now, from a reading
// of the monotonic clock alone.
func since(start time.Time) time.Time { return start.Add(time.Since(start)) }

// deadlineSetter is a writer that takes a write deadline, as net/http's own
// does.
type deadlineSetter interface{ SetWriteDeadline(time.Time) error }

// deadlineSetterOf returns what sets w's write deadline, unwrapping w as
// http.ResponseController does, or nil when nothing can. (Asked once per
// answer, it spares each deadline the controller's walk, and a writer
// without deadlines the error the controller makes for every call.)
func deadlineSetterOf(w http.ResponseWriter) deadlineSetter {
	for {
		switch t := w.(type) {
		case deadlineSetter:
			return t
		case interface{ Unwrap() http.ResponseWriter }:
			w = t.Unwrap()
		default:
			return nil
		}
	}
}

// deadlineWriter moves the write deadline forward before each write.
type deadlineWriter struct {
	http.ResponseWriter
	set      deadlineSetter
	base     time.Duration
	rate     int
	reclaim  *reclaimer
	conn     *connDeadline // the connection's, or nil
	start    time.Time     // when the answer began
	deadline time.Time     // the deadline set last
}

func (d *deadlineWriter) started() time.Time { return d.start }

// writeAllowance is the time a write of n bytes may take: base, plus n bytes
// at rate bytes a second.
func writeAllowance(n int, base time.Duration, rate int) time.Duration {
	return base + time.Duration(int64(n)*int64(time.Second)/int64(rate))
}

// extend sets the deadline for a write of n bytes from now, unless the
// deadline set already is less than a tenth of base short of it: a small
// answer (headers and body within moments) sets it once, not three times,
// each a tenth of the cost of the answer itself.
func (d *deadlineWriter) extend(n int) { d.extendAt(since(d.start), n) }

// extendAt is extend at the time now.
func (d *deadlineWriter) extendAt(now time.Time, n int) {
	want := now.Add(writeAllowance(n, d.base, d.rate))
	if want.Sub(d.deadline) < d.base/10 {
		return
	}
	d.deadline = want
	if d.conn != nil {
		d.conn.at = want
	}
	d.set.SetWriteDeadline(want)
}

func (d *deadlineWriter) WriteHeader(code int) {
	d.extend(0)
	d.ResponseWriter.WriteHeader(code)
}

func (d *deadlineWriter) Write(b []byte) (int, error) {
	d.extend(len(b))
	n, err := d.ResponseWriter.Write(b)
	if err != nil && len(b) >= reclaimMinBytes {
		d.reclaim.dropped()
	}
	return n, err
}

// reclaimMinBytes is the smallest failed write after which the memory of
// dropped answers is handed back: below it the runtime's own pace does.
const reclaimMinBytes = 1 << 20

// reclaimer hands the memory of answers whose clients were dropped back to
// the operating system: free (debug.FreeOSMemory) runs delay after the last
// of a burst of drops, and at most maxDelay after the first. Without it a
// server that answers nothing more after dropping stalled clients keeps
// their buffers in its RSS: no allocation, so no collection, so nothing for
// the runtime to return.
type reclaimer struct {
	delay, maxDelay time.Duration
	free            func()

	mu      sync.Mutex
	timer   *time.Timer
	pending time.Time // the first drop since the last free; zero: none
}

// newReclaimer returns a reclaimer with the server's delays: a second after
// the last drop, at most about two after the first, so that while clients
// are dropped one after another the memory is handed back every two seconds
// or so (each a full collection: a fraction of a second of CPU for a
// heap of a few hundred MB).
func newReclaimer() *reclaimer {
	return &reclaimer{delay: time.Second, maxDelay: 2 * time.Second, free: debug.FreeOSMemory}
}

// dropped records a dropped answer.
func (r *reclaimer) dropped() {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	switch {
	case r.timer == nil:
		r.timer = time.AfterFunc(r.delay, r.run)
		r.pending = now
	case r.pending.IsZero():
		r.timer.Reset(r.delay)
		r.pending = now
	case now.Sub(r.pending) < r.maxDelay:
		r.timer.Reset(r.delay)
	}
}

// run frees, once the burst of drops is over.
func (r *reclaimer) run() {
	r.mu.Lock()
	r.pending = time.Time{}
	r.mu.Unlock()
	r.free()
}

// FlushError flushes with a fresh deadline: a slow-body fault flushes each
// piece it writes.
func (d *deadlineWriter) FlushError() error {
	d.extend(0)
	return http.NewResponseController(d.ResponseWriter).Flush()
}

// Unwrap gives http.ResponseController the writer underneath, for the
// faults that take over the connection.
func (d *deadlineWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }

// limitHeaders answers 431 with the error body when the request line and
// header block are over limit bytes (Config.MaxHeaderBytes). net/http
// answers a plain-text 431 itself only above the http.Server's
// MaxHeaderBytes, which HTTPServer sets above limit, so that such a request
// reaches this check.
func limitHeaders(next http.Handler, limit int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n := headerBytes(r, limit); n > limit {
			writeError(w, &apiError{
				status: http.StatusRequestHeaderFieldsTooLarge, code: codeInvalidArgument, message: "InvalidArgument error",
				details: []errorDetail{{
					Type: errorDetailType, Code: detailNotMapped, Message: "request header fields too large",
					Inner: "the request line and headers are " + strconv.Itoa(n) + " bytes, more than the limit of " + strconv.Itoa(limit),
				}},
			})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// headerBytes returns the size of r's request line and header block as
// HTTP/1.1 sends them ("GET /path?query HTTP/1.1\r\n", "Key: value\r\n"
// for each value, the Host line and the blank line), counting no further
// once the count is over limit.
func headerBytes(r *http.Request, limit int) int {
	n := len(r.Method) + 1 + len(r.RequestURI) + 1 + len(r.Proto) + 2
	if r.RequestURI == "" { // a request made in-process
		n += len(r.URL.RequestURI())
	}
	n += len("Host: ") + len(r.Host) + 2 + 2
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + 2 + len(v) + 2
		}
		if n > limit {
			break
		}
	}
	return n
}

// LimitHeaders returns next behind the header limit Server applies
// (Config.MaxHeaderBytes), for another server of the API, such as harness
// proxy: a request line plus headers over limit bytes is answered 431 with
// the error body. The http.Server's MaxHeaderBytes must be above limit (by
// HeaderSlack, as Server.HTTPServer sets it), or net/http answers first.
func LimitHeaders(next http.Handler, limit int) http.Handler { return limitHeaders(next, limit) }

// WriteDeadlines returns next with the write deadlines Server sets
// (Config.WriteTimeout, Config.MinWriteRate), for another server of the
// API, such as harness proxy: before each write, base plus the bytes at
// rate bytes a second, so that a client that stops reading is dropped.
func WriteDeadlines(next http.Handler, base time.Duration, rate int) http.Handler {
	return writeDeadlines(next, base, rate, newReclaimer())
}
