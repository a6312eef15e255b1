package agreement

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/chaindata/harness/conformance/model"
	"github.com/chaindata/harness/internal/race"
	"github.com/chaindata/harness/mockserver/mocktest"
)

// relationsWalker asks a server for whole listings and hands every answer
// to the relation checks.
type relationsWalker struct {
	t    testing.TB
	base string
	rel  *model.Relations
	// answers counts the answers checked; keep, when set, is given each.
	answers int
	keep    func(l model.Listing, url string, header http.Header, body []byte)
}

// get asks for a listing with a query and checks its answer; it returns
// the answer.
func (w *relationsWalker) get(l model.Listing, q url.Values) *model.ServedAnswer {
	w.t.Helper()
	u := w.base + l.Path()
	if enc := q.Encode(); enc != "" {
		u += "?" + enc
	}
	resp, err := http.Get(u)
	if err != nil {
		w.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		w.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		w.t.Fatalf("%s: HTTP %d: %s", u, resp.StatusCode, body)
	}
	a, err := model.NewServedAnswer(l, u, resp.Header, body)
	if err != nil {
		w.t.Fatalf("%s: %v", u, err)
	}
	w.rel.CheckAnswer(a)
	w.answers++
	if w.keep != nil {
		w.keep(l, u, resp.Header, body)
	}
	return a
}

// walkAll checks every row of every listing: the paged listings walked
// forwards whole, the games in every 30-epoch window and by node for the
// key rotations, the transactions from the newest down.
func (w *relationsWalker) walkAll(pageSize int) {
	w.t.Helper()
	n := strconv.Itoa(pageSize)
	for _, l := range []model.Listing{model.Snapshots, model.Rotations, model.Parameters, model.Games} {
		q := url.Values{"pagination.first": {n}}
		for range 100_000 {
			a := w.get(l, q)
			if len(a.Cursors) < pageSize {
				break
			}
			q.Set("pagination.after", a.Cursors[len(a.Cursors)-1])
		}
	}
	latest := w.latestEpoch()
	for to := latest; ; to -= 30 {
		from := max(to, 29) - 29
		w.get(model.Games, url.Values{"epochFrom": {strconv.FormatUint(from, 10)}, "epochTo": {strconv.FormatUint(to, 10)}, "pagination.first": {"5000"}})
		if to < 30 {
			break
		}
	}
	w.filtered()
	q := url.Values{"first": {n}}
	for range 100_000 {
		a := w.get(model.Transactions, q)
		if len(a.Nodes) < pageSize {
			break
		}
		last := a.Row(len(a.Nodes) - 1)
		q = url.Values{"last": {n}, "before": {cursorOf(w.t, last)}}
	}
}

// filtered asks each filter of each listing with values of the first rows.
func (w *relationsWalker) filtered() {
	w.t.Helper()
	var game struct {
		ID         string `json:"id"`
		Individual *struct {
			Individual []struct {
				Individual string `json:"individual"`
			} `json:"individual"`
		} `json:"individual"`
		Team *struct {
			Team []struct {
				Team struct {
					TeamID string `json:"teamId"`
				} `json:"team"`
			} `json:"team"`
		} `json:"team"`
	}
	var team, party string
	for _, scope := range []string{"ENTITY_SCOPE_INDIVIDUALS", "ENTITY_SCOPE_TEAMS"} {
		a := w.get(model.Games, url.Values{"entityScope": {scope}, "pagination.first": {"1"}})
		if len(a.Nodes) == 0 {
			w.t.Fatalf("no game of scope %s", scope)
		}
		if err := jsonUnmarshal(a.Nodes[0], &game); err != nil {
			w.t.Fatal(err)
		}
		if game.Team != nil && len(game.Team.Team) > 0 {
			team = game.Team.Team[0].Team.TeamID
		}
		if game.Individual != nil && len(game.Individual.Individual) > 0 {
			party = game.Individual.Individual[0].Individual
		}
	}
	w.get(model.Games, url.Values{"gameId": {game.ID}})
	w.get(model.Games, url.Values{"teamId": {team}})
	w.get(model.Games, url.Values{"partyId": {party}, "entityScope": {"ENTITY_SCOPE_INDIVIDUALS"}})
	var rot struct {
		NodeID string `json:"nodeId"`
	}
	for _, node := range w.get(model.Rotations, url.Values{"pagination.first": {"20"}}).Nodes {
		if err := jsonUnmarshal(node, &rot); err != nil {
			w.t.Fatal(err)
		}
		w.get(model.Rotations, url.Values{"nodeId": {rot.NodeID}, "pagination.first": {"1000"}})
	}
	var tx struct {
		Type      string `json:"type"`
		Submitter string `json:"submitter"`
	}
	for _, node := range w.get(model.Transactions, url.Values{"first": {"10"}}).Nodes {
		if err := jsonUnmarshal(node, &tx); err != nil {
			w.t.Fatal(err)
		}
		w.get(model.Transactions, url.Values{"cmdTypes": {tx.Type}, "first": {"100"}})
		w.get(model.Transactions, url.Values{"excludeCmdTypes": {tx.Type}, "first": {"100"}})
		w.get(model.Transactions, url.Values{"parties": {tx.Submitter}, "first": {"100"}})
	}
}

