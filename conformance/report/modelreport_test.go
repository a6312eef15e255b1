package report

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func modelSummary() *Summary {
	return &Summary{
		BaseURL: "http://127.0.0.1:8080", Started: time.Unix(0, 0), Duration: time.Second, Seed: 7, Queries: 300,
		Model: []ModelReport{
			{Listing: "games", Seed: 7, Queries: 300, Rows: 1093, Whole: true, Params: map[string]int{"gameId": 12, "epochFrom": 30},
				PairsTried: 54, Pairs: 55, Missing: []string{"gameId&teamId"},
				Failures: []ModelFailure{{Rule: "GAMES-MOD-003", Aspect: "rows", Level: "MUST", Query: "epochFrom=3 pagination.first=9 partyId=p",
					Shrunk: "epochFrom=3 pagination.first=1", Curl: "curl -sS -i 'http://127.0.0.1:8080/api/v2/games?epochFrom=3&pagination.first=1'", Detail: "row 1: want 3/a, got 3/b"}}},
			{Listing: "transactions", Error: "/transactions first=50: HTTP 500, want 200"},
		},
	}
}

func TestModelInTheSummary(t *testing.T) {
	var b bytes.Buffer
	WriteSummary(&b, modelSummary())
	for _, want := range []string{
		"Model: queries per listing: games 300 (54/55 pairs), transactions (no model: see its rules)\n",
		"Seed: 7 (repeat this run's queries with --seed 7)\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the summary lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	WriteSummary(&b, &Summary{})
	if strings.Contains(b.String(), "Model:") || strings.Contains(b.String(), "Seed:") {
		t.Errorf("a run without model rules prints model lines:\n%s", b.String())
	}
}

func TestModelInTheReports(t *testing.T) {
	var h bytes.Buffer
	if err := WriteHTMLReport(&h, modelSummary()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Model coverage", "<code>--seed 7</code>", "54 of 55", "<code>epochFrom 30</code>", "<code>gameId&amp;teamId</code>",
		"GAMES-MOD-003", "epochFrom=3 pagination.first=1", "row 1: want 3/a, got 3/b", "no model: /transactions first=50"} {
		if !strings.Contains(h.String(), want) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
	var j bytes.Buffer
	if err := WriteJUnit(&j, modelSummary()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`name="seed" value="7"`, `name="queries" value="300"`} {
		if !strings.Contains(j.String(), want) {
			t.Errorf("the JUnit report lacks %q:\n%s", want, j.String())
		}
	}
	h.Reset()
	if err := WriteHTMLReport(&h, &Summary{}); err != nil || strings.Contains(h.String(), "Model coverage") {
		t.Errorf("a run without model rules shows a model section (%v)", err)
	}
}
