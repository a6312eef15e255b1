package modelrules

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"

	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/config"
	"github.com/chaindata/harness/conformance/model"
	"github.com/chaindata/harness/conformance/report"
	"github.com/chaindata/harness/conformance/rule"
)

// The observed rules judge the run's traffic: every answer of a listing
// that any rule asked (hand-written rules, the model's walks and generated
// queries, shrinking, the growth walks), read once by the run's observer
// (model.Observer). They are declared after every other rule and run last.

// Texts of the observed rules.
const (
	rewriteRuleText = "serves the same content for a row in every answer"
	headRuleText    = "answers a page from the newest end from a head no older than an answer before it: no lagging replica or cache"
	heightRuleText  = "answers with an X-Block-Height no lower than an answer before it: no lagging replica or cache"
)

// citeRecord is the spec text the rewrite rule rests on: an edge's node is
// the record, whichever answer carries it.
var citeRecord = rule.Must("2.1", "Edge (object): cursor (string, usable to fetch further pages) and node (object, the record)")

// ObservedAreas are the areas whose rules read the observer's findings: a
// run whose label filter selects none of their rules observes nothing.
var ObservedAreas = []string{"model", "relations"}

// run is the run's observer and what it needs to name answers.
var run struct {
	mu       sync.Mutex
	observer *model.Observer
	cfg      config.Config
}

// StartObserving gives the run an observer of every answer of a listing,
// when the label filter selects a rule that reads it (see ObservedAreas):
// conformance calls it with the run's configuration set, before any rule.
// relations, when set, judges every answer (the relation checks).
func StartObserving(labelFilter string, relations model.AnswerCheck) {
	run.mu.Lock()
	defer run.mu.Unlock()
	run.observer, run.cfg = nil, rule.ActiveConfig()
	if !observerSelected(labelFilter) {
		return
	}
	o := model.NewObserver(model.ObserverOptions{Relations: relations})
	run.observer = o
	cfg := run.cfg
	client.Current().SetObserver(func(ex *client.Exchange) { observe(cfg, o, ex) })
}

// observerSelected reports whether the label filter selects a rule of an
// area that reads the observer.
func observerSelected(filter string) bool {
	for _, e := range rule.Registry().Entries {
		if !e.Retired && slices.Contains(ObservedAreas, e.Area) && rule.Selected([]string{e.Scope, e.Area, e.ID}, filter) {
			return true
		}
	}
	return false
}

// runObserver returns the run's observer, nil when none observes.
func runObserver() *model.Observer {
	run.mu.Lock()
	defer run.mu.Unlock()
	return run.observer
}

// listingOf returns the listing an exchange asked, if any.
func listingOf(cfg config.Config, ex *client.Exchange) (model.Listing, bool) {
	if ex.Method != http.MethodGet {
		return 0, false
	}
	for _, l := range modelListings {
		base := cfg.BaseURL
		if l == model.Transactions {
			base = cfg.TransactionsURL
		}
		if ex.Path == l.Path() && strings.HasPrefix(ex.URL, base+l.Path()) {
			return l, true
		}
	}
	return 0, false
}

// decoded is what the observer leaves in an exchange: its answer read as a
// page of its listing.
type decoded struct {
	l    model.Listing
	page *model.Page
	err  error
}

// observe hands one exchange to the observer and leaves its reading in it.
func observe(cfg config.Config, o *model.Observer, ex *client.Exchange) {
	l, ok := listingOf(cfg, ex)
	if !ok || ex.Refused || ex.Err != nil {
		return
	}
	u, err := url.Parse(ex.URL)
	if err != nil {
		return
	}
	p, err := o.Observe(&model.Answer{Listing: l, URL: ex.URL, Query: u.Query(), Status: ex.Status, Header: ex.Header,
		Body: ex.Body, Sent: ex.Sent, Received: ex.Received})
	if p != nil || err != nil {
		ex.Decoded = decoded{l: l, page: p, err: err}
	}
}

// pageOf reads an exchange's answer as a page of the listing: the
// observer's reading when it made one, else afresh.
func pageOf(l model.Listing, ex *client.Exchange) (*model.Page, error) {
	if d, ok := ex.Decoded.(decoded); ok && d.l == l {
		return d.page, d.err
	}
	return model.Decode(l, ex.Status, ex.Body)
}

// describeObserved declares the observed rules of a listing, in a
// container of their own that runs after every other rule.
func describeObserved(l model.Listing) bool {
	return rule.Scope(l.String(), SpecPriority(-1), func() {
		rule.Area("model", func() {
			rule.Define(rewriteRuleText, citeRecord, func() { judgeRewrites(l) })
			if l != model.Parameters {
				cite := rule.CiteNewest
				if l == model.Transactions {
					cite = rule.CiteTxFirst
				}
				rule.Define(headRuleText, cite, func() { judgeHeads(l, false) })
			}
			if l != model.Transactions {
				// docs/behaviour.md: the data-node listings carry
				// X-Block-Height (the explorer's transactions do not).
				rule.Define(heightRuleText, rule.Should, func() { judgeHeads(l, true) })
			}
		})
	})
}

