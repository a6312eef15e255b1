package report

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/rule"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// sampleRuleCounts is how many MUST and SHOULD rules each listing has in
// each area: the suite's catalogue (docs/conformance-rules.md) at the time
// of writing, plus one rule about the deployment as a whole in an area the
// listings do not have, so that the sample has 220 rules and an extra row
// and column.
var sampleRuleCounts = []struct {
	scope, area  string
	must, should int
}{
	{"games", "pagination", 16, 4}, {"games", "filters", 19, 3}, {"games", "epochs", 6, 1},
	{"games", "errors", 0, 15}, {"games", "schema", 3, 1},
	{"snapshots", "pagination", 16, 3}, {"snapshots", "errors", 0, 13}, {"snapshots", "schema", 3, 1},
	{"key-rotations", "pagination", 16, 4}, {"key-rotations", "filters", 3, 1},
	{"key-rotations", "errors", 0, 13}, {"key-rotations", "schema", 3, 1},
	{"network-parameters", "pagination", 13, 5}, {"network-parameters", "errors", 0, 13},
	{"network-parameters", "schema", 3, 1},
	{"transactions", "pagination", 9, 3}, {"transactions", "filters", 12, 2},
	{"transactions", "errors", 3, 7}, {"transactions", "schema", 3, 0},
	{"deployment", "headers", 1, 0},
}

var sampleIDScopes = map[string]string{
	"games": "GAMES", "snapshots": "SNAP", "key-rotations": "ROT",
	"network-parameters": "PARAM", "transactions": "TX", "deployment": "DEPLOY",
}

var sampleIDAreas = map[string]string{
	"pagination": "PAG", "filters": "FLT", "epochs": "EPO", "errors": "ERR", "schema": "SCH", "headers": "HDR",
}

// sampleOutcome is what happened to one rule of the sample that did not
// simply pass.
type sampleOutcome struct {
	state, text, want, message string
	cite                       rule.Citation
	waiver                     *rule.Waiver
}

// sampleOutcomes are the sample's rules that did not pass, by ID.
var sampleOutcomes = map[string]sampleOutcome{
	"SNAP-PAG-001": {
		state: StateFailed,
		text:  "a forward walk (first/after) never repeats a row",
		want:  "every row once in a walk over the listing",
		cite:  rule.Citation{Section: "4 (PAG)", Quote: "pagination.first: number of records sorting after the row identified by after"},
		message: `Rule broken. The rule wants: every row once in a walk over the listing
Found 1 problem(s):
1. the forward walk (pagination.first=50) repeats rows:
       snapshot blockHeight=237750 is row 49 and again row 50
     the first repeat is on this page:
     asked: curl -sS -i 'https://api.testnet.example/api/v2/snapshots?pagination.after=eyJibG9ja0hlaWdodCI6IjIzNzc1MCJ9&pagination.first=50'
     got:   HTTP 200, body (10680 bytes, first 600): {"coreSnapshots":{"edges":[{"node":{"blockHeight":"237750","blockHash":"5f1c...`,
	},
	"GAMES-FLT-001": {
		state: StateFailed,
		text:  "returns only rows that match the filter: gameId",
		want:  "returns only rows that match the filter: gameId",
		cite:  rule.Citation{Section: "4.1", Quote: "gameId: restrict to one game"},
		message: `Rule broken. The rule wants: returns only rows that match the filter: gameId
Found 1 problem(s):
1. 50 of 50 rows do not match gameId=4c4a1f0e2b9d: the first is game 9a77c3d1e0f4 at epoch 1204
     asked: curl -sS -i 'https://api.testnet.example/api/v2/games?gameId=4c4a1f0e2b9d&pagination.first=50'
     got:   HTTP 200, body (48211 bytes, first 600): {"games":{"edges":[{"node":{"id":"9a77c3d1e0f4","epoch":"1204",...`,
	},
	"PARAM-PAG-014": {
		state: StateFailed,
		text:  "rows are in key order A to Z",
		want:  "rows are in key order A to Z",
		message: `Rule broken. The rule wants: rows are in key order A to Z
Found 1 problem(s):
1. row 2 (key "validators.epoch.length") sorts before row 1 (key "spam.protection.maxVotes")
     asked: curl -sS -i 'https://api.testnet.example/api/v2/network/parameters?pagination.first=50'
     got:   HTTP 200, body (5120 bytes, first 600): {"networkParameters":{"edges":[...`,
	},
	"TX-ERR-001": {
		state: StateFailed,
		text:  "refuses with a 4xx status and the error body: first together with before",
		want:  "refuses with a 4xx status and the error body: first together with before",
		cite:  rule.Citation{Section: "4.5", Quote: "first: count; use with after to page toward the most recent; cannot be combined with before"},
		message: `Rule broken. The rule wants: refuses with a 4xx status and the error body: first together with before
Found 1 problem(s):
1. the answer is not a 4xx
     asked: curl -sS -i 'https://explorer.testnet.example/rest/transactions?first=5&before=1204.3'
     got:   HTTP 502, body (62 bytes): <html><body><script>alert(1)</script>Bad gateway</body></html>`,
	},
	"GAMES-EPO-002": {
		state: StateWaived,
		text:  "no answer spans more than 30 epochs",
		want:  "no answer spans more than 30 epochs",
		cite:  rule.Citation{Section: "8", Quote: "Epoch range: at most 30 epochs per request, both ends inclusive"},
		message: `Rule broken. The rule wants: no answer spans more than 30 epochs
Found 1 problem(s):
1. the answer spans epochs 1174 to 1204 (31 epochs)
     asked: curl -sS -i 'https://api.testnet.example/api/v2/games?pagination.first=50'
     got:   HTTP 200, body (48211 bytes, first 600): {"games":{"edges":[...`,
		waiver: &rule.Waiver{Rule: "GAMES-EPO-002", Reason: "testnet data nodes run with a 31-epoch window until release 0.79 (OPS-1182)", Expires: "2026-12-31"},
	},
	"GAMES-FLT-006": {
		state:   StateSkipped,
		text:    "returns only rows that match the filter: teamId with entityScope=ENTITY_SCOPE_TEAMS",
		message: "no team games in the 30 epochs walked, so no teamId to filter on",
	},
	"TX-PAG-010": {
		state:   StateSkipped,
		text:    "before and after together return every transaction strictly between them",
		message: "the walk found fewer than 3 transactions, too few to choose two cursors with rows between them",
	},
}

