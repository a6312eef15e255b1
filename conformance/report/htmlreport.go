package report

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/chaindata/harness/conformance/rule"
	"github.com/chaindata/harness/internal/quote"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// WriteHTMLReport writes s as one self-contained HTML page for a person
// reading the outcome of a run: the deployment and the run's traffic, the
// verdict, a matrix of listings by areas, then every failure with the
// request that showed it, the waived and skipped rules, and a table of
// every rule that ran.
//
// The page needs nothing but itself: the CSS is inline, and it has no
// script, font, image or link to anywhere else, so it can be kept as a CI
// artifact and opened offline. Rule messages quote the deployment's
// answers, which are untrusted text; html/template escapes them, so a body
// holding markup shows as text. The same Summary always gives the same
// bytes.
func WriteHTMLReport(w io.Writer, s *Summary) error {
	if s == nil {
		return errors.New("write HTML report: no summary")
	}
	var page bytes.Buffer
	if err := htmlReportTemplate.Execute(&page, newHTMLView(s)); err != nil {
		return fmt.Errorf("write HTML report: %w", err)
	}
	// html/template passes bytes that are not UTF-8 through as they are:
	// a page declared UTF-8 gets them escaped.
	if _, err := io.WriteString(w, quote.Printable(page.String())); err != nil {
		return fmt.Errorf("write HTML report: %w", err)
	}
	return nil
}

// htmlView is what the template shows, worked out from a Summary so that
// the template holds no logic beyond loops and conditions.
type htmlView struct {
	BaseURL, TransactionsURL string // TransactionsURL is "" when it is the base URL
	LabelFilter              string
	Started, Duration        string
	Requests, Retries        int
	RetryWait                string
	Refused                  int
	RefusedURLs              []string
	Passed                   bool
	Why                      string // the verdict in a sentence
	Counts                   Counts
	FailOnSkip               bool
	Areas                    []string
	Matrix                   []htmlMatrixRow
	AreaTotals               []htmlCell
	Total                    htmlCell
	Failures, Waived         []htmlRule
	Skipped, Ran             []htmlRule
	Seed                     int64
	Model                    []htmlModel
	Expired                  []rule.Waiver
	Unmatched                []UnmatchedWaiver
}

// htmlModel is what the model rules tried over one listing.
type htmlModel struct {
	ModelReport
	// Params lists each parameter with the queries it appeared in; Sources
	// the queries by source; Classes each parameter's value classes drawn,
	// with their queries.
	Params  []string
	Sources string
	Classes []htmlClasses
	// Findings are the listing's failures grouped by the query they
	// report (ModelFindings).
	Findings []ModelFinding
}

// htmlClasses are the value classes drawn for one parameter.
type htmlClasses struct {
	Param   string
	Classes string
}

// modelSources is the order the sources of queries are listed in.
var modelSources = []string{"example", "core", "pair", "class", "tail"}

// htmlMatrixRow is one scope (a listing, or the deployment as a whole) of
// the matrix: a cell per area and the row's total.
type htmlMatrixRow struct {
	Scope string
	Cells []htmlCell
	Total htmlCell
}

// htmlCell is one listing×area cell of the matrix.
type htmlCell struct {
	// Empty is a cell where the listing has no rules in the area.
	Empty  bool
	Class  string // "fail", "warn", "pass" or "none"
	Counts Counts
	Title  string
	// Failed are the cell's failed rules, linked to their reports; More
	// is how many were left out.
	Failed []htmlRule
	More   int
}

// htmlRule is one rule as the report shows it.
type htmlRule struct {
	RuleResult
	Anchor   string
	Cite     string
	Duration string
}

// maxCellLinks is how many failed rules a matrix cell links to; the rest
// are counted.
const maxCellLinks = 4

