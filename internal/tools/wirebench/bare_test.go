package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// mockLike answers as the mock does: CORS, block headers, findings, the
// content type and length, one write.
func mockLike(w http.ResponseWriter, r *http.Request) {
	body := `{"networkParameters":{"edges":[],"q":"` + r.URL.RawQuery + `"}}` + "\n"
	h := w.Header()
	h["Access-Control-Allow-Origin"] = []string{"*"}
	h["X-Block-Height"] = []string{"250000"}
	h["X-Harness-Warning"] = []string{"first finding", "second finding"}
	h["Content-Type"] = []string{"application/json"}
	h["Content-Length"] = []string{fmt.Sprint(len(body))}
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, body)
}

// rawGet sends a GET of target over a connection of its own and returns
// the answer's bytes as they came, without its Date line.
func rawGet(t *testing.T, base, target string) string {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", target)
	all, err := io.ReadAll(bufio.NewReader(conn))
	if err != nil {
		t.Fatal(err)
	}
	return regexp.MustCompile(`(?m)^Date: .*\r\n`).ReplaceAllString(string(all), "")
}

// TestBareHandlerSendsTheMocksBytes checks the bare handler answers a
// captured target with the very bytes the mock sent, its Date aside, and
// any other target with a 404.
func TestBareHandlerSendsTheMocksBytes(t *testing.T) {
	mock := httptest.NewServer(http.HandlerFunc(mockLike))
	defer mock.Close()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	var answers []answer
	for _, target := range []string{"/api/v2/network/parameters?pagination.first=100", "/transactions?first=50&cmdTypes=Batch+Proposal"} {
		a, err := capture(client, mock.URL, target)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := a.Header["Date"]; ok {
			t.Errorf("%s: the answer kept its Date", target)
		}
		answers = append(answers, a)
	}
	bare := httptest.NewServer(bareHandler(answers))
	defer bare.Close()
	for _, a := range answers {
		if got, want := rawGet(t, bare.URL, a.Target), rawGet(t, mock.URL, a.Target); got != want {
			t.Errorf("%s: the bare handler sent\n%q\nthe mock\n%q", a.Target, got, want)
		}
		if err := sameAnswer(client, bare.URL, a); err != nil {
			t.Error(err)
		}
	}
	resp, err := client.Get(bare.URL + "/api/v2/network/parameters?pagination.first=99")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("another target: status %d, want 404", resp.StatusCode)
	}
	other := answers[0]
	other.Body = []byte("other")
	if err := sameAnswer(client, bare.URL, other); err == nil {
		t.Error("sameAnswer took another body")
	}
}

// TestCaptureRefuses checks what cannot be measured is refused: an answer
// other than 200, one without its length, a server that does not answer.
func TestCaptureRefuses(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{
		{"a 404", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "no such page", http.StatusNotFound) }, "status 404"},
		{"no Content-Length", func(w http.ResponseWriter, _ *http.Request) {
			io.WriteString(w, "part")
			w.(http.Flusher).Flush()
			io.WriteString(w, "rest")
		}, "Content-Length"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			if _, err := capture(http.DefaultClient, srv.URL, "/p"); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one about %q", err, tc.want)
			}
		})
	}
	srv := httptest.NewServer(http.HandlerFunc(mockLike))
	srv.Close()
	if _, err := capture(http.DefaultClient, srv.URL, "/p"); err == nil {
		t.Error("a closed server was captured")
	}
}

// TestAnswersFile checks the answers saved are read back the same, and a
// missing or damaged file is an error.
func TestAnswersFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "answers.json")
	want := []answer{{Target: "/a?b=c", Status: 200, Header: http.Header{"Content-Length": {"3"}}, Body: []byte("x\x00y")}}
	if err := writeAnswers(file, want); err != nil {
		t.Fatal(err)
	}
	got, err := readAnswers(file)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("read %v, want %v", got, want)
	}
	if _, err := readAnswers(filepath.Join(dir, "none.json")); err == nil {
		t.Error("a missing file was read")
	}
	os.WriteFile(file, []byte("{"), 0o600)
	if _, err := readAnswers(file); err == nil {
		t.Error("a damaged file was read")
	}
	if err := writeAnswers(filepath.Join(dir, "no", "such", "dir"), want); err == nil {
		t.Error("written where no directory is")
	}
}
