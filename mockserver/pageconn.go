package mockserver

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// A page goes out in one write. net/http writes an answer to its
// connection through a 4 KiB buffer: the status line, the headers and the
// body's first bytes when the buffer fills, then the rest of the body, so
// that a page of 18 KB takes two write system calls, two TCP segments and
// two wake-ups of the client, about a fifth of what serving it costs on
// loopback. A page the mock writes whole (writeOK) is announced to its
// connection, which holds what net/http writes of it until the last byte
// arrives and sends it all in one writev: the same bytes, in one segment
// where they fit in one.
//
// Only an answer written whole through the mock's own writers is announced:
// not one a fault replays (a slow body must dribble), not a HEAD answer's
// (no body follows its headers), not over HTTP/2. Whatever is held goes
// out at once when the connection is read, given a read deadline, closed
// or half-closed, or when the bytes held would pass maxHeld: net/http does
// one of these before it waits for the client's next request, so that an
// answer that writes fewer bytes than it announced is delayed by
// microseconds, never lost or reordered.

// maxHeld bounds the bytes a connection holds of an announced answer
// before it sends them: net/http's first write (4 KiB) and headers of any
// likely size fit.
const maxHeld = 64 << 10

// headEnd ends an answer's status line and headers.
var headEnd = []byte("\r\n\r\n")

// heldCap is the size of the buffers connections hold answers in
// (heldBufs): net/http's first write and the headers fit.
const heldCap = 8 << 10

// heldBufs are the buffers connections hold answers in, used again from
// answer to answer rather than kept by each idle connection.
var heldBufs = sync.Pool{New: func() any { b := make([]byte, 0, heldCap); return &b }}

// reusable reports whether a buffer of capacity n goes back to heldBufs:
// one grown past twice heldCap (headers of tens of kilobytes) is let go.
func reusable(n int) bool { return n <= 2*heldCap }

// Listener returns ln with its TCP connections able to send a page the
// mock writes whole in one write (see HTTPServer); other connections are
// as ln accepts them. Serve a Server's HTTPServer on it:
//
//	srv.HTTPServer().Serve(mockserver.Listener(ln))
func Listener(ln net.Listener) net.Listener { return pageListener{ln} }

type pageListener struct{ net.Listener }

func (l pageListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		return newPageConn(tc), err
	}
	return c, err
}

// pageConn is a TCP connection that sends an announced answer (expect) in
// one write. Its methods are safe to call at once, as net/http does: the
// handler writes while the connection's background read waits.
type pageConn struct {
	*net.TCPConn
	armed atomic.Bool // an answer is announced or bytes are held
	mu    sync.Mutex  // guards what follows
	body  int         // bytes of the announced answer's body
	total int         // bytes of the whole answer, once its headers' end is held; 0 before
	held  *[]byte     // what is held of it (from heldBufs), nil when not armed
	vec   [2][]byte   // the buffers of the one write
	// send writes bufs to the connection in one system call (writev);
	// tests count the calls.
	send func(bufs *net.Buffers) (int64, error)
}

func newPageConn(tc *net.TCPConn) *pageConn {
	c := &pageConn{TCPConn: tc}
	c.send = func(bufs *net.Buffers) (int64, error) { return bufs.WriteTo(c.TCPConn) }
	return c
}

// expect announces an answer whose body of n bytes follows its headers:
// what is written of it is held until its last byte. Anything still held
// of an earlier answer goes first.
func (c *pageConn) expect(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held != nil {
		c.release(nil)
	}
	c.body, c.total = n, 0
	c.held = heldBufs.Get().(*[]byte)
	c.armed.Store(true)
}

func (c *pageConn) Write(p []byte) (int, error) {
	if !c.armed.Load() {
		return c.TCPConn.Write(p)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	held := c.held
	switch {
	case held == nil: // released meanwhile
		return c.TCPConn.Write(p)
	case len(*held)+len(p) > maxHeld || (c.total != 0 && len(*held)+len(p) >= c.total):
		return c.release(p)
	}
	from := max(0, len(*held)-len(headEnd)+1)
	*held = append(*held, p...)
	if c.total == 0 {
		if i := bytes.Index((*held)[from:], headEnd); i >= 0 {
			c.total = from + i + len(headEnd) + c.body
		}
	}
	if c.total != 0 && len(*held) >= c.total {
		if _, err := c.release(nil); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// release sends what is held and p in one write and ends the announced
// answer; it returns the bytes of p written. c.mu is held.
func (c *pageConn) release(p []byte) (int, error) {
	held := c.held
	c.held, c.body, c.total = nil, 0, 0
	// Unarmed only once sent: a write that finds the connection unarmed
	// goes straight out, and must not overtake these bytes.
	defer c.armed.Store(false)
	k := len(*held)
	var n int64
	var err error
	if k+len(p) > 0 {
		c.vec[0], c.vec[1] = *held, p
		bufs := net.Buffers(c.vec[:])
		n, err = c.send(&bufs)
		c.vec = [2][]byte{}
	}
	if reusable(cap(*held)) {
		*held = (*held)[:0]
		heldBufs.Put(held)
	}
	return int(max(0, n-int64(k))), err
}

// flush sends what is held, if anything.
func (c *pageConn) flush() error {
	if !c.armed.Load() {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held == nil {
		return nil
	}
	_, err := c.release(nil)
	return err
}

func (c *pageConn) Read(p []byte) (int, error) {
	if err := c.flush(); err != nil {
		return 0, err
	}
	return c.TCPConn.Read(p)
}

func (c *pageConn) SetReadDeadline(t time.Time) error {
	c.flush()
	return c.TCPConn.SetReadDeadline(t)
}

func (c *pageConn) SetDeadline(t time.Time) error {
	c.flush()
	return c.TCPConn.SetDeadline(t)
}

func (c *pageConn) Close() error {
	c.flush()
	return c.TCPConn.Close()
}

// CloseWrite sends what is held before the connection's end.
func (c *pageConn) CloseWrite() error {
	if err := c.flush(); err != nil {
		return err
	}
	return c.TCPConn.CloseWrite()
}

// ReadFrom sends what is held, then what r holds as net.TCPConn does
// (sendfile or splice where it can).
func (c *pageConn) ReadFrom(r io.Reader) (int64, error) {
	if err := c.flush(); err != nil {
		return 0, err
	}
	return c.TCPConn.ReadFrom(r)
}

// WriteTo sends what is held, then reads the connection into w.
func (c *pageConn) WriteTo(w io.Writer) (int64, error) {
	if err := c.flush(); err != nil {
		return 0, err
	}
	return c.TCPConn.WriteTo(w)
}

// announceWhole tells the connection of the request o follows that its
// answer is written whole: headers, then a body of n bytes. Only a GET over
// HTTP/1 whose writers all pass bytes on unchanged is announced.
func (o *observedWriter) announceWhole(n int) {
	if o.r.Method != http.MethodGet || o.r.ProtoMajor != 1 || !passesOn(o.ResponseWriter) {
		return
	}
	if cs, _ := o.r.Context().Value(connDeadlineKey{}).(*connDeadline); cs != nil && cs.pages != nil {
		cs.pages.expect(n)
	}
}

// passesOn reports whether every writer underneath w is one of the mock's
// own that write what they are given unchanged and at once, down to a
// writer that wraps none (net/http's own).
func passesOn(w http.ResponseWriter) bool {
	for {
		switch t := w.(type) {
		case *statusRecorder:
			w = t.ResponseWriter
		case *deadlineWriter:
			w = t.ResponseWriter
		case interface{ Unwrap() http.ResponseWriter }:
			return false
		default:
			return true
		}
	}
}
