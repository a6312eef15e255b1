package agreement

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chaindata/harness/conformance/model"
	"github.com/chaindata/harness/internal/race"
	"github.com/chaindata/harness/mockserver/mocktest"
)

// httpFetch asks a server at base.
func httpFetch(base string) model.Fetch {
	return func(ctx context.Context, l model.Listing, q url.Values) (int, []byte, error) {
		u := base + l.Path()
		if enc := q.Encode(); enc != "" {
			u += "?" + enc
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return 0, nil, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return resp.StatusCode, body, err
	}
}

// TestOracleAgreesWithTheMock sets the oracle beside the mock, two readings
// of the spec written apart, over generated queries of every listing, with
// the model held whole and held in part (a head and a tail).
func TestOracleAgreesWithTheMock(t *testing.T) {
	srv := mocktest.New(t, mocktest.Options{Seed: 7})
	queries := 400
	if race.Enabled {
		queries = 100
	}
	fetch := httpFetch(srv.URL)
	ctx := context.Background()
	for _, maxRows := range []int{0, 60} {
		for _, l := range model.Listings {
			if l == model.Games && maxRows > 0 {
				continue // every window of 30 epochs holds more games than that
			}
			m, err := model.Build(ctx, fetch, l, model.Options{MaxRows: maxRows, PageSize: 40})
			if err != nil {
				t.Fatalf("%s: build: %v", l, err)
			}
			judged := 0
			// The plan's first queries, then those it draws from their
			// answers (cursors of filtered answers) and the tail.
			p := model.NewPlan(m, 1, queries, nil)
			first := p.First()
			answers := make([]model.PlanAnswer, len(first))
			for i, q := range first {
				answers[i].Query = q.Values
				answers[i].Page, judged = agree(t, m, fetch, q, maxRows, judged)
			}
			for _, q := range p.Then(answers) {
				_, judged = agree(t, m, fetch, q, maxRows, judged)
			}
			if judged < queries {
				t.Errorf("%s (max rows %d): only %d aspects judged over %d queries", l, maxRows, judged, queries)
			}
		}
	}
}

// agree asks the mock a query and sets its answer beside the oracle's: they
// must not differ. It returns the answer and the count of aspects judged.
func agree(t *testing.T, m *model.Model, fetch model.Fetch, q model.Query, maxRows, judged int) (*model.Page, int) {
	t.Helper()
	l := m.Listing
	status, body, err := fetch(context.Background(), l, q.Values)
	if err != nil {
		t.Fatal(err)
	}
	got, err := model.Decode(l, status, body)
	if err != nil {
		t.Fatalf("%s %s: %v", l, model.Describe(q.Values), err)
	}
	j := model.Compare(l, m.Expect(q.Values), got, nil, false)
	for _, d := range j.Differences {
		t.Errorf("%s (max rows %d) %s [%s]: %s %s: %s\n%s", l, maxRows, model.Describe(q.Values), q.Provenance(), d.Level, d.Aspect, d.Detail, strings.TrimSpace(string(body[:min(len(body), 300)])))
	}
	return got, judged + len(j.Aspects)
}

// mockUncovered are, for each listing of the default mock, the parameters
// and pairs its data cannot make load-bearing, with the reason: the pairs
// the spec or docs/behaviour.md makes one ignore beside the other, and
// newestFirst of the network parameters.
var mockUncovered = map[model.Listing]map[string]string{
	model.Games:        pagedIgnored,
	model.Snapshots:    pagedIgnored,
	model.Rotations:    pagedIgnored,
	model.Transactions: {},
	model.Parameters: merge(pagedIgnored, map[string]string{
		"pagination.newestFirst": "key order", "pagination.first&pagination.newestFirst": "key order",
		"pagination.after&pagination.newestFirst": "key order", "pagination.last&pagination.newestFirst": "key order",
		"pagination.before&pagination.newestFirst": "key order",
	}),
}

var pagedIgnored = map[string]string{
	"pagination.first&pagination.last":   "first with last (first wins)",
	"pagination.first&pagination.before": "first with before (before is ignored)",
	"pagination.after&pagination.last":   "last with after (after is ignored)",
}

func merge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// TestCoreCoversTheDefaultMock builds the model of each listing of the
// default mock (harness serve's world) and checks the covering core over
// it with three seeds: every parameter and pair load-bearing in some
// query but those listed in mockUncovered (with their reasons), every
// value class drawn (the cursors of filtered answers from the mock's own
// answers), and the mock agreeing with the oracle on every query.
func TestCoreCoversTheDefaultMock(t *testing.T) {
	srv := mocktest.New(t, mocktest.Options{Seed: 1, Scale: 1})
	fetch := httpFetch(srv.URL)
	seeds := []int64{1, 2}
	if race.Enabled {
		seeds = seeds[:1]
	}
	for _, l := range model.Listings {
		m, err := model.Build(context.Background(), fetch, l, model.Options{PageSize: 50})
		if err != nil {
			t.Fatalf("%s: build: %v", l, err)
		}
		for _, seed := range seeds {
			t.Run(fmt.Sprintf("%s/seed-%d", l, seed), func(t *testing.T) {
				p := model.NewPlan(m, seed, 300, nil)
				first := p.First()
				answers := make([]model.PlanAnswer, len(first))
				for i, q := range first {
					answers[i].Query = q.Values
					answers[i].Page, _ = agree(t, m, fetch, q, 0, 0)
				}
				for _, q := range p.Then(answers) {
					agree(t, m, fetch, q, 0, 0)
				}
				c := p.Coverage()
				want := mockUncovered[l]
				pairs, _ := c.PairsCovered()
				if c.Queries != 300 || c.ParamsCovered()+pairs+len(want) != c.ParamCount+c.PairCount || c.ClassesCovered() != c.ClassCount {
					t.Errorf("%d queries; %d/%d parameters, %d/%d pairs load-bearing, %d/%d classes; uncovered %v",
						c.Queries, c.ParamsCovered(), c.ParamCount, pairs, c.PairCount, c.ClassesCovered(), c.ClassCount, c.Uncovered)
				}
				for _, u := range c.Uncovered {
					if why, ok := want[u.What]; !ok || !strings.Contains(u.Reason, why) {
						t.Errorf("%s %s uncovered: %s", u.Kind, u.What, u.Reason)
					}
				}
			})
		}
	}
}
