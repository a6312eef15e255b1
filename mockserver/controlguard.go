package mockserver

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/chaindata/harness/internal/quote"
)

// Who may use the control API. A web page of another origin can make a
// browser send a "simple" request (GET, HEAD or POST, a form's content type,
// no custom header) without asking the server first, so that without a guard
// any page a developer has open could reset the mock or set its faults. The
// guard refuses such writes; the reads (GET, HEAD) stay open to anyone that
// reaches the port, but their answers carry no CORS headers, so another
// origin's page cannot read them.
//
// A control request that is not GET or HEAD is served only when both hold:
//
//   - it has no Origin header, or its Origin is the server's own: the same
//     host and port as the request's Host (a page served by the mock, or a
//     client that is no browser: curl, Go, a test);
//   - it is a request no page can send to another origin without a CORS
//     preflight (which the control API never grants): its body is JSON or
//     YAML (Content-Type application/json, application/yaml,
//     application/x-yaml or text/yaml), or it has no body and no
//     Content-Type, or it carries the header X-Harness-Control: 1.
//
// Anything else is a 403 with the API's error body (code 7). The first rule
// alone stops every browser that sends Origin, as browsers do on every
// cross-origin request but GET and HEAD; the second stops a form or a plain
// fetch even where the Origin is missing.
//
// With Config.ControlToken set, every control request (reads too) must also
// carry Authorization: Bearer <token>, or it is a 401 (code 16): a mock
// listening beyond loopback, or reached through a name a page can rebind to
// it, then serves only who knows the token.
//
// Before all that, every control request (reads too) must name the mock by
// a host a page's site cannot point at it (hostguard.go): a loopback name
// or address, the address the request arrived at, or a name of
// Config.AllowHosts. DNS rebinding makes a page of evil.example the mock's
// own origin by pointing evil.example at 127.0.0.1; its requests then say
// Host: evil.example, and are refused (403, code 7).

// ControlHeader marks a request as sent on purpose to the control API; a
// page of another origin cannot send it without a preflight.
const ControlHeader = "X-Harness-Control"

// gRPC status codes of the control API's refusals, and the HTTP status the
// gateway maps each to.
const (
	codePermissionDenied = 7  // 403
	codeUnauthenticated  = 16 // 401
)

// controlBodyTypes are the content types of a control request's body: those
// a page cannot send to another origin without a preflight.
var controlBodyTypes = map[string]bool{
	"application/json":   true,
	"application/yaml":   true,
	"application/x-yaml": true,
	"text/yaml":          true,
}

// guardControl serves a control request through next only when it passes
// the host check, the token check (when token is set) and the cross-origin
// checks.
func guardControl(next http.Handler, token string, hosts hostGuard) http.Handler {
	var want *[sha256.Size]byte
	if token != "" {
		sum := sha256.Sum256([]byte(token))
		want = &sum
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if e := hosts.check(r); e != nil {
			writeError(w, e)
			return
		}
		if want != nil && !hasBearer(r.Header, want) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="harness control API"`)
			writeError(w, unauthenticated("a control token is required",
				"send the header Authorization: Bearer <token>, the token harness serve was given by --control-token"))
			return
		}
		if e := checkControlWrite(r); e != nil {
			writeError(w, e)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hasBearer reports whether h carries one Authorization header of the
// Bearer scheme whose token's SHA-256 is want. The digests are compared in
// constant time, and being of one length they leak not even the token's.
func hasBearer(h http.Header, want *[sha256.Size]byte) bool {
	values := h.Values("Authorization")
	if len(values) != 1 {
		return false
	}
	scheme, token, ok := strings.Cut(values[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimLeft(token, " ")))
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
}

// checkControlWrite returns the refusal of a control request that changes
// state (any method but GET and HEAD) and that a page of another origin may
// have sent, or nil.
func checkControlWrite(r *http.Request) *apiError {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return nil
	}
	if origins, ok := r.Header["Origin"]; ok && (len(origins) != 1 || !sameOrigin(origins[0], r.Host)) {
		return permissionDenied("cross-origin control request refused", fmt.Sprintf(
			"Origin %s is not this server's own (%s): the control API takes no changes from another site's pages",
			quote.Value(strings.Join(origins, ", ")), quote.Value(r.Host)))
	}
	if !controlBody(r) {
		return permissionDenied("control request with a body any web page may send refused", fmt.Sprintf(
			"%s: send the body as application/json or application/yaml, or add the header %s: 1",
			describeBody(r.Header.Values("Content-Type")), ControlHeader))
	}
	return nil
}

// describeBody names a refused body by its Content-Type headers.
func describeBody(types []string) string {
	if len(types) == 0 {
		return "a body without a Content-Type"
	}
	return "Content-Type " + quote.Value(strings.Join(types, ", "))
}

// sameOrigin reports whether origin (an Origin header's value) names the
// host and port a request was sent to (its Host header). An origin without a
// port has its scheme's; the scheme itself is not compared, as the mock may
// be reached through a proxy that adds TLS. "null", and an origin that is
// not an http or https URL, are never the server's.
func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return false
	}
	port := "80"
	if u.Scheme == "https" {
		port = "443"
	}
	return host != "" && strings.EqualFold(withPort(u.Host, port), withPort(host, port))
}

// withPort returns host:port, adding port when hostport has none.
func withPort(hostport, port string) string {
	if h, p, err := net.SplitHostPort(hostport); err == nil {
		return net.JoinHostPort(h, p)
	}
	return net.JoinHostPort(strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]"), port)
}

// controlBody reports whether r's body is one a page of another origin
// cannot send without a CORS preflight, or has nothing in it a page could
// choose: the header X-Harness-Control: 1, one Content-Type of a JSON or
// YAML body, or neither a body nor a Content-Type. (A page can send the
// last, but only with its Origin, which checkControlWrite checks first.)
func controlBody(r *http.Request) bool {
	if r.Header.Get(ControlHeader) == "1" {
		return true
	}
	types := r.Header.Values("Content-Type")
	switch len(types) {
	case 0:
		return r.ContentLength == 0
	case 1:
		mt, _, err := mime.ParseMediaType(types[0])
		return err == nil && controlBodyTypes[mt]
	}
	return false
}

// permissionDenied is a refused control request (403, code 7).
func permissionDenied(message, inner string) *apiError {
	return &apiError{
		status: http.StatusForbidden, code: codePermissionDenied, message: "PermissionDenied error",
		details: []errorDetail{{Type: errorDetailType, Code: detailNotMapped, Message: message, Inner: inner}},
	}
}

// unauthenticated is a control request without the token (401, code 16).
func unauthenticated(message, inner string) *apiError {
	return &apiError{
		status: http.StatusUnauthorized, code: codeUnauthenticated, message: "Unauthenticated error",
		details: []errorDetail{{Type: errorDetailType, Code: detailNotMapped, Message: message, Inner: inner}},
	}
}
