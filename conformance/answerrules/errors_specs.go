package answerrules

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	. "github.com/onsi/ginkgo/v2"

	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/paging"
	"github.com/chaindata/harness/conformance/rule"
	"github.com/chaindata/harness/schemas"
)

// BadRequest is a request a listing must refuse, by Name. Query returns the
// request's parameters, or a reason why the data cannot make it.
type BadRequest[S any] struct {
	Name  string
	Query func(st S) (url.Values, string)
}

// Refusal checks that an answer is a refusal: a 4xx status with the error
// body.
func Refusal(v *rule.Verdict, ex *client.Exchange) {
	v.Judged(1)
	if ex.Err != nil {
		v.Add(ex, "no answer")
		return
	}
	if ex.Status < 400 || ex.Status > 499 {
		v.Add(ex, "HTTP %d, want a 4xx status", ex.Status)
	}
	if err := mustValidator("Error", schemas.Spec).Validate(ex.Body); err != nil {
		v.Add(ex, "the body is not the error body:\n%s", violations(err))
	}
}

// forgedCursor is base64 of a JSON object no listing issues.
var forgedCursor = base64.StdEncoding.EncodeToString([]byte(`{"forged":"by the conformance suite"}`))

const notBase64Cursor = "!!not-a-cursor!!"

// pagedBadRequests are the requests every paged listing refuses.
func pagedBadRequests(l *paging.PagedListing) []BadRequest[*paging.PagedState] {
	fixed := func(pairs ...string) func(*paging.PagedState) (url.Values, string) {
		return func(*paging.PagedState) (url.Values, string) { return paging.With(nil, pairs...), "" }
	}
	reqs := []BadRequest[*paging.PagedState]{
		{"pagination.before together with pagination.after", func(st *paging.PagedState) (url.Values, string) {
			if len(st.Fwd.Rows) < 3 {
				return nil, "the listing has fewer than 3 rows"
			}
			r := st.Fwd.Rows
			return url.Values{"pagination.after": {r[0].Cursor}, "pagination.before": {r[2].Cursor}}, ""
		}},
		{"pagination.first=0", fixed("pagination.first", "0")},
		{"pagination.first=-1", fixed("pagination.first", "-1")},
		{"pagination.last=0", fixed("pagination.last", "0")},
		{"pagination.first above the maximum page size (1000000)", fixed("pagination.first", "1000000")},
		{"pagination.first that is not a number (abc)", fixed("pagination.first", "abc")},
		{"pagination.first that does not fit int32 (3000000000)", fixed("pagination.first", "3000000000")},
		{"pagination.newestFirst that is not a boolean (maybe)", fixed("pagination.newestFirst", "maybe")},
		{"a pagination.after cursor that is not base64", fixed("pagination.first", "5", "pagination.after", notBase64Cursor)},
		{"a forged pagination.after cursor (base64 JSON the listing never issued)", fixed("pagination.first", "5", "pagination.after", forgedCursor)},
		{"a pagination.before cursor from another listing", func(st *paging.PagedState) (url.Values, string) {
			c, why := foreignCursor(st)
			if c == "" {
				return nil, why
			}
			return url.Values{"pagination.last": {"5"}, "pagination.before": {c}}, ""
		}},
	}
	if l == paging.GamesListing {
		reqs = append(reqs,
			BadRequest[*paging.PagedState]{"entityScope that is not an EntityScope name", fixed("entityScope", "ENTITY_SCOPE_PLANETS")},
			BadRequest[*paging.PagedState]{"epochFrom that is not a number", fixed("epochFrom", "last-week")},
		)
	}
	return reqs
}

// foreignCursor fetches a cursor of another listing whose key has a
// different shape.
func foreignCursor(st *paging.PagedState) (string, string) {
	for _, label := range st.Listing.Donors {
		donor := paging.ListingByLabel(label)
		p, _, err := paging.Walker{Client: st.Client, Listing: donor}.Page(url.Values{"pagination.first": {"1"}})
		if err == nil && len(p.Rows) == 1 {
			return p.Rows[0].Cursor, ""
		}
	}
	return "", fmt.Sprintf("none of the listings %v has a row to borrow a cursor from", st.Listing.Donors)
}

