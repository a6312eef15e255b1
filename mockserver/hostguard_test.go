package mockserver

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestControlChecksHost forges the Host header a page gets by DNS
// rebinding (its own site's name pointed at 127.0.0.1) on control reads and
// writes: each is refused with a 403 and the error body naming the host and
// how to allow it, and changes nothing, with or without a token. Loopback
// names and addresses, and the names allowed, are served; the API's listings
// take any host.
func TestControlChecksHost(t *testing.T) {
	t.Parallel()
	s, _ := liveServer(t, Config{Control: true, AllowHosts: []string{"mock.example", "Other.Example.", "192.0.2.7"}}, genWorld(t), 0)
	control(t, s, http.MethodPost, "/harness/advance", "blocks=2", "") // a state a reset would undo
	port := s.url[strings.LastIndex(s.url, ":")+1:]
	refused := []struct{ name, method, path, host, origin, allow string }{
		{"status read by a rebound page", "GET", "/harness/status", "evil.example:" + port, "", "--allow-host evil.example (mockserver"},
		{"reset by a rebound page, its own origin", "POST", "/harness/reset", "evil.example:" + port, "http://evil.example:" + port, "--allow-host evil.example"},
		{"advance by a rebound page", "POST", "/harness/advance?blocks=1", "evil.example", "", `Host "evil.example" is neither a loopback name`},
		{"the journal", "GET", "/harness/requests", "evil.example", "", "--allow-host evil.example"},
		{"clearing the journal", "DELETE", "/harness/requests", "evil.example", "", "--allow-host evil.example"},
		{"the walks", "GET", "/harness/walks", "evil.example", "", "DNS rebinding"},
		{"an unknown control path", "GET", "/harness/nothing", "evil.example", "", "--allow-host evil.example"},
		{"a name that begins with localhost", "GET", "/harness/status", "localhost.evil.example", "", "--allow-host localhost.evil.example"},
		{"a name that ends like localhost", "GET", "/harness/status", "evillocalhost", "", "--allow-host evillocalhost"},
		{"a name that begins with a loopback address", "GET", "/harness/status", "127.0.0.1.evil.example", "", "127.0.0.1.evil.example"},
		{"a subdomain of an allowed name", "GET", "/harness/status", "sub.mock.example", "", "--allow-host sub.mock.example"},
		{"an allowed name as a suffix", "GET", "/harness/status", "evilmock.example", "", "--allow-host evilmock.example"},
		{"the unspecified address", "GET", "/harness/status", "0.0.0.0:" + port, "", "--allow-host 0.0.0.0"},
		{"another address", "GET", "/harness/status", "[::2]:" + port, "", "--allow-host ::2"},
		{"a name with odd characters", "GET", "/harness/status", "evil_example", "", `--allow-host "evil_example"`},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			path, query, _ := strings.Cut(tc.path, "?")
			hdr := http.Header{"Host": {tc.host}}
			if tc.origin != "" {
				hdr.Set("Origin", tc.origin)
			}
			wantGuardRefusal(t, s, guardCase{method: tc.method, path: path, query: query, hdr: hdr,
				status: http.StatusForbidden, text: tc.allow}, codePermissionDenied)
		})
	}
	served := []string{
		"localhost", "localhost:" + port, "LocalHost:" + port, "localhost.", "app.localhost:" + port, "a.b.localhost",
		"127.0.0.1:" + port, "127.0.0.1", "127.9.8.7:" + port, "[::1]:" + port, "[::1]", "[::ffff:127.0.0.1]:" + port,
		"mock.example:" + port, "MOCK.example", "other.example", "other.example.:80", "192.0.2.7:" + port,
	}
	for _, host := range served {
		t.Run("served at "+host, func(t *testing.T) {
			if r := guardRequest(t, s, guardCase{method: "GET", path: "/harness/status", hdr: http.Header{"Host": {host}}}); r.status != http.StatusOK {
				t.Errorf("%s: status %d, want 200: %s", r, r.status, r.body)
			}
		})
	}
	t.Run("the API takes any host", func(t *testing.T) {
		if r := s.do(t, http.MethodGet, "/api/v2/games", "pagination.first=1", http.Header{"Host": {"evil.example"}}); r.status != http.StatusOK {
			t.Errorf("%s: status %d, want 200: the API's listings are not guarded", r, r.status)
		}
	})
}

