package modelrules

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/config"
	"github.com/chaindata/harness/conformance/model"
	"github.com/chaindata/harness/conformance/rule"
)

func TestListingOf(t *testing.T) {
	cfg := config.Config{BaseURL: "http://api", TransactionsURL: "http://explorer/rest"}
	for _, tc := range []struct {
		method, url, path string
		want              string
	}{
		{"GET", "http://api/api/v2/games?pagination.first=1", "/api/v2/games", "games"},
		{"GET", "http://explorer/rest/transactions", "/transactions", "transactions"},
		{"GET", "http://api/transactions", "/transactions", ""},
		{"GET", "http://api/api/v2/games/", "/api/v2/games/", ""},
		{"HEAD", "http://api/api/v2/games", "/api/v2/games", ""},
		{"GET", "http://other/api/v2/games", "/api/v2/games", ""},
	} {
		l, ok := listingOf(cfg, &client.Exchange{Method: tc.method, URL: tc.url, Path: tc.path})
		got := ""
		if ok {
			got = l.String()
		}
		if got != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.method, tc.url, got, tc.want)
		}
	}
}

func TestObserveLeavesItsReading(t *testing.T) {
	cfg := config.Config{BaseURL: "http://api"}
	o := model.NewObserver(model.ObserverOptions{})
	body := []byte(`{"coreSnapshots":{"edges":[{"cursor":"c","node":{"blockHeight":"5"}}],"pageInfo":{}}}`)
	ok := &client.Exchange{Method: "GET", URL: "http://api/api/v2/snapshots?pagination.first=1", Path: "/api/v2/snapshots", Status: 200, Body: body, Header: http.Header{}}
	observe(cfg, o, ok)
	p, err := pageOf(model.Snapshots, ok)
	if d, is := ok.Decoded.(decoded); !is || d.page != p || err != nil || len(p.Rows) != 1 {
		t.Errorf("a 200 of a listing: Decoded %v, page %v, %v", ok.Decoded, p, err)
	}
	// Read as another listing, it is read afresh.
	if p2, err := pageOf(model.Games, ok); err == nil || p2 == p {
		t.Errorf("read as games: %v %v", p2, err)
	}
	for _, ex := range []*client.Exchange{
		{Method: "GET", URL: "http://api/other", Path: "/other", Status: 200, Body: body},
		{Method: "GET", URL: "http://api/api/v2/snapshots", Path: "/api/v2/snapshots", Status: 429, Refused: true, Body: body},
		{Method: "GET", URL: "http://api/api/v2/snapshots", Path: "/api/v2/snapshots", Status: 400, Body: []byte(`{}`)},
	} {
		observe(cfg, o, ex)
		if ex.Decoded != nil {
			t.Errorf("%s %d: Decoded %v", ex.URL, ex.Status, ex.Decoded)
		}
	}
	bad := &client.Exchange{Method: "GET", URL: "http://api/api/v2/snapshots", Path: "/api/v2/snapshots", Status: 200, Body: []byte(`{`)}
	observe(cfg, o, bad)
	if _, err := pageOf(model.Snapshots, bad); err == nil {
		t.Errorf("an unreadable 200 reads")
	}
	if rows, answers := o.Compared(model.Snapshots); answers != 1 || rows != 0 {
		t.Errorf("the observer read %d answers (%d rows again), want 1", answers, rows)
	}
}

func TestObserverSelected(t *testing.T) {
	for filter, want := range map[string]bool{
		"":                       true,
		"model":                  true,
		"!model":                 true, // the relation rules read it too
		"!model && !relations":   false,
		"relations":              true,
		"TX-REL-001":             true,
		"games && pagination":    false,
		"GAMES-MOD-016":          true,
		"snapshots && !strict":   true,
		"growth":                 false,
		"transactions && schema": false,
	} {
		if got := observerSelected(filter); got != want {
			t.Errorf("filter %q: observed %v, want %v", filter, got, want)
		}
	}
}

func TestCurlOf(t *testing.T) {
	got := curlOf(config.Config{Headers: []string{"X-Api-Key: secret"}}, "http://api/x?a=1")
	if got != "curl -sS -i -H 'X-Api-Key: <redacted>' 'http://api/x?a=1'" {
		t.Errorf("curl line %q", got)
	}
	if q := queryOf("http://api/x?a=1&b=2"); q.Get("a") != "1" || q.Get("b") != "2" {
		t.Errorf("query %v", q)
	}
	if q := queryOf("%zz"); len(q) != 0 {
		t.Errorf("an unreadable URL's query: %v", q)
	}
}

// TestAskAgain asks the queries of problems again, of a server that
// answers one query the same each time and another otherwise the second
// time, and one that refuses to answer.
func TestAskAgain(t *testing.T) {
	var asked atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := asked.Add(1)
		h := "5"
		if r.URL.Query().Get("pagination.first") == "2" && n > 2 {
			h = "6" // the flaky query: another row the second time
		}
		if r.URL.Query().Get("pagination.first") == "3" {
			http.Error(w, "gone", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintf(w, `{"coreSnapshots":{"edges":[{"cursor":"c","node":{"blockHeight":%q}}],"pageInfo":{}}}`, h)
	}))
	defer srv.Close()
	cfg := config.Config{BaseURL: srv.URL, Retries: -1}
	rule.SetActive(cfg)
	defer client.Current().Stop()
	st := &modelState{l: model.Snapshots, cfg: rule.ActiveConfig(), c: client.NewClient(cfg), tally: map[modelKey]*modelTally{}}
	problem := func(first string) modelProblem {
		q := url.Values{"pagination.first": {first}}
		ex := st.fetch(q)
		p, _ := pageOf(model.Snapshots, ex)
		return modelProblem{q: q, ex: ex, first: p, d: model.Difference{Aspect: model.AspectRows, Detail: "x"}}
	}
	st.add(modelKey{model.AspectRows, model.Must}, problem("1"))
	st.add(modelKey{model.AspectRows, model.Must}, problem("2"))
	st.add(modelKey{model.AspectSize, model.Must}, problem("1"))
	st.add(modelKey{model.AspectSize, model.Must}, problem("3"))
	st.askAgain()
	var got []string
	for _, k := range []modelKey{{model.AspectRows, model.Must}, {model.AspectSize, model.Must}} {
		for _, p := range st.at(k).problems {
			got = append(got, p.q.Get("pagination.first")+": "+p.repeat.String())
		}
	}
	want := "1: asked twice: the same answer|2: asked twice: answered differently|1: asked twice: the same answer|3: "
	if strings.Join(got, "|") != want {
		t.Errorf("asked again:\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
	if n := asked.Load(); n != 7 { // 4 problems, then 3 queries once each
		t.Errorf("%d requests, want 7 (each query asked again once)", n)
	}
}
