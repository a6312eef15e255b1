package mockserver

import (
	"net/http"
	"strings"
	"testing"
)

// guardCase is one request to a guarded control API and what it must get.
type guardCase struct {
	name, method, path, query, body string
	// hdr are the request's headers; HOST in a value is the server's
	// host:port, and a Host header sets the request's Host.
	hdr    http.Header
	status int
	// text is what the error body says (for a refusal).
	text string
}

// TestControlRefusesOtherOrigins sends the control API writes a page of
// another origin can make a browser send without a preflight, and writes a
// page can send only after one: all are refused with a 403 and the error
// body, and change nothing. Writes without an Origin (curl, Go) or from the
// server's own origin, with no body or a JSON or YAML one or the control
// header, are served; reads are served to anyone, without CORS headers.
func TestControlRefusesOtherOrigins(t *testing.T) {
	t.Parallel()
	// mock.test stands for a name the mock is reached by on purpose.
	s, _ := liveServer(t, Config{Control: true, AllowHosts: []string{"mock.test"}}, genWorld(t), 0)
	control(t, s, http.MethodPost, "/harness/advance", "blocks=3", "") // a state a reset would undo
	const rules = `{"rules": [{"listing": "games", "fault": "status=503"}]}`
	const evil = "http://evil.example"
	refused := []guardCase{
		// The request: curl -X POST -H 'Content-Type: text/plain'
		// -H 'Origin: http://evil.example' http://127.0.0.1:PORT/harness/reset
		{name: "reset, text/plain, from evil.example", method: "POST", path: "/harness/reset",
			hdr: http.Header{"Content-Type": {"text/plain"}, "Origin": {evil}}, text: `Origin "http://evil.example" is not this server's own`},
		{name: "reset, no body, from evil.example", method: "POST", path: "/harness/reset",
			hdr: http.Header{"Origin": {evil}}, text: `Origin "http://evil.example"`},
		{name: "reset, JSON, from evil.example", method: "POST", path: "/harness/reset", body: "{}",
			hdr: http.Header{"Content-Type": {"application/json"}, "Origin": {evil}}, text: "is not this server's own"},
		{name: "reset, control header, from evil.example", method: "POST", path: "/harness/reset",
			hdr: http.Header{"X-Harness-Control": {"1"}, "Origin": {evil}}, text: "is not this server's own"},
		{name: "advance, a form, from evil.example", method: "POST", path: "/harness/advance", query: "blocks=5",
			hdr: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Origin": {evil}}, text: "is not this server's own"},
		{name: "faults, text/plain, from evil.example", method: "POST", path: "/harness/faults", body: rules,
			hdr: http.Header{"Content-Type": {"text/plain;charset=UTF-8"}, "Origin": {evil}}, text: "is not this server's own"},
		{name: "reset from a null origin", method: "POST", path: "/harness/reset",
			hdr: http.Header{"Origin": {"null"}}, text: `Origin "null"`},
		{name: "reset from an empty origin", method: "POST", path: "/harness/reset",
			hdr: http.Header{"Origin": {""}}, text: `Origin ""`},
		{name: "reset from the same host on another port", method: "POST", path: "/harness/reset",
			hdr: http.Header{"Origin": {"http://127.0.0.1:1"}}, text: "is not this server's own"},
		{name: "reset from a host that ends like the server's", method: "POST", path: "/harness/reset",
			hdr: http.Header{"Origin": {"http://evil.HOST"}}, text: "is not this server's own"},
		{name: "reset from the server's origin with a path", method: "POST", path: "/harness/reset",
			hdr: http.Header{"Origin": {"http://HOST/x"}}, text: "is not this server's own"},
		{name: "reset from a file origin", method: "POST", path: "/harness/reset",
			hdr: http.Header{"Origin": {"file://HOST"}}, text: "is not this server's own"},
		{name: "reset from https on the port of http", method: "POST", path: "/harness/reset",
			hdr: http.Header{"Origin": {"https://mock.test"}, "Host": {"mock.test:80"}}, text: "is not this server's own"},
		{name: "reset with two origins", method: "POST", path: "/harness/reset",
			hdr: http.Header{"Origin": {"http://HOST", evil}}, text: "is not this server's own"},
		{name: "reset from evil.example on the mock's own name", method: "POST", path: "/harness/reset",
			hdr: http.Header{"Origin": {evil}, "Host": {"mock.test:8080"}}, text: `("mock.test:8080")`},
		{name: "reset, text/plain, no origin", method: "POST", path: "/harness/reset",
			hdr: http.Header{"Content-Type": {"text/plain"}}, text: `Content-Type "text/plain": send the body as`},
		{name: "reset, an empty form, from the server's origin", method: "POST", path: "/harness/reset",
			hdr: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Origin": {"http://HOST"}}, text: "application/x-www-form-urlencoded"},
		{name: "faults, a form", method: "POST", path: "/harness/faults", body: "rules=x",
			hdr: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, text: "send the body as application/json or application/yaml"},
		{name: "faults, multipart", method: "POST", path: "/harness/faults", body: "--x\r\n\r\n" + rules + "\r\n--x--\r\n",
			hdr: http.Header{"Content-Type": {"multipart/form-data; boundary=x"}}, text: "multipart/form-data"},
		{name: "faults, text/plain", method: "POST", path: "/harness/faults", body: rules,
			hdr: http.Header{"Content-Type": {"text/plain"}}, text: "or add the header X-Harness-Control: 1"},
		{name: "faults, no Content-Type", method: "POST", path: "/harness/faults", body: rules,
			hdr: http.Header{}, text: "a body without a Content-Type"},
		{name: "faults, JSON and text/plain in one header", method: "POST", path: "/harness/faults", body: rules,
			hdr: http.Header{"Content-Type": {"application/json, text/plain"}}, text: "Content-Type"},
		{name: "faults, two Content-Types", method: "POST", path: "/harness/faults", body: rules,
			hdr: http.Header{"Content-Type": {"application/json", "text/plain"}}, text: "Content-Type"},
		{name: "faults, a type named like JSON", method: "POST", path: "/harness/faults", body: rules,
			hdr: http.Header{"Content-Type": {"application/jsonp"}}, text: `"application/jsonp"`},
		{name: "faults, text/plain, the control header not 1", method: "POST", path: "/harness/faults", body: rules,
			hdr: http.Header{"Content-Type": {"text/plain"}, "X-Harness-Control": {"yes"}}, text: "text/plain"},
		{name: "a preflight of a JSON reset from evil.example", method: "OPTIONS", path: "/harness/reset",
			hdr: http.Header{"Origin": {evil}, "Access-Control-Request-Method": {"POST"}, "Access-Control-Request-Headers": {"content-type"}}, text: "is not this server's own"},
		{name: "a preflight of the control header from evil.example", method: "OPTIONS", path: "/harness/advance",
			hdr: http.Header{"Origin": {evil}, "Access-Control-Request-Method": {"POST"}, "Access-Control-Request-Headers": {"x-harness-control"}}, text: "is not this server's own"},
		{name: "a preflight of a status read from evil.example", method: "OPTIONS", path: "/harness/status",
			hdr: http.Header{"Origin": {evil}, "Access-Control-Request-Method": {"GET"}}, text: "is not this server's own"},
	}
	for i := range refused {
		refused[i].status = http.StatusForbidden
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) { wantGuardRefusal(t, s, tc, codePermissionDenied) })
	}

	served := []guardCase{
		{name: "reset, no body, no origin (curl -X POST)", method: "POST", path: "/harness/reset"},
		{name: "advance from the server's origin", method: "POST", path: "/harness/advance", query: "blocks=1",
			hdr: http.Header{"Origin": {"http://HOST"}}},
		{name: "advance from the server's origin, https through a proxy", method: "POST", path: "/harness/advance", query: "blocks=1",
			hdr: http.Header{"Origin": {"https://HOST"}}},
		{name: "advance from the server's origin, default port", method: "POST", path: "/harness/advance", query: "blocks=1",
			hdr: http.Header{"Origin": {"http://LocalHost"}, "Host": {"localhost:80"}}},
		{name: "advance from the server's origin, default port in the origin", method: "POST", path: "/harness/advance", query: "blocks=1",
			hdr: http.Header{"Origin": {"http://localhost:80"}, "Host": {"localhost"}}},
		{name: "advance from the server's origin, https's default port", method: "POST", path: "/harness/advance", query: "blocks=1",
			hdr: http.Header{"Origin": {"https://mock.test"}, "Host": {"mock.test:443"}}},
		{name: "advance from the server's origin, IPv6", method: "POST", path: "/harness/advance", query: "blocks=1",
			hdr: http.Header{"Origin": {"http://[::1]:8080"}, "Host": {"[::1]:8080"}}},
		{name: "faults, JSON", method: "POST", path: "/harness/faults", body: rules,
			hdr: http.Header{"Content-Type": {"application/json; charset=utf-8"}}},
		{name: "faults, YAML", method: "POST", path: "/harness/faults", body: "rules: []\n",
			hdr: http.Header{"Content-Type": {"application/yaml"}}},
		{name: "faults, x-yaml", method: "POST", path: "/harness/faults", body: "rules: []\n",
			hdr: http.Header{"Content-Type": {"Application/X-YAML"}}},
		{name: "faults, text/yaml from the server's origin", method: "POST", path: "/harness/faults", body: "rules: []\n",
			hdr: http.Header{"Content-Type": {"text/yaml"}, "Origin": {"http://HOST"}}},
		{name: "faults, text/plain with the control header", method: "POST", path: "/harness/faults", body: rules,
			hdr: http.Header{"Content-Type": {"text/plain"}, "X-Harness-Control": {"1"}}},
		{name: "faults, no Content-Type with the control header", method: "POST", path: "/harness/faults", body: rules,
			hdr: http.Header{"X-Harness-Control": {"1"}}},
		{name: "status read from evil.example", method: "GET", path: "/harness/status", hdr: http.Header{"Origin": {evil}}},
		{name: "status HEAD from evil.example", method: "HEAD", path: "/harness/status", hdr: http.Header{"Origin": {evil}}},
	}
	for _, tc := range served {
		t.Run(tc.name, func(t *testing.T) {
			r := guardRequest(t, s, tc)
			if r.status != http.StatusOK {
				t.Fatalf("%s: status %d, want 200: %s", r, r.status, r.body)
			}
			wantNoCORS(t, r)
		})
	}
}

