package selftest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/chaindata/harness/conformance/report"
	"github.com/chaindata/harness/mockserver"
	"github.com/chaindata/harness/mockserver/store"
)

// buildDefects are defects of what the model holds and how it reads the
// run's answers: a row served with other content, a lagging replica, ties
// whose order changes between pages (which breaks the model's own walk),
// an epoch window that drops a game (which must be blamed on the window's
// answers, never on the unfiltered ones the model is built from), page
// flags wrong only while the chain grows, answers that change when asked
// again, and answers wrong only deep inside a listing larger than the
// model holds.
func buildDefects() []defect {
	return []defect{
		{
			name: "stale-content-under-filters", listing: "games", area: "model",
			what:      "answers with a filter (partyId, teamId, entityScope) come from a stale cache: each game's participants is one lower than the listing's",
			rule:      "GAMES-MOD-016", // the same content for a row in every answer (MUST)
			judgesRun: true,
			wrap: rewrite(gamesPath, nil, func(q url.Values, a *answer) {
				if !filtered(q, "partyId", "teamId", "entityScope", "party_id", "team_id", "entity_scope") {
					return
				}
				eachNode(a, func(n map[string]any) {
					if p, err := strconv.Atoi(fmt.Sprint(n["participants"])); err == nil && p > 0 {
						n["participants"] = strconv.Itoa(p - 1)
					}
				})
			}),
		},
		{
			name: "lagging-replica", listing: "transactions", area: "model",
			what:      "two replicas of a live chain behind a balancer that sends each request to one at random, one 5 s behind the other",
			rule:      "TX-MOD-008", // a page from the newest end no older than an answer before it (MUST)
			judgesRun: true,
			start:     func(t *testing.T) *httptest.Server { return replicas(t, 100*time.Millisecond, 5*time.Second) },
			args:      []string{"--growth-wait", "1s"},
		},
		{
			name: "ties-turn-after-a-cursor", listing: "games", area: "model",
			what: "a page asked after a cursor sorts games of one epoch by id descending, the first page ascending (the keyset query's ORDER BY is not the first page's)",
			rule: "GAMES-MOD-003", // the rows the model selects (MUST): the model's own walk breaks
			wrap: tiesTurnAfterCursor(gamesPath),
		},
		{
			name: "window-drops-a-game", listing: "games", area: "model",
			what: "with epochFrom or epochTo given, the newest game of the latest epoch is left out",
			rule: "GAMES-MOD-003", // blamed on the windows' answers, never on the unfiltered ones
			wrap: windowDropsNewestGame(),
		},
		{
			name: "previous-false-oldest-first-while-growing", listing: "snapshots", area: "growth",
			what:  "while blocks arrive, pages asked oldest first after a cursor say hasPreviousPage false",
			rule:  "SNAP-GRO-002", // oldest-first pages asked while rows arrive set the flags the rows call for
			start: func(t *testing.T) *httptest.Server { return liveDefect(t, previousFalseWhileGrowing(snapshotsPath)) },
			args:  []string{"--growth-wait", "3s"},
		},
		{
			name: "last-pages-flaky", listing: "snapshots", area: "model",
			what:  "every other answer to the same query with pagination.last leaves out its first row",
			rule:  "SNAP-MOD-005", // as many rows as the model selects (MUST); reported as flaky
			wrap:  flakyLastPages(snapshotsPath),
			flaky: true,
		},
		{
			name: "deep-pages-short", listing: "snapshots", area: "model",
			what: "with a largest page of 200, pages asked after a snapshot deep inside the listing (its 150th to 850th newest) leave out their last row; the model holds 200 rows (--max-rows 200)",
			rule: "SNAP-MOD-005", // judged in the windows the model holds deep inside
			config: func(c *mockserver.Config) {
				c.MaxPageSize = 200
			},
			wrap: deepPagesShort(snapshotsPath, 150, 850),
			args: []string{"--max-rows", "200"},
		},
	}
}

// filtered reports whether a query gives any of the parameters.
func filtered(q url.Values, names ...string) bool {
	return slices.ContainsFunc(names, q.Has)
}