// sampleSummary is the summary of a run against an imaginary testnet: 220
// rules in every state, with the SHOULD rules on transaction errors left
// out by the label filter.
func sampleSummary() *Summary {
	s := &Summary{
		BaseURL:         "https://api.testnet.example",
		TransactionsURL: "https://explorer.testnet.example/rest",
		LabelFilter:     "!(transactions && errors && strict)",
		Started:         time.Date(2026, 11, 23, 16, 4, 5, 0, time.FixedZone("CET", 3600)),
		Duration:        41*time.Second + 380*time.Millisecond,
		Traffic: client.Traffic{
			Requests: 1873, Retries: 4, RetryWait: 9 * time.Second,
			Refused: 1, RefusedURLs: []string{"https://api.testnet.example/api/v2/games?pagination.last=50"},
		},
	}
	n := 0
	for _, c := range sampleRuleCounts {
		for i := 1; i <= c.must+c.should; i++ {
			n++
			id := fmt.Sprintf("%s-%s-%03d", sampleIDScopes[c.scope], sampleIDAreas[c.area], i)
			r := RuleResult{
				Rule: rule.Rule{
					ID: id, Listing: c.scope, Area: c.area, Strict: i > c.must,
					Text: fmt.Sprintf("%s %s rule %d", c.scope, c.area, i),
				},
				State:    StatePassed,
				Cases:    1 + n*7%90,
				Duration: time.Duration(n*37%400+3) * time.Millisecond,
			}
			if !r.Strict {
				r.Cite = rule.Citation{Section: "4", Quote: "All endpoints use GET and return application/json"}
			}
			if o, ok := sampleOutcomes[id]; ok {
				r.State, r.Text, r.Want, r.Message = o.state, o.text, o.want, o.message
				if o.waiver != nil {
					w := *o.waiver // a test may change it
					r.Waiver = &w
				}
				if o.cite != (rule.Citation{}) {
					r.Cite = o.cite
				}
			}
			if c.scope == "transactions" && c.area == "errors" && r.Strict {
				r.State, r.Cases, r.Duration = StateNotRun, 0, 0
			}
			s.Rules = append(s.Rules, r)
		}
	}
	return s
}

