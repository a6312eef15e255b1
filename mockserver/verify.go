package mockserver

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/chaindata/harness/internal/quote"
	"github.com/chaindata/harness/internal/suggest"
	"github.com/chaindata/harness/mockserver/journal"
)

// Verification: the request journal judged, in one verdict a test in any
// language reads (GET /harness/verify), and the same from Go
// (Server.Verify, mocktest's AssertVerified):
//
//	GET /harness/verify                         every walk complete and clean, no warning
//	GET /harness/verify?listing=transactions    the same, of one listing
//	GET /harness/verify?partial=true            walks may stop before the end
//	GET /harness/verify?listing=transactions&match=cmdTypes=Submit+Order&count=3
//	                                            exactly 3 such requests (atLeast=N, atMost=N)
//
// The answer is {"pass": true|false, "messages": [...]}, 200 either way; a
// bad parameter is a 400 with the error body.

// VerifyQuery says what a verification judges. Its zero value judges every
// walk (complete and clean) and every request (no warning).
type VerifyQuery struct {
	// Listing keeps one listing's walks and requests ("" for all).
	Listing string
	// Match keeps the requests whose query carries each of its parameters
	// (named as the client sent them) with each of its values among the
	// request's; a parameter without values only needs to be there. It
	// applies to counts (Requests) only.
	Match url.Values
	// Status keeps the requests answered with it (0: any). It applies to
	// counts only.
	Status int
	// Requests, when set, judges the number of requests that Listing, Match
	// and Status keep, instead of the walks and warnings.
	Requests *CountRange
	// Partial accepts walks that stop before the end (a client that reads
	// the first pages only); they must still be clean.
	Partial bool
}

// CountRange bounds a count: at least Min and, when Max is not negative,
// at most Max.
type CountRange struct{ Min, Max int }

// Verdict is a verification's answer: Pass, and Messages saying what
// failed, or what was checked when nothing did; and the number of requests
// selected when a count was judged.
type Verdict struct {
	Pass     bool     `json:"pass"`
	Messages []string `json:"messages"`
	Count    *int     `json:"count,omitempty"`
}

// Check returns an error for a query no journal can be judged by: an
// unknown listing, a negative or empty count range, an impossible status,
// or a Match or Status without Requests.
func (q VerifyQuery) Check() error {
	if q.Listing != "" && !slices.Contains(listings, q.Listing) {
		return fmt.Errorf("listing %s: want one of %s%s", quote.Value(q.Listing), strings.Join(listings, ", "),
			suggest.Phrase(suggest.Nearest(q.Listing, listings, 1), strconv.Quote))
	}
	if q.Status != 0 && (q.Status < 100 || q.Status > 599) {
		return fmt.Errorf("status %d: want an HTTP status, 100 to 599", q.Status)
	}
	if c := q.Requests; c != nil {
		switch {
		case c.Min < 0:
			return fmt.Errorf("at least %d requests: want a count from 0", c.Min)
		case c.Max >= 0 && c.Max < c.Min:
			return fmt.Errorf("at least %d and at most %d requests: no count is both", c.Min, c.Max)
		}
		if q.Partial {
			return fmt.Errorf("partial accepts walks that stop early, and a count judges no walk: give one or the other")
		}
	} else if len(q.Match) > 0 || q.Status != 0 {
		return fmt.Errorf("match and status select requests to count: give count, atLeast or atMost too")
	}
	for name := range q.Match {
		if name == "" {
			return fmt.Errorf("match of an empty parameter name: give match=NAME=VALUE or match=NAME")
		}
	}
	return nil
}

// Verify judges the request journal by q, which must pass Check: with
// q.Requests, the number of requests it keeps; otherwise every walk (of
// q.Listing) complete and clean, and no request answered with a warning.
func (s *Server) Verify(q VerifyQuery) Verdict {
	if q.Requests != nil {
		return s.verifyCount(q)
	}
	return s.verifyWalks(q)
}

// maxListed bounds the request IDs a message lists.
const maxListed = 20

