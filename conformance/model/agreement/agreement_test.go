package agreement

import (
	"context"
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
			for _, q := range model.Generate(m, 1, queries) {
				want := m.Expect(q)
				status, body, err := fetch(ctx, l, q)
				if err != nil {
					t.Fatal(err)
				}
				got, err := model.Decode(l, status, body)
				if err != nil {
					t.Fatalf("%s %s: %v", l, model.Describe(q), err)
				}
				j := model.Compare(l, want, got, nil, false)
				judged += len(j.Aspects)
				for _, d := range j.Differences {
					t.Errorf("%s (max rows %d) %s: %s %s: %s\n%s", l, maxRows, model.Describe(q), d.Level, d.Aspect, d.Detail, strings.TrimSpace(string(body[:min(len(body), 300)])))
				}
			}
			if judged < queries {
				t.Errorf("%s (max rows %d): only %d aspects judged over %d queries", l, maxRows, judged, queries)
			}
		}
	}
}