func renderHTML(t *testing.T, s *Summary) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteHTMLReport(&b, s); err != nil {
		t.Fatalf("WriteHTMLReport: %v", err)
	}
	return b.String()
}

func parseHTML(t *testing.T, page string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatalf("parse the report: %v", err)
	}
	return doc
}

// findAll returns the nodes under n (n included) for which match is true,
// in document order.
func findAll(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	for d := range n.Descendants() {
		if match(d) {
			out = append(out, d)
		}
	}
	if match(n) {
		out = append([]*html.Node{n}, out...)
	}
	return out
}

func isElement(a atom.Atom) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Type == html.ElementNode && n.DataAtom == a }
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// textOf is the text of n and its descendants, with runs of white space
// made one space and a space between elements.
func textOf(n *html.Node) string {
	var words []string
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			words = append(words, strings.Fields(d.Data)...)
		}
	}
	return strings.Join(words, " ")
}

func elementByID(t *testing.T, doc *html.Node, id string) *html.Node {
	t.Helper()
	found := findAll(doc, func(n *html.Node) bool { return n.Type == html.ElementNode && attr(n, "id") == id })
	if len(found) != 1 {
		t.Fatalf("%d elements with id %q, want 1", len(found), id)
	}
	return found[0]
}

// voidElements have no end tag.
var voidElements = []string{"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

// checkBalanced fails when the page's tags do not nest: every element but
// a void one is closed, in order. html.Parse forgives any markup, so this
// is what says the page is well formed.
func checkBalanced(t *testing.T, page string) {
	t.Helper()
	z := html.NewTokenizer(strings.NewReader(page))
	var open []string
	for {
		switch z.Next() {
		case html.ErrorToken:
			if err := z.Err(); err != io.EOF {
				t.Fatalf("tokenize the report: %v", err)
			}
			if len(open) > 0 {
				t.Fatalf("elements never closed: %v", open)
			}
			return
		case html.StartTagToken:
			name, _ := z.TagName()
			if !slices.Contains(voidElements, string(name)) {
				open = append(open, string(name))
			}
		case html.SelfClosingTagToken:
			t.Errorf("self-closing tag %s in an HTML page", z.Token())
		case html.EndTagToken:
			name, _ := z.TagName()
			if len(open) == 0 || open[len(open)-1] != string(name) {
				t.Fatalf("</%s> closes %v", name, open)
			}
			open = open[:len(open)-1]
		}
	}
}

func TestHTMLReportIsWellFormedAndDeterministic(t *testing.T) {
	page := renderHTML(t, sampleSummary())
	checkBalanced(t, page)
	doc := parseHTML(t, page)
	if titles := findAll(doc, isElement(atom.Title)); len(titles) != 1 || !strings.HasPrefix(textOf(titles[0]), "FAILED") {
		t.Errorf("want one <title> starting FAILED, got %d", len(titles))
	}
	ids := map[string]bool{}
	for _, n := range findAll(doc, func(n *html.Node) bool { return attr(n, "id") != "" }) {
		if ids[attr(n, "id")] {
			t.Errorf("id %q used twice", attr(n, "id"))
		}
		ids[attr(n, "id")] = true
	}
	for _, a := range findAll(doc, isElement(atom.A)) {
		if href := attr(a, "href"); !ids[strings.TrimPrefix(href, "#")] {
			t.Errorf("link %q (%s) goes nowhere on the page", href, textOf(a))
		}
	}
	for i := range 5 {
		if again := renderHTML(t, sampleSummary()); again != page {
			t.Fatalf("render %d differs from the first", i+2)
		}
	}
}

func TestHTMLReportIsSelfContained(t *testing.T) {
	doc := parseHTML(t, renderHTML(t, sampleSummary()))
	forbidden := []atom.Atom{atom.Script, atom.Link, atom.Img, atom.Iframe, atom.Object, atom.Embed,
		atom.Base, atom.Audio, atom.Video, atom.Source, atom.Form}
	for _, a := range forbidden {
		if n := findAll(doc, isElement(a)); len(n) > 0 {
			t.Errorf("the page has %d <%s> elements", len(n), a)
		}
	}
	for _, n := range findAll(doc, func(n *html.Node) bool { return n.Type == html.ElementNode }) {
		for _, a := range n.Attr {
			if strings.Contains(a.Val, "//") || strings.HasPrefix(a.Key, "on") {
				t.Errorf("<%s %s=%q> refers elsewhere or runs code", n.Data, a.Key, a.Val)
			}
		}
	}
	styles := findAll(doc, isElement(atom.Style))
	if len(styles) != 1 {
		t.Fatalf("%d <style> elements, want 1", len(styles))
	}
	for _, bad := range []string{"//", "url(", "@import", "@font-face"} {
		if css := textOf(styles[0]); strings.Contains(css, bad) {
			t.Errorf("the CSS holds %q", bad)
		}
	}
	// The deployment's URLs appear, as text only.
	text := textOf(doc)
	for _, u := range []string{"https://api.testnet.example", "https://explorer.testnet.example/rest"} {
		if !strings.Contains(text, u) {
			t.Errorf("the page does not show %s", u)
		}
	}
}

// TestHTMLReportEscapesUntrustedText puts markup into every text the page
// shows from a run: a deployment's answers and URLs, a waiver file, rule
// data. None of it may become an element or an attribute.
func TestHTMLReportEscapesUntrustedText(t *testing.T) {
	const attack = `"><script>alert(1)</script><img src=x onerror=alert(2)>`
	tests := []struct {
		name  string
		spoil func(s *Summary, failed, waived, skipped *RuleResult)
	}{
		{"failure message", func(s *Summary, f, w, k *RuleResult) { f.Message += "\n" + attack }},
		{"want", func(s *Summary, f, w, k *RuleResult) { f.Want = attack }},
		{"rule text", func(s *Summary, f, w, k *RuleResult) { f.Text = attack }},
		{"rule ID", func(s *Summary, f, w, k *RuleResult) { f.ID = attack }},
		{"listing and area", func(s *Summary, f, w, k *RuleResult) { f.Listing, f.Area = attack, attack }},
		{"citation", func(s *Summary, f, w, k *RuleResult) { f.Cite.Quote = attack }},
		{"waiver", func(s *Summary, f, w, k *RuleResult) { w.Waiver.Reason, w.Waiver.Expires = attack, attack }},
		{"waived message", func(s *Summary, f, w, k *RuleResult) { w.Message = attack }},
		{"skip reason", func(s *Summary, f, w, k *RuleResult) { k.Message = attack }},
		{"base URL", func(s *Summary, f, w, k *RuleResult) { s.BaseURL = "https://x.example/" + attack }},
		{"transactions URL", func(s *Summary, f, w, k *RuleResult) { s.TransactionsURL = attack }},
		{"label filter", func(s *Summary, f, w, k *RuleResult) { s.LabelFilter = attack }},
		{"refused URL", func(s *Summary, f, w, k *RuleResult) { s.Traffic.RefusedURLs = []string{attack} }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := sampleSummary()
			find := func(id string) *RuleResult {
				i := slices.IndexFunc(s.Rules, func(r RuleResult) bool { return r.ID == id })
				return &s.Rules[i]
			}
			tc.spoil(s, find("SNAP-PAG-001"), find("GAMES-EPO-002"), find("GAMES-FLT-006"))
			page := renderHTML(t, s)
			checkBalanced(t, page)
			doc := parseHTML(t, page)
			if n := findAll(doc, isElement(atom.Script)); len(n) > 0 {
				t.Errorf("the page has %d <script> elements", len(n))
			}
			if n := findAll(doc, isElement(atom.Img)); len(n) > 0 {
				t.Errorf("the page has %d <img> elements", len(n))
			}
			for _, n := range findAll(doc, func(n *html.Node) bool { return n.Type == html.ElementNode }) {
				for _, a := range n.Attr {
					if strings.HasPrefix(a.Key, "on") {
						t.Errorf("<%s> has the attribute %s=%q", n.Data, a.Key, a.Val)
					}
				}
			}
			if !strings.Contains(textOf(doc), "<script>alert(1)</script>") {
				t.Errorf("the hostile text is not shown as text")
			}
		})
	}
}

