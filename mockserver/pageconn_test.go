package mockserver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chaindata/harness/mockserver/faults"
)

// connPair returns a pageConn accepted from a loopback listener, with its
// sends counted, and the client's end of the connection.
func connPair(t *testing.T) (*pageConn, *int, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	accepted, err := Listener(ln).Accept()
	if err != nil {
		t.Fatal(err)
	}
	c, ok := accepted.(*pageConn)
	if !ok {
		t.Fatalf("Listener accepted a %T, want a *pageConn", accepted)
	}
	t.Cleanup(func() { c.TCPConn.Close() })
	sends := new(int)
	send := c.send
	c.send = func(bufs *net.Buffers) (int64, error) {
		*sends++
		return send(bufs)
	}
	return c, sends, client
}

// readN reads n bytes from conn, failing the test after a few seconds.
func readN(t *testing.T, conn net.Conn, n int) []byte {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	got := make([]byte, n)
	if _, err := io.ReadFull(conn, got); err != nil {
		t.Fatalf("reading %d bytes: %v", n, err)
	}
	return got
}

// nothingMore fails the test when conn has bytes to read within a moment.
func nothingMore(t *testing.T, conn net.Conn) {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	var b [1]byte
	if n, _ := conn.Read(b[:]); n > 0 {
		t.Fatalf("a byte %q more than was written", b[:n])
	}
}

// rawAnswer returns an HTTP/1.1 answer's bytes, its headers padded to about
// headerBytes, and the length of its body of bodyBytes.
func rawAnswer(headerBytes, bodyBytes int) []byte {
	head := "HTTP/1.1 200 OK\r\nContent-Length: " + strconv.Itoa(bodyBytes) + "\r\n"
	if pad := headerBytes - len(head) - 20; pad > 0 {
		head += "X-Pad: " + strings.Repeat("p", pad) + "\r\n"
	}
	head += "\r\n"
	body := make([]byte, bodyBytes)
	for i := range body {
		body[i] = byte('a' + i%26)
	}
	return append([]byte(head), body...)
}

// headEndAt returns where the headers' end of an answer starts.
func headEndAt(b []byte) int { return bytes.Index(b, headEnd) }

// pieces cuts b at the offsets given (each from b's start).
func pieces(b []byte, at ...int) [][]byte {
	var out [][]byte
	from := 0
	for _, to := range append(at, len(b)) {
		out = append(out, b[from:to])
		from = to
	}
	return out
}

func TestPageConnSendsAnAnnouncedAnswerInOneWrite(t *testing.T) {
	small := rawAnswer(300, 1000)
	page := rawAnswer(300, 18658)
	bigHead := rawAnswer(6000, 3000)
	huge := rawAnswer(300, 512<<10)
	tests := []struct {
		name   string
		answer []byte
		body   int      // announced
		writes [][]byte // as net/http writes them
		sends  int
	}{
		{"one write of headers and body", small, 1000, pieces(small), 1},
		{"net/http's buffer, then the body's rest", page, 18658, pieces(page, 4096), 1},
		{"the body in several pieces", page, 18658, pieces(page, 4096, 9000, 9001, 15000), 1},
		// The headers' end, "\r\n\r\n", cut after each of its bytes.
		{"headers' end cut after its first byte", page, 18658, pieces(page, headEndAt(page)+1, 4096), 1},
		{"headers' end cut after its second byte", page, 18658, pieces(page, headEndAt(page)+2, 4096), 1},
		{"headers' end cut after its third byte", page, 18658, pieces(page, headEndAt(page)+3, 4096), 1},
		{"headers' end in a write of its own", page, 18658, pieces(page, headEndAt(page)+1, headEndAt(page)+3, 4096), 1},
		{"headers longer than the first write", bigHead, 3000, pieces(bigHead, 4096), 1},
		{"a body past what is held, in one write", huge, 512 << 10, pieces(huge, 4096), 1},
		// Held up to maxHeld, then sent with the piece that passes it; the
		// rest goes straight out.
		{"a body past what is held, in pieces", huge, 512 << 10, pieces(huge, 4096, 40000, 70000), 1},
		{"an empty body", rawAnswer(300, 0), 0, pieces(rawAnswer(300, 0)), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, sends, client := connPair(t)
			c.expect(tt.body)
			done := make(chan []byte)
			go func() { done <- readN(t, client, len(tt.answer)) }()
			for i, w := range tt.writes {
				n, err := c.Write(w)
				if n != len(w) || err != nil {
					t.Fatalf("write %d of %d bytes: %d, %v", i, len(w), n, err)
				}
			}
			if got := <-done; !bytes.Equal(got, tt.answer) {
				t.Fatalf("the client read other bytes than were written (%d)", len(got))
			}
			if *sends != tt.sends {
				t.Errorf("%d writes to the socket, want %d", *sends, tt.sends)
			}
			if c.armed.Load() || c.held != nil {
				t.Error("still armed once the answer is sent")
			}
			// The next writes, unannounced, go straight out.
			if _, err := c.Write([]byte("next")); err != nil {
				t.Fatal(err)
			}
			if got := readN(t, client, 4); string(got) != "next" {
				t.Fatalf("then %q, want next", got)
			}
			if *sends != tt.sends {
				t.Errorf("an unannounced write went through the held path")
			}
			nothingMore(t, client)
		})
	}
}