// htmlModels prepares the model reports for the page.
func htmlModels(reports []ModelReport) []htmlModel {
	out := make([]htmlModel, 0, len(reports))
	for _, r := range reports {
		m := htmlModel{ModelReport: r, Findings: ModelFindings(r.Failures)}
		names := make([]string, 0, len(r.Params))
		for p := range r.Params {
			names = append(names, p)
		}
		slices.Sort(names)
		for _, p := range names {
			m.Params = append(m.Params, fmt.Sprintf("%s %d", p, r.Params[p]))
		}
		var sources []string
		for _, src := range modelSources {
			if n := r.Sources[src]; n > 0 {
				sources = append(sources, fmt.Sprintf("%d %s", n, src))
			}
		}
		m.Sources = strings.Join(sources, ", ")
		params := make([]string, 0, len(r.Classes))
		for p := range r.Classes {
			params = append(params, p)
		}
		slices.Sort(params)
		for _, p := range params {
			classes := make([]string, 0, len(r.Classes[p]))
			for c, n := range r.Classes[p] {
				classes = append(classes, fmt.Sprintf("%s %d", c, n))
			}
			slices.Sort(classes)
			m.Classes = append(m.Classes, htmlClasses{Param: p, Classes: strings.Join(classes, ", ")})
		}
		out = append(out, m)
	}
	return out
}

func newHTMLView(s *Summary) htmlView {
	v := htmlView{
		BaseURL:     s.BaseURL,
		LabelFilter: s.LabelFilter,
		Started:     "unknown",
		Duration:    formatDuration(s.Duration),
		Requests:    s.Traffic.Requests,
		Retries:     s.Traffic.Retries,
		RetryWait:   formatDuration(s.Traffic.RetryWait),
		Refused:     s.Traffic.Refused,
		RefusedURLs: s.Traffic.RefusedURLs,
		Passed:      s.Passed(),
		Counts:      s.Counts(),
		Seed:        s.Seed,
		Model:       htmlModels(s.Model),
		FailOnSkip:  s.FailOnSkip,
		Expired:     s.ExpiredWaivers,
		Unmatched:   s.UnmatchedWaivers,
	}
	if s.TransactionsURL != "" && s.TransactionsURL != s.BaseURL {
		v.TransactionsURL = s.TransactionsURL
	}
	if !s.Started.IsZero() {
		v.Started = s.Started.UTC().Format(time.RFC3339)
	}
	v.Why = verdictReason(v.Counts, s.FailOnSkip)
	if s.Stopped != "" {
		v.Why = "The run stopped: " + s.Stopped + ". " + v.Why
	}

	rules := make([]htmlRule, len(s.Rules))
	anchors := make(map[string]bool, len(s.Rules))
	for i, r := range s.Rules {
		rules[i] = htmlRule{
			RuleResult: r,
			Anchor:     ruleAnchor(r.ID, i, anchors),
			Duration:   formatDuration(r.Duration),
		}
		if !r.Strict {
			rules[i].Cite = r.Cite.String()
		}
		switch r.State {
		case StateFailed:
			v.Failures = append(v.Failures, rules[i])
		case StateWaived:
			v.Waived = append(v.Waived, rules[i])
		case StateSkipped:
			v.Skipped = append(v.Skipped, rules[i])
		}
		if r.State != StateNotRun && r.State != "" {
			v.Ran = append(v.Ran, rules[i])
		}
	}
	v.matrix(rules)
	return v
}

