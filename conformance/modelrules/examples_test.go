package modelrules

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaindata/harness/conformance/model"
	"github.com/chaindata/harness/conformance/report"
)

// TestExamplesRegistry checks a run's examples: those loaded are asked of
// their listing, those found are saved with them, and a run without a file
// neither reads nor writes one.
func TestExamplesRegistry(t *testing.T) {
	defer LoadExamples("")
	path := filepath.Join(t.TempDir(), "examples.json")
	if err := LoadExamples(path); err != nil {
		t.Fatalf("a file not yet written: %v", err)
	}
	found(model.Games, "GAMES-MOD-003", 4, url.Values{"gameId": {"a b"}, "pagination.first": {"1"}})
	found(model.Transactions, "TX-MOD-003", 4, url.Values{"cmdTypes": {"Submit Order"}})
	if err := SaveExamples(path); err != nil {
		t.Fatal(err)
	}
	if err := LoadExamples(path); err != nil {
		t.Fatal(err)
	}
	games := examplesOf(model.Games)
	if len(games) != 1 || games[0].Get("gameId") != "a b" || len(examplesOf(model.Snapshots)) != 0 {
		t.Errorf("the games' examples %v, the snapshots' %v", games, examplesOf(model.Snapshots))
	}
	exs, _ := model.LoadExamples(path)
	if len(exs) != 2 || exs[0].Seed != 4 || exs[0].Time.IsZero() || exs[0].Rule == "" {
		t.Errorf("saved %+v", exs)
	}
	// Loading forgets what was found: saving adds nothing new.
	if err := SaveExamples(path); err != nil {
		t.Fatal(err)
	}
	if again, _ := model.LoadExamples(path); len(again) != 2 {
		t.Errorf("%d examples after a run that found none, want the 2", len(again))
	}
	os.WriteFile(path, []byte("{\n oops"), 0o644)
	if err := LoadExamples(path); err == nil || !strings.Contains(err.Error(), path+":2:") {
		t.Errorf("a file that does not parse: %v", err)
	}
	if err := LoadExamples(""); err != nil || len(examplesOf(model.Games)) != 0 {
		t.Errorf("no file: %v, %v", err, examplesOf(model.Games))
	}
	if err := SaveExamples(""); err != nil {
		t.Errorf("no file to save to: %v", err)
	}
}

func TestCoverageReport(t *testing.T) {
	m := model.New(model.Snapshots, model.DefaultLimits, []model.Row{{Key: model.Key{Num: 2}, Cursor: "eyJibG9ja0hlaWdodCI6IjIifQ=="}, {Key: model.Key{Num: 1}, Cursor: "eyJibG9ja0hlaWdodCI6IjEifQ=="}}, nil, true)
	p := model.NewPlan(m, 1, 100, []url.Values{{"pagination.first": {"1"}}})
	p.Then(nil)
	c := p.Coverage()
	var mr report.ModelReport
	coverageReport(&mr, c)
	pairs, should := c.PairsCovered()
	if mr.Sources["example"] != 1 || mr.Sources["core"] != c.Sources[model.SourceCore] || mr.ParamsCovered != c.ParamsCovered() || mr.ParamCount != 5 ||
		mr.PairsCovered != pairs || mr.PairsShould != should || mr.Pairs != 10 || mr.ClassesCovered != c.ClassesCovered() || mr.ClassCount != c.ClassCount ||
		len(mr.Uncovered) != len(c.Uncovered) || mr.Params["pagination.first"] != c.Params["pagination.first"] {
		t.Errorf("report %+v\nfrom coverage %+v", mr, c)
	}
	if mr.Classes["pagination.first"]["maximum page size"] != 1 || mr.Uncovered[0].Reason == "" || mr.Uncovered[0].Kind != c.Uncovered[0].Kind {
		t.Errorf("classes %v, uncovered %v", mr.Classes, mr.Uncovered)
	}
}