func TestPageConnHoldsUntilTheLastByte(t *testing.T) {
	c, sends, client := connPair(t)
	page := rawAnswer(300, 18658)
	c.expect(18658)
	if _, err := c.Write(page[:4096]); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write(page[4096 : len(page)-1]); err != nil {
		t.Fatal(err)
	}
	if *sends != 0 {
		t.Fatalf("sent before the answer's last byte")
	}
	nothingMore(t, client)
	if _, err := c.Write(page[len(page)-1:]); err != nil {
		t.Fatal(err)
	}
	if got := readN(t, client, len(page)); !bytes.Equal(got, page) || *sends != 1 {
		t.Fatalf("%d sends, the bytes equal: %v", *sends, bytes.Equal(got, page))
	}
}

// TestPageConnHoldsAtMostMaxHeld: an answer's bytes are held up to maxHeld
// and no further: the write that would pass it sends them with its own.
func TestPageConnHoldsAtMostMaxHeld(t *testing.T) {
	c, sends, client := connPair(t)
	huge := rawAnswer(300, 512<<10)
	c.expect(512 << 10)
	for _, w := range pieces(huge[:maxHeld], 4096) {
		if _, err := c.Write(w); err != nil {
			t.Fatal(err)
		}
	}
	if *sends != 0 {
		t.Fatalf("sent with exactly maxHeld bytes held")
	}
	nothingMore(t, client)
	next := huge[maxHeld : maxHeld+1000]
	if _, err := c.Write(next); err != nil {
		t.Fatal(err)
	}
	if got := readN(t, client, maxHeld+len(next)); !bytes.Equal(got, huge[:maxHeld+len(next)]) || *sends != 1 {
		t.Fatalf("%d sends; the bytes held and the write past maxHeld equal: %v", *sends, bytes.Equal(got, huge[:maxHeld+len(next)]))
	}
	if _, err := c.Write(huge[maxHeld+len(next):]); err != nil {
		t.Fatal(err)
	}
	if got := readN(t, client, len(huge)-maxHeld-len(next)); !bytes.Equal(got, huge[maxHeld+len(next):]) {
		t.Fatal("the rest differs")
	}
}

// TestPageConnFlushes: whatever ends the answer sends what is held first,
// so that an answer that writes less than it announced is delayed, never
// lost or overtaken.
func TestPageConnFlushes(t *testing.T) {
	held := rawAnswer(300, 5000)[:4096]
	tests := []struct {
		name string
		do   func(c *pageConn) error
		tail string // what the client reads after the held bytes
	}{
		{"Read", func(c *pageConn) error {
			c.SetReadDeadline(time.Now().Add(20 * time.Millisecond)) // flushes too; then read
			_, err := c.Read(make([]byte, 1))
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				return nil
			}
			return err
		}, ""},
		{"SetReadDeadline", func(c *pageConn) error { return c.SetReadDeadline(time.Now().Add(time.Hour)) }, ""},
		{"SetDeadline", func(c *pageConn) error { return c.SetDeadline(time.Now().Add(time.Hour)) }, ""},
		{"Close", func(c *pageConn) error { return c.Close() }, ""},
		{"CloseWrite", func(c *pageConn) error { return c.CloseWrite() }, ""},
		{"ReadFrom", func(c *pageConn) error {
			_, err := c.ReadFrom(strings.NewReader("from a reader"))
			return err
		}, "from a reader"},
		{"another answer announced", func(c *pageConn) error {
			c.expect(4)
			_, err := c.Write([]byte("HTTP/1.1 200 OK\r\n\r\nnext"))
			return err
		}, "HTTP/1.1 200 OK\r\n\r\nnext"},
		{"more than maxHeld", func(c *pageConn) error {
			_, err := c.Write(make([]byte, maxHeld))
			return err
		}, string(make([]byte, maxHeld))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _, client := connPair(t)
			c.expect(5000)
			if _, err := c.Write(held); err != nil {
				t.Fatal(err)
			}
			nothingMore(t, client)
			if err := tt.do(c); err != nil {
				t.Fatal(err)
			}
			want := string(held) + tt.tail
			if got := readN(t, client, len(want)); string(got) != want {
				t.Fatalf("the client read %d other bytes than the held ones and %q", len(got), tt.tail[:min(len(tt.tail), 20)])
			}
		})
	}
}