// matrix fills the matrix: a row per listing in the order of Listings, then
// any other scope in the order first seen; a column per area of Areas, then
// any other area in the order first seen.
func (v *htmlView) matrix(rules []htmlRule) {
	scopes := slices.Clone(rule.Listings)
	v.Areas = slices.Clone(rule.Areas)
	for _, r := range rules {
		if !slices.Contains(scopes, r.Listing) {
			scopes = append(scopes, r.Listing)
		}
		if !slices.Contains(v.Areas, r.Area) {
			v.Areas = append(v.Areas, r.Area)
		}
	}
	type key struct{ scope, area string }
	cells := make(map[key]*htmlCell)
	for _, r := range rules {
		k := key{r.Listing, r.Area}
		c := cells[k]
		if c == nil {
			c = &htmlCell{}
			cells[k] = c
		}
		c.Counts.Add(r.State)
		if r.State == StateFailed {
			if len(c.Failed) < maxCellLinks {
				c.Failed = append(c.Failed, r)
			} else {
				c.More++
			}
		}
	}
	var total Counts
	areaTotals := make([]Counts, len(v.Areas))
	for _, scope := range scopes {
		row := htmlMatrixRow{Scope: scopeName(scope)}
		var rowTotal Counts
		for i, area := range v.Areas {
			c := cells[key{scope, area}]
			if c == nil {
				row.Cells = append(row.Cells, htmlCell{Empty: true})
				continue
			}
			c.finish(scopeName(scope) + " × " + area)
			row.Cells = append(row.Cells, *c)
			rowTotal = addCounts(rowTotal, c.Counts)
			areaTotals[i] = addCounts(areaTotals[i], c.Counts)
		}
		if rowTotal == (Counts{}) {
			continue // a listing with no rules at all, such as one a new branch has not reached
		}
		row.Total = htmlCell{Counts: rowTotal}
		row.Total.finish(scopeName(scope) + ", every area")
		total = addCounts(total, rowTotal)
		v.Matrix = append(v.Matrix, row)
	}
	for i, c := range areaTotals {
		cell := htmlCell{Counts: c, Empty: c == (Counts{})}
		cell.finish("every listing × " + v.Areas[i])
		v.AreaTotals = append(v.AreaTotals, cell)
	}
	v.Total = htmlCell{Counts: total}
	v.Total.finish("every rule")
}

// finish sets the cell's colour and tooltip from its counts.
func (c *htmlCell) finish(where string) {
	n := c.Counts
	switch {
	case n.Failed > 0:
		c.Class = "fail"
	case n.Skipped > 0 || n.Waived > 0:
		c.Class = "warn"
	case n.Passed > 0:
		c.Class = "pass"
	default:
		c.Class = "none"
	}
	c.Title = fmt.Sprintf("%s: %d passed, %d failed, %d skipped, %d waived, %d not run",
		where, n.Passed, n.Failed, n.Skipped, n.Waived, n.NotRun)
}

func addCounts(a, b Counts) Counts {
	return Counts{
		Passed:  a.Passed + b.Passed,
		Failed:  a.Failed + b.Failed,
		Skipped: a.Skipped + b.Skipped,
		Waived:  a.Waived + b.Waived,
		NotRun:  a.NotRun + b.NotRun,
	}
}

// scopeName names a rule's scope in the matrix; a rule without one (a
// scaffolding mistake) still gets a row.
func scopeName(scope string) string {
	if scope == "" {
		return "(no listing)"
	}
	return scope
}

