package modelrules

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/config"
	"github.com/chaindata/harness/conformance/model"
	"github.com/chaindata/harness/conformance/rule"
)

// A small deployment for the relation rules' tests: one record per listing.
var relationBodies = map[string]string{
	"/api/v2/games": `{"games":{"edges":[{"cursor":"g","node":{"epoch":"40","id":"g1",` +
		`"individual":{"individual":[{"individual":"p1"}]},"team":{"team":[{"team":{"teamId":"t1"}}]}}}],"pageInfo":{}}}`,
	"/api/v2/snapshots": `{"coreSnapshots":{"edges":[{"cursor":"s","node":{"blockHeight":"9"}}],"pageInfo":{}}}`,
	"/api/v2/core/keys/ethereum/rotations": `{"keyRotations":{"edges":[{"cursor":"r","node":{"blockHeight":"9","nodeId":"n1",` +
		`"oldAddress":"0xa","newAddress":"0xb"}}],"pageInfo":{}}}`,
	"/api/v2/network/parameters": `{"networkParameters":{"edges":[{"cursor":"k","node":{"key":"a","value":"1"}}],"pageInfo":{}}}`,
	"/transactions":              `{"transactions":[{"block":"9","index":0,"cursor":"9.0","type":"Submit Order","submitter":"p1","code":0,"command":{"orderSubmission":{}}}]}`,
}

// relationServer serves relationBodies and records the queries it is asked.
func relationServer(t *testing.T) (*httptest.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.Path+"?"+r.URL.RawQuery)
		mu.Unlock()
		body, ok := relationBodies[strings.TrimPrefix(r.URL.Path, "/explorer")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("X-Block-Height", "10")
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := slices.Clone(asked)
		asked = nil
		sort.Strings(out)
		return out
	}
}

// useRun sets the run's configuration as a run does, with fresh relation
// checks, and undoes it after the test.
func useRun(t *testing.T, base string) {
	t.Helper()
	rule.SetActive(config.Config{BaseURL: base, TransactionsURL: base + "/explorer", PageSize: 7})
	ResetRelations()
	StartObserving("", CurrentRelations())
	t.Cleanup(func() {
		client.Current().SetObserver(nil)
		client.Current().Stop()
	})
}

// TestObserveRelationsReadsListingAnswers checks the relation rules' feed,
// the run's observer: every 200 answer to a GET of a listing's path is
// checked, nothing else.
func TestObserveRelationsReadsListingAnswers(t *testing.T) {
	useRun(t, "http://127.0.0.1:1")
	games := func(ex client.Exchange) *client.Exchange {
		if ex.Method == "" {
			ex.Method = http.MethodGet
		}
		if ex.Path == "" {
			ex.Path = model.Games.Path()
		}
		if ex.Status == 0 {
			ex.Status = http.StatusOK
		}
		ex.URL = "http://127.0.0.1:1" + ex.Path + "?gameId=other"
		if ex.Body == nil {
			ex.Body = []byte(relationBodies["/api/v2/games"])
		}
		return &ex
	}
	for _, ex := range []*client.Exchange{
		games(client.Exchange{}),
		games(client.Exchange{Status: http.StatusNotFound}),
		games(client.Exchange{Method: http.MethodHead}),
		games(client.Exchange{Err: errors.New("reset")}),
		games(client.Exchange{Refused: true}),
		games(client.Exchange{Path: "/api/v2/gamez"}),
		games(client.Exchange{Body: []byte("not json")}),
	} {
		observe(rule.ActiveConfig(), runObserver(), ex)
	}
	cases, vs := CurrentRelations().Results(model.RelGamesID)
	if cases != 1 || len(vs) != 1 || !strings.Contains(vs[0].URL, "gameId=other") {
		t.Errorf("%d cases, violations %v: want the one 200 GET answer of the games' path checked", cases, vs)
	}
	ResetRelations()
	if cases, _ := CurrentRelations().Results(model.RelGamesID); cases != 0 {
		t.Errorf("a new run keeps the relations of the run before: %d cases", cases)
	}
}