// TestPageConnWithNothingHeld: the methods that flush pass straight on when
// nothing is announced, and an announced answer with nothing written yet
// sends nothing.
func TestPageConnWithNothingHeld(t *testing.T) {
	c, sends, client := connPair(t)
	if err := c.SetReadDeadline(time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	c.expect(10)
	if err := c.SetDeadline(time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if *sends != 0 || c.armed.Load() {
		t.Fatalf("%d sends, armed %v, for nothing held", *sends, c.armed.Load())
	}
	go client.Write([]byte("x"))
	b := make([]byte, 1)
	if n, err := c.Read(b); n != 1 || err != nil || b[0] != 'x' {
		t.Fatalf("Read: %d %v %q", n, err, b)
	}
	var sink bytes.Buffer
	client.Write([]byte("yz"))
	client.Close()
	if n, err := c.WriteTo(&sink); n != 2 || err != nil || sink.String() != "yz" {
		t.Fatalf("WriteTo: %d %v %q", n, err, sink.String())
	}
}

// TestPageConnKeepsOrderWhileSending: a write that finds the held bytes
// being sent by another goroutine (net/http's background read flushes)
// waits for them rather than going out first.
func TestPageConnKeepsOrderWhileSending(t *testing.T) {
	c, _, client := connPair(t)
	page := rawAnswer(300, 18658)
	entered, release := make(chan struct{}), make(chan struct{})
	send := c.send
	c.send = func(bufs *net.Buffers) (int64, error) {
		close(entered)
		<-release
		return send(bufs)
	}
	c.expect(18658)
	if _, err := c.Write(page[:4096]); err != nil {
		t.Fatal(err)
	}
	flushed := make(chan error)
	go func() { flushed <- c.flush() }()
	<-entered
	wrote := make(chan error)
	go func() {
		_, err := c.Write(page[4096:])
		wrote <- err
	}()
	// The rest must wait for the held bytes: give it the time to overtake
	// them if it could, then let them go.
	select {
	case err := <-wrote:
		t.Errorf("the rest was written (%v) while the held bytes were being sent", err)
		close(release)
	case <-time.After(50 * time.Millisecond):
		close(release)
		if err := <-wrote; err != nil {
			t.Fatal(err)
		}
	}
	if err := <-flushed; err != nil {
		t.Fatal(err)
	}
	if got := readN(t, client, len(page)); !bytes.Equal(got, page) {
		t.Fatal("the client read the answer's bytes out of order")
	}
}

func TestPageConnWriteErrors(t *testing.T) {
	broken := errors.New("broken pipe")
	page := rawAnswer(300, 18658)
	tests := []struct {
		name   string
		writes [][]byte
		wantN  int // of the last write
	}{
		{"the last write completes the answer", pieces(page, 4096), 0},
		{"the held bytes complete it", pieces(page), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _, _ := connPair(t)
			c.send = func(bufs *net.Buffers) (int64, error) { return 100, broken }
			c.expect(18658)
			var n int
			var err error
			for _, w := range tt.writes {
				n, err = c.Write(w)
			}
			if !errors.Is(err, broken) || n != tt.wantN {
				t.Fatalf("Write: %d, %v; want %d, %v", n, err, tt.wantN, broken)
			}
			if c.armed.Load() || c.held != nil {
				t.Fatal("armed after the failed send")
			}
		})
	}
	t.Run("the flushes report it", func(t *testing.T) {
		for _, do := range []func(c *pageConn) error{
			func(c *pageConn) error { _, err := c.Read(make([]byte, 1)); return err },
			func(c *pageConn) error { return c.CloseWrite() },
			func(c *pageConn) error { _, err := c.ReadFrom(strings.NewReader("x")); return err },
			func(c *pageConn) error { _, err := c.WriteTo(io.Discard); return err },
		} {
			c, _, _ := connPair(t)
			c.send = func(bufs *net.Buffers) (int64, error) { return 0, broken }
			c.expect(18658)
			c.Write(page[:4096])
			if err := do(c); !errors.Is(err, broken) {
				t.Errorf("got %v, want %v", err, broken)
			}
		}
	})
	t.Run("a partial send", func(t *testing.T) {
		c, _, _ := connPair(t)
		c.send = func(bufs *net.Buffers) (int64, error) { return 4096 + 10, broken }
		c.expect(18658)
		c.Write(page[:4096])
		if n, err := c.Write(page[4096:]); n != 10 || !errors.Is(err, broken) {
			t.Fatalf("Write: %d, %v; want the 10 bytes of it sent", n, err)
		}
	})
}

func TestReusable(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want bool
	}{{heldCap, true}, {2 * heldCap, true}, {2*heldCap + 1, false}, {maxHeld, false}} {
		if got := reusable(tt.n); got != tt.want {
			t.Errorf("reusable(%d) = %v, want %v", tt.n, got, tt.want)
		}
	}
}