// run runs the suite against the defect at url, selecting the rules its
// scope names, with its flags and extra: in a worker, or for a server the
// clock paces (start), through harness conform in a subprocess.
func (d defect) run(t *testing.T, baseURL string, extra ...string) result {
	t.Helper()
	args := append(append([]string{"--label-filter", d.scope()}, d.args...), extra...)
	if d.start != nil {
		return conformBinary(t, baseURL, args...)
	}
	return conform(t, baseURL, args...)
}

// liveHandler is the default mock with its own store and a live chain adding
// a block every interval since genesis, running until the test ends.
func liveHandler(t *testing.T, interval time.Duration, genesis time.Time) http.Handler {
	t.Helper()
	w, err := defaultWorld()
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.New(w)
	if err != nil {
		t.Fatal(err)
	}
	chain, err := store.NewChain(st, w, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- chain.Run(ctx, interval, genesis) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return mockserver.New(mockserver.Config{Chain: chain}, st)
}

// blameTargets holds, by server URL, the two handlers a defect's blame is
// checked against: the clean one and the defective one, asked at once.
var blameTargets sync.Map

// blamePair are the clean and the defective handler of a server; served,
// when set, holds the requests the defective one answered during the run
// (a replica's answers change with time: one it served is one the defect
// changed).
type blamePair struct {
	clean, defective http.Handler
	served           *sync.Map
}

// replicas starts two replicas of a live chain, the second lag behind the
// first (its genesis lag later), behind a balancer that sends each request
// to one of them at random (from a fixed seed). It records the requests the
// second served, for the blame check: an answer of the lagging replica is
// one the defect changed when it was asked, whatever it is later.
func replicas(t *testing.T, interval, lag time.Duration) *httptest.Server {
	t.Helper()
	now := time.Now()
	a, b := liveHandler(t, interval, now), liveHandler(t, interval, now.Add(lag))
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(1, 2))
	served := &sync.Map{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		toB := rng.IntN(2) == 1
		mu.Unlock()
		if toB {
			served.Store(r.URL.RequestURI(), true)
			b.ServeHTTP(w, r)
			return
		}
		a.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	blameTargets.Store(srv.URL, blamePair{clean: a, defective: b, served: served})
	return srv
}

// liveDefect starts the mock with a live chain adding a block every 100 ms,
// wrapped by wrap.
func liveDefect(t *testing.T, wrap func(http.Handler) http.Handler) *httptest.Server {
	t.Helper()
	h := liveHandler(t, 100*time.Millisecond, time.Now())
	srv := httptest.NewServer(wrap(h))
	t.Cleanup(srv.Close)
	blameTargets.Store(srv.URL, blamePair{clean: h, defective: wrap(h)})
	return srv
}

// previousFalseWhileGrowing wraps a handler so that, while its chain grows
// (X-Block-Height moved in the last second), pages of the path asked
// oldest first after a cursor say hasPreviousPage false.
func previousFalseWhileGrowing(path string) func(http.Handler) http.Handler {
	var mu sync.Mutex
	var last string
	var moved time.Time
	return rewrite(path, nil, func(q url.Values, a *answer) {
		h := a.header.Get("X-Block-Height")
		mu.Lock()
		if h != last {
			last, moved = h, time.Now()
		}
		growing := time.Since(moved) < time.Second
		mu.Unlock()
		if growing && q.Get("pagination.newestFirst") == "false" && q.Has("pagination.after") {
			if c := conn(a); c != nil {
				pageInfo(c)["hasPreviousPage"] = false
			}
		}
	})
}

// flakyLastPages wraps a handler so that the first, third, ... answer to the
// same query of the path with pagination.last leaves out its first row.
func flakyLastPages(path string) func(http.Handler) http.Handler {
	var mu sync.Mutex
	asked := map[string]int{}
	return rewrite(path, nil, func(q url.Values, a *answer) {
		if !q.Has("pagination.last") {
			return
		}
		mu.Lock()
		asked[q.Encode()]++
		odd := asked[q.Encode()]%2 == 1
		mu.Unlock()
		if c := conn(a); odd && c != nil && len(edges(c)) > 1 {
			setEdges(c, edges(c)[1:])
		}
	})
}

// deepPagesShort wraps a handler so that pages of the path asked after a
// cursor of a row from the from-th to the to-th newest leave out their
// last row.
func deepPagesShort(path string, from, to int) func(http.Handler) http.Handler {
	return func(inner http.Handler) http.Handler {
		var once sync.Once
		rank := map[string]int{}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			c := q.Get("pagination.after")
			if r.URL.Path != path || c == "" {
				inner.ServeHTTP(w, r)
				return
			}
			once.Do(func() {
				for page, after := 0, ""; page < 100; page++ {
					pq := url.Values{"pagination.first": {"200"}}
					if after != "" {
						pq.Set("pagination.after", after)
					}
					cn := conn(call(inner, r, pq))
					if cn == nil || len(edges(cn)) == 0 {
						return
					}
					for _, e := range edges(cn) {
						rank[cursorOf(e)] = len(rank) + 1
					}
					after = cursorOf(edges(cn)[len(edges(cn))-1])
				}
			})
			a := call(inner, r, q)
			if n, ok := rank[c]; ok && n >= from && n <= to {
				if cn := conn(a); cn != nil && len(edges(cn)) > 1 {
					setEdges(cn, edges(cn)[:len(edges(cn))-1])
				}
			}
			a.write(w)
		})
	}
}