func TestHTMLReportShowsEveryFailure(t *testing.T) {
	s := sampleSummary()
	doc := parseHTML(t, renderHTML(t, s))
	failures := 0
	for _, r := range s.Rules {
		if r.State != StateFailed {
			continue
		}
		failures++
		t.Run(r.ID, func(t *testing.T) {
			article := elementByID(t, doc, "rule-"+r.ID)
			text := textOf(article)
			want := []string{r.ID, r.Level(), r.Text, "The rule wants: " + r.Want, r.Listing + " / " + r.Area}
			if !r.Strict {
				want = append(want, strings.Join(strings.Fields(r.Cite.String()), " "))
			}
			for _, w := range want {
				if !strings.Contains(text, w) {
					t.Errorf("the failure report lacks %q:\n%s", w, text)
				}
			}
			pres := findAll(article, isElement(atom.Pre))
			if len(pres) != 1 {
				t.Fatalf("%d <pre> in the failure report, want 1", len(pres))
			}
			// The message is shown exactly, its curl line included.
			var msg strings.Builder
			for d := range pres[0].Descendants() {
				msg.WriteString(d.Data)
			}
			if msg.String() != r.Message {
				t.Errorf("the <pre> holds\n%s\nwant\n%s", msg.String(), r.Message)
			}
			if !strings.Contains(msg.String(), "asked: curl -sS -i '") {
				t.Errorf("the failure report lacks its curl line")
			}
		})
	}
	if failures != 4 {
		t.Errorf("the sample has %d failures, want 4", failures)
	}
	if !strings.Contains(textOf(doc), "<html><body><script>alert(1)</script>Bad gateway") {
		t.Errorf("a body holding a script is not shown as text")
	}
}