// TestRelationRulesSampleEveryScope checks each scope's sample: the
// queries it asks, values taken from its listing's first page, and that
// their answers reach the relation checks through the client's observer.
func TestRelationRulesSampleEveryScope(t *testing.T) {
	srv, asked := relationServer(t)
	useRun(t, srv.URL)
	want := map[string][]string{
		"games": {
			"/api/v2/games?entityScope=ENTITY_SCOPE_INDIVIDUALS&pagination.first=1",
			"/api/v2/games?entityScope=ENTITY_SCOPE_TEAMS&pagination.first=1",
			"/api/v2/games?epochFrom=20&pagination.first=7&pagination.newestFirst=false",
			"/api/v2/games?epochFrom=28&epochTo=35&pagination.first=7",
			"/api/v2/games?epochFrom=28&epochTo=35&pagination.first=7&pagination.newestFirst=false",
			"/api/v2/games?epochTo=37&pagination.first=7",
			"/api/v2/games?epochTo=37&pagination.first=7&pagination.newestFirst=false",
			"/api/v2/games?gameId=g1",
			"/api/v2/games?pagination.first=7",
			"/api/v2/games?pagination.first=7&partyId=p1", "/api/v2/games?pagination.first=7&partyId=p1",
			"/api/v2/games?pagination.first=7&teamId=t1", "/api/v2/games?pagination.first=7&teamId=t1",
		},
		"snapshots":          {"/api/v2/snapshots?pagination.first=7"},
		"key-rotations":      {"/api/v2/core/keys/ethereum/rotations?nodeId=n1&pagination.first=7", "/api/v2/core/keys/ethereum/rotations?pagination.first=7"},
		"network-parameters": {"/api/v2/network/parameters?pagination.first=7"},
		"transactions": {
			"/explorer/transactions?cmdTypes=Submit+Order&first=7", "/explorer/transactions?first=7",
			"/explorer/transactions?first=7&parties=p1", "/explorer/transactions?last=7",
		},
		model.DeploymentScope: {"/api/v2/snapshots?pagination.first=1"},
	}
	for _, scope := range relationScopes {
		sampleRelations(scope)
		if got := asked(); strings.Join(got, "\n") != strings.Join(want[scope], "\n") {
			t.Errorf("%s: the sample asked\n  %s\nwant\n  %s", scope, strings.Join(got, "\n  "), strings.Join(want[scope], "\n  "))
		}
	}
	// The server answers every query with its one game, of epoch 40: the
	// windows that end below it are broken.
	if cases, vs := CurrentRelations().Results(model.RelGamesWindow); cases != 5 || len(vs) != 4 {
		t.Errorf("%s: %d cases, %d violations, want 5 and 4: %v", model.RelGamesWindow, cases, len(vs), vs)
	}
	for _, name := range []string{model.RelGamesID, model.RelGamesTeam, model.RelGamesParty,
		model.RelRotationsNode, model.RelSnapshotsHeight, model.RelParametersUnique, model.RelTxCmdFilter, model.RelTxPartiesFilter} {
		if cases, vs := CurrentRelations().Results(name); cases == 0 || len(vs) > 0 {
			t.Errorf("%s: %d cases, violations %v, want cases and none", name, cases, vs)
		}
	}
}