// TestControlToken checks that with a control token every control request,
// reads too, needs Authorization: Bearer and the token (else a 401 with the
// error body, changing nothing), that the token does not lift the
// cross-origin rule, and that the API itself needs no token.
func TestControlToken(t *testing.T) {
	t.Parallel()
	const token = "s3cret-Token_1"
	s, _ := liveServer(t, Config{Control: true, ControlToken: token}, genWorld(t), 0)
	good := http.Header{"Authorization": {"Bearer " + token}}
	mustControl := func(method, path, query string) {
		t.Helper()
		if r := guardRequest(t, s, guardCase{method: method, path: path, query: query, hdr: good}); r.status != http.StatusOK {
			t.Fatalf("%s: status %d: %s", r, r.status, r.body)
		}
	}
	mustControl(http.MethodPost, "/harness/advance", "blocks=2") // a state a reset would undo

	unauthorized := []guardCase{
		{name: "status without a token", method: "GET", path: "/harness/status"},
		{name: "reset without a token", method: "POST", path: "/harness/reset"},
		{name: "an unknown path without a token", method: "GET", path: "/harness/nothing"},
		{name: "a wrong token", method: "POST", path: "/harness/reset", hdr: http.Header{"Authorization": {"Bearer wrong"}}},
		{name: "the token and more", method: "POST", path: "/harness/reset", hdr: http.Header{"Authorization": {"Bearer " + token + "x"}}},
		{name: "a prefix of the token", method: "POST", path: "/harness/reset", hdr: http.Header{"Authorization": {"Bearer " + token[:len(token)-1]}}},
		{name: "the token alone", method: "POST", path: "/harness/reset", hdr: http.Header{"Authorization": {token}}},
		{name: "another scheme", method: "POST", path: "/harness/reset", hdr: http.Header{"Authorization": {"Basic " + token}}},
		{name: "an empty bearer", method: "POST", path: "/harness/reset", hdr: http.Header{"Authorization": {"Bearer "}}},
		{name: "two Authorization headers", method: "POST", path: "/harness/reset", hdr: http.Header{"Authorization": {"Bearer " + token, "Bearer " + token}}},
		{name: "the token in the query", method: "POST", path: "/harness/reset", query: "token=" + token},
		{name: "a cross-origin reset without the token", method: "POST", path: "/harness/reset",
			hdr: http.Header{"Content-Type": {"text/plain"}, "Origin": {"http://evil.example"}}},
	}
	for _, tc := range unauthorized {
		tc.status, tc.text = http.StatusUnauthorized, "Authorization: Bearer <token>"
		t.Run(tc.name, func(t *testing.T) {
			r := wantGuardRefusal(t, s, tc, codeUnauthenticated)
			if got := r.header.Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer ") {
				t.Errorf("%s: WWW-Authenticate %q, want the Bearer scheme", r, got)
			}
			if strings.Contains(string(r.body), token) {
				t.Errorf("%s: the refusal shows the token: %s", r, r.body)
			}
		})
	}
	t.Run("a cross-origin reset with the token", func(t *testing.T) {
		wantGuardRefusal(t, s, guardCase{method: "POST", path: "/harness/reset", status: http.StatusForbidden, text: "is not this server's own",
			hdr: http.Header{"Authorization": {"Bearer " + token}, "Content-Type": {"text/plain"}, "Origin": {"http://evil.example"}}}, codePermissionDenied)
	})
	for _, auth := range []string{"Bearer " + token, "bearer " + token, "BEARER  " + token} {
		t.Run("served with "+auth[:7], func(t *testing.T) {
			hdr := http.Header{"Authorization": {auth}}
			for _, c := range []struct{ method, path, query string }{{"GET", "/harness/status", ""}, {"POST", "/harness/advance", "blocks=1"}, {"POST", "/harness/reset", ""}} {
				if r := guardRequest(t, s, guardCase{method: c.method, path: c.path, query: c.query, hdr: hdr}); r.status != http.StatusOK {
					t.Errorf("%s: status %d, want 200: %s", r, r.status, r.body)
				}
			}
		})
	}
	if r := s.get(t, "/api/v2/games", "pagination.first=1"); r.status != http.StatusOK {
		t.Errorf("the API with a control token: status %d, want 200 without a token", r.status)
	}
}

