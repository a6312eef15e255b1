package modelrules

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"

	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/config"
	"github.com/chaindata/harness/conformance/model"
	"github.com/chaindata/harness/conformance/rule"
)

// The relation rules judge every row the run sees against the relations
// the spec fixes inside a record, between the records of an answer,
// between a record and its query, and in the units of its timestamps
// (model.RelationCatalogue): one rule per relation, in the scope of the
// listing whose rows it judges.

// relationScopes are the scopes of the relation rules, in catalogue order.
var relationScopes = []string{"games", "snapshots", "key-rotations", "network-parameters", "transactions", model.DeploymentScope}

// relations is the run's relation checks; ResetRelations starts them
// afresh for each run.
var relations struct {
	sync.Mutex
	r *model.Relations
}

// ResetRelations forgets the rows of the run before: the run's observer
// (StartObserving) then feeds its answers to fresh relation checks.
func ResetRelations() {
	relations.Lock()
	relations.r = model.NewRelations()
	relations.Unlock()
}

// CurrentRelations returns the run's relation checks.
func CurrentRelations() *model.Relations {
	relations.Lock()
	defer relations.Unlock()
	if relations.r == nil {
		relations.r = model.NewRelations()
	}
	return relations.r
}

// DeclareRelationRules declares the relation rules (see conformance's
// declareSuite). They judge the rows of every answer the run received, so
// they run after the other rules (a lower priority than theirs), each
// scope's after a small sample of its own, so that a rule selected alone
// still has rows to judge.
func DeclareRelationRules() {
	for _, scope := range relationScopes {
		rule.Scope(scope, Ordered, ContinueOnFailure, SpecPriority(-1), func() {
			BeforeAll(func() { sampleRelations(scope) })
			rule.Area("relations", func() {
				for _, r := range model.RelationCatalogue {
					if r.Scope != scope {
						continue
					}
					lvl := rule.Should
					if r.Level == model.Must {
						lvl = rule.Must(r.Section, r.Quote)
					}
					rule.Define(r.Text, lvl, func() { judgeRelation(r) })
				}
			})
		})
	}
}

// maxRelationProblems is how many violations a failed relation rule lists.
const maxRelationProblems = 10

// judgeRelation reports one relation over every row the run saw.
func judgeRelation(r model.Relation) {
	GinkgoHelper()
	v := rule.NewVerdict("%s", r.Text)
	relationVerdict(v, r, CurrentRelations(), configuredHeaders(rule.ActiveConfig()))
	v.Check()
}

// relationVerdict fills a relation rule's verdict with what the run's
// checks found: the cases judged, and each violation kept (at most
// maxRelationProblems, then how many more) with its row, what differs and
// the query whose answer held it.
func relationVerdict(v *rule.Verdict, r model.Relation, rels *model.Relations, headers []string) {
	cases, violations := rels.Results(r.Name)
	v.Judged(cases)
	which := "no row the run saw"
	if r.Accepted {
		which = "no accepted transaction (code 0) the run saw"
	}
	v.NoneBecause("%s gave this relation a case (%s)", which, r.Kind)
	more := rels.Omitted(r.Name)
	if len(violations) > maxRelationProblems {
		more += len(violations) - maxRelationProblems
		violations = violations[:maxRelationProblems]
	}
	for _, x := range violations {
		ex := &client.Exchange{Method: http.MethodGet, URL: x.URL, Headers: headers}
		v.Add(nil, "%s: %s\n  asked: %s", x.Key, x.Detail, ex.Curl())
	}
	if more > 0 {
		v.Add(nil, "and %d more rows break it", more)
	}
}

// configuredHeaders are the names of the run's configured headers, for the
// curl lines (their values are never shown).
func configuredHeaders(cfg config.Config) []string {
	var names []string
	for _, h := range cfg.Headers {
		name, _, _ := strings.Cut(h, ":")
		names = append(names, strings.TrimSpace(name))
	}
	return names
}