func TestHTMLReportShowsWaivedAndSkippedRules(t *testing.T) {
	doc := parseHTML(t, renderHTML(t, sampleSummary()))
	tests := []struct {
		id   string
		want []string
	}{
		{"GAMES-EPO-002", []string{"Waived until 2026-12-31", "31-epoch window until release 0.79", "spans epochs 1174 to 1204"}},
		{"GAMES-FLT-006", []string{"GAMES-FLT-006", "MUST", "teamId with entityScope=ENTITY_SCOPE_TEAMS", "no team games in the 30 epochs walked"}},
		{"TX-PAG-010", []string{"TX-PAG-010", "fewer than 3 transactions"}},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			text := textOf(elementByID(t, doc, "rule-"+tc.id))
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("the report of %s lacks %q: %s", tc.id, w, text)
				}
			}
		})
	}
}

// matrixCell finds the cell of the matrix at a row and column header.
func matrixCell(t *testing.T, doc *html.Node, row, column string) *html.Node {
	t.Helper()
	tables := findAll(doc, func(n *html.Node) bool { return n.DataAtom == atom.Table && attr(n, "class") == "matrix" })
	if len(tables) != 1 {
		t.Fatalf("%d matrix tables, want 1", len(tables))
	}
	rows := findAll(tables[0], isElement(atom.Tr))
	header := findAll(rows[0], func(n *html.Node) bool { return n.DataAtom == atom.Th })
	col := slices.IndexFunc(header, func(n *html.Node) bool { return textOf(n) == column })
	if col < 0 {
		t.Fatalf("no column %q", column)
	}
	for _, tr := range rows[1:] {
		cells := findAll(tr, func(n *html.Node) bool { return n.Type == html.ElementNode && n.Parent == tr })
		if textOf(cells[0]) == row {
			return cells[col]
		}
	}
	t.Fatalf("no row %q", row)
	return nil
}