// TestAPIKeepsCORSBesideControl checks the API's answers and preflights keep
// their CORS headers for any origin while the control API's have none.
func TestAPIKeepsCORSBesideControl(t *testing.T) {
	t.Parallel()
	s := serve(t, Config{Control: true}, genWorld(t))
	preflight := http.Header{"Origin": {"http://evil.example"}, "Access-Control-Request-Method": {"GET"}}
	r := s.do(t, http.MethodOptions, "/api/v2/games", "", preflight)
	if r.status != http.StatusNoContent || r.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("%s: status %d, Access-Control-Allow-Origin %q; want the API's preflight granted", r, r.status, r.header.Get("Access-Control-Allow-Origin"))
	}
	s.do(t, http.MethodGet, "/api/v2/games", "pagination.first=1", http.Header{"Origin": {"http://evil.example"}}) // do checks the CORS header
	off := serve(t, Config{}, genWorld(t))
	if r := off.do(t, http.MethodOptions, "/harness/reset", "", preflight); r.status != http.StatusNoContent {
		t.Errorf("without Control, a preflight of /harness/reset (an API path): status %d, want 204", r.status)
	}
}

// guardRequest sends tc with HOST in its header values replaced by the
// server's host:port.
func guardRequest(t *testing.T, s *testServer, tc guardCase) *response {
	t.Helper()
	host := strings.TrimPrefix(s.url, "http://")
	hdr := http.Header{}
	for k, vs := range tc.hdr {
		for _, v := range vs {
			hdr[k] = append(hdr[k], strings.ReplaceAll(v, "HOST", host))
		}
	}
	return controlHeader(t, s, tc.method, tc.path, tc.query, tc.body, hdr)
}