// windowDropsNewestGame wraps a handler so that games asked with epochFrom
// or epochTo lack the newest game of the latest epoch.
func windowDropsNewestGame() func(http.Handler) http.Handler {
	return func(inner http.Handler) http.Handler {
		var once sync.Once
		var target string
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			if r.URL.Path != gamesPath || !filtered(q, "epochFrom", "epochTo", "epoch_from", "epoch_to") {
				inner.ServeHTTP(w, r)
				return
			}
			once.Do(func() {
				if cn := conn(call(inner, r, url.Values{"pagination.first": {"1"}})); cn != nil && len(edges(cn)) == 1 {
					target, _ = nodeOf(edges(cn)[0])["id"].(string)
				}
			})
			a := call(inner, r, q)
			if cn := conn(a); cn != nil {
				kept := slices.DeleteFunc(slices.Clone(edges(cn)), func(e any) bool { return nodeOf(e)["id"] == target })
				if len(kept) != len(edges(cn)) {
					setEdges(cn, kept)
				}
			}
			a.write(w)
		})
	}
}

// tiesTurnAfterCursor wraps a handler so that a games page asked with
// pagination.first after a cursor takes the rows after the cursor's in an
// order whose ties (games of one epoch) are the other way round: by id
// descending newest first, ascending oldest first. The first page keeps the
// listing's order.
func tiesTurnAfterCursor(path string) func(http.Handler) http.Handler {
	return func(inner http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			c := q.Get("pagination.after")
			n, err := strconv.Atoi(q.Get("pagination.first"))
			ce, cerr := strconv.ParseUint(cursorField(c, "epoch"), 10, 64)
			cid := cursorField(c, "id")
			if r.URL.Path != path || err != nil || n < 1 || cerr != nil || cid == "" || q.Has("pagination.last") || q.Has("pagination.before") {
				inner.ServeHTTP(w, r)
				return
			}
			all := url.Values{}
			for k, v := range q {
				all[k] = v
			}
			all.Del("pagination.after")
			all.Set("pagination.first", "5000")
			a := call(inner, r, all)
			cn := conn(a)
			if cn == nil {
				inner.ServeHTTP(w, r)
				return
			}
			asc := q.Get("pagination.newestFirst") == "false"
			type row struct {
				e     any
				epoch uint64
				id    string
			}
			var rows []row
			for _, e := range edges(cn) {
				nd := nodeOf(e)
				ep, _ := strconv.ParseUint(fmt.Sprint(nd["epoch"]), 10, 64)
				id, _ := nd["id"].(string)
				after := ep < ce || ep == ce && id < cid
				if asc {
					after = ep > ce || ep == ce && id > cid
				}
				if after {
					rows = append(rows, row{e, ep, id})
				}
			}
			sort.SliceStable(rows, func(i, j int) bool {
				if rows[i].epoch != rows[j].epoch {
					return (rows[i].epoch > rows[j].epoch) != asc
				}
				return (rows[i].id > rows[j].id) != asc
			})
			var page []any
			for _, x := range rows[:min(n, len(rows))] {
				page = append(page, x.e)
			}
			setEdges(cn, page)
			pageInfo(cn)["hasNextPage"] = len(rows) > n
			pageInfo(cn)["hasPreviousPage"] = true
			a.write(w)
		})
	}
}

