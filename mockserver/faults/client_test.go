package faults

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Each fault seen from real clients, over real connections: Go's
// http.Client and curl.

// faultServer serves okHandler behind an injector on 127.0.0.1.
func faultServer(t *testing.T, opts Options) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(New(opts).Wrap(okHandler))
	t.Cleanup(srv.Close)
	return srv
}

// goResult is what Go's client saw of one request.
type goResult struct {
	err        error // from Do: no answer at all
	status     int
	header     http.Header
	body       []byte
	readErr    error // reading the body
	firstByte  time.Duration
	lastByte   time.Duration
	promisedCL int64
}

func goGet(t *testing.T, client *http.Client, url, fault string) goResult {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fault != "" {
		req.Header.Set(Header, fault)
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return goResult{err: err}
	}
	defer resp.Body.Close()
	r := goResult{status: resp.StatusCode, header: resp.Header, firstByte: time.Since(start), promisedCL: resp.ContentLength}
	r.body, r.readErr = io.ReadAll(resp.Body)
	r.lastByte = time.Since(start)
	return r
}

// TestFaultsSeenByGoClient sends each fault by header and checks what Go's
// http.Client makes of it.
func TestFaultsSeenByGoClient(t *testing.T) {
	t.Parallel()
	srv := faultServer(t, Options{})
	fresh := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	tests := []struct {
		fault string
		check func(t *testing.T, r goResult)
	}{
		{"none", func(t *testing.T, r goResult) {
			if r.err != nil || r.readErr != nil || !bytes.Equal(r.body, okBody) {
				t.Errorf("a request without fault failed: %v %v", r.err, r.readErr)
			}
		}},
		{"reset", func(t *testing.T, r goResult) {
			if r.err == nil {
				t.Errorf("got an answer (status %d), want a transport error", r.status)
			}
		}},
		{"empty", func(t *testing.T, r goResult) {
			if r.err != nil || r.status != 200 || r.promisedCL != int64(len(okBody)) {
				t.Fatalf("want the status and headers promising %d bytes: %v, status %d, Content-Length %d", len(okBody), r.err, r.status, r.promisedCL)
			}
			if !errors.Is(r.readErr, io.ErrUnexpectedEOF) || len(r.body) != 0 {
				t.Errorf("read %d bytes, error %v; want none and an unexpected EOF", len(r.body), r.readErr)
			}
		}},
		{"truncate=0.5", func(t *testing.T, r goResult) {
			if r.err != nil || r.promisedCL != int64(len(okBody)) {
				t.Fatalf("%v, Content-Length %d", r.err, r.promisedCL)
			}
			if !errors.Is(r.readErr, io.ErrUnexpectedEOF) || len(r.body) != len(okBody)/2 || !bytes.Equal(r.body, okBody[:len(okBody)/2]) {
				t.Errorf("read %d bytes, error %v; want the first %d and an unexpected EOF", len(r.body), r.readErr, len(okBody)/2)
			}
		}},
		{"truncate=0.9", func(t *testing.T, r goResult) {
			if want := int(0.9 * float64(len(okBody))); !errors.Is(r.readErr, io.ErrUnexpectedEOF) || len(r.body) != want {
				t.Errorf("read %d bytes, error %v; want %d and an unexpected EOF", len(r.body), r.readErr, want)
			}
		}},
		{"garbage", func(t *testing.T, r goResult) {
			if r.err != nil || r.readErr != nil || r.status != 200 || r.header.Get("Content-Type") != "application/json" {
				t.Fatalf("%v %v status %d, Content-Type %q", r.err, r.readErr, r.status, r.header.Get("Content-Type"))
			}
			var v any
			if err := json.Unmarshal(r.body, &v); err == nil || string(r.body) != GarbageBody {
				t.Errorf("body %q parses as JSON (%v), want the garbage", r.body, err)
			}
		}},
		{"status=429", func(t *testing.T, r goResult) {
			if r.status != 429 || r.header.Get("Retry-After") != "1" {
				t.Errorf("status %d, Retry-After %q; want 429 with Retry-After 1", r.status, r.header.Get("Retry-After"))
			}
		}},
		{"status=503; retry-after=2", func(t *testing.T, r goResult) {
			if r.status != 503 || r.header.Get("Retry-After") != "2" || r.readErr != nil || !json.Valid(r.body) {
				t.Errorf("status %d, Retry-After %q, body %s", r.status, r.header.Get("Retry-After"), r.body)
			}
		}},
		{"latency=150ms", func(t *testing.T, r goResult) {
			if r.err != nil || r.readErr != nil || r.firstByte < 150*time.Millisecond || !bytes.Equal(r.body, okBody) {
				t.Errorf("answered in %v (%v, %v); want the body after at least 150ms", r.firstByte, r.err, r.readErr)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.fault, func(t *testing.T) {
			t.Parallel()
			tc.check(t, goGet(t, fresh, srv.URL+"/api/v2/games", tc.fault))
		})
	}
	t.Run("reset on a kept-alive connection", func(t *testing.T) {
		t.Parallel()
		// Go's transport asks again once, on a new connection, when a
		// connection it reused breaks before any answer: the header goes
		// with the second request too, so the caller still sees the
		// error.
		client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{}}
		if r := goGet(t, client, srv.URL+"/api/v2/games", ""); r.err != nil || r.readErr != nil {
			t.Fatal(r.err, r.readErr)
		}
		if r := goGet(t, client, srv.URL+"/api/v2/games", "reset"); r.err == nil {
			t.Errorf("got status %d, want a transport error", r.status)
		}
		if r := goGet(t, client, srv.URL+"/api/v2/games", ""); r.err != nil || r.readErr != nil {
			t.Errorf("the next request failed: %v %v", r.err, r.readErr)
		}
	})
}

// TestSlowBodyRate checks a slow body's bytes arrive no faster than the rate
// asked (less 20 % for the client's measure), from the answer's headers to
// the last byte. How much slower they arrive depends on the machine's load
// (a sleep never ends early, but may end late), so the test bounds only the
// client's timeout; the rate on an idle machine is in the log.
func TestSlowBodyRate(t *testing.T) {
	t.Parallel()
	srv := faultServer(t, Options{})
	for _, rate := range []int{13_000, 40_000} { // 12,000 bytes in 650-byte pieces: the last one shorter
		t.Run(strconv.Itoa(rate), func(t *testing.T) {
			t.Parallel()
			client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
			r := goGet(t, client, srv.URL+"/x", "slow-body="+strconv.Itoa(rate))
			if r.err != nil || r.readErr != nil || !bytes.Equal(r.body, okBody) {
				t.Fatalf("%v %v: %d bytes", r.err, r.readErr, len(r.body))
			}
			// From the headers, which leave at once, to the last byte.
			took := r.lastByte - r.firstByte
			got := float64(len(r.body)) / took.Seconds()
			t.Logf("slow-body=%d: %d bytes in %v: %.0f bytes/s", rate, len(r.body), took, got)
			if got > 1.2*float64(rate) {
				t.Errorf("%.0f bytes/s, want at most %d and 20 %%", got, rate)
			}
			// The answer is over once its last byte is out: the kept-alive
			// connection serves the next request at once.
			if next := goGet(t, client, srv.URL+"/x", ""); next.err != nil || next.readErr != nil || next.lastByte > 5*time.Second {
				t.Errorf("the next request on the connection: %v %v, %v", next.err, next.readErr, next.lastByte)
			}
		})
	}
}

// curlBin returns curl's path, skipping the test where there is none (and
// failing it under CI, which installs curl).
func curlBin(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("curl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("curl is not on the PATH (Debian: apt-get install -y curl)")
		}
		t.Skip("curl is not on the PATH")
	}
	return p
}