// sampleRelations asks a few queries of a scope's listing, each chosen so
// that a relation has rows to judge: the first page, and a query for each
// filter and epoch window, with values from that page. Their answers reach
// the relation checks as every answer does.
func sampleRelations(scope string) {
	cfg := rule.ActiveConfig()
	c := client.NewClient(cfg)
	n := strconv.Itoa(cfg.PageSize)
	get := func(l model.Listing, q url.Values) *model.ServedAnswer {
		base := cfg.BaseURL
		if l == model.Transactions {
			base = cfg.TransactionsURL
		}
		ex := c.Fetch(http.MethodGet, base, l.Path(), q)
		if ex.Err != nil || ex.Status != http.StatusOK {
			return nil
		}
		a, err := model.NewServedAnswer(l, ex.URL, ex.Header, ex.Body)
		if err != nil || len(a.Nodes) == 0 {
			return nil
		}
		return a
	}
	var first struct {
		Epoch      json.Number `json:"epoch"`
		ID         string      `json:"id"`
		NodeID     string      `json:"nodeId"`
		Type       string      `json:"type"`
		Submitter  string      `json:"submitter"`
		Individual *struct {
			Individual []struct {
				Individual string `json:"individual"`
			} `json:"individual"`
		} `json:"individual"`
		Team *struct {
			Team []struct {
				Team struct {
					TeamID string `json:"teamId"`
				} `json:"team"`
			} `json:"team"`
		} `json:"team"`
	}
	read := func(a *model.ServedAnswer) bool {
		return a != nil && json.Unmarshal(a.Nodes[0], &first) == nil
	}
	switch scope {
	case "games":
		if !read(get(model.Games, url.Values{"pagination.first": {n}})) {
			return
		}
		latest, _ := strconv.ParseUint(strings.Trim(first.Epoch.String(), `"`), 10, 64)
		epoch := func(back uint64) string { return strconv.FormatUint(latest-min(latest, back), 10) }
		// Each window's lower end oldest first, its upper end newest first.
		oldest := "false"
		get(model.Games, url.Values{"epochFrom": {epoch(12)}, "epochTo": {epoch(5)}, "pagination.first": {n}, "pagination.newestFirst": {oldest}})
		get(model.Games, url.Values{"epochFrom": {epoch(12)}, "epochTo": {epoch(5)}, "pagination.first": {n}})
		get(model.Games, url.Values{"epochFrom": {epoch(20)}, "pagination.first": {n}, "pagination.newestFirst": {oldest}})
		get(model.Games, url.Values{"epochTo": {epoch(3)}, "pagination.first": {n}})
		get(model.Games, url.Values{"epochTo": {epoch(3)}, "pagination.first": {n}, "pagination.newestFirst": {oldest}})
		get(model.Games, url.Values{"gameId": {first.ID}})
		for _, es := range []string{model.ScopeIndividuals, model.ScopeTeams} {
			if !read(get(model.Games, url.Values{"entityScope": {es}, "pagination.first": {"1"}})) {
				continue
			}
			if first.Team != nil && len(first.Team.Team) > 0 {
				get(model.Games, url.Values{"teamId": {first.Team.Team[0].Team.TeamID}, "pagination.first": {n}})
			}
			if first.Individual != nil && len(first.Individual.Individual) > 0 {
				get(model.Games, url.Values{"partyId": {first.Individual.Individual[0].Individual}, "pagination.first": {n}})
			}
		}
	case "snapshots":
		get(model.Snapshots, url.Values{"pagination.first": {n}})
	case "key-rotations":
		if read(get(model.Rotations, url.Values{"pagination.first": {n}})) {
			get(model.Rotations, url.Values{"nodeId": {first.NodeID}, "pagination.first": {n}})
		}
	case "network-parameters":
		get(model.Parameters, url.Values{"pagination.first": {n}})
	case "transactions":
		get(model.Transactions, url.Values{"last": {n}})
		if read(get(model.Transactions, url.Values{"first": {n}})) {
			get(model.Transactions, url.Values{"cmdTypes": {first.Type}, "first": {n}})
			get(model.Transactions, url.Values{"parties": {first.Submitter}, "first": {n}})
		}
	case model.DeploymentScope:
		get(model.Snapshots, url.Values{"pagination.first": {"1"}})
	}
}