// observedFailure is one finding of an observed rule, structured: the
// answer blamed (its query and URL), the answer it was held to, and what
// differs.
type observedFailure struct {
	Query     url.Values
	URL       string
	Reference string
	Detail    string
}

// curlOf is the curl line that repeats a GET of a URL with the run's
// configured headers (their values redacted).
func curlOf(cfg config.Config, u string) string {
	var names []string
	for _, h := range cfg.Headers {
		name, _, _ := strings.Cut(h, ":")
		names = append(names, strings.TrimSpace(name))
	}
	return (&client.Exchange{Method: http.MethodGet, URL: u, Headers: names}).Curl()
}

func queryOf(u string) url.Values {
	p, err := url.Parse(u)
	if err != nil {
		return url.Values{}
	}
	return p.Query()
}

// reportObserved adds an observed rule's failures to its verdict and to
// the listing's model report.
func reportObserved(v *rule.Verdict, l model.Listing, aspect string, lvl model.Level, fs []observedFailure, more int) {
	cfg := run.cfg
	id := rule.ID(CurrentSpecReport().Labels())
	var failures []report.ModelFailure
	for _, f := range fs {
		v.Add(nil, "query %s: %s\n  asked: %s\n  after: %s", model.Describe(f.Query), f.Detail, curlOf(cfg, f.URL), curlOf(cfg, f.Reference))
		failures = append(failures, report.ModelFailure{Rule: id, Aspect: aspect, Level: lvl.String(),
			Query: model.Describe(f.Query), Curl: curlOf(cfg, f.URL), Detail: f.Detail + " (the answer it is held to: " + f.Reference + ")"})
	}
	if more > 0 {
		v.Add(nil, "and %d more", more)
	}
	addModelFailures(l.String(), failures)
	entry := report.ModelReport{Listing: l.String(), Seed: cfg.Seed}
	for _, r := range CurrentModelReports() {
		if r.Listing == l.String() {
			entry = r
		}
	}
	entry.Failures = failures
	AddReportEntry(entryModel, entry, ReportEntryVisibilityNever)
}

// judgeRewrites reports the listing's rows served with other content than
// before.
func judgeRewrites(l model.Listing) {
	GinkgoHelper()
	o := runObserver()
	if o == nil {
		rule.Skipf("the run observed no answer")
	}
	v := rule.NewVerdict("every row served again has the content it had in the answer before (the first, or the first unfiltered)")
	rows, answers := o.Compared(l)
	v.Judged(rows)
	v.NoneBecause("no row of the listing came in two answers (%d answers read): select more of the listing's rules", answers)
	found, more := o.Rewrites(l)
	var fs []observedFailure
	for _, r := range found {
		fs = append(fs, observedFailure{Query: queryOf(r.Blamed), URL: r.Blamed, Reference: r.Reference,
			Detail: fmt.Sprintf("the row %s has other content than in an answer before: %s", r.Key, r.Detail)})
	}
	reportObserved(v, l, "content", model.Must, fs, more)
	v.Check()
}

// judgeHeads reports the listing's answers served from an older head than
// one before them: by newest row (a MUST rule), or by X-Block-Height.
func judgeHeads(l model.Listing, height bool) {
	GinkgoHelper()
	o := runObserver()
	if o == nil {
		rule.Skipf("the run observed no answer")
	}
	v := rule.NewVerdict("no answer asked %s or more after another came back is from an older head (a lagging replica or cache)", model.HeadGrace)
	found, more, checked := o.OlderHeads(l, height)
	v.Judged(checked)
	if height {
		v.NoneBecause("no answer of the listing carried an X-Block-Height")
	} else {
		v.NoneBecause("no unfiltered answer that must reach the listing's newest end was asked")
	}
	var fs []observedFailure
	for _, f := range found {
		fs = append(fs, observedFailure{Query: queryOf(f.Later), URL: f.Later, Reference: f.Earlier,
			Detail: fmt.Sprintf("served from an older head: a lagging replica or cache: %s, asked at %s, after an answer with %s came back at %s",
				f.Now, f.Asked.Format("15:04:05.000"), f.Was, f.Back.Format("15:04:05.000"))})
	}
	aspect, lvl := "head", model.Must
	if height {
		aspect, lvl = "height", model.Should
	}
	reportObserved(v, l, aspect, lvl, fs, more)
	v.Check()
}
