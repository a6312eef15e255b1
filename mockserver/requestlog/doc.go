// Package requestlog is harness serve's request log: one line per request,
// in the text or JSON format of log/slog's TextHandler and JSONHandler
// (the same keys, values and quoting as the slog call the mock used to
// make), written without an allocation (Format.Append), through a Writer
// that never makes a request wait for the log's output: a line is copied
// into a buffer, and a goroutine of the Writer's own writes the buffer out
// on a tick, as soon as it holds FlushBytes, and at Close. No line is
// dropped: when the output stops taking lines (a terminal paused, a pipe
// nobody reads) and MaxPending bytes wait, a request waits for room, as it
// waited for every line of the old log.
package requestlog
