package modelrules

import (
	"context"
	"errors"
	"fmt"
	"maps"
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

// The model rules judge every answer to a set of generated queries against
// a model of the deployment's own data (package model): one rule for each
// aspect of an answer and each level, per listing.

// modelListings pairs the model's listings with the suite's.
var modelListings = []model.Listing{model.Games, model.Snapshots, model.Rotations, model.Parameters, model.Transactions}

// DeclareModelRules declares the model rules of every listing, then the
// growth rules of the listings that grow (see conformance's declareSuite).
func DeclareModelRules() {
	for _, l := range modelListings {
		describeModel(l)
	}
	for _, l := range []model.Listing{model.Games, model.Snapshots, model.Rotations, model.Transactions} {
		describeGrowth(l)
	}
	for _, l := range modelListings {
		describeObserved(l)
	}
}

// maxModelProblems bounds the differences kept per rule; maxShrunk how
// many of them are shrunk.
const (
	maxModelProblems = 20
	maxShrunk        = 3
)

// modelRuleText is the text of the rule judging an aspect at a level.
func modelRuleText(l model.Listing, a model.Aspect, lvl model.Level) string {
	which := "every generated query the spec decides"
	if lvl == model.Should {
		which = "every generated query docs/behaviour.md decides"
	}
	switch a {
	case model.AspectStatus:
		if lvl == model.Should {
			return "answers the queries docs/behaviour.md reads (spellings, defaults, refusals) as it says, judged by the model"
		}
		return "answers 200 to every generated query the spec defines and refuses the combinations it forbids, judged by the model"
	case model.AspectRows:
		return "answers " + which + " with the rows the model selects, in the listing's order"
	case model.AspectSize:
		return "answers " + which + " with as many rows as the model selects"
	case model.AspectTies:
		if l == model.Parameters {
			return "orders network parameters by key, A to Z, whatever newestFirst says, judged by the model"
		}
		return "orders rows that share their primary key by the secondary key, judged by the model"
	case model.AspectNext:
		return "sets hasNextPage as the model says for " + which
	case model.AspectPrev:
		return "sets hasPreviousPage as the model says for " + which
	case model.AspectCursors:
		if lvl == model.Should {
			return "gives each row the same cursor in every answer, judged by the model"
		}
		return "sets startCursor and endCursor to the first and last edges' cursors for " + which
	}
	return string(a)
}

// modelCite is the spec text a MUST model rule rests on.
func modelCite(l model.Listing, a model.Aspect) rule.Level {
	switch {
	case a == model.AspectNext || a == model.AspectPrev:
		return rule.CitePageInfo
	case a == model.AspectCursors:
		return rule.CiteCursors
	case l == model.Transactions && a == model.AspectStatus:
		return rule.CiteTxFirst
	case l == model.Transactions:
		return rule.CiteTxOrder
	case a == model.AspectStatus:
		return rule.CiteJSON
	case l == model.Games:
		return rule.CiteEpochLimit
	}
	return rule.CiteForward
}

// modelKey names one rule: an aspect at a level.
type modelKey struct {
	a   model.Aspect
	lvl model.Level
}

// modelProblem is one answer that differed from the model; source says
// where its query came from (model.Query.Provenance).
type modelProblem struct {
	q, shrunk url.Values
	d         model.Difference
	ex        *client.Exchange
	// first is the answer read (nil when it could not be), to set beside
	// the answer to the same query asked again (again); repeat says how
	// the two compare.
	first  *model.Page
	again  *client.Exchange
	repeat repeat
	// check, for a problem the model's walks found, judges an answer for
	// it in place of the oracle (the model does not hold what the answer
	// should be); nil when the oracle judges.
	check func(url.Values, *model.Page) (model.Difference, bool)
	// walk is set on a problem the model's walks found.
	walk bool
	// side sets the rows the model expects beside those the answer gave,
	// when they differ (model.SideBySideOf).
	side string
	// source says where the query came from (model.Query.Provenance).
	source string
}

// repeat is how a query that differed from the model answered when it was
// asked again, before it was reported.
type repeat int

// The ways a query asked again answers.
const (
	notRepeated repeat = iota
	// repeatedSame: the same answer (a deterministic failure).
	repeatedSame
	// repeatedOtherwise: another answer, or none (a flaky one).
	repeatedOtherwise
)

// String says how the query answered when asked again, for a message.
func (r repeat) String() string {
	switch r {
	case repeatedSame:
		return "asked twice: the same answer"
	case repeatedOtherwise:
		return "asked twice: answered differently"
	}
	return ""
}

// modelTally is what one rule found over every answer.
type modelTally struct {
	cases    int
	problems []modelProblem
	more     int
}

// modelState is what the model rules of one listing share.
type modelState struct {
	l       model.Listing
	cfg     config.Config
	c       *client.Client
	m       *model.Model
	err     error
	errEx   *client.Exchange
	grew    bool
	queries []model.Query
	tally   map[modelKey]*modelTally
	// coverage is what the listing's report says, without failures.
	coverage report.ModelReport
	// recent are the exchanges of the model's walks, by query, while it
	// is built: the last few, for the problems the walks find.
	recentMu sync.Mutex
	recent   []recentAnswer
}

// recentAnswer is an exchange of the model's walks and its answer read.
type recentAnswer struct {
	ex   *client.Exchange
	page *model.Page
}

// entryModel is the report entry of a model rule: its listing's coverage
// and its own failures (a ModelReport).
const entryModel = "model"

func describeModel(l model.Listing) bool {
	return rule.Scope(l.String(), Ordered, ContinueOnFailure, func() {
		st := &modelState{l: l}
		BeforeAll(st.setUp)
		rule.Area("model", func() {
			for _, a := range l.Aspects() {
				for _, lvl := range []model.Level{model.Must, model.Should} {
					if a == model.AspectTies && lvl == model.Must {
						continue // the order of ties is behaviour.md's
					}
					decl := rule.Should
					if lvl == model.Must {
						decl = modelCite(l, a)
					}
					rule.Define(modelRuleText(l, a, lvl), decl, func() { st.judge(modelKey{a, lvl}) })
				}
			}
		})
	})
}

// describeGrowth declares a listing's growth rule, in a container of its
// own: selecting it alone does not build the model.
func describeGrowth(l model.Listing) bool {
	return rule.Scope(l.String(), func() {
		rule.Area("growth", func() {
			cite := rule.CiteForward
			if l == model.Transactions {
				cite = rule.CiteTxLast
			}
			rule.Define(growthRuleText, cite, func() { judgeGrowth(l) })
			if l != model.Transactions {
				rule.Define(growthFlagsRuleText, rule.CitePageInfo, func() { judgeGrowthFlags(l) })
			}
		})
	})
}

// base is the URL the listing lives under.
func (st *modelState) base() string {
	if st.l == model.Transactions {
		return st.cfg.TransactionsURL
	}
	return st.cfg.BaseURL
}

// fetch asks the deployment, without remembering the answer for the schema
// rules (the model rules ask many queries; the bodies are not kept).
func (st *modelState) fetch(q url.Values) *client.Exchange {
	return st.c.Fetch(http.MethodGet, st.base(), st.l.Path(), q)
}

// modelPages asks for the model's walks, reading each answer once (the
// observer's reading when it made one), and keeps the last few exchanges
// for the problems the walks find.
func (st *modelState) modelPages(_ context.Context, l model.Listing, q url.Values) (int, *model.Page, error, error) {
	ex := st.fetch(q)
	if ex.Refused {
		st.errEx = ex
	}
	if ex.Err != nil {
		return 0, nil, nil, ex.Err
	}
	p, err := pageOf(l, ex)
	st.recentMu.Lock()
	st.recent = append(st.recent, recentAnswer{trimmed(ex), p})
	if len(st.recent) > maxRecent {
		st.recent = st.recent[len(st.recent)-maxRecent:]
	}
	st.recentMu.Unlock()
	return ex.Status, p, err, nil
}

// maxRecent is how many exchanges of the model's walks are kept for their
// problems: a problem is of the page just read or the one before it.
const maxRecent = 8

// recentOf returns the recent answer of the model's walks to q.
func (st *modelState) recentOf(q url.Values) (recentAnswer, bool) {
	st.recentMu.Lock()
	defer st.recentMu.Unlock()
	want := st.base() + st.l.Path()
	if enc := q.Encode(); enc != "" {
		want += "?" + enc
	}
	for i := len(st.recent) - 1; i >= 0; i-- {
		if st.recent[i].ex.URL == want {
			return st.recent[i], true
		}
	}
	return recentAnswer{}, false
}

// walkProblem takes a problem the model's walks found as a failure of its
// rule, with the exchange that showed it.
func (st *modelState) walkProblem(p model.Problem) {
	r, ok := st.recentOf(p.Query)
	if !ok {
		r.ex = &client.Exchange{Method: http.MethodGet, URL: st.base() + st.l.Path() + "?" + p.Query.Encode()}
	}
	k := modelKey{p.Difference.Aspect, p.Difference.Level}
	st.at(k).cases++
	st.add(k, modelProblem{q: p.Query, d: p.Difference, ex: r.ex, first: r.page, check: p.Check, walk: true})
}

// setUp builds the model, asks every generated query, and judges every
// answer; the rules then report what was found.
func (st *modelState) setUp() {
	st.cfg = rule.ActiveConfig()
	st.c = client.NewClient(st.cfg)
	st.tally = map[modelKey]*modelTally{}
	startGrowthWalks()
	ctx := client.Current().Ctx
	st.m, st.err = model.Build(ctx, nil, st.l, model.Options{MaxRows: st.cfg.MaxRows, PageSize: st.cfg.PageSize,
		Pages: st.modelPages, Problem: st.walkProblem})
	st.recent = nil
	mr := &report.ModelReport{Listing: st.l.String(), Seed: st.cfg.Seed}
	defer func() { setModelReport(mr) }()
	if st.err != nil {
		mr.Error = st.err.Error()
		return
	}
	// The examples of earlier runs and the core first; then, from their
	// answers, the cursors of filtered answers, and the random tail.
	plan := model.NewPlan(st.m, st.cfg.Seed, st.cfg.Queries, examplesOf(st.l))
	first := plan.First()
	answers := st.askAll(first)
	then := plan.Then(st.decoded(first, answers))
	st.queries = append(first, then...)
	answers = append(answers, st.askAll(then)...)
	st.grew, _ = model.GrewPage(ctx, st.modelPages, st.m)
	newest, held := st.m.Newest()
	for i, q := range st.queries {
		st.judgeAnswer(q, answers[i], newest, held)
	}
	st.askAgain()
	st.shrinkProblems()
	defer func() { st.coverage = *mr }()
	*mr = report.ModelReport{
		Listing: st.l.String(), Seed: st.cfg.Seed, Queries: len(st.queries), Rows: len(st.m.Rows()),
		Whole: st.m.Whole(), Grew: st.grew,
	}
	coverageReport(mr, plan.Coverage())
}

// askAll asks the queries, Concurrency at a time, and returns the answers
// in their order.
func (st *modelState) askAll(qs []model.Query) []*client.Exchange {
	answers := make([]*client.Exchange, len(qs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(st.cfg.Concurrency, len(qs)) {
		wg.Go(func() {
			for i := range next {
				answers[i] = st.fetch(qs[i].Values)
			}
		})
	}
	for i := range qs {
		next <- i
	}
	close(next)
	wg.Wait()
	return answers
}

// decoded pairs each query with its answer, read (nil when it was not a
// 200 that could be read).
func (st *modelState) decoded(qs []model.Query, answers []*client.Exchange) []model.PlanAnswer {
	out := make([]model.PlanAnswer, len(qs))
	for i, q := range qs {
		out[i].Query = q.Values
		if ex := answers[i]; ex.Err == nil && !ex.Refused && ex.Status == 200 {
			out[i].Page, _ = model.Decode(st.l, ex.Status, ex.Body)
		}
	}
	return out
}

// judgeAnswer compares one answer with the oracle and tallies it.
func (st *modelState) judgeAnswer(gq model.Query, ex *client.Exchange, newest model.Key, held bool) {
	if ex.Err != nil || ex.Refused {
		return
	}
	q := gq.Values
	want := st.m.Expect(q)
	got, err := pageOf(st.l, ex)
	if err != nil {
		st.add(modelKey{model.AspectRows, want.Level}, modelProblem{q: q, ex: ex, source: gq.Provenance(),
			d: model.Difference{Aspect: model.AspectRows, Level: want.Level, Detail: "the answer cannot be read: " + err.Error()}})
		return
	}
	var pin *model.Key
	if held {
		pin = &newest
	}
	j := model.Compare(st.l, want, got, pin, st.grew)
	for _, a := range j.Aspects {
		st.at(modelKey{a.Aspect, a.Level}).cases++
	}
	side := ""
	for _, d := range j.Differences {
		if side == "" && (d.Aspect == model.AspectRows || d.Aspect == model.AspectSize) {
			side = model.SideBySideOf(want, got, pin, sideLines)
		}
		st.add(modelKey{d.Aspect, d.Level}, modelProblem{q: q, d: d, ex: trimmed(ex), first: got, source: gq.Provenance(), side: side})
	}
}

// askAgain asks each query of a problem kept for a report once more, before
// it is reported, and says whether it answered the same (a deterministic
// failure) or otherwise (a flaky one): both stay failures.
func (st *modelState) askAgain() {
	byQuery := map[string][]*modelProblem{}
	for _, t := range st.tally {
		for i := range t.problems {
			p := &t.problems[i]
			k := model.Canonical(p.q)
			byQuery[k] = append(byQuery[k], p)
		}
	}
	keys := slices.Sorted(maps.Keys(byQuery))
	again := make([]*client.Exchange, len(keys))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(st.cfg.Concurrency, len(keys)) {
		wg.Go(func() {
			for i := range next {
				again[i] = st.fetch(byQuery[keys[i]][0].q)
			}
		})
	}
	for i := range keys {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, k := range keys {
		ex := again[i]
		if ex.Refused {
			continue // the deployment refused it: the first answer stands alone
		}
		for _, p := range byQuery[k] {
			p.again, p.repeat = trimmed(ex), repeatedOtherwise
			if ex.Err != nil {
				continue
			}
			second, err := pageOf(st.l, ex)
			switch {
			case p.first == nil && err != nil && ex.Status == p.ex.Status,
				p.first != nil && err == nil && model.SameAnswer(p.first, second):
				p.repeat = repeatedSame
			}
		}
	}
}

func (st *modelState) at(k modelKey) *modelTally {
	t, ok := st.tally[k]
	if !ok {
		t = &modelTally{}
		st.tally[k] = t
	}
	return t
}

func (st *modelState) add(k modelKey, p modelProblem) {
	t := st.at(k)
	if len(t.problems) >= maxModelProblems {
		t.more++
		return
	}
	t.problems = append(t.problems, p)
}

// trimmed keeps an exchange for a message without its whole body (nor
// the observer's reading of it).
func trimmed(ex *client.Exchange) *client.Exchange {
	c := *ex
	c.Body, c.Decoded = c.Body[:min(len(c.Body), 4096)], nil
	return &c
}

// shrinkProblems shrinks the first problems of each rule (maxShrunk a
// rule), one failing query at a time: the problems of every rule that one
// query's answer showed are one failure, shrunk once, by its primary
// aspect, to the smallest query and simplest values that still differ in
// it (model.ShrinkWith with the model's simpler values); every rule whose
// aspect the shrunk query's answer still shows then reports that query, so
// that the rules one cause breaks name one query (a finding). A problem
// the model's walks found is shrunk alone, by its own check.
func (st *modelState) shrinkProblems() {
	newest, held := st.m.Newest()
	var pin *model.Key
	if held {
		pin = &newest
	}
	type failure struct {
		q        url.Values
		problems []*modelProblem
	}
	var fails []*failure
	byQuery := map[string]*failure{}
	for _, k := range st.sortedKeys() {
		t := st.tally[k]
		for i := range t.problems[:min(len(t.problems), maxShrunk)] {
			p := &t.problems[i]
			if p.check != nil {
				st.shrinkWalkProblem(p)
				continue
			}
			key := model.Canonical(p.q)
			f := byQuery[key]
			if f == nil {
				f = &failure{q: p.q}
				byQuery[key] = f
				fails = append(fails, f)
			}
			f.problems = append(f.problems, p)
		}
	}
	for _, f := range fails {
		mf := model.Failure{Query: f.q}
		for _, p := range f.problems {
			mf.Differences = append(mf.Differences, p.d)
		}
		primary := mf.Primary()
		var last *client.Exchange
		var lastPage *model.Page
		shrunk, _ := model.ShrinkWith(f.q, primary, func(q url.Values) (model.Difference, bool) {
			ex := st.fetch(q)
			if ex.Err != nil || ex.Refused {
				return model.Difference{}, false
			}
			got, err := pageOf(st.l, ex)
			if err != nil {
				return model.Difference{}, false
			}
			for _, d := range model.Compare(st.l, st.m.Expect(q), got, pin, st.grew).Differences {
				if d.Aspect == primary.Aspect && d.Level == primary.Level {
					last, lastPage = ex, got
					return d, true
				}
			}
			return model.Difference{}, false
		}, st.m.Simpler)
		if last == nil || model.Canonical(shrunk) == model.Canonical(f.q) {
			continue
		}
		want := st.m.Expect(shrunk)
		diffs := model.Compare(st.l, want, lastPage, pin, st.grew).Differences
		side := model.SideBySideOf(want, lastPage, pin, sideLines)
		for _, p := range f.problems {
			for _, d := range diffs {
				if d.Aspect == p.d.Aspect && d.Level == p.d.Level {
					p.shrunk, p.d, p.ex, p.side = shrunk, d, trimmed(last), side
					break
				}
			}
		}
	}
}

// shrinkWalkProblem shrinks a problem the model's walks found, judged by
// its own check.
func (st *modelState) shrinkWalkProblem(p *modelProblem) {
	var last *client.Exchange
	shrunk, d := model.Shrink(p.q, p.d, func(q url.Values) (model.Difference, bool) {
		ex := st.fetch(q)
		if ex.Err != nil || ex.Refused {
			return model.Difference{}, false
		}
		got, err := pageOf(st.l, ex)
		if err != nil {
			return model.Difference{}, false
		}
		d, ok := p.check(q, got)
		if ok {
			last = ex
		}
		return d, ok
	})
	if model.Canonical(shrunk) != model.Canonical(p.q) && last != nil {
		p.shrunk, p.d, p.ex = shrunk, d, trimmed(last)
	}
}

// sortedKeys returns the keys of the rules that found problems, in the
// order an answer is read (model.Failure's), MUST before SHOULD: so that
// which problems are shrunk does not depend on a map's order.
func (st *modelState) sortedKeys() []modelKey {
	keys := slices.Collect(maps.Keys(st.tally))
	slices.SortFunc(keys, func(a, b modelKey) int {
		if a.lvl != b.lvl {
			return int(a.lvl) - int(b.lvl)
		}
		return model.AspectRank(a.a) - model.AspectRank(b.a)
	})
	return keys
}

// sideLines is how many places a side-by-side page shows.
const sideLines = 12

// judge reports one rule: the answers it judged and those that differed.
func (st *modelState) judge(k modelKey) {
	GinkgoHelper()
	v := rule.NewVerdict("%s", modelRuleText(st.l, k.a, k.lvl))
	if st.err != nil {
		if st.errEx != nil {
			rule.SkipRefused(st.errEx)
		}
		if errors.Is(st.err, model.ErrNotShown) {
			rule.Skipf("the model of the listing cannot be built: %v", st.err)
		}
		if k.a == model.AspectRows && k.lvl == model.Must {
			AddReportEntry(entryModel, report.ModelReport{Listing: st.l.String(), Seed: st.cfg.Seed, Error: st.err.Error()}, ReportEntryVisibilityNever)
			v.Judged(1)
			v.Add(nil, "the model of the listing could not be built from the deployment's answers: %v", st.err)
			v.Check()
		}
		rule.Skipf("the model of the listing could not be built (see the rule %q): %v", modelRuleText(st.l, model.AspectRows, model.Must), st.err)
	}
	t := st.at(k)
	v.Judged(t.cases)
	v.NoneBecause("no generated query's answer could be judged in this aspect at this level (seed %d, %d queries)", st.cfg.Seed, len(st.queries))
	id := rule.ID(CurrentSpecReport().Labels())
	var failures []report.ModelFailure
	for _, p := range t.problems {
		q := p.q
		from := ""
		if p.shrunk != nil {
			q = p.shrunk
			from = fmt.Sprintf(" (shrunk from %s)", model.Describe(p.q))
		}
		again := ""
		if p.repeat != notRepeated {
			again = " (" + p.repeat.String() + ")"
		}
		clause := citeClauses(model.Clauses(st.l, k.a, q))
		msg := fmt.Sprintf("query %s%s: %s%s", model.Describe(q), from, p.d.Detail, again)
		if clause != "" {
			msg += "\n  breaks " + clause
		}
		if p.side != "" {
			msg += "\n" + indent(strings.TrimRight(p.side, "\n"), "  ")
		}
		v.Add(p.ex, "%s", msg)
		failures = append(failures, report.ModelFailure{Rule: id, Aspect: string(k.a), Level: k.lvl.String(),
			Query: model.Describe(p.q), Shrunk: describeOrEmpty(p.shrunk), Encoded: p.q.Encode(), ShrunkEncoded: encodeOrEmpty(p.shrunk),
			Source: p.source, Curl: p.ex.Curl(), Detail: p.d.Detail, Repeated: p.repeat.String(),
			Clause: clause, SideBySide: p.side})
		found(st.l, id, st.cfg.Seed, q)
	}
	if t.more > 0 {
		v.Add(nil, "and %d more answers differed in this aspect", t.more)
	}
	addModelFailures(st.l.String(), failures)
	// The JSON report carries the listing's coverage and this rule's
	// failures with their shrunk queries.
	entry := st.coverage
	entry.Failures = failures
	AddReportEntry(entryModel, entry, ReportEntryVisibilityNever)
	v.Check()
}

// citeClauses names the spec's clauses an answer breaks, as a rule's
// citation does: §section: "quote", joined by "; ".
func citeClauses(cs []model.Clause) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = rule.Citation{Section: c.Section, Quote: c.Quote}.Clause()
	}
	return strings.Join(parts, "; ")
}

// indent puts prefix before each line of text.
func indent(text, prefix string) string {
	return prefix + strings.ReplaceAll(text, "\n", "\n"+prefix)
}

func encodeOrEmpty(q url.Values) string {
	if q == nil {
		return ""
	}
	return q.Encode()
}

func describeOrEmpty(q url.Values) string {
	if q == nil {
		return ""
	}
	return model.Describe(q)
}

// modelReports holds the run's model reports, by listing.
var modelReports struct {
	sync.Mutex
	byListing map[string]*report.ModelReport
}

// ResetModelReports forgets the model reports of the run before.
func ResetModelReports() {
	modelReports.Lock()
	defer modelReports.Unlock()
	modelReports.byListing = map[string]*report.ModelReport{}
}

func setModelReport(r *report.ModelReport) {
	modelReports.Lock()
	defer modelReports.Unlock()
	if modelReports.byListing == nil {
		modelReports.byListing = map[string]*report.ModelReport{}
	}
	if old, ok := modelReports.byListing[r.Listing]; ok {
		r.Failures = append(old.Failures, r.Failures...)
	}
	modelReports.byListing[r.Listing] = r
}

func addModelFailures(listing string, fs []report.ModelFailure) {
	modelReports.Lock()
	defer modelReports.Unlock()
	if r, ok := modelReports.byListing[listing]; ok {
		r.Failures = append(r.Failures, fs...)
	}
}

// CurrentModelReports returns the run's model reports in listing order.
func CurrentModelReports() []report.ModelReport {
	modelReports.Lock()
	defer modelReports.Unlock()
	var out []report.ModelReport
	for _, l := range rule.Listings {
		if r, ok := modelReports.byListing[l]; ok {
			c := *r
			c.Failures = slices.Clone(r.Failures)
			out = append(out, c)
		}
	}
	return out
}
