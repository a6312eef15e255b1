package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
)

// answer is what the mock answered one request target: the bare handler
// sends the same status, headers and body.
type answer struct {
	Target string      `json:"target"` // the request target, path and query
	Status int         `json:"status"`
	Header http.Header `json:"header"` // without Date, which net/http adds to both
	Body   []byte      `json:"body"`
}

// capture asks base for target and keeps its answer. The client must not
// ask for compression, so that the bytes kept are those a load tool gets.
func capture(client *http.Client, base, target string) (answer, error) {
	resp, err := client.Get(base + target)
	if err != nil {
		return answer{}, fmt.Errorf("capture %s: %w", target, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, fmt.Errorf("capture %s: reading the body: %w", target, err)
	}
	if resp.StatusCode != http.StatusOK {
		return answer{}, fmt.Errorf("capture %s: status %d, want 200: %.200s", target, resp.StatusCode, body)
	}
	h := resp.Header.Clone()
	h.Del("Date")
	if got := h.Get("Content-Length"); got != strconv.Itoa(len(body)) {
		return answer{}, fmt.Errorf("capture %s: Content-Length %q for a body of %d bytes", target, got, len(body))
	}
	return answer{Target: target, Status: resp.StatusCode, Header: h, Body: body}, nil
}

// bareHandler serves each answer at its target, in one write, as a
// handler with nothing to work out would: the status, the headers and the
// body. Any other target is a 404.
func bareHandler(answers []answer) http.Handler {
	byTarget := make(map[string]*answer, len(answers))
	for i := range answers {
		byTarget[answers[i].Target] = &answers[i]
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := byTarget[r.RequestURI]
		if a == nil {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		for k, v := range a.Header {
			h[k] = v
		}
		if _, ok := a.Header["Content-Type"]; !ok {
			h["Content-Type"] = nil // as the mock sent it: none, not one sniffed
		}
		w.WriteHeader(a.Status)
		w.Write(a.Body)
	})
}

// writeAnswers saves answers for the bare server's process.
func writeAnswers(name string, answers []answer) error {
	data, err := json.Marshal(answers)
	if err != nil {
		return fmt.Errorf("encode the answers: %w", err)
	}
	if err := os.WriteFile(name, data, 0o600); err != nil {
		return fmt.Errorf("write the answers: %w", err)
	}
	return nil
}

// readAnswers reads what writeAnswers saved.
func readAnswers(name string) ([]answer, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("read the answers: %w", err)
	}
	var answers []answer
	if err := json.Unmarshal(data, &answers); err != nil {
		return nil, fmt.Errorf("read the answers %s: %w", name, err)
	}
	return answers, nil
}

// serveBare is the bare server's process: it serves the answers in file on
// a free port of 127.0.0.1, prints its URL on out, and serves until ctx is
// done. Its http.Server is net/http's zero value, as a handler written in
// a hurry would be served.
func serveBare(ctx context.Context, file string, out io.Writer) error {
	answers, err := readAnswers(file)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("bare server: %w", err)
	}
	srv := &http.Server{Handler: bareHandler(answers)}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	fmt.Fprintf(out, "bare handler on http://%s\n", ln.Addr())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("bare server: %w", err)
	}
	return nil
}