func (w *relationsWalker) latestEpoch() uint64 {
	a := w.get(model.Games, url.Values{"pagination.first": {"1"}})
	if len(a.Nodes) == 0 {
		return 0
	}
	var g struct {
		Epoch string `json:"epoch"`
	}
	if err := jsonUnmarshal(a.Nodes[0], &g); err != nil {
		w.t.Fatal(err)
	}
	e, _ := strconv.ParseUint(g.Epoch, 10, 64)
	return e
}

func cursorOf(t testing.TB, rc model.ServedRow) string {
	var tx struct {
		Cursor string `json:"cursor"`
	}
	if err := jsonUnmarshal(rc.Node, &tx); err != nil {
		t.Fatal(err)
	}
	return tx.Cursor
}

// TestMockHoldsEveryRelation checks every row of the mock's worlds (three
// seeds, and one after its live chain grew) against the relation catalogue:
// the mock breaks none, and every relation is judged on some row.
func TestMockHoldsEveryRelation(t *testing.T) {
	seeds := []int64{1, 2, 3}
	scale := 1.0
	if race.Enabled || testing.Short() {
		seeds, scale = []int64{1}, 0.1
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			srv := mocktest.New(t, mocktest.Options{Seed: seed, Scale: scale})
			w := &relationsWalker{t: t, base: srv.URL, rel: model.NewRelations()}
			w.walkAll(1000)
			reportRelations(t, w.rel, scale == 1)
		})
	}
	t.Run("live", func(t *testing.T) {
		srv := mocktest.New(t, mocktest.Options{Seed: 5, Scale: 0.1})
		srv.AdvanceEpochs(2)
		srv.Advance(3000)
		w := &relationsWalker{t: t, base: srv.URL, rel: model.NewRelations()}
		w.walkAll(500)
		reportRelations(t, w.rel, false)
	})
}

// reportRelations fails the test on every violation; with every, also on
// a relation judged on no row.
func reportRelations(t *testing.T, rel *model.Relations, every bool) {
	t.Helper()
	for _, r := range model.RelationCatalogue {
		cases, vs := rel.Results(r.Name)
		for _, v := range vs {
			t.Errorf("%s (%s): %s", r.Name, r.Level, v)
		}
		if n := rel.Omitted(r.Name); n > 0 {
			t.Errorf("%s: %d more violations", r.Name, n)
		}
		if every && cases == 0 {
			t.Errorf("%s: judged on no row of the world", r.Name)
		}
		t.Logf("%s: %d cases", r.Name, cases)
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// BenchmarkRelations reads and checks every answer of a whole walk of the
// default world (scale 1: 10,000 transactions, every listing, each filter),
// as the relation rules' feed does, with fresh relation checks each time:
// what a run's relation checks cost in CPU when they first meet every row.
// It reports the rows checked per second (rows/s).
func BenchmarkRelations(b *testing.B) {
	srv, err := mocktest.Start(mocktest.Options{Seed: 1, Scale: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	type served struct {
		l      model.Listing
		url    string
		header http.Header
		body   []byte
	}
	var answers []served
	rec := &relationsWalker{t: b, base: srv.URL, rel: model.NewRelations()}
	rec.keep = func(l model.Listing, u string, h http.Header, body []byte) {
		answers = append(answers, served{l, u, h, body})
	}
	rec.walkAll(1000)
	rows := 0
	for b.Loop() {
		r := model.NewRelations()
		rows = 0
		for _, a := range answers {
			ans, err := model.NewServedAnswer(a.l, a.url, a.header, a.body)
			if err != nil {
				b.Fatal(err)
			}
			r.CheckAnswer(ans)
			rows += len(ans.Nodes)
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(rows), "rows/op")
}