// curlURL finds the URLs of the "asked:" lines of a failure message: the
// requests whose answers it blames.
var curlURL = regexp.MustCompile(`asked: curl -sS -i (?:-H '[^']*' )*'([^']+)'`)

// blamedRequests are the requests a failed rule's report blames: the URLs
// its messages show asked, and the queries its model failures name (before
// shrinking, and shrunk).
func blamedRequests(t *testing.T, s types.SpecReport) []*url.URL {
	t.Helper()
	var out []*url.URL
	seen := map[string]bool{}
	add := func(u *url.URL) {
		if !seen[u.String()] {
			seen[u.String()] = true
			out = append(out, u)
		}
	}
	for _, m := range curlURL.FindAllStringSubmatch(s.Failure.Message, -1) {
		u, err := url.Parse(m[1])
		if err != nil {
			t.Fatalf("a curl line's URL %q: %v", m[1], err)
		}
		add(u)
	}
	for _, f := range modelFailures(t, s) {
		base := ""
		if u := curlURL.FindStringSubmatch("asked: " + f.Curl); u != nil {
			base = u[1]
		}
		pu, err := url.Parse(base)
		if err != nil {
			continue
		}
		for _, d := range []string{f.Query, f.Shrunk} {
			if d == "" || d == "no parameters" {
				continue
			}
			c := *pu
			c.RawQuery = parseDescribed(d).Encode()
			add(&c)
		}
	}
	return out
}

// modelFailures are the failures a model rule's JSON report entry lists.
func modelFailures(t *testing.T, s types.SpecReport) []report.ModelFailure {
	t.Helper()
	var out []report.ModelFailure
	for _, e := range s.ReportEntries {
		if e.Name != "model" {
			continue
		}
		var r report.ModelReport
		if err := json.Unmarshal([]byte(e.Value.AsJSON), &r); err != nil {
			t.Fatalf("the model entry is not a ModelReport: %v", err)
		}
		out = append(out, r.Failures...)
	}
	return out
}

// parseDescribed reads a query as model.Describe writes it: "k=v k=v",
// where a value may hold spaces.
func parseDescribed(d string) url.Values {
	q := url.Values{}
	var k, v string
	flush := func() {
		if k != "" {
			q.Add(k, v)
		}
	}
	for _, f := range strings.Split(d, " ") {
		if name, val, ok := strings.Cut(f, "="); ok && name != "" && !strings.ContainsAny(name, "/+") {
			flush()
			k, v = name, val
			continue
		}
		v += " " + f
	}
	flush()
	return q
}

