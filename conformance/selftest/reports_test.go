package selftest

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestUnusedWaivers: waivers that excused nothing (their rule passed, or
// the label filter left it out) are listed in the console summary, the
// JUnit report and the HTML report; they do not fail the run.
func TestUnusedWaivers(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the suite")
	}
	t.Parallel()
	srv := server(t, defect{})
	file := filepath.Join(t.TempDir(), "waivers.yaml")
	waivers := "- rule: PARAM-PAG-003\n  reason: fixed long ago\n  expires: 2099-12-31\n" +
		"- rule: GAMES-PAG-003\n  reason: games are not checked here\n  expires: 2099-12-31\n"
	if err := os.WriteFile(file, []byte(waivers), 0o644); err != nil {
		t.Fatal(err)
	}
	r := conform(t, srv.URL, "--label-filter", "PARAM-PAG-003", "--waivers", file)
	if r.exitCode != 0 {
		t.Fatalf("exit %d, want 0: unused waivers do not fail a run\n%s", r.exitCode, tail(r.output))
	}
	reports := map[string]string{"console": r.output, "JUnit": string(r.junit), "HTML": string(r.html)}
	for name, text := range reports {
		for _, want := range []string{"PARAM-PAG-003", "the rule passed", "GAMES-PAG-003", "the label filter left it out"} {
			if !strings.Contains(text, want) {
				t.Errorf("the %s report does not say %q", name, want)
			}
		}
	}
	for _, want := range []string{
		"UNUSED  waiver of PARAM-PAG-003 (until 2099-12-31: fixed long ago) excused nothing: the rule passed: drop the waiver",
		"UNUSED  waiver of GAMES-PAG-003 (until 2099-12-31: games are not checked here) excused nothing: the rule did not run: the label filter left it out",
	} {
		if !strings.Contains(r.output, want) {
			t.Errorf("the console summary does not say\n%s\n%s", want, tail(r.output))
		}
	}
	if !strings.Contains(string(r.junit), `<property name="unused-waiver" value="PARAM-PAG-003 (until 2099-12-31: fixed long ago): the rule passed: drop the waiver">`) ||
		!strings.Contains(string(r.junit), "<system-out>UNUSED waiver of PARAM-PAG-003") {
		t.Errorf("the JUnit report does not list the unused waivers as properties and system-out:\n%s", clip(string(r.junit), 3000))
	}
	if !strings.Contains(string(r.html), "Waivers that excused nothing (0 expired, 2 unused)") {
		t.Errorf("the HTML report has no section of the unused waivers")
	}
}

// invalidUTF8 wraps the mock: the network parameters listing answers with
// a header and, for pages after a cursor, a body holding bytes that are not
// UTF-8.
func invalidUTF8(inner http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != parametersPath {
			inner.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		inner.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Type", "application/json; charset=\xff\xfe")
		w.Header().Del("Content-Length")
		body := rec.Body.Bytes()
		if r.URL.Query().Get("pagination.after") != "" {
			body = append([]byte("\xff\xfe not JSON \xc3"), body...)
		}
		w.WriteHeader(rec.Code)
		w.Write(body)
	})
}

// TestInvalidUTF8Escaped: bytes that are not UTF-8, in a body and in a
// header, reach every report escaped (\xff), never raw: the console, the
// JUnit, JSON and HTML reports are valid UTF-8.
func TestInvalidUTF8Escaped(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the suite")
	}
	t.Parallel()
	srv := server(t, defect{wrap: invalidUTF8})
	r := conform(t, srv.URL, "--label-filter", "network-parameters && (pagination || schema)")
	if r.exitCode != 1 {
		t.Fatalf("exit %d, want 1: the broken answers fail rules\n%s", r.exitCode, tail(r.output))
	}
	reports := map[string][]byte{"console": []byte(r.output), "JUnit": r.junit, "JSON": r.json, "HTML": r.html}
	for name, text := range reports {
		if !utf8.Valid(text) {
			i := bytes.IndexFunc(text, func(c rune) bool { return c == utf8.RuneError })
			t.Errorf("the %s report is not valid UTF-8 (near byte %d: %q)", name, i, text[max(0, i-40):min(len(text), i+40)])
		}
		// JSON writes each backslash of the escapes as two.
		esc := func(s string) []byte {
			if name == "JSON" {
				s = strings.ReplaceAll(s, `\`, `\\`)
			}
			return []byte(s)
		}
		if !bytes.Contains(text, esc(`\xff\xfe not JSON \xc3`)) {
			t.Errorf("the %s report does not show the body's bytes escaped", name)
		}
		if !bytes.Contains(text, esc(`charset=\xff\xfe`)) {
			t.Errorf("the %s report does not show the header's bytes escaped", name)
		}
	}
}