// PagedErrorRules declares the error rules of a paged listing. Their
// requests are one batch, asked side by side when the first of them runs.
func PagedErrorRules(st *paging.PagedState) {
	const refuses = "refuses with a 4xx status and the error body:"
	var reqs rule.Batch
	type entry struct {
		name string
		it   *rule.BatchItem
	}
	get := func(q url.Values) client.Request {
		return client.Request{Base: st.Config.BaseURL, Path: st.Listing.Path, Query: q}
	}
	var entries []TableEntry
	for _, b := range pagedBadRequests(st.Listing) {
		it := reqs.Add(refuses+" "+b.Name, rule.Should, func() (client.Request, string) {
			q, why := b.Query(st)
			return get(q), why
		})
		entries = append(entries, rule.DefineEntry(refuses, b.Name, rule.Should, entry{b.Name, it}))
	}
	DescribeTable(refuses,
		func(e entry) {
			ex, why := reqs.Answer(st.Client, e.it)
			if why != "" {
				rule.Skipf("%s", why)
			}
			v := rule.NewVerdict("a 4xx status and the error body for %s", e.name)
			Refusal(v, ex)
			v.Check()
		}, entries)

	const codesRule = "a refused pagination gets HTTP 400, code 3 (InvalidArgument) and an ErrorDetail with code 10028"
	codes := reqs.Add(codesRule, rule.Should, func() (client.Request, string) {
		return get(url.Values{"pagination.first": {"0"}}), ""
	})
	rule.Define(codesRule, rule.Should, func() {
		v := rule.NewVerdict(`HTTP 400 with {"code": 3, "details": [{"@type": "type.googleapis.com/core.ErrorDetail", "code": 10028, ...}]}`)
		ex, _ := reqs.Answer(st.Client, codes)
		ErrorCodes(v, ex, 10028)
		v.Check()
	})

	const methodRule = "a method other than GET gets HTTP 501 and the error body"
	post := reqs.Add(methodRule, rule.Should, func() (client.Request, string) {
		r := get(nil)
		r.Method = http.MethodPost
		return r, ""
	})
	rule.Define(methodRule, rule.Should, func() {
		v := rule.NewVerdict("HTTP 501 (code 12) with the error body for POST")
		ex, _ := reqs.Answer(st.Client, post)
		v.Judged(1)
		if ex.Status != http.StatusNotImplemented {
			v.Add(ex, "HTTP %d, want 501", ex.Status)
		}
		if err := mustValidator("Error", schemas.Spec).Validate(ex.Body); err != nil {
			v.Add(ex, "the body is not the error body:\n%s", violations(err))
		}
		v.Check()
	})
}

// ErrorCodes checks the gateway's mapping of a broken rule: HTTP 400, code 3
// and an ErrorDetail with the detail code.
func ErrorCodes(v *rule.Verdict, ex *client.Exchange, detailCode int) {
	v.Judged(1)
	if ex.Status != http.StatusBadRequest {
		v.Add(ex, "HTTP %d, want 400", ex.Status)
	}
	var body struct {
		Code    json.Number `json:"code"`
		Details []struct {
			Type string      `json:"@type"`
			Code json.Number `json:"code"`
		} `json:"details"`
	}
	if err := json.Unmarshal(ex.Body, &body); err != nil {
		v.Add(ex, "the body is not an error object: %v", err)
		return
	}
	if body.Code.String() != "3" {
		v.Add(ex, "code is %q, want 3", body.Code.String())
	}
	for _, d := range body.Details {
		if d.Code.String() == strconv.Itoa(detailCode) {
			return
		}
	}
	v.Add(ex, "no detail has code %d", detailCode)
}
