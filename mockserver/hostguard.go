package mockserver

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/chaindata/harness/internal/quote"
)

// The control API's host check, against DNS rebinding. A page of
// evil.example can point evil.example at 127.0.0.1 once the browser has
// loaded it, and its requests to http://evil.example:8080/harness/... then
// reach a mock on the developer's machine as requests of the page's own
// origin: the cross-origin rules (controlguard.go) see nothing foreign. What
// still tells them apart is the Host header, which names the page's site. So
// a control request is served only when its Host names the mock in a way no
// other site can: a loopback name (localhost, *.localhost) or address
// (127.0.0.0/8, ::1), the address the request arrived at (a mock reached by
// its IP address), or a name the user allowed (Config.AllowHosts, harness
// serve --allow-host), as development servers do. The port is not compared.
// The API's listings are not checked: their data is public and read-only,
// and browser clients under any development host name must reach them.

// hostGuard checks the Host of control requests.
type hostGuard struct {
	allowed map[string]bool // lower case, without a trailing dot
	any     bool            // "*": every host
}

// newHostGuard returns the check allowing the names of allow besides the
// loopback names and addresses.
func newHostGuard(allow []string) hostGuard {
	g := hostGuard{allowed: map[string]bool{}}
	for _, h := range allow {
		if h == "*" {
			g.any = true
		}
		g.allowed[canonicalHost(h)] = true
	}
	return g
}

// CheckAllowHost returns an error unless name can be given to
// Config.AllowHosts: a host name or IP address without a port, or "*".
func CheckAllowHost(name string) error {
	switch {
	case name == "*":
		return nil
	case name == "":
		return errors.New("an empty host name")
	case strings.ContainsAny(name, " /\\@?#\t"):
		return fmt.Errorf("host %s: give a host name such as mock.example, without a scheme, path or space", quote.Value(name))
	}
	if _, err := netip.ParseAddr(strings.Trim(name, "[]")); err == nil {
		return nil
	}
	if strings.Contains(name, ":") || strings.ContainsAny(name, "[]") {
		return fmt.Errorf("host %s: give the name without a port (any port is allowed)", quote.Value(name))
	}
	return nil
}

// check returns the refusal of a request whose Host is not allowed, or nil.
func (g hostGuard) check(r *http.Request) *apiError {
	if g.any || g.allows(r) {
		return nil
	}
	name := hostName(r.Host)
	return permissionDenied("control request for another host refused", fmt.Sprintf(
		"Host %s is neither a loopback name (localhost, 127.0.0.1, [::1], *.localhost) nor this server's address: "+
			"a page of any site can reach the mock under a name of its own (DNS rebinding), so the control API answers "+
			"only those; to allow this name, start the mock with --allow-host %s (mockserver.Config.AllowHosts)",
		quote.Value(r.Host), shellWord(name)))
}

// allows reports whether r's Host is one the control API serves.
func (g hostGuard) allows(r *http.Request) bool {
	name := canonicalHost(hostName(r.Host))
	if name == "" {
		return false
	}
	if name == "localhost" || strings.HasSuffix(name, ".localhost") || g.allowed[name] {
		return true
	}
	ip, err := netip.ParseAddr(name)
	if err != nil {
		return false
	}
	ip = ip.Unmap()
	if ip.IsLoopback() {
		return true
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	lip, err := netip.ParseAddrPort(local.String())
	return err == nil && lip.Addr().Unmap() == ip
}

// hostName returns the host of a Host header's value, without its port
// and brackets.
func hostName(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
}

// canonicalHost is a host name as the check compares it: lower case,
// without brackets or the trailing dot of a fully qualified name.
func canonicalHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(strings.Trim(h, "[]")), ".")
}

// shellWord is name as a shell command can take it: as it is when it is a
// plain host name, else quoted.
func shellWord(name string) string {
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == ':') {
			return quote.Value(name)
		}
	}
	if name == "" {
		return quote.Value(name)
	}
	return name
}