// TestRelationRulesSampleAnEmptyDeployment checks that a sample stops at a
// first page that cannot be read or holds no row.
func TestRelationRulesSampleAnEmptyDeployment(t *testing.T) {
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		mu.Unlock()
		switch {
		case r.URL.Path == "/explorer/transactions":
			w.Write([]byte(`{"transactions":[]}`))
			return
		case r.URL.Path == "/api/v2/games" && r.URL.Query().Has("entityScope"):
			// A first row with no entries: no team or party to ask for.
			w.Write([]byte(`{"games":{"edges":[{"cursor":"g","node":{"epoch":"3","id":"g","individual":{"individual":[]},"team":{"team":[]}}}],"pageInfo":{}}}`))
			return
		case r.URL.Path == "/api/v2/games":
			w.Write([]byte(relationBodies["/api/v2/games"]))
			return
		}
		http.Error(w, `{"code":13}`, http.StatusInternalServerError)
	}))
	defer srv.Close()
	useRun(t, srv.URL)
	for _, scope := range []string{"key-rotations", "transactions"} {
		sampleRelations(scope)
	}
	if n != 3 { // rotations' first page, the oldest and the newest transactions
		t.Errorf("the samples of an empty deployment asked %d queries, want 3", n)
	}
	// Games whose first rows of each scope have no entries: no team or
	// party is asked for.
	n = 0
	sampleRelations("games")
	if n != 9 {
		t.Errorf("the games' sample asked %d queries, want 9 (no teamId, no partyId)", n)
	}
}

// TestRelationRuleTexts checks that every relation of the catalogue has a
// rule in a scope the suite knows.
func TestRelationRuleTexts(t *testing.T) {
	for _, r := range model.RelationCatalogue {
		if !slices.Contains(relationScopes, r.Scope) {
			t.Errorf("relation %s is of scope %q, which has no relation rules", r.Name, r.Scope)
		}
		if !slices.Contains(rule.Scopes(), r.Scope) {
			t.Errorf("relation %s is of scope %q, which is not a scope of the suite", r.Name, r.Scope)
		}
	}
	if got := configuredHeaders(config.Config{Headers: []string{"X-Api-Key: s3cret", " Host :h"}}); strings.Join(got, ",") != "X-Api-Key,Host" {
		t.Errorf("configuredHeaders = %q", got)
	}
}

// TestRelationVerdict checks what a relation rule's verdict says: the
// cases judged, each violation kept with its row, what differs and a curl
// line of its query (the configured headers by name only), then how many
// more.
func TestRelationVerdict(t *testing.T) {
	rels := model.NewRelations()
	body := `{"games":{"edges":[` + strings.Repeat(`{"cursor":"g","node":{"epoch":"1","id":"g1"}},`, 11) + `{"cursor":"h","node":{"epoch":"1","id":"g2"}}],"pageInfo":{}}}`
	a, err := model.NewServedAnswer(model.Games, "http://h/api/v2/games?gameId=x", nil, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	rels.CheckAnswer(a)
	r, _ := model.RelationNamed(model.RelGamesID)
	v := rule.NewVerdict("x")
	relationVerdict(v, r, rels, []string{"X-Api-Key"})
	if v.Cases != 12 || len(v.Problems) != maxRelationProblems+1 {
		t.Fatalf("%d cases, %d problems, want 12 and %d", v.Cases, len(v.Problems), maxRelationProblems+1)
	}
	first := v.Problems[0]
	for _, want := range []string{"game g1 of epoch 1: id is \"g1\", but the query asks for gameId=x", "asked: curl -sS -i -H 'X-Api-Key: <redacted>' 'http://h/api/v2/games?gameId=x'"} {
		if !strings.Contains(first, want) {
			t.Errorf("the first problem %q does not say %q", first, want)
		}
	}
	if last := v.Problems[maxRelationProblems]; last != "and 2 more rows break it" {
		t.Errorf("the last problem is %q", last)
	}
	for _, tc := range []struct {
		rel  string
		none string
	}{
		{model.RelTxAmendSize, "no accepted transaction (code 0) the run saw gave this relation a case (record)"},
		{model.RelGamesWindow, "no row the run saw gave this relation a case (query)"},
	} {
		r, _ := model.RelationNamed(tc.rel)
		v := rule.NewVerdict("x")
		relationVerdict(v, r, model.NewRelations(), nil)
		if v.Cases != 0 || len(v.Problems) != 0 || v.None != tc.none {
			t.Errorf("%s with no rows: %d cases, problems %v, none %q; want none %q", tc.rel, v.Cases, v.Problems, v.None, tc.none)
		}
	}
}
