package report

import (
	"strings"
	"testing"
)

// TestModelFindings: failures that report one query (the shrunk one when
// they shrank) are one finding, whatever rule found them; MUST first.
func TestModelFindings(t *testing.T) {
	failures := []ModelFailure{
		{Rule: "GAMES-MOD-008", Level: "MUST", Aspect: "has-next", Query: "a=1 b=2", Shrunk: "a=1", Curl: "curl 8", Clause: `§2.1: "hasNextPage"`},
		{Rule: "GAMES-MOD-004", Level: "SHOULD", Aspect: "rows", Query: "c=3", Curl: "curl 4"},
		{Rule: "GAMES-MOD-003", Level: "MUST", Aspect: "rows", Query: "a=1 d=4", Shrunk: "a=1", Curl: "curl 3", Clause: `§4.1: "game ID"`, SideBySide: "side"},
		{Rule: "GAMES-MOD-003", Level: "MUST", Aspect: "rows", Query: "a=1 b=2", Shrunk: "a=1", Curl: "curl 3b"},
		{Rule: "GAMES-MOD-005", Level: "MUST", Aspect: "page-size", Query: "e=5", Curl: "curl 5"},
	}
	got := ModelFindings(failures)
	if len(got) != 3 {
		t.Fatalf("%d findings, want 3: %+v", len(got), got)
	}
	first := got[0]
	if first.Query != "a=1" || first.Level() != "MUST" || len(first.Rules) != 2 || first.Rules[0].Rule != "GAMES-MOD-003" || first.Rules[1].Rule != "GAMES-MOD-008" {
		t.Errorf("first finding %+v: want a=1 with GAMES-MOD-003 then GAMES-MOD-008", first)
	}
	if first.Curl != "curl 3" || first.Clause() != `§4.1: "game ID"` || first.SideBySide() != "side" {
		t.Errorf("first finding: curl %q, clause %q, side %q", first.Curl, first.Clause(), first.SideBySide())
	}
	if strings.Join(first.Found, "|") != "a=1 b=2|a=1 d=4" {
		t.Errorf("first finding found by %q", first.Found)
	}
	if got[1].Query != "e=5" || got[2].Query != "c=3" || got[2].Level() != "SHOULD" {
		t.Errorf("the other findings: %q %q (%s), want e=5 then the SHOULD c=3", got[1].Query, got[2].Query, got[2].Level())
	}
	if got[1].Clause() != "" || got[1].SideBySide() != "" {
		t.Errorf("a finding without a clause or a side-by-side page gives %q, %q", got[1].Clause(), got[1].SideBySide())
	}
	if ModelFindings(nil) != nil {
		t.Error("findings of no failures")
	}
}

// TestWriteFindings: the console lists each listing's findings, at most
// maxFindingLines, with the rules, the clause and how many queries showed
// each.
func TestWriteFindings(t *testing.T) {
	var failures []ModelFailure
	for i := range maxFindingLines + 2 {
		failures = append(failures, ModelFailure{Rule: "SNAP-MOD-003", Level: "MUST", Aspect: "rows", Query: strings.Repeat("q", i+1)})
	}
	failures[0].Clause = `§4: "GET"; §2.1: "hasNextPage"`
	failures = append(failures, ModelFailure{Rule: "SNAP-MOD-005", Level: "MUST", Aspect: "page-size", Query: "x", Shrunk: "q"})
	var b strings.Builder
	writeFindings(&b, &Summary{Model: []ModelReport{{Listing: "games"}, {Listing: "snapshots", Failures: failures}}})
	out := b.String()
	for _, want := range []string{
		"Findings in snapshots (12: the rules one query's answer breaks are one finding):\n",
		`  1. MUST query q: SNAP-MOD-003 rows, SNAP-MOD-005 page-size; breaks §4: "GET" (shown by 2 generated queries)` + "\n",
		"  2. MUST query qq: SNAP-MOD-003 rows\n",
		"  and 2 more findings (the JSON and HTML reports list them)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the findings lack %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "games") || strings.Contains(out, "11. ") {
		t.Errorf("a listing without failures, or more than %d findings, listed:\n%s", maxFindingLines, out)
	}
	b.Reset()
	writeFindings(&b, &Summary{Model: []ModelReport{{Listing: "snapshots", Failures: failures[:maxFindingLines]}}})
	if out := b.String(); strings.Contains(out, "more findings") || !strings.Contains(out, "10. ") {
		t.Errorf("exactly %d findings: all listed, none said to be left out:\n%s", maxFindingLines, out)
	}
}

// TestHTMLReportShowsFindings: the HTML report has a table of each
// listing's findings with the query, the rules, the clause and the page
// side by side.
func TestHTMLReportShowsFindings(t *testing.T) {
	s := &Summary{Model: []ModelReport{{Listing: "games", Failures: []ModelFailure{
		{Rule: "GAMES-MOD-003", Level: "MUST", Aspect: "rows", Query: "a=1 b=2", Shrunk: "a=1", Curl: "curl -sS 'u'", Detail: "row 2 differs", Clause: `§4.1: "game ID"`, SideBySide: "> 1  x  y"},
	}}}}
	var b strings.Builder
	if err := WriteHTMLReport(&b, s); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"games: findings (1:", "<code>a=1</code>", "GAMES-MOD-003</span> rows", "§4.1: &#34;game ID&#34;", "row 2 differs", "<pre>&gt; 1  x  y</pre>", "1 generated query"} {
		if !strings.Contains(out, want) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
}