// ask asks a handler for a request, in process, and returns the body.
func ask(h http.Handler, u *url.URL) string {
	r := httptest.NewRequest(http.MethodGet, u.RequestURI(), nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	body, _ := io.ReadAll(rec.Result().Body)
	return fmt.Sprintf("%d %s", rec.Code, body)
}

// checkObservedBlame asks each request a defect's catching rule blames of the clean
// server and of the defective one (twice: a defect may answer otherwise the
// second time): they must differ, or the rule blamed an answer the defect
// does not change.
func checkObservedBlame(t *testing.T, d defect, srvURL string, s types.SpecReport) {
	t.Helper()
	var pair blamePair
	if p, ok := blameTargets.Load(srvURL); ok {
		pair = p.(blamePair)
	} else {
		st, err := defaultStore()
		if err != nil {
			t.Fatal(err)
		}
		var cfg mockserver.Config
		if d.config != nil {
			d.config(&cfg)
		}
		pair.clean = mockserver.New(mockserver.Config{}, st)
		pair.defective = mockserver.New(cfg, st)
		if d.wrap != nil {
			pair.defective = d.wrap(pair.defective)
		}
	}
	reqs := blamedRequests(t, s)
	if len(reqs) == 0 {
		t.Errorf("%s: the failure of %s names no request", d.name, d.rule)
	}
	for _, u := range reqs {
		if pair.served != nil {
			if _, ok := pair.served.Load(u.RequestURI()); ok {
				continue
			}
		}
		clean := ask(pair.clean, u)
		if ask(pair.defective, u) == clean && ask(pair.defective, u) == clean {
			t.Errorf("%s: %s blames %s, whose answer the defect does not change", d.name, d.rule, u.RequestURI())
		}
	}
}

// checkRepeated checks what a failed model rule says of its queries asked
// again: a flaky defect's failures say some answered differently; no other
// defect's do.
func checkRepeated(t *testing.T, d defect, s types.SpecReport) {
	t.Helper()
	const flaky = "asked twice: answered differently"
	said := strings.Contains(s.Failure.Message, flaky)
	for _, f := range modelFailures(t, s) {
		said = said || f.Repeated == flaky
	}
	switch {
	case d.flaky && !said:
		t.Errorf("%s: no failure of %s says %q", d.name, d.rule, flaky)
	case !d.flaky && said:
		t.Errorf("%s: a failure of %s says %q, but the defect answers the same every time:\n%s", d.name, d.rule, flaky, clip(s.Failure.Message, 2000))
	}
}

// TestBuildDefectsAcrossSeeds runs each of buildDefects with the seeds
// SELFTEST_SEEDS names (for example "1-10"; the test is skipped without
// it: TestDefectsAreCaught runs them with seed 1): each must be caught, and
// each request its failure blames must be one whose answer the defect
// changes. It logs a table of the runs.
func TestBuildDefectsAcrossSeeds(t *testing.T) {
	spec := os.Getenv("SELFTEST_SEEDS")
	if spec == "" {
		t.Skip("SELFTEST_SEEDS not set (for example SELFTEST_SEEDS=1-10)")
	}
	lo, hi, ok := strings.Cut(spec, "-")
	if !ok {
		hi = lo
	}
	from, err1 := strconv.Atoi(lo)
	to, err2 := strconv.Atoi(hi)
	if err1 != nil || err2 != nil || from < 1 || to < from {
		t.Fatalf("SELFTEST_SEEDS=%q: want N or N-M", spec)
	}
	var mu sync.Mutex
	table := map[string][]string{}
	for _, d := range buildDefects() {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			srv := server(t, d)
			for seed := from; seed <= to; seed++ {
				r := d.run(t, srv.URL, "--seed", strconv.Itoa(seed))
				cell := "missed"
				for _, s := range r.failed() {
					if slices.Contains(s.Labels(), d.rule) {
						cell = "caught"
						checkObservedBlame(t, d, srv.URL, s)
					}
				}
				if cell == "missed" {
					t.Errorf("seed %d: %s did not fail\n%s", seed, d.rule, tail(r.output))
				}
				mu.Lock()
				table[d.name] = append(table[d.name], fmt.Sprintf("%d:%s", seed, cell))
				mu.Unlock()
			}
		})
	}
	t.Cleanup(func() {
		for _, d := range buildDefects() {
			t.Logf("%-42s %s", d.name, strings.Join(table[d.name], " "))
		}
	})
}

// TestReplicasPass runs the suite against two replicas of a live chain that
// share a genesis (so they serve the same world, block for block, give or
// take the moment each adds a block), behind a round-robin balancer: no
// rule may take the two for a lagging one, nor their growth for a defect.
func TestReplicasPass(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	t.Parallel()
	srv := replicas(t, 100*time.Millisecond, 0)
	r := conformBinary(t, srv.URL, "--growth-wait", "20s")
	if r.exitCode != 0 {
		t.Errorf("exit code %d, want 0", r.exitCode)
	}
	for _, s := range r.failed() {
		t.Errorf("rule failed against two replicas that share a genesis: %s\n%s", fullText(s), s.Failure.Message)
	}
	judged := 0
	for _, s := range r.specs() {
		if id := ruleIDOf(s); slices.Contains([]string{"GAMES-MOD-014", "SNAP-MOD-013", "ROT-MOD-014", "TX-MOD-008"}, id) {
			if s.State != types.SpecStatePassed {
				t.Errorf("%s: %s, want passed: %s", id, s.State, s.Failure.Message)
			}
			judged++
		}
	}
	if judged != 4 {
		t.Errorf("%d head rules ran, want 4", judged)
	}
}
