package conformance

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/config"
	"github.com/chaindata/harness/conformance/paging"
	"github.com/chaindata/harness/conformance/rule"
	"github.com/chaindata/harness/conformance/txrules"
)

// PreflightError is what the preflight found wrong before any rule ran:
// the deployment could not be asked at all, or what answered is not the
// API. Its message is one line that says what is wrong and what to try.
type PreflightError struct {
	// Problem is the message.
	Problem string
}

func (e *PreflightError) Error() string { return e.Problem }

// probe is one request of the preflight: the smallest page of a listing
// under one of the configured URLs.
type probe struct {
	// flag names the URL: "--base-url" or "--transactions-url".
	flag string
	// base is the URL, path the listing's path under it.
	base, path string
	q          url.Values
}

// preflight asks each URL the run needs for one row of a listing, side by
// side: the base URL always, the transactions URL when a selected rule
// reads the transactions listing. It returns a *PreflightError saying in
// one line what is wrong when a URL cannot be asked (connection refused,
// no answer within the request timeout, a name that does not resolve),
// when it answers 404 (a path that looks wrong), 401 or 403, or when its
// answer is not JSON. An answer still refused after the retries (429,
// 503) passes: the rate-limit rule judges it. It asks at most one more
// request, after a 404 under a base URL with a path, to say whether the
// path is one too many.
func preflight(cfg config.Config, withTransactions bool) error {
	txFlag := "--transactions-url"
	if cfg.TransactionsURL == "" {
		txFlag = "--base-url"
	}
	cfg = cfg.WithDefaults()
	c := client.NewClient(cfg)
	probes := []probe{{"--base-url", cfg.BaseURL, paging.ParametersListing.Path, url.Values{"pagination.first": {"1"}}}}
	if withTransactions {
		probes = append(probes, probe{txFlag, cfg.TransactionsURL, txrules.TransactionsPath, url.Values{"first": {"1"}}})
	}
	reqs := make([]client.Request, len(probes))
	for i, p := range probes {
		reqs[i] = client.Request{Base: p.base, Path: p.path, Query: p.q}
	}
	for i, ex := range c.GetAll(reqs) {
		if problem := judgeProbe(c, cfg, probes[i], ex); problem != "" {
			return &PreflightError{Problem: problem}
		}
	}
	return nil
}

// judgeProbe says what is wrong with a probe's answer, or "".
func judgeProbe(c *client.Client, cfg config.Config, p probe, ex *client.Exchange) string {
	switch {
	case ex.Err != nil:
		return transportProblem(cfg, p, ex)
	case ex.Refused:
		return ""
	case ex.Status == http.StatusNotFound:
		return pathProblem(c, cfg, p, ex)
	case ex.Status == http.StatusUnauthorized || ex.Status == http.StatusForbidden:
		return fmt.Sprintf("GET %s answered HTTP %d: the deployment wants credentials the suite did not send; give them with --header 'Name: value' (an API key, say)", ex.URL, ex.Status)
	case !json.Valid(ex.Body):
		return fmt.Sprintf("GET %s answered HTTP %d with a body that is not JSON (Content-Type %q, %s): is %s %s the API's address?",
			ex.URL, ex.Status, ex.Header.Get("Content-Type"), client.TrimBody(oneLine(ex.Body), 80), p.flag, p.base)
	}
	return ""
}

// transportProblem says why a probe got no answer.
func transportProblem(cfg config.Config, p probe, ex *client.Exchange) string {
	err := ex.Err
	host := hostOf(p.base)
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unknownAuthority x509.UnknownAuthorityError
	switch {
	case errors.Is(err, client.ErrRunDeadline) || client.Current().Expired():
		return fmt.Sprintf("%s before %s %s answered", client.Current().DeadlineMessage(), p.flag, p.base)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Sprintf("cannot connect to %s (%s %s): connection refused; is the deployment running, and on this port?", host, p.flag, p.base)
	case errors.As(err, &dnsErr):
		return fmt.Sprintf("cannot resolve the host %s (%s %s): %v", dnsErr.Name, p.flag, p.base, dnsErr.Err)
	case isTimeout(err):
		return fmt.Sprintf("no answer from %s %s within %s (--timeout): GET %s", p.flag, p.base, cfg.Timeout, ex.URL)
	case errors.Is(err, http.ErrSchemeMismatch):
		return fmt.Sprintf("cannot ask %s over HTTPS (%s %s): the server speaks plain HTTP: use http://%s", host, p.flag, p.base, strings.TrimPrefix(p.base, "https://"))
	case errors.Is(err, client.ErrBodyTooLarge):
		return fmt.Sprintf("GET %s answered HTTP %d with a body larger than %d MiB: is %s %s the API's address?", ex.URL, ex.Status, client.MaxBody>>20, p.flag, p.base)
	case errors.As(err, &certErr), errors.As(err, &unknownAuthority):
		return fmt.Sprintf("cannot connect to %s (%s %s): its TLS certificate is not trusted: %v", host, p.flag, p.base, err)
	}
	return fmt.Sprintf("cannot ask %s %s: GET %s: %v", p.flag, p.base, ex.URL, err)
}

// isTimeout reports whether err is a timeout: the attempt's context, or
// the network's.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// pathProblem says what a 404 to a probe suggests: the base URL needs a
// path prefix, or has one too many. When the base URL has a path, it asks
// the listing without that path once, to say which.
func pathProblem(c *client.Client, cfg config.Config, p probe, ex *client.Exchange) string {
	const leaveOut = "leave its rules out with --label-filter '!transactions'"
	if p.path == txrules.TransactionsPath && p.flag == "--base-url" {
		return fmt.Sprintf("GET %s answered HTTP 404: the transactions listing is not under --base-url; give the block explorer's address with --transactions-url (e.g. https://explorer.example/rest), or %s", ex.URL, leaveOut)
	}
	msg := fmt.Sprintf("GET %s answered HTTP 404: the path looks wrong", ex.URL)
	u, err := url.Parse(p.base)
	if err != nil {
		return msg
	}
	prefix := strings.TrimRight(u.Path, "/")
	if prefix == "" {
		msg += fmt.Sprintf("; if the deployment serves the API under a path prefix, add it to %s (e.g. %s/prefix)", p.flag, p.base)
	} else {
		root := u.Scheme + "://" + u.Host
		if again := c.Get(root, p.path, p.q); again.Err == nil && again.Status == http.StatusOK && json.Valid(again.Body) {
			return msg + fmt.Sprintf("; the listing answers at %s without the path %s: drop it from %s", root, prefix, p.flag)
		}
		msg += fmt.Sprintf("; %s %s has the path prefix %s: check it, or drop it if the API is served at the root", p.flag, p.base, prefix)
	}
	if p.path == txrules.TransactionsPath {
		msg += "; or " + leaveOut
	}
	return msg
}

// hostOf is the host and port of a URL, for messages.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	if u.Port() != "" {
		return u.Host
	}
	if u.Scheme == "https" {
		return u.Host + ":443"
	}
	return u.Host + ":80"
}

// oneLine folds a body's whitespace, so that a message stays one line.
func oneLine(body []byte) []byte {
	return []byte(strings.Join(strings.Fields(string(body)), " "))
}

// transactionsSelected reports whether the label filter selects a rule of
// the transactions listing; an unreadable filter selects every rule.
func transactionsSelected(rules []rule.Rule, filter string) bool {
	for _, r := range rules {
		if r.Listing == "transactions" && rule.Selected(r.Labels, filter) {
			return true
		}
	}
	return false
}