// verdictReason says in a sentence why the run passed or failed.
func verdictReason(c Counts, failOnSkip bool) string {
	switch {
	case c.Failed > 0:
		return plural(c.Failed, "rule") + " failed."
	case failOnSkip && c.Skipped > 0:
		return plural(c.Skipped, "rule") + " skipped, and this run fails on skips."
	case c.Run() == 0:
		return "No rule ran."
	}
	why := plural(c.Run(), "rule") + " ran and none failed"
	if c.Waived > 0 {
		why += " (" + strconv.Itoa(c.Waived) + " waived)"
	}
	return why + "."
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// ruleAnchor is the page anchor of a rule: "rule-" and its ID, or its
// position when it has no ID, made unique on the page.
func ruleAnchor(id string, i int, used map[string]bool) string {
	a := "rule-" + id
	if id == "" {
		a = "rule-" + strconv.Itoa(i+1)
	}
	for n := 2; used[a]; n++ {
		a = fmt.Sprintf("rule-%s-%d", id, n)
	}
	used[a] = true
	return a
}

// formatDuration rounds d to what a person reads: 340µs, 12.3ms, 4.56s,
// 2m3s.
func formatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Second:
		return d.Round(100 * time.Microsecond).String()
	case d < time.Minute:
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

var htmlReportTemplate = template.Must(template.New("report").Parse(htmlReportSource))

// htmlReportSource is the page. Colours pass WCAG AA contrast for their
// text; state is always written out as well as coloured.
const htmlReportSource = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{if .Passed}}PASSED{{else}}FAILED{{end}}: conformance of {{.BaseURL}}</title>
<style>
:root {
  --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg-soft: #f6f8fa;
  --red: #b42318; --red-bg: #fde8e7; --amber: #8a5300; --amber-bg: #fff4d6;
  --green: #1a7f37; --green-bg: #dcf5e3; --grey: #59636e; --grey-bg: #eef1f4;
}
* { box-sizing: border-box; }
body { margin: 0; color: var(--fg); background: #fff;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", "Liberation Sans", "DejaVu Sans", sans-serif; }
main { max-width: 1200px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 22px; margin: 0 0 14px; }
h2 { font-size: 18px; margin: 32px 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 15px; margin: 0; }
td.id, h3.id { white-space: nowrap; }
code, pre, .id { font-family: ui-monospace, "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 13px; }
a { color: inherit; }
.verdict { display: flex; align-items: baseline; gap: 16px; padding: 14px 20px; border-radius: 8px; color: #fff; }
.verdict strong { font-size: 26px; letter-spacing: .04em; }
.verdict.passed { background: var(--green); }
.verdict.failed { background: var(--red); }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 3px 18px; margin: 16px 0; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.totals { display: flex; flex-wrap: wrap; gap: 8px; margin: 0; padding: 0; list-style: none; }
.totals li { padding: 4px 12px; border-radius: 999px; border: 1px solid var(--line); }
.totals b { font-size: 17px; }
table { border-collapse: collapse; }
th, td { padding: 5px 10px; border: 1px solid var(--line); text-align: left; vertical-align: top; }
thead th { background: var(--bg-soft); }
.matrix { width: 100%; }
.matrix td, .matrix thead th { text-align: center; padding: 5px 6px; }
.matrix th[scope=row] { white-space: nowrap; }
.matrix .n { font: 600 13px ui-monospace, "DejaVu Sans Mono", monospace; white-space: nowrap; }
.matrix .links { font-size: 12px; margin-top: 2px; }
.matrix .links a { display: block; }
.matrix .total { border-left: 2px solid var(--muted); }
.matrix tfoot td, .matrix tfoot th { border-top: 2px solid var(--muted); }
.legend { color: var(--muted); font-size: 13px; margin: 0 0 8px; }
.fail { background: var(--red-bg); color: var(--red); }
.warn { background: var(--amber-bg); color: var(--amber); }
.pass { background: var(--green-bg); color: var(--green); }
.none { background: var(--grey-bg); color: var(--grey); }
td.empty { background: #fff; }
.rule { border: 1px solid var(--line); border-left: 5px solid var(--red); border-radius: 6px; padding: 10px 14px; margin: 12px 0; }
.rule.waived { border-left-color: var(--amber); }
.rule header { display: flex; flex-wrap: wrap; align-items: baseline; gap: 6px 12px; }
.rule .where { color: var(--muted); font-size: 13px; }
.rule p { margin: 6px 0; }
.rule .label { color: var(--muted); }
.rule .cite { color: var(--muted); font-style: italic; }
.badge { display: inline-block; padding: 0 7px; border-radius: 4px; font-size: 12px; font-weight: 600; border: 1px solid currentColor; }
.badge.must { color: var(--red); }
.badge.should { color: var(--muted); }
pre { margin: 6px 0 0; padding: 10px 12px; background: var(--bg-soft); border: 1px solid var(--line); border-radius: 6px;
  white-space: pre-wrap; overflow-wrap: anywhere; max-height: 32em; overflow-y: auto; }
.state { font-weight: 600; }
.state.failed { color: var(--red); } .state.waived, .state.skipped { color: var(--amber); } .state.passed { color: var(--green); }
.ran td:nth-child(4), .ran td:nth-child(5) { text-align: right; white-space: nowrap; }
.ran td { padding: 2px 10px; }
.ran tbody tr:nth-child(even) { background: var(--bg-soft); }
details > summary { cursor: pointer; margin: 8px 0; }
.muted { color: var(--muted); }
@media print { pre { max-height: none; } }
</style>
</head>
<body>
<main>
<h1>Conformance report</h1>
<div class="verdict {{if .Passed}}passed{{else}}failed{{end}}" role="status"><strong>{{if .Passed}}PASSED{{else}}FAILED{{end}}</strong><span>{{.Why}}</span></div>
<dl class="facts">
<dt>Deployment</dt><dd><code>{{.BaseURL}}</code></dd>
{{- if .TransactionsURL}}
<dt>Transactions</dt><dd><code>{{.TransactionsURL}}</code></dd>
{{- end}}
<dt>Label filter</dt><dd>{{if .LabelFilter}}<code>{{.LabelFilter}}</code>{{else}}none (every rule){{end}}</dd>
<dt>Started</dt><dd>{{.Started}}</dd>
<dt>Duration</dt><dd>{{.Duration}}</dd>
<dt>Requests</dt><dd>{{.Requests}}</dd>
<dt>Retries</dt><dd>{{.Retries}}{{if .Retries}}, after waiting {{.RetryWait}} in all{{end}}</dd>
<dt>Refused</dt><dd>{{.Refused}}{{if .Refused}} (still refused after the last retry){{end}}
{{- range .RefusedURLs}}<br><code>{{.}}</code>{{end}}</dd>
{{- if .Model}}
<dt>Seed</dt><dd><code>{{.Seed}}</code> (<code>--seed {{.Seed}}</code> asks the same queries again)</dd>
{{- end}}
</dl>
<ul class="totals">
<li class="pass"><b>{{.Counts.Passed}}</b> passed</li>
<li class="{{if .Counts.Failed}}fail{{else}}none{{end}}"><b>{{.Counts.Failed}}</b> failed</li>
<li class="{{if .Counts.Skipped}}warn{{else}}none{{end}}"><b>{{.Counts.Skipped}}</b> skipped{{if and .FailOnSkip .Counts.Skipped}} (fail this run){{end}}</li>
<li class="{{if .Counts.Waived}}warn{{else}}none{{end}}"><b>{{.Counts.Waived}}</b> waived</li>
<li class="none"><b>{{.Counts.NotRun}}</b> not run</li>
</ul>

<h2>Rules by listing and area</h2>
<p class="legend">Each cell counts its rules: <b>passed / failed / skipped / waived</b>. Red: a rule failed; amber: rules were skipped or waived; green: every rule passed; grey: no rule ran; blank: no rules there.</p>
<table class="matrix">
<thead><tr><th>listing</th>{{range .Areas}}<th>{{.}}</th>{{end}}<th class="total">all areas</th></tr></thead>
<tbody>
{{- range .Matrix}}
<tr><th scope="row">{{.Scope}}</th>
{{- range .Cells}}{{template "cell" .}}{{end}}
{{- with .Total}}{{template "total" .}}{{end}}</tr>
{{- end}}
</tbody>
<tfoot><tr><th scope="row">all listings</th>
{{- range .AreaTotals}}{{template "cell" .}}{{end}}
{{- with .Total}}{{template "total" .}}{{end}}</tr></tfoot>
</table>

<h2 id="failures">Failures ({{len .Failures}})</h2>
{{- range .Failures}}
<article class="rule" id="{{.Anchor}}">{{template "rule" .}}
{{- if .Message}}
<pre>
{{.Message}}</pre>
{{- end}}
</article>
{{- else}}
<p class="muted">No rule failed.</p>
{{- end}}

{{- if .Waived}}
<h2 id="waived">Waived ({{len .Waived}})</h2>
{{- range .Waived}}
<article class="rule waived" id="{{.Anchor}}">{{template "rule" .}}
{{- with .Waiver}}
<p><span class="label">Waived until</span> {{.Expires}}: {{.Reason}}</p>
{{- end}}
{{- if .Message}}
<details><summary>What failed</summary><pre>
{{.Message}}</pre></details>
{{- end}}
</article>
{{- end}}
{{- end}}

{{- if .Skipped}}
<h2 id="skipped">Skipped ({{len .Skipped}})</h2>
<table>
<thead><tr><th>rule</th><th>level</th><th>rule text</th><th>why it was skipped</th></tr></thead>
<tbody>
{{- range .Skipped}}
<tr id="{{.Anchor}}"><td class="id">{{.ID}}</td><td>{{.Level}}</td><td>{{.Text}}</td><td>{{.Message}}</td></tr>
{{- end}}
</tbody>
</table>
{{- end}}

{{- if or .Expired .Unmatched}}
<h2 id="waivers">Waivers that excused nothing ({{len .Expired}} expired, {{len .Unmatched}} unused)</h2>
<table>
<thead><tr><th>rule</th><th>until</th><th>reason</th><th>what became of it</th></tr></thead>
<tbody>
{{- range .Expired}}
<tr><td class="id">{{.Rule}}</td><td>{{.Expires}}</td><td>{{.Reason}}</td><td>expired: not applied, and the run fails; renew it or fix the deployment</td></tr>
{{- end}}
{{- range .Unmatched}}
<tr><td class="id">{{.Rule}}</td><td>{{.Expires}}</td><td>{{.Reason}}</td><td>{{.Why}}</td></tr>
{{- end}}
</tbody>
</table>
{{- end}}

{{- if .Model}}
<h2 id="model">Model coverage</h2>
<p>The model rules asked each listing generated queries (seed {{.Seed}}) and judged every answer against a model of the listing built from the deployment's own answers. A parameter is load-bearing in a query when the model's answer changes as it is dropped or its value changed: only there can a query show a defect in it. The queries begin with the failing queries of earlier runs (<code>--examples</code>), then a core in which every parameter and every pair of parameters is load-bearing and every value class of every parameter is drawn, then a seeded random tail.</p>
<table>
<thead><tr><th>listing</th><th>queries</th><th>rows held</th><th>load-bearing parameters</th><th>load-bearing pairs</th><th>value classes drawn</th><th>not covered, and why</th></tr></thead>
<tbody>
{{- range .Model}}
<tr><td>{{.Listing}}</td>{{if .Error}}<td colspan="6">no model: {{.Error}}</td>{{else}}<td>{{.Queries}}{{if .Sources}}<br><span class="muted">{{.Sources}}</span>{{end}}</td><td>{{.Rows}}{{if .Whole}} (all){{end}}{{if .Grew}}, grew during the run{{end}}</td><td>{{.ParamsCovered}} of {{.ParamCount}}</td><td>{{.PairsCovered}} of {{.Pairs}}{{if .PairsShould}} ({{.PairsShould}} only where docs/behaviour.md decides){{end}}</td><td>{{.ClassesCovered}} of {{.ClassCount}}</td><td>{{range $i, $u := .Uncovered}}{{if $i}}<br>{{end}}<code>{{$u.What}}</code>: {{$u.Reason}}{{else}}none{{end}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
{{- range .Model}}{{if not .Error}}
<details><summary>{{.Listing}}: the queries each parameter appeared in, and its value classes drawn</summary>
<p>{{range $i, $p := .Params}}{{if $i}}, {{end}}<code>{{$p}}</code>{{end}}</p>
<table>
<thead><tr><th>parameter</th><th>value classes (queries each)</th></tr></thead>
<tbody>
{{- range .Classes}}
<tr><td><code>{{.Param}}</code></td><td>{{.Classes}}</td></tr>
{{- end}}
</tbody>
</table>
</details>
{{- end}}{{end}}
{{- range .Model}}{{if .Findings}}
<h3>{{.Listing}}: findings ({{len .Findings}}: the rules one query's answer breaks are one finding)</h3>
<table>
<thead><tr><th>level</th><th>query, and how to ask it</th><th>rules broken (aspect)</th><th>the spec's clause, what differed</th><th>shown by</th></tr></thead>
<tbody>
{{- range .Findings}}
<tr><td>{{.Level}}</td><td><code>{{.Query}}</code><br><code>{{.Curl}}</code></td><td>{{range $i, $r := .Rules}}{{if $i}}<br>{{end}}<span class="id">{{$r.Rule}}</span> {{$r.Aspect}}{{end}}</td><td>{{with .Clause}}{{.}}<br>{{end}}{{(index .Rules 0).Detail}}{{with .SideBySide}}<pre>{{.}}</pre>{{end}}</td><td>{{len .Found}} generated {{if eq (len .Found) 1}}query{{else}}queries{{end}}</td></tr>
{{- end}}
</tbody>
</table>
{{- end}}{{if .Failures}}
<h3>{{.Listing}}: answers that differed from the model</h3>
<table>
<thead><tr><th>rule</th><th>level</th><th>query (shrunk)</th><th>first query, and where it came from</th><th>what differed</th></tr></thead>
<tbody>
{{- range .Failures}}
<tr><td class="id">{{.Rule}}</td><td>{{.Level}}</td><td><code>{{if .Shrunk}}{{.Shrunk}}{{else}}{{.Query}}{{end}}</code><br><code>{{.Curl}}</code></td><td><code>{{.Query}}</code>{{if .Source}}<br><span class="muted">{{.Source}}</span>{{end}}</td><td>{{.Detail}}</td></tr>
{{- end}}
</tbody>
</table>
{{- end}}{{end}}
{{- end}}

<h2 id="all">Every rule that ran ({{len .Ran}})</h2>
<details><summary>Show the {{len .Ran}} rules{{if .Counts.NotRun}} ({{.Counts.NotRun}} more were left out by the label filter){{end}}</summary>
<table class="ran">
<thead><tr><th>rule</th><th>level</th><th>state</th><th>cases</th><th>duration</th><th>listing / area: rule text</th></tr></thead>
<tbody>
{{- range .Ran}}
<tr><td class="id">{{if eq .State "passed"}}{{.ID}}{{else}}<a href="#{{.Anchor}}">{{.ID}}</a>{{end}}</td><td>{{.Level}}</td><td class="state {{.State}}">{{.State}}</td><td>{{.Cases}}</td><td>{{.Duration}}</td><td>{{.Listing}} / {{.Area}}: {{.Text}}</td></tr>
{{- end}}
</tbody>
</table>
</details>
</main>
</body>
</html>
{{define "cell"}}
{{- if .Empty}}<td class="empty"></td>
{{- else}}<td class="{{.Class}}" title="{{.Title}}"><div class="n">{{.Counts.Passed}} / {{.Counts.Failed}} / {{.Counts.Skipped}} / {{.Counts.Waived}}</div>
{{- if .Failed}}<div class="links">{{range .Failed}}<a href="#{{.Anchor}}">{{.ID}}</a>{{end}}{{if .More}}<a href="#failures">+{{.More}} more</a>{{end}}</div>{{end -}}
</td>{{end}}
{{- end}}
{{define "total"}}<td class="total {{.Class}}" title="{{.Title}}"><div class="n">{{.Counts.Passed}} / {{.Counts.Failed}} / {{.Counts.Skipped}} / {{.Counts.Waived}}</div></td>{{end}}
{{define "rule"}}
<header><h3 class="id">{{.ID}}</h3><span class="badge {{if .Strict}}should{{else}}must{{end}}">{{.Level}}</span><span class="where">{{.Listing}} / {{.Area}}</span></header>
<p>{{.Text}}</p>
{{- if .Cite}}
<p class="cite">{{.Cite}}</p>
{{- end}}
{{- if .Want}}
<p><span class="label">The rule wants:</span> {{.Want}}</p>
{{- end}}
{{- end}}
`