// curlResult is what curl made of one request.
type curlResult struct {
	exit      int
	headers   string
	body      []byte
	stderr    string
	size      int     // bytes of body downloaded (%{size_download})
	speed     float64 // bytes a second from the first byte of the answer to the last
	firstByte float64 // seconds from the start to the first byte of the answer
}

func curlGet(t *testing.T, url, fault string) curlResult {
	t.Helper()
	dir := t.TempDir()
	hdrFile, bodyFile := dir+"/headers", dir+"/body"
	args := []string{"-sS", "--max-time", "20", "-D", hdrFile, "-o", bodyFile, "-w", "%{size_download} %{time_starttransfer} %{time_total}", url}
	if fault != "" {
		args = append(args, "-H", Header+": "+fault)
	}
	cmd := exec.Command(curlBin(t), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := curlResult{stderr: stderr.String()}
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		r.exit = exitErr.ExitCode()
	case err != nil:
		t.Fatalf("run curl: %v", err)
	}
	hdr, _ := os.ReadFile(hdrFile)
	r.headers = string(hdr)
	r.body, _ = os.ReadFile(bodyFile)
	if f := strings.Fields(stdout.String()); len(f) == 3 {
		r.size, _ = strconv.Atoi(f[0])
		start, _ := strconv.ParseFloat(f[1], 64)
		end, _ := strconv.ParseFloat(f[2], 64)
		r.firstByte = start
		if end > start {
			r.speed = float64(r.size) / (end - start)
		}
	}
	return r
}

