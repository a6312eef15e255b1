package mockserver

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/chaindata/harness/mockserver/faults"
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

// logRequests writes one structured line per request.
func (s *Server) logRequests(next http.Handler) http.Handler {
	log := s.cfg.Logger
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		log.LogAttrs(r.Context(), slog.LevelInfo, "request",
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.String("query", r.URL.RawQuery),
			slog.Int("status", rec.status),
			slog.Int("bytes", rec.bytes),
			slog.Duration("duration", time.Since(start)),
			slog.String("remote", r.RemoteAddr),
		)
	})
}

var (
	corsOrigin = []string{"*"}
	// Retry-After too, so that a browser client can honour an injected
	// 429 or 503.
	corsExpose = []string{"X-Block-Height, X-Block-Timestamp, Retry-After"}
)

// cors lets browser clients call the API from any origin.
func cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