// TestControlChecksHostWithToken checks a token does not lift the host
// check, and that "*" does.
func TestControlChecksHostWithToken(t *testing.T) {
	t.Parallel()
	const token = "s3cret-Token_1"
	s, _ := liveServer(t, Config{Control: true, ControlToken: token}, genWorld(t), 0)
	wantGuardRefusal(t, s, guardCase{method: "POST", path: "/harness/reset", status: http.StatusForbidden, text: "--allow-host evil.example",
		hdr: http.Header{"Host": {"evil.example"}, "Authorization": {"Bearer " + token}}}, codePermissionDenied)

	anyHost, _ := liveServer(t, Config{Control: true, AllowHosts: []string{"*"}}, genWorld(t), 0)
	for _, host := range []string{"evil.example", "0.0.0.0:1"} {
		if r := guardRequest(t, anyHost, guardCase{method: "POST", path: "/harness/advance", query: "blocks=1", hdr: http.Header{"Host": {host}}}); r.status != http.StatusOK {
			t.Errorf("with --allow-host '*': %s: status %d, want 200: %s", r, r.status, r.body)
		}
	}
}

// TestControlRefusesNoHost sends an HTTP/1.0 request without a Host header,
// which net/http serves with an empty Host: the control API refuses it, the
// API serves it.
func TestControlRefusesNoHost(t *testing.T) {
	t.Parallel()
	s := serve(t, Config{Control: true}, genWorld(t))
	for _, c := range []struct {
		path   string
		status int
	}{{"/harness/status", http.StatusForbidden}, {"/api/v2/network/parameters", http.StatusOK}} {
		conn, err := net.DialTimeout("tcp", strings.TrimPrefix(s.url, "http://"), 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(30 * time.Second))
		if _, err := io.WriteString(conn, "GET "+c.path+" HTTP/1.0\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		conn.Close()
		if res.StatusCode != c.status {
			t.Errorf("GET %s without a Host: status %d, want %d: %s", c.path, res.StatusCode, c.status, body)
		}
		if c.status == http.StatusForbidden && !strings.Contains(string(body), `Host \"\" is neither`) {
			t.Errorf("GET %s without a Host: %s does not name the empty host", c.path, body)
		}
	}
}

// TestHostGuardArrivalAddress checks the address a request arrived at is
// allowed as its Host, whatever it is, and no other address.
func TestHostGuardArrivalAddress(t *testing.T) {
	t.Parallel()
	g := newHostGuard(nil)
	for _, c := range []struct {
		local, host string
		ok          bool
	}{
		{"192.0.2.10:8080", "192.0.2.10:8080", true},
		{"192.0.2.10:8080", "192.0.2.10", true},
		{"[2001:db8::1]:8080", "[2001:db8::1]:8080", true},
		{"[::ffff:192.0.2.10]:8080", "192.0.2.10:8080", true},
		{"192.0.2.10:8080", "192.0.2.11:8080", false},
		{"192.0.2.10:8080", "mock.example", false},
		{"", "192.0.2.10", false}, // no address known
	} {
		r := httptest.NewRequest(http.MethodGet, "/harness/status", nil)
		r.Host = c.host
		if c.local != "" {
			addr, err := net.ResolveTCPAddr("tcp", c.local)
			if err != nil {
				t.Fatal(err)
			}
			r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, addr))
		}
		if got := g.check(r) == nil; got != c.ok {
			t.Errorf("Host %q arriving at %q: allowed %v, want %v", c.host, c.local, got, c.ok)
		}
	}
}

// TestCheckAllowHost checks the names --allow-host takes.
func TestCheckAllowHost(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, err string
	}{
		{"mock.example", ""}, {"*", ""}, {"192.0.2.7", ""}, {"::1", ""}, {"[::1]", ""}, {"MOCK.example.", ""},
		{"", "empty"}, {"mock.example:8080", "without a port"}, {"[::1]:80", "without a port"},
		{"http://mock.example", "without a scheme"}, {"mock example", "space"}, {"mock.example/x", "path"},
	} {
		err := CheckAllowHost(c.name)
		if (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("CheckAllowHost(%q) = %v, want an error saying %q", c.name, err, c.err)
		}
	}
}

// TestShellWord checks a refused host is written as a shell takes it:
// plain when made of letters, digits, dots, dashes and colons, else quoted.
func TestShellWord(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, want string }{
		{"az.AZ-09:", "az.AZ-09:"}, {"mock.example", "mock.example"}, {"::1", "::1"},
		{"", `""`}, {"a`", "\"a`\""}, {"a{", `"a{"`}, {"a@", `"a@"`}, {"a[", `"a["`}, {"a/", `"a/"`},
		{"a;b", `"a;b"`}, {"a b", `"a b"`}, {"é", `"é"`}, {"a_b", `"a_b"`}, {"a,b", `"a,b"`},
	} {
		if got := shellWord(c.name); got != c.want {
			t.Errorf("shellWord(%q) = %s, want %s", c.name, got, c.want)
		}
	}
}