// fakeListener accepts conn, or fails with err.
type fakeListener struct {
	net.Listener
	conn net.Conn
	err  error
}

func (l fakeListener) Accept() (net.Conn, error) { return l.conn, l.err }

func TestListenerWrapsOnlyTCP(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	failed := errors.New("accept failed")
	if c, err := Listener(fakeListener{conn: a}).Accept(); c != a || err != nil {
		t.Errorf("a pipe: %T, %v; want it as accepted", c, err)
	}
	if c, err := Listener(fakeListener{err: failed}).Accept(); c != nil || err != failed {
		t.Errorf("a failed accept: %v, %v", c, err)
	}
}

// TestAnnounceWhole: only a GET over HTTP/1 written through the mock's own
// writers, on a connection of Listener's, is announced.
func TestAnnounceWhole(t *testing.T) {
	type wrapped struct{ http.ResponseWriter }
	tests := []struct {
		name   string
		method string
		proto  int
		under  func(http.ResponseWriter) http.ResponseWriter
		conn   bool
		want   bool
	}{
		{"GET", http.MethodGet, 1, nil, true, true},
		{"GET through the log and the deadlines", http.MethodGet, 1, func(w http.ResponseWriter) http.ResponseWriter {
			return &statusRecorder{ResponseWriter: &deadlineWriter{ResponseWriter: w, set: nopSetter{}, base: time.Second, rate: 1}}
		}, true, true},
		{"HEAD", http.MethodHead, 1, nil, true, false},
		{"HTTP/2", http.MethodGet, 2, nil, true, false},
		{"through a writer that may change the bytes", http.MethodGet, 1, func(w http.ResponseWriter) http.ResponseWriter {
			return &statusRecorder{ResponseWriter: unwrapper{w}}
		}, true, false},
		{"through a writer of another kind", http.MethodGet, 1, func(w http.ResponseWriter) http.ResponseWriter {
			return wrapped{w}
		}, true, true},
		{"not a connection of Listener's", http.MethodGet, 1, nil, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _, _ := connPair(t)
			cd := &connDeadline{}
			if tt.conn {
				cd.pages = c
			}
			r := httptest.NewRequest(tt.method, "/api/v2/network/parameters", nil)
			r.ProtoMajor = tt.proto
			r = r.WithContext(context.WithValue(r.Context(), connDeadlineKey{}, cd))
			var w http.ResponseWriter = httptest.NewRecorder()
			if tt.under != nil {
				w = tt.under(w)
			}
			o := &observedWriter{ResponseWriter: w, r: r}
			writeOK(o, []string{"3"}, []byte("abc"))
			if got := c.armed.Load(); got != tt.want {
				t.Errorf("announced: %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("a request with no connection", func(t *testing.T) {
		r := httptest.NewRequest(http.MethodGet, "/api/v2/network/parameters", nil)
		writeOK(&observedWriter{ResponseWriter: httptest.NewRecorder(), r: r}, []string{"3"}, []byte("abc"))
	})
}

type nopSetter struct{}

func (nopSetter) SetWriteDeadline(time.Time) error { return nil }

// unwrapper is a writer of another package's kind that unwraps to w, as a
// fault's capture does.
type unwrapper struct{ http.ResponseWriter }

func (u unwrapper) Unwrap() http.ResponseWriter { return u.ResponseWriter }

// TestPagesBackToBack reads pages, HEADs, refusals and other listings on
// one connection as fast as the mock answers them, each framed by its
// Content-Length: an answer's bytes must neither be lost, doubled nor
// overtaken by the next answer's (a client that sends its next request the
// moment it has the last byte meets the server still finishing the answer
// before).
func TestPagesBackToBack(t *testing.T) {
	srv := serve(t, Config{}, genWorld(t))
	targets := []string{
		"/api/v2/network/parameters?pagination.first=100",
		"/api/v2/snapshots?pagination.first=50",
		"/transactions?first=50",
		"/api/v2/games?pagination.first=5",
		"/api/v2/network/parameters?pagination.first=-1",
	}
	want := map[string][]byte{}
	for _, target := range targets {
		path, query, _ := strings.Cut(target, "?")
		want[target] = srv.get(t, path, query).body
	}
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Minute))
	br := bufio.NewReader(conn)
	before := writeCalls()
	const n = 400
	for i := range n {
		target, method := targets[i%len(targets)], http.MethodGet
		if i%7 == 6 {
			method = http.MethodHead
		}
		if _, err := io.WriteString(conn, method+" "+target+" HTTP/1.1\r\nHost: mock\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(br, &http.Request{Method: method})
		if err != nil {
			t.Fatalf("answer %d (%s %s): %v", i, method, target, err)
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("answer %d (%s %s): %v", i, method, target, err)
		}
		if method == http.MethodHead {
			if len(body) != 0 || resp.ContentLength != int64(len(want[target])) {
				t.Fatalf("answer %d (HEAD %s): %d bytes, Content-Length %d", i, target, len(body), resp.ContentLength)
			}
		} else if !bytes.Equal(body, want[target]) {
			t.Fatalf("answer %d (%s): %d bytes, not those answered alone", i, target, len(body))
		}
	}
	conn.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if b, err := br.Peek(1); err == nil {
		t.Fatalf("bytes after the last answer: %q", b)
	}
	// Each request is a write of this test's and each answer one of the
	// server's (in this process): net/http alone writes a page over 4 KiB
	// in two.
	if after := writeCalls(); after >= 0 && before >= 0 && after-before > n+n+n/4 {
		t.Errorf("%d write calls for %d requests and their answers, want about %d", after-before, n, 2*n)
	}
}

// writeCalls returns the write system calls the process has made (Linux's
// /proc/self/io syscw), or -1 where unknown.
func writeCalls() int {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "syscw: "); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return -1
			}
			return n
		}
	}
	return -1
}

