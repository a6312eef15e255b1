package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chaindata/harness/mockserver/journal"
	"github.com/chaindata/harness/mockserver/requestlog"
	"github.com/chaindata/harness/mockserver/store"
)

// loggedRequest is what a log line or the journal says of one request, and
// what its client saw.
type loggedRequest struct {
	Method, Path, Query string
	Status, Bytes       int
	Warnings            []string
}

func (l loggedRequest) String() string {
	return fmt.Sprintf("%s %s?%s %d %d bytes %q", l.Method, l.Path, l.Query, l.Status, l.Bytes, l.Warnings)
}

// TestEveryRequestLoggedAndJournaled sends a bounded burst of requests from
// many clients at once, of every listing, some drawing warnings and some
// refused, to a server with the request log of each format (through a
// requestlog.Writer, as harness serve has it) and the journal: once the
// server is closed and the log's Writer too, the log holds exactly one
// line per request, saying what its client got, and the journal every
// request.
func TestEveryRequestLoggedAndJournaled(t *testing.T) {
	t.Parallel()
	st, err := store.New(genWorld(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []requestlog.Format{requestlog.Text, requestlog.JSON} {
		t.Run(fmt.Sprint("format ", format), func(t *testing.T) {
			t.Parallel()
			const clients, each = 16, 20
			var out bytes.Buffer
			logw := requestlog.NewWriter(&out, time.Millisecond)
			srv := New(Config{RequestLog: requestlog.New(logw, format), Logger: slog.New(slog.NewTextHandler(logw, nil))}, st)
			hs := httptest.NewServer(srv)
			client := &http.Client{Timeout: 30 * time.Second}

			var mu sync.Mutex
			var sent []loggedRequest
			var wg sync.WaitGroup
			for c := range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range each {
						n := c*each + i + 1 // every query is another
						path, query := burstTarget(n)
						got, err := sendLogged(client, hs.URL, path, query)
						if err != nil {
							t.Error(err)
							return
						}
						mu.Lock()
						sent = append(sent, got)
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			hs.Close() // waits for every handler to return
			if err := logw.Close(); err != nil {
				t.Fatal(err)
			}
			if len(sent) != clients*each {
				t.Fatalf("%d requests answered of %d", len(sent), clients*each)
			}

			logged, err := parseLog(format, out.String())
			if err != nil {
				t.Fatal(err)
			}
			sameRequests(t, "the log", logged, sent)

			var journaled []loggedRequest
			for _, r := range srv.Requests(journal.RequestFilter{}) {
				journaled = append(journaled, loggedRequest{Method: r.Method, Path: r.Path, Query: r.Query, Status: r.Status, Warnings: r.Warnings})
			}
			for i := range sent {
				sent[i].Bytes = 0 // the journal keeps no size
			}
			sameRequests(t, "the journal", journaled, sent)
		})
	}
}

// burstTarget is the n-th request of a burst: of each listing in turn,
// every one with its own query; some draw a warning, some are refused.
func burstTarget(n int) (path, query string) {
	switch n % 5 {
	case 0:
		return "/api/v2/network/parameters", "pagination.first=" + strconv.Itoa(n)
	case 1:
		return "/api/v2/snapshots", "pagination.first=" + strconv.Itoa(n) + "&first=1" // a warning
	case 2:
		return "/transactions", "first=" + strconv.Itoa(n) + "&cmdTypes=Batch+Proposal"
	case 3:
		return "/api/v2/games", "pagination.first=0&n=" + strconv.Itoa(n) // refused, with a warning
	}
	return "/api/v2/core/keys/ethereum/rotations", "pagination.last=" + strconv.Itoa(n)
}

// sendLogged sends one GET and returns what its client got.
func sendLogged(client *http.Client, base, path, query string) (loggedRequest, error) {
	resp, err := client.Get(base + path + "?" + query)
	if err != nil {
		return loggedRequest{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return loggedRequest{}, err
	}
	return loggedRequest{Method: http.MethodGet, Path: path, Query: query, Status: resp.StatusCode, Bytes: len(body),
		Warnings: resp.Header.Values(WarningHeader)}, nil
}

// sameRequests fails t unless got holds each of want once, in any order.
func sameRequests(t *testing.T, what string, got, want []loggedRequest) {
	t.Helper()
	key := func(l loggedRequest) string { return l.String() }
	count := map[string]int{}
	for _, w := range want {
		count[key(w)]++
	}
	for _, g := range got {
		count[key(g)]--
	}
	var missing, extra []string
	for k, n := range count {
		switch {
		case n > 0:
			missing = append(missing, k)
		case n < 0:
			extra = append(extra, k)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	if len(got) != len(want) || len(missing) > 0 || len(extra) > 0 {
		t.Errorf("%s holds %d requests for %d sent; missing %d, such as %q; not sent %d, such as %q",
			what, len(got), len(want), len(missing), missing[:min(3, len(missing))], len(extra), extra[:min(3, len(extra))])
	}
}

// parseLog reads the request lines of a log in format, each whole; any
// other line is an error.
func parseLog(format requestlog.Format, log string) ([]loggedRequest, error) {
	var out []loggedRequest
	for line := range strings.Lines(log) {
		var attrs [][2]string
		var err error
		if format == requestlog.JSON {
			attrs, err = jsonAttrs(line)
		} else {
			attrs, err = textAttrs(line)
		}
		if err != nil {
			return nil, fmt.Errorf("line %q: %w", line, err)
		}
		var l loggedRequest
		seen := map[string]bool{}
		for _, a := range attrs {
			seen[a[0]] = true
			switch a[0] {
			case "method":
				l.Method = a[1]
			case "path":
				l.Path = a[1]
			case "query":
				l.Query = a[1]
			case "status":
				l.Status, err = strconv.Atoi(a[1])
			case "bytes":
				l.Bytes, err = strconv.Atoi(a[1])
			case "warning":
				l.Warnings = append(l.Warnings, a[1])
			}
			if err != nil {
				return nil, fmt.Errorf("line %q: %s: %w", line, a[0], err)
			}
		}
		for _, k := range []string{"time", "level", "msg", "method", "path", "query", "status", "bytes", "duration", "remote"} {
			if !seen[k] {
				return nil, fmt.Errorf("line %q: no %s", line, k)
			}
		}
		out = append(out, l)
	}
	return out, nil
}

// textAttrs splits a line of the text format into its key=value pairs,
// unquoting quoted values.
func textAttrs(line string) ([][2]string, error) {
	line, ok := strings.CutSuffix(line, "\n")
	if !ok {
		return nil, fmt.Errorf("no newline")
	}
	var attrs [][2]string
	for line != "" {
		key, rest, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("no = after %q", line)
		}
		var value string
		if strings.HasPrefix(rest, `"`) {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return nil, err
			}
			value, _ = strconv.Unquote(q)
			rest = rest[len(q):]
		} else {
			value, rest, _ = strings.Cut(rest, " ")
			rest = " " + rest
		}
		attrs = append(attrs, [2]string{key, value})
		line = strings.TrimPrefix(rest, " ")
	}
	return attrs, nil
}

// jsonAttrs reads a line of the JSON format, an object, into its pairs in
// order (the warnings repeat their key), numbers as written.
func jsonAttrs(line string) ([][2]string, error) {
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not an object: %v", err)
	}
	var attrs [][2]string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, err
		}
		v, err := dec.Token()
		if err != nil {
			return nil, err
		}
		attrs = append(attrs, [2]string{k.(string), fmt.Sprint(v)})
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, fmt.Errorf("the object does not end: %v", err)
	}
	return attrs, nil
}
