package modelrules

import (
	"testing"

	"github.com/chaindata/harness/conformance/model"
	"github.com/chaindata/harness/conformance/report"
)

func TestModelReportsRegistry(t *testing.T) {
	ResetModelReports()
	defer ResetModelReports()
	setModelReport(&report.ModelReport{Listing: "transactions", Queries: 1})
	setModelReport(&report.ModelReport{Listing: "games", Queries: 2})
	addModelFailures("games", []report.ModelFailure{{Rule: "GAMES-MOD-003"}})
	addModelFailures("snapshots", []report.ModelFailure{{Rule: "SNAP-MOD-003"}})
	got := CurrentModelReports()
	if len(got) != 2 || got[0].Listing != "games" || got[1].Listing != "transactions" || len(got[0].Failures) != 1 {
		t.Errorf("reports %+v, want games then transactions, games with one failure", got)
	}
	setModelReport(&report.ModelReport{Listing: "games", Queries: 3})
	if got := CurrentModelReports(); got[0].Queries != 3 || len(got[0].Failures) != 1 {
		t.Errorf("a report set again keeps the failures added: %+v", got[0])
	}
}

func TestModelRuleTexts(t *testing.T) {
	seen := map[string]bool{}
	for _, l := range modelListings {
		for _, a := range l.Aspects() {
			for _, lvl := range []model.Level{model.Must, model.Should} {
				if a == model.AspectTies && lvl == model.Must {
					continue // the order of ties has a SHOULD rule only
				}
				text := modelRuleText(l, a, lvl)
				if text == string(a) || seen[text+l.String()] {
					t.Errorf("%s %s %s: text %q", l, a, lvl, text)
				}
				seen[text+l.String()] = true
			}
		}
	}
}