// TestFaultsOverListener: the faults that take over the connection or
// replay the answer behave over Listener's connections as over net/http's
// own: a reset is a TCP reset (the connection's SetLinger), a cut body is
// cut, a slow or late one whole.
func TestFaultsOverListener(t *testing.T) {
	srv := serve(t, Config{}, genWorld(t))
	const path, query = "/api/v2/network/parameters", "pagination.first=100"
	page := srv.get(t, path, query).body
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	tests := []struct {
		fault string
		check func(t *testing.T, body []byte, doErr, readErr error)
	}{
		{"reset", func(t *testing.T, _ []byte, doErr, _ error) {
			if !errors.Is(doErr, syscall.ECONNRESET) {
				t.Errorf("got %v, want the connection reset", doErr)
			}
		}},
		{"truncate=0.5", func(t *testing.T, body []byte, doErr, readErr error) {
			if doErr != nil || !errors.Is(readErr, io.ErrUnexpectedEOF) || !bytes.Equal(body, page[:len(page)/2]) {
				t.Errorf("%d bytes, %v, %v; want the first %d and the body cut", len(body), doErr, readErr, len(page)/2)
			}
		}},
		{"empty", func(t *testing.T, body []byte, doErr, readErr error) {
			if doErr != nil || readErr == nil || len(body) != 0 {
				t.Errorf("%d bytes, %v, %v; want none and the body cut", len(body), doErr, readErr)
			}
		}},
		{"slow-body=2000000", func(t *testing.T, body []byte, doErr, readErr error) {
			if doErr != nil || readErr != nil || !bytes.Equal(body, page) {
				t.Errorf("%d bytes, %v, %v; want the page", len(body), doErr, readErr)
			}
		}},
		{"latency=5ms", func(t *testing.T, body []byte, doErr, readErr error) {
			if doErr != nil || readErr != nil || !bytes.Equal(body, page) {
				t.Errorf("%d bytes, %v, %v; want the page", len(body), doErr, readErr)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.fault, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, srv.url+path+"?"+query, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set(faults.Header, tt.fault)
			res, doErr := client.Do(req)
			var body []byte
			var readErr error
			if doErr == nil {
				body, readErr = io.ReadAll(res.Body)
				res.Body.Close()
			}
			tt.check(t, body, doErr, readErr)
		})
	}
}