// wantGuardRefusal sends tc and checks its refusal: the status, the error
// body with the gRPC code and tc.text, no CORS header, and the mock's state
// unchanged. It returns the answer.
func wantGuardRefusal(t *testing.T, s *testServer, tc guardCase, code int32) *response {
	t.Helper()
	before := guardedStatus(t, s)
	r := guardRequest(t, s, tc)
	if r.status != tc.status {
		t.Fatalf("%s: status %d, want %d: %s", r, r.status, tc.status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s: Content-Type %q", r, ct)
	}
	if err := validateCached("Error", r.body); err != nil {
		t.Fatalf("%s: not the error body: %v: %s", r, err, r.body)
	}
	e := r.apiError(t)
	if e.Code != code || len(e.Details) != 1 || e.Details[0].Type != errorDetailType {
		t.Errorf("%s: %s, want code %d and one detail", r, r.body, code)
	}
	if said := string(r.body); len(e.Details) == 1 && !strings.Contains(e.Details[0].Message+" "+e.Details[0].Inner, tc.text) {
		t.Errorf("%s: %s does not say %q", r, said, tc.text)
	}
	checkErrorMapping(t, r)
	wantNoCORS(t, r)
	if after := guardedStatus(t, s); after != before {
		t.Errorf("%s: a refused request changed the state:\n%s\nwas\n%s", r, after, before)
	}
	return r
}

// guardedStatus reads the status with the token the tests use, if any.
func guardedStatus(t *testing.T, s *testServer) string {
	t.Helper()
	r := controlHeader(t, s, http.MethodGet, "/harness/status", "", "", http.Header{"Authorization": {"Bearer s3cret-Token_1"}})
	if r.status != http.StatusOK {
		t.Fatalf("%s: status %d: %s", r, r.status, r.body)
	}
	return string(r.body)
}

// wantNoCORS checks a control API answer grants no other origin anything.
func wantNoCORS(t *testing.T, r *response) {
	t.Helper()
	for k := range r.header {
		if strings.HasPrefix(k, "Access-Control-") {
			t.Errorf("%s: answered with %s: %q; the control API grants no origin anything", r, k, r.header.Get(k))
		}
	}
}