func TestHTMLReportMatrix(t *testing.T) {
	doc := parseHTML(t, renderHTML(t, sampleSummary()))
	tests := []struct {
		row, column string
		counts      string // passed / failed / skipped / waived; "" for an empty cell
		class       string
		links       []string
	}{
		{"games", "filters", "20 / 1 / 1 / 0", "fail", []string{"GAMES-FLT-001"}},
		{"games", "epochs", "6 / 0 / 0 / 1", "warn", nil},
		{"transactions", "pagination", "11 / 0 / 1 / 0", "warn", nil},
		{"snapshots", "schema", "4 / 0 / 0 / 0", "pass", nil},
		{"transactions", "errors", "2 / 1 / 0 / 0", "fail", []string{"TX-ERR-001"}},
		{"snapshots", "filters", "", "empty", nil},
		{"games", "headers", "", "empty", nil},
		{"deployment", "headers", "1 / 0 / 0 / 0", "pass", nil},
		{"games", "all areas", "65 / 1 / 1 / 1", "total fail", nil},
		{"all listings", "filters", "38 / 1 / 1 / 0", "fail", nil},
		{"all listings", "all areas", "206 / 4 / 2 / 1", "total fail", nil},
	}
	for _, tc := range tests {
		t.Run(tc.row+"×"+tc.column, func(t *testing.T) {
			cell := matrixCell(t, doc, tc.row, tc.column)
			if got := attr(cell, "class"); got != tc.class {
				t.Errorf("class %q, want %q", got, tc.class)
			}
			if got := textOf(cell); !strings.HasPrefix(got, tc.counts) || (tc.counts == "" && got != "") {
				t.Errorf("cell says %q, want %q", got, tc.counts)
			}
			var links []string
			for _, a := range findAll(cell, isElement(atom.A)) {
				links = append(links, textOf(a))
				if attr(a, "href") != "#rule-"+textOf(a) {
					t.Errorf("link %s goes to %s", textOf(a), attr(a, "href"))
				}
			}
			if !slices.Equal(links, tc.links) {
				t.Errorf("links %v, want %v", links, tc.links)
			}
		})
	}
	// A cell where every rule was left out is grey.
	s := sampleSummary()
	for i := range s.Rules {
		if s.Rules[i].Listing == "transactions" && s.Rules[i].Area == "errors" {
			s.Rules[i].State = StateNotRun
		}
	}
	if got := attr(matrixCell(t, parseHTML(t, renderHTML(t, s)), "transactions", "errors"), "class"); got != "none" {
		t.Errorf("a cell where nothing ran has class %q, want none", got)
	}
}

func TestHTMLReportMatrixOrder(t *testing.T) {
	s := &Summary{BaseURL: "http://127.0.0.1:8080"}
	for _, r := range []struct{ scope, area string }{
		{"transactions", "limits"}, {"zeta", "schema"}, {"games", "pagination"}, {"deployment", "headers"},
	} {
		s.Rules = append(s.Rules, RuleResult{Rule: rule.Rule{ID: r.scope + "-" + r.area, Listing: r.scope, Area: r.area}, State: StatePassed})
	}
	doc := parseHTML(t, renderHTML(t, s))
	table := findAll(doc, func(n *html.Node) bool { return attr(n, "class") == "matrix" })[0]
	var columns, rows []string
	for _, th := range findAll(findAll(table, isElement(atom.Thead))[0], isElement(atom.Th)) {
		columns = append(columns, textOf(th))
	}
	for _, th := range findAll(table, func(n *html.Node) bool { return attr(n, "scope") == "row" }) {
		rows = append(rows, textOf(th))
	}
	wantColumns := append(append([]string{"listing"}, rule.Areas...), "headers", "all areas")
	if !slices.Equal(columns, wantColumns) {
		t.Errorf("columns %v, want %v", columns, wantColumns)
	}
	// Listings without rules have no row; extra scopes follow in the order first seen.
	if want := []string{"games", "transactions", "zeta", "deployment", "all listings"}; !slices.Equal(rows, want) {
		t.Errorf("rows %v, want %v", rows, want)
	}
}

func TestHTMLReportHeader(t *testing.T) {
	waivedOnly := sampleSummary()
	for i, r := range waivedOnly.Rules {
		if r.State == StateFailed || r.State == StateSkipped {
			waivedOnly.Rules[i].State = StatePassed
		}
	}
	skipsFail := sampleSummary()
	for i, r := range skipsFail.Rules {
		if r.State == StateFailed {
			skipsFail.Rules[i].State = StatePassed
		}
	}
	skipsFail.FailOnSkip = true
	sameURL := sampleSummary()
	sameURL.TransactionsURL = sameURL.BaseURL
	sameURL.Traffic = client.Traffic{Requests: 12}
	sameURL.LabelFilter = ""

	tests := []struct {
		name       string
		s          *Summary
		verdict    string
		want, lack []string
	}{
		{"failures", sampleSummary(), "FAILED 4 rules failed.", []string{
			"Deployment https://api.testnet.example",
			"Transactions https://explorer.testnet.example/rest",
			"Label filter !(transactions && errors && strict)",
			"Started 2026-11-23T15:04:05Z",
			"Duration 41.38s",
			"Requests 1873",
			"Retries 4, after waiting 9s in all",
			"Refused 1 (still refused after the last retry) https://api.testnet.example/api/v2/games?pagination.last=50",
			"206 passed 4 failed 2 skipped 1 waived 7 not run",
		}, nil},
		{"waived only", waivedOnly, "PASSED 213 rules ran and none failed (1 waived).", nil, nil},
		{"skips fail the run", skipsFail, "FAILED 2 rules skipped, and this run fails on skips.", []string{"2 skipped (fail this run)"}, nil},
		{"one URL, no traffic trouble", sameURL, "FAILED", []string{"Label filter none (every rule)", "Retries 0 Refused 0"},
			[]string{"Transactions https", "after waiting", "still refused"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := parseHTML(t, renderHTML(t, tc.s))
			banner := findAll(doc, func(n *html.Node) bool { return attr(n, "role") == "status" })
			if len(banner) != 1 || !strings.HasPrefix(textOf(banner[0]), tc.verdict) {
				t.Fatalf("verdict banner %q, want %q", textOf(banner[0]), tc.verdict)
			}
			text := textOf(doc)
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("the page lacks %q", w)
				}
			}
			for _, w := range tc.lack {
				if strings.Contains(text, w) {
					t.Errorf("the page shows %q", w)
				}
			}
		})
	}
}