// TestFaultsSeenByCurl sends each fault by header with curl and checks its
// exit code (see man curl, EXIT CODES), the headers and the body it got.
func TestFaultsSeenByCurl(t *testing.T) {
	t.Parallel()
	curlBin(t)
	srv := faultServer(t, Options{})
	half := len(okBody) / 2
	tests := []struct {
		fault string
		exit  []int // any of these
		check func(t *testing.T, r curlResult)
	}{
		{"none", []int{0}, func(t *testing.T, r curlResult) {
			if !bytes.Equal(r.body, okBody) {
				t.Errorf("body of %d bytes, want the handler's", len(r.body))
			}
		}},
		// 56: failure receiving network data (connection reset by peer).
		{"reset", []int{56}, func(t *testing.T, r curlResult) {
			if r.headers != "" {
				t.Errorf("headers came: %q", r.headers)
			}
		}},
		// 18: partial file, the transfer ended before Content-Length.
		{"empty", []int{18}, func(t *testing.T, r curlResult) {
			if !strings.HasPrefix(r.headers, "HTTP/1.1 200") || !strings.Contains(r.headers, "Content-Length: "+strconv.Itoa(len(okBody))) || r.size != 0 {
				t.Errorf("headers %q, %d bytes", r.headers, r.size)
			}
		}},
		{"truncate=0.5", []int{18}, func(t *testing.T, r curlResult) {
			if r.size != half || !bytes.Equal(r.body, okBody[:half]) {
				t.Errorf("%d bytes, want the first %d", r.size, half)
			}
		}},
		{"garbage", []int{0}, func(t *testing.T, r curlResult) {
			if json.Valid(r.body) || !strings.HasPrefix(r.headers, "HTTP/1.1 200") {
				t.Errorf("headers %q, body %q", r.headers, r.body)
			}
		}},
		{"status=429", []int{0}, func(t *testing.T, r curlResult) {
			if !strings.HasPrefix(r.headers, "HTTP/1.1 429") || !strings.Contains(r.headers, "Retry-After: 1\r\n") {
				t.Errorf("headers %q, want a 429 with Retry-After: 1", r.headers)
			}
		}},
		{"status=503; retry-after=2", []int{0}, func(t *testing.T, r curlResult) {
			if !strings.HasPrefix(r.headers, "HTTP/1.1 503") || !strings.Contains(r.headers, "Retry-After: 2\r\n") || !json.Valid(r.body) {
				t.Errorf("headers %q, body %q", r.headers, r.body)
			}
		}},
		{"slow-body=20000", []int{0}, func(t *testing.T, r curlResult) {
			t.Logf("curl measured %.0f bytes/s for slow-body=20000", r.speed)
			if !bytes.Equal(r.body, okBody) || math.Abs(r.speed-20000) > 0.2*20000 {
				t.Errorf("%d bytes at %.0f bytes/s, want all at 20000 within 20 %%", len(r.body), r.speed)
			}
		}},
		{"latency=150ms", []int{0}, func(t *testing.T, r curlResult) {
			if !bytes.Equal(r.body, okBody) || r.firstByte < 0.15 {
				t.Errorf("%d bytes, the first after %.3f s; want the body after at least 0.150 s", len(r.body), r.firstByte)
			}
		}},
		{"statu=503", []int{0}, func(t *testing.T, r curlResult) {
			if !strings.HasPrefix(r.headers, "HTTP/1.1 400") || !bytes.Contains(r.body, []byte("invalid X-Harness-Fault header")) {
				t.Errorf("headers %q, body %q", r.headers, r.body)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.fault, func(t *testing.T) {
			t.Parallel()
			r := curlGet(t, srv.URL+"/api/v2/games", tc.fault)
			if !slices.Contains(tc.exit, r.exit) {
				t.Fatalf("curl exited %d (%s), want %v", r.exit, strings.TrimSpace(r.stderr), tc.exit)
			}
			tc.check(t, r)
		})
	}
}

// BenchmarkLatencyDistribution sends 2,000 requests asking for a latency
// distribution, 100 at a time, per iteration, and reports how far the median
// and the 99th percentile of the latencies the client measured land from
// the ones asked (median-err-% and p99-err-%), failing beyond 15 %. It is a
// benchmark, not a test: what a client measures includes the time the
// requests themselves take, which a busy machine or the race detector
// stretches. TestLatencyDraws checks the same draws without the clock.
func BenchmarkLatencyDistribution(b *testing.B) {
	ms := time.Millisecond
	for _, tc := range latencyCases {
		b.Run(tc.fault, func(b *testing.B) {
			srv := httptest.NewServer(New(Options{Seed: 1}).Wrap(okHandler))
			defer srv.Close()
			client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 100}}
			const n, concurrency = 2000, 100
			var errMedian, errP99 float64
			for b.Loop() {
				took := make([]time.Duration, n)
				next := make(chan int)
				var wg sync.WaitGroup
				for range concurrency {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := range next {
							req, _ := http.NewRequest(http.MethodGet, srv.URL+"/x", nil)
							req.Header.Set(Header, tc.fault)
							start := time.Now()
							resp, err := client.Do(req)
							if err != nil {
								b.Error(err)
								continue
							}
							took[i] = time.Since(start)
							io.Copy(io.Discard, resp.Body)
							resp.Body.Close()
						}
					}()
				}
				for i := range n {
					next <- i
				}
				close(next)
				wg.Wait()
				slices.Sort(took)
				median, p99 := quantile(took, 0.5), quantile(took, 0.99)
				errMedian = 100 * float64(median-tc.median) / float64(tc.median)
				errP99 = 100 * float64(p99-tc.p99) / float64(tc.p99)
				if math.Abs(errMedian) > 15 || math.Abs(errP99) > 15 {
					b.Errorf("median %v and p99 %v over %d requests, want %v and %v within 15 %%", median.Round(ms/10), p99.Round(ms/10), n, tc.median, tc.p99)
				}
			}
			b.ReportMetric(errMedian, "median-err-%")
			b.ReportMetric(errP99, "p99-err-%")
		})
	}
}