// verifyCount counts the requests q keeps.
func (s *Server) verifyCount(q VerifyQuery) Verdict {
	var ids []uint64
	for _, r := range s.Requests(journal.RequestFilter{Listing: q.Listing}) {
		if q.keeps(&r) {
			ids = append(ids, r.ID)
		}
	}
	slices.Sort(ids)
	c := q.Requests
	want := fmt.Sprintf("at least %d", c.Min)
	switch {
	case c.Max == c.Min:
		want = fmt.Sprintf("exactly %d", c.Min)
	case c.Max >= 0 && c.Min == 0:
		want = fmt.Sprintf("at most %d", c.Max)
	case c.Max >= 0:
		want = fmt.Sprintf("from %d to %d", c.Min, c.Max)
	}
	n := len(ids)
	pass := n >= c.Min && (c.Max < 0 || n <= c.Max)
	msg := fmt.Sprintf("%s %s, want %s", plural(n, "request"), q.describe(), want)
	if n > 0 {
		msg += ": " + listIDs(ids)
	}
	return Verdict{Pass: pass, Messages: []string{msg}, Count: &n}
}

// keeps reports whether q's Match and Status select r.
func (q VerifyQuery) keeps(r *journal.Request) bool {
	if q.Status != 0 && r.Status != q.Status {
		return false
	}
	if len(q.Match) == 0 {
		return true
	}
	got, err := url.ParseQuery(r.Query)
	if err != nil {
		return false // the mock answered it 400: it carried nothing readable
	}
	for name, values := range q.Match {
		have, ok := got[name]
		if !ok {
			return false
		}
		for _, v := range values {
			if !slices.Contains(have, v) {
				return false
			}
		}
	}
	return true
}

// describe says which requests q counts, as a phrase: "of transactions
// with cmdTypes=Submit Order, answered 200".
func (q VerifyQuery) describe() string {
	var b strings.Builder
	if q.Listing != "" {
		b.WriteString("of " + q.Listing)
	} else {
		b.WriteString("to the API")
	}
	if len(q.Match) > 0 {
		names := make([]string, 0, len(q.Match))
		for name := range q.Match {
			names = append(names, name)
		}
		sort.Strings(names)
		var parts []string
		for _, name := range names {
			if len(q.Match[name]) == 0 {
				parts = append(parts, name)
			}
			for _, v := range q.Match[name] {
				parts = append(parts, name+"="+v)
			}
		}
		b.WriteString(" with " + strings.Join(parts, " and "))
	}
	if q.Status != 0 {
		b.WriteString(", answered " + strconv.Itoa(q.Status))
	}
	return b.String()
}

// verifyWalks judges the walks and the warnings.
func (s *Server) verifyWalks(q VerifyQuery) Verdict {
	var failed []string
	walks := s.Walks(q.Listing)
	for _, w := range walks {
		var problems []string
		for _, p := range w.Problems {
			if !q.Partial || !strings.HasPrefix(p, "did not reach the end") {
				problems = append(problems, p)
			}
		}
		if len(problems) > 0 {
			failed = append(failed, fmt.Sprintf("walk %d of %s (GET %s: %s, %s): %s",
				w.ID, w.Listing, target(w.Path, w.Query), plural(w.Pages, "page"), plural(w.Rows, "row"), strings.Join(problems, "; ")))
		}
	}
	if q.Listing != "" && len(walks) == 0 {
		failed = append(failed, "the client did not walk "+q.Listing+": no request of it is in the journal")
	}
	reqs := s.Requests(journal.RequestFilter{Listing: q.Listing})
	failed = append(failed, warningMessages(reqs)...)
	if len(failed) > 0 {
		return Verdict{Pass: false, Messages: failed}
	}
	what := "complete and clean"
	if q.Partial {
		what = "clean"
	}
	return Verdict{Pass: true, Messages: []string{fmt.Sprintf("%s %s, %s without a warning",
		plural(len(walks), "walk"), what, plural(len(reqs), "request"))}}
}

// Warnings says which warnings the journal's requests of listing ("" for
// all) drew: one message per distinct warning, with how many requests drew
// it and which, in the order the warnings first came.
func (s *Server) Warnings(listing string) []string {
	return warningMessages(s.Requests(journal.RequestFilter{Listing: listing}))
}

// warningMessages says which warnings the requests drew: one message per
// distinct warning, with how many requests drew it and which (the first
// few), in the order the warnings first came.
func warningMessages(reqs []journal.Request) []string {
	type seen struct {
		ids  []uint64
		path string // the first request's
	}
	by := map[string]*seen{}
	var order []string
	for i := len(reqs) - 1; i >= 0; i-- { // oldest first
		r := &reqs[i]
		for _, w := range r.Warnings {
			sw := by[w]
			if sw == nil {
				sw = &seen{path: target(r.Path, r.Query)}
				by[w] = sw
				order = append(order, w)
			}
			if !slices.Contains(sw.ids, r.ID) {
				sw.ids = append(sw.ids, r.ID)
			}
		}
	}
	out := make([]string, 0, len(order))
	for _, w := range order {
		sw := by[w]
		out = append(out, fmt.Sprintf("%s drew the warning %s (the first: GET %s): %s",
			plural(len(sw.ids), "request"), quote.Value(w), sw.path, listIDs(sw.ids)))
	}
	return out
}