func TestHTMLReportRulesThatRan(t *testing.T) {
	s := sampleSummary()
	doc := parseHTML(t, renderHTML(t, s))
	table := findAll(doc, func(n *html.Node) bool { return attr(n, "class") == "ran" })
	if len(table) != 1 {
		t.Fatalf("%d tables of the rules that ran, want 1", len(table))
	}
	rows := findAll(findAll(table[0], isElement(atom.Tbody))[0], isElement(atom.Tr))
	if ran := s.Counts().Run(); len(rows) != ran {
		t.Fatalf("%d rows, want the %d rules that ran", len(rows), ran)
	}
	// The first rule, as the sample makes it.
	first := s.Rules[0]
	want := fmt.Sprintf("%s MUST passed %d %s", first.ID, first.Cases, formatDuration(first.Duration))
	if got := textOf(rows[0]); !strings.HasPrefix(got, want) {
		t.Errorf("first row %q, want it to start %q", got, want)
	}
}

func TestFormatDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{340*time.Microsecond + 12, "340µs"},
		{12*time.Millisecond + 345*time.Microsecond, "12.3ms"},
		{4*time.Second + 567*time.Millisecond, "4.57s"},
		{2*time.Minute + 3*time.Second + 400*time.Millisecond, "2m3s"},
	}
	for _, tc := range tests {
		if got := formatDuration(tc.d); got != tc.want {
			t.Errorf("formatDuration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteHTMLReportErrors(t *testing.T) {
	if err := WriteHTMLReport(io.Discard, nil); err == nil {
		t.Error("no error for a nil summary")
	}
	err := WriteHTMLReport(failingWriter{}, sampleSummary())
	if err == nil || !strings.Contains(err.Error(), "disk full") || !strings.HasPrefix(err.Error(), "write HTML report") {
		t.Errorf("error %v, want the writer's error with context", err)
	}
}

// TestHTMLReportSize keeps the page of a full run small enough to attach
// to a CI run and open at once.
func TestHTMLReportSize(t *testing.T) {
	s := sampleSummary()
	page := renderHTML(t, s)
	t.Logf("%d rules: %d bytes", len(s.Rules), len(page))
	if len(s.Rules) != 220 {
		t.Errorf("the sample has %d rules, want 220", len(s.Rules))
	}
	if len(page) > 200_000 {
		t.Errorf("the report of %d rules is %d bytes, want at most 200,000", len(s.Rules), len(page))
	}
}

// chromiumHint says how to get the browser TestHTMLReportInBrowser needs.
const chromiumHint = "chromium is not on the PATH: install it (Debian: apt-get install -y chromium) " +
	"to check the HTML report in a real browser"

// TestHTMLReportInBrowser opens the sample report in headless Chromium:
// the page it renders must show the verdict, a failed rule and the matrix,
// and its screenshot must show the red verdict banner. Without Chromium
// the test is skipped, or fails under CI=true so that CI cannot lose the
// check silently. With REPORT_SCREENSHOT=FILE it also writes the
// screenshot there (make report-screenshot).
func TestHTMLReportInBrowser(t *testing.T) {
	shotFile := os.Getenv("REPORT_SCREENSHOT")
	if testing.Short() && shotFile == "" {
		t.Skip("-short: starts a browser (make test runs it)")
	}
	browser := ""
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		if os.Getenv("CI") == "true" || shotFile != "" {
			t.Fatal(chromiumHint)
		}
		t.Skip(chromiumHint)
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, []byte(renderHTML(t, sampleSummary())), 0o644); err != nil {
		t.Fatal(err)
	}
	pageURL := (&url.URL{Scheme: "file", Path: page}).String()

	dom := runChromium(t, browser, dir, "--dump-dom", pageURL)
	doc := parseHTML(t, string(dom))
	text := textOf(doc)
	for _, want := range []string{"FAILED 4 rules failed.", "SNAP-PAG-001", "Rules by listing and area",
		"asked: curl -sS -i 'https://api.testnet.example/api/v2/snapshots?"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page Chromium rendered lacks %q", want)
		}
	}
	if got := textOf(matrixCell(t, doc, "games", "filters")); !strings.HasPrefix(got, "20 / 1 / 1 / 0") {
		t.Errorf("Chromium's matrix cell games × filters says %q", got)
	}

	shot := filepath.Join(dir, "report.png")
	runChromium(t, browser, dir, "--screenshot="+shot, "--window-size=1280,1600", pageURL)
	img := decodePNG(t, shot)
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 1600 {
		t.Errorf("the screenshot is %dx%d, want 1280x1600", b.Dx(), b.Dy())
	}
	// The verdict banner is drawn: its red (#b42318) fills much of the
	// top of the page.
	red := 0
	for y := 0; y < 200; y++ {
		for x := 0; x < 1280; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if r>>8 == 0xb4 && g>>8 == 0x23 && b>>8 == 0x18 {
				red++
			}
		}
	}
	if red < 20_000 {
		t.Errorf("the screenshot has %d pixels of the FAILED banner's red in its top 200 rows, want a banner", red)
	}
	if shotFile != "" {
		writePNG(t, shotFile, img)
	}
}

