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
				Sources:       map[string]int{"example": 2, "core": 11, "pair": 52, "class": 100, "tail": 135},
				ParamsCovered: 11, ParamCount: 11, PairsCovered: 52, PairsShould: 1, Pairs: 55, ClassesCovered: 94, ClassCount: 95,
				Classes: map[string]map[string]int{"gameId": {"prefix": 1, "case variant": 2}},
				Uncovered: []Uncovered{{Kind: "pair", What: "pagination.first&pagination.last", Reason: "pagination.last never changes the answer beside pagination.first: first with last (first wins)"},
					{Kind: "class", What: "teamId: case variant", Reason: "no row drawn gives a value of teamId"}},
				Failures: []ModelFailure{{Rule: "GAMES-MOD-003", Aspect: "rows", Level: "MUST", Query: "epochFrom=3 pagination.first=9 partyId=p",
					Shrunk: "epochFrom=3 pagination.first=1", Source: "pair epochFrom&partyId", Curl: "curl -sS -i 'http://127.0.0.1:8080/api/v2/games?epochFrom=3&pagination.first=1'", Detail: "row 1: want 3/a, got 3/b"}}},
			{Listing: "snapshots", Seed: 7, Queries: 300, Rows: 1000, Whole: true, ParamsCovered: 5, ParamCount: 5, PairsCovered: 7, Pairs: 10, ClassesCovered: 42, ClassCount: 42},
			{Listing: "transactions", Error: "/transactions first=50: HTTP 500, want 200"},
		},
	}
}

func TestModelInTheSummary(t *testing.T) {
	var b bytes.Buffer
	WriteSummary(&b, modelSummary())
	for _, want := range []string{
		"Model: queries per listing: games 300 (2 examples; 11/11 parameters, 52/55 pairs load-bearing; 94/95 value classes), " +
			"snapshots 300 (5/5 parameters, 7/10 pairs load-bearing; 42/42 value classes), transactions (no model: see its rules)\n",
		"Model: not covered (the JSON and HTML reports say why): games 2\n",
		"Seed: 7 (repeat this run's queries with --seed 7)\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the summary lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	WriteSummary(&b, &Summary{Model: []ModelReport{{Listing: "snapshots", Queries: 10, Sources: map[string]int{"core": 10}}}})
	if strings.Contains(b.String(), "not covered") || strings.Contains(b.String(), "examples;") {
		t.Errorf("a run that covered everything and asked no example says otherwise:\n%s", b.String())
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
	for _, want := range []string{"Model coverage", "<code>--seed 7</code>", "52 of 55 (1 only where docs/behaviour.md decides)", "11 of 11", "94 of 95",
		"2 example, 11 core, 52 pair, 100 class, 135 tail", "<code>epochFrom 30</code>",
		"<code>pagination.first&amp;pagination.last</code>: pagination.last never changes the answer beside pagination.first: first with last (first wins)",
		"<code>teamId: case variant</code>: no row drawn gives a value of teamId", "<td><code>gameId</code></td><td>case variant 2, prefix 1</td>",
		"GAMES-MOD-003", "epochFrom=3 pagination.first=1", "pair epochFrom&amp;partyId", "row 1: want 3/a, got 3/b", "no model: /transactions first=50"} {
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
	if strings.Contains(h.String(), "0 example") || strings.Contains(h.String(), "0 tail") {
		t.Error("the HTML report lists a source no query came from")
	}
	h.Reset()
	if err := WriteHTMLReport(&h, &Summary{}); err != nil || strings.Contains(h.String(), "Model coverage") {
		t.Errorf("a run without model rules shows a model section (%v)", err)
	}
}
