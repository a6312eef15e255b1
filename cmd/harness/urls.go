package main

import (
	"fmt"
	"net"
	"strings"
)

// checkSchemes refuses a URL given without a scheme, as in
// "--base-url 127.0.0.1:8080", naming the URL to give instead; Go's own
// error for it would be "first path segment in URL cannot contain colon".
// nameValues are pairs: how the user gave a URL (a flag, "--base-url", or
// an environment variable) and its value, "" when not given. The commands'
// own checks judge the rest of a URL.
func checkSchemes(nameValues ...string) error {
	for i := 0; i+1 < len(nameValues); i += 2 {
		name, raw := nameValues[i], nameValues[i+1]
		if raw == "" || hasScheme(raw) {
			continue
		}
		given := name + " " + raw // a flag
		if !strings.HasPrefix(name, "-") {
			given = name + "=" + raw // an environment variable
		}
		return fmt.Errorf("%s has no scheme; use %s", given, withScheme(raw))
	}
	return nil
}

// hasScheme reports whether raw starts with a scheme: any followed by
// "://", or http: or https: however many slashes follow (the commands'
// checks refuse "http:/host" in their words).
func hasScheme(raw string) bool {
	if strings.Contains(raw, "://") {
		return true
	}
	scheme, _, ok := strings.Cut(raw, ":")
	return ok && (strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https"))
}

// withScheme returns raw, a URL without its scheme, with the one it most
// likely wants: http:// for this machine and IP addresses (a mock, a local
// deployment), https:// (or http://) for a host name elsewhere.
func withScheme(raw string) string {
	raw = strings.TrimPrefix(raw, "//")
	hostport, _, _ := strings.Cut(raw, "/")
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") || net.ParseIP(host) != nil {
		return "http://" + raw
	}
	return "https://" + raw + " (or http://" + raw + ")"
}