// runChromium runs headless Chromium with a profile of its own in dir and
// returns what it writes on standard output.
func runChromium(t *testing.T, browser, dir string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args = append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--force-device-scale-factor=1", "--no-first-run", "--user-data-dir=" + filepath.Join(dir, "profile")}, args...)
	cmd := exec.CommandContext(ctx, browser, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", browser, strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

func decodePNG(t *testing.T, file string) image.Image {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatalf("Chromium wrote no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decode the screenshot %s: %v", file, err)
	}
	return img
}

// writePNG writes img to file as small as it can, since the screenshot is
// committed: in 256 colours, compressed as well as image/png can.
func writePNG(t *testing.T, file string, img image.Image) {
	t.Helper()
	var b bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&b, paletted(img)); err != nil {
		t.Fatalf("encode the screenshot: %v", err)
	}
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatalf("write the screenshot: %v", err)
	}
	t.Logf("wrote %s (%d bytes)", file, b.Len())
}

// paletted is img in its 256 most frequent colours, each pixel the nearest
// of them. A page of text on flat colours has a few thousand colours, most
// of them the edges of letters, so a reader sees no difference, and the
// file is much smaller.
func paletted(img image.Image) *image.Paletted {
	bounds := img.Bounds()
	counts := map[color.RGBA]int{}
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			counts[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)]++
		}
	}
	colours := make([]color.RGBA, 0, len(counts))
	for c := range counts {
		colours = append(colours, c)
	}
	pack := func(c color.RGBA) uint32 { return uint32(c.R)<<24 | uint32(c.G)<<16 | uint32(c.B)<<8 | uint32(c.A) }
	slices.SortFunc(colours, func(a, b color.RGBA) int {
		return cmp.Or(counts[b]-counts[a], cmp.Compare(pack(a), pack(b)))
	})
	palette := make(color.Palette, 0, 256)
	for _, c := range colours[:min(256, len(colours))] {
		palette = append(palette, c)
	}
	out := image.NewPaletted(bounds, palette)
	index := map[color.RGBA]uint8{}
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			i, ok := index[c]
			if !ok {
				i = uint8(palette.Index(c))
				index[c] = i
			}
			out.SetColorIndex(x, y, i)
		}
	}
	return out
}