// listIDs names request IDs: "requests 3, 4 and 9", the first maxListed
// of many and how many more.
func listIDs(ids []uint64) string {
	words := make([]string, 0, min(len(ids), maxListed))
	for _, id := range ids[:min(len(ids), maxListed)] {
		words = append(words, strconv.FormatUint(id, 10))
	}
	if more := len(ids) - len(words); more > 0 {
		return "requests " + strings.Join(words, ", ") + fmt.Sprintf(" and %d more", more)
	}
	if len(words) == 1 {
		return "request " + words[0]
	}
	return "requests " + strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// plural is "1 walk", "3 walks".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// target is a path and its query.
func target(path, query string) string {
	if query == "" {
		return path
	}
	return path + "?" + query
}

// verifyParams are the parameters GET /harness/verify takes.
var verifyParams = []string{"listing", "match", "status", "count", "atLeast", "atMost", "partial"}

// parseVerifyQuery reads the query of GET /harness/verify.
func parseVerifyQuery(raw string) (VerifyQuery, *apiError) {
	var q VerifyQuery
	bad := func(format string, a ...any) (VerifyQuery, *apiError) {
		return q, invalidArgument("invalid verify request", fmt.Sprintf(format, a...))
	}
	v, err := url.ParseQuery(raw)
	if err != nil {
		return bad("parsing query: %v", err)
	}
	for k, vs := range v {
		if !slices.Contains(verifyParams, k) {
			return bad("unknown parameter %s: give %s%s", quote.Value(k), strings.Join(verifyParams, ", "),
				suggest.Phrase(suggest.Nearest(k, verifyParams, 1), strconv.Quote))
		}
		if k != "match" && len(vs) != 1 {
			return bad("%s given %d times: give it once", k, len(vs))
		}
	}
	q.Listing = v.Get("listing")
	if _, ok := v["listing"]; ok && q.Listing == "" {
		return bad("an empty listing: give one of %s, or no listing parameter", strings.Join(listings, ", "))
	}
	for _, m := range v["match"] {
		name, value, hasValue := strings.Cut(m, "=")
		if q.Match == nil {
			q.Match = url.Values{}
		}
		if hasValue {
			q.Match[name] = append(q.Match[name], value)
		} else if _, ok := q.Match[name]; !ok {
			q.Match[name] = []string{}
		}
	}
	number := func(name string) (int, bool, *apiError) {
		s, ok := v[name]
		if !ok {
			return 0, false, nil
		}
		n, err := strconv.Atoi(s[0])
		if err != nil || n < 0 {
			_, e := bad("%s %s: want a whole number from 0", name, quote.Value(s[0]))
			return 0, false, e
		}
		return n, true, nil
	}
	count, hasCount, e := number("count")
	if e != nil {
		return q, e
	}
	atLeast, hasAtLeast, e := number("atLeast")
	if e != nil {
		return q, e
	}
	atMost, hasAtMost, e := number("atMost")
	if e != nil {
		return q, e
	}
	switch {
	case hasCount && (hasAtLeast || hasAtMost):
		return bad("count is an exact number of requests: give it alone, or atLeast and atMost")
	case hasCount:
		q.Requests = &CountRange{Min: count, Max: count}
	case hasAtLeast || hasAtMost:
		q.Requests = &CountRange{Min: atLeast, Max: -1}
		if hasAtMost {
			q.Requests.Max = atMost
		}
	}
	if s, ok := v["status"]; ok {
		n, err := strconv.Atoi(s[0])
		if err != nil {
			return bad("status %s: want an HTTP status such as 200 or 429", quote.Value(s[0]))
		}
		q.Status = n
	}
	if s, ok := v["partial"]; ok {
		switch s[0] {
		case "true", "1":
			q.Partial = true
		case "false", "0":
		default:
			return bad("partial %s: want true or false", quote.Value(s[0]))
		}
	}
	if err := q.Check(); err != nil {
		return bad("%s", err.Error())
	}
	return q, nil
}

func (s *Server) handleVerify(w http.ResponseWriter, r *http.Request) {
	q, err := parseVerifyQuery(r.URL.RawQuery)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, s.Verify(q))
}
