package selftest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

// relationDefects are defects that keep every answer's shape, order and
// rows but break a relation the spec fixes: a timestamp in another unit, a
// game outside the window asked for, a rotation that does not chain from
// the one before, a command that breaks its own input rules. Each is caught
// by a relation rule (conformance/modelrules/relation_specs.go), which
// judges every row of every answer of the run.
func relationDefects() []defect {
	return []defect{
		{
			name: "expiry-in-milliseconds", listing: "transactions", area: "relations",
			what: "orders' expiresAt is written in Unix milliseconds, where the spec says nanoseconds",
			rule: "TX-REL-029", // timestamps in Unix nanoseconds are near the chain's time
			wrap: rewrite(transactionPath, nil, func(_ url.Values, a *answer) {
				for _, t := range txs(a) {
					eachObject(t, func(m map[string]any) {
						if s, ok := m["expiresAt"].(string); ok {
							if ns, err := strconv.ParseInt(s, 10, 64); err == nil && ns != 0 {
								m["expiresAt"] = strconv.FormatInt(ns/int64(time.Millisecond), 10)
							}
						}
					})
				}
			}),
		},
		{
			name: "games-window-one-epoch-early", listing: "games", area: "relations",
			what: "epochFrom is read as exclusive, so the window starts an epoch before the one asked for",
			rule: "GAMES-REL-001", // every game lies inside the epoch window its query asks for
			wrap: rewrite(gamesPath, func(q url.Values, _ func(url.Values) *answer) url.Values {
				if from, err := strconv.ParseUint(q.Get("epochFrom"), 10, 64); err == nil && from > 0 {
					q.Set("epochFrom", strconv.FormatUint(from-1, 10))
				}
				return q
			}, nil),
		},
		{
			name: "rotation-old-address-is-current", listing: "key-rotations", area: "relations",
			what: "a rotation's oldAddress is the node's current address, not the one its previous rotation made",
			rule: "ROT-REL-001", // oldAddress is the newAddress of the node's previous rotation
			wrap: currentAddressAsOld,
		},
		{
			name: "amendment-size-copied-to-delta", listing: "transactions", area: "relations",
			what: "an order amendment that sets size is served with the same value in sizeDelta",
			rule: "TX-REL-007", // an accepted order amendment does not set both size and a sizeDelta other than 0
			wrap: rewrite(transactionPath, nil, func(_ url.Values, a *answer) {
				for _, t := range txs(a) {
					eachObject(t, func(m map[string]any) {
						if s, ok := m["size"].(string); ok && s != "0" && m["orderId"] != nil {
							m["sizeDelta"] = s
						}
					})
				}
			}),
		},
	}
}

// eachObject calls f on every object inside v, v included.
func eachObject(v any, f func(map[string]any)) {
	switch t := v.(type) {
	case map[string]any:
		f(t)
		for _, x := range t {
			eachObject(x, f)
		}
	case []any:
		for _, x := range t {
			eachObject(x, f)
		}
	}
}

// currentAddressAsOld wraps the mock so that every key rotation's
// oldAddress is its node's current address: the newAddress of the node's
// newest rotation, as a server that joins rotations with its table of
// nodes would write it.
func currentAddressAsOld(inner http.Handler) http.Handler {
	var mu sync.Mutex
	current := map[string]string{}
	return rewrite(rotationsPath, nil, func(_ url.Values, a *answer) {
		eachNode(a, func(n map[string]any) {
			node, _ := n["nodeId"].(string)
			mu.Lock()
			addr, ok := current[node]
			mu.Unlock()
			if !ok {
				r := httptest.NewRequest(http.MethodGet, rotationsPath+"?"+url.Values{"nodeId": {node}, "pagination.first": {"1"}}.Encode(), nil)
				newest := call(inner, r, r.URL.Query())
				if c := conn(newest); c != nil && len(edges(c)) == 1 {
					addr, _ = nodeOf(edges(c)[0])["newAddress"].(string)
				}
				mu.Lock()
				current[node] = addr
				mu.Unlock()
			}
			n["oldAddress"] = addr
		})
	})(inner)
}

// curlLineURL finds the URL of each curl line in a failure message.
var curlLineURL = regexp.MustCompile(`curl -sS -i (?:-H '[^']*' )*'([^']*)'`)

// seedsEnv, set to N, makes TestRelationDefectsEverySeed run each relation
// defect with the seeds 1 to N, its listing's model rules beside its rule
// (make selftest-seeds: 10, minutes); unset, each relation rule
// runs alone, once, on the rows of its own sample.
const seedsEnv = "SELFTEST_SEEDS"

// TestRelationDefectsEverySeed runs each relation defect and checks the
// failure of its rule: it fails, and every query it names is one whose
// answer the defect changes (asked of the clean mock and of the defect, the
// two answers differ). With SELFTEST_SEEDS=N it does so for the seeds 1 to
// N, the listing's model rules selected beside the relation rule, so that
// the rows judged include the answers to each seed's generated queries.
func TestRelationDefectsEverySeed(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	seeds, err := strconv.Atoi(cmp.Or(os.Getenv(seedsEnv), "0"))
	if err != nil || seeds < 0 {
		t.Fatalf("%s=%q: want a number of seeds", seedsEnv, os.Getenv(seedsEnv))
	}
	t.Parallel()
	clean := server(t, defect{})
	if u := clean.URL + gamesPath + "?pagination.first=3"; !sameBody(t, u, u) {
		t.Fatalf("two answers of the clean mock to %s differ: the comparison cannot tell what a defect changes", u)
	}
	for _, d := range relationDefects() {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			srv := server(t, d)
			if seeds == 0 {
				checkRelationFailure(t, srv.URL, clean.URL, d, conform(t, srv.URL, "--label-filter", d.rule), "the rule alone")
				return
			}
			for seed := 1; seed <= seeds; seed++ {
				r := conform(t, srv.URL, "--label-filter", d.rule+" || ("+d.listing+" && model)", "--seed", strconv.Itoa(seed))
				checkRelationFailure(t, srv.URL, clean.URL, d, r, fmt.Sprintf("seed %d", seed))
			}
		})
	}
}

// checkRelationFailure checks that a run against a relation defect failed
// its rule, naming only queries whose answers the defect changes.
func checkRelationFailure(t *testing.T, defectURL, cleanURL string, d defect, r result, run string) {
	t.Helper()
	var caught *types.SpecReport
	for _, s := range r.failed() {
		if ruleIDOf(s) == d.rule {
			caught = &s
		}
	}
	if caught == nil {
		t.Errorf("%s: %s did not fail (%s)\n%s", run, d.rule, d.what, tail(r.output))
		return
	}
	urls := curlLineURL.FindAllStringSubmatch(caught.Failure.Message, -1)
	if len(urls) == 0 {
		t.Errorf("%s: the failure of %s names no query:\n%s", run, d.rule, caught.Failure.Message)
	}
	for _, m := range urls {
		u, err := url.Parse(m[1])
		if err != nil {
			t.Fatal(err)
		}
		if sameBody(t, defectURL+u.RequestURI(), cleanURL+u.RequestURI()) {
			t.Errorf("%s: %s names %s, whose answer the defect does not change", run, d.rule, u.RequestURI())
		}
	}
}

// sameBody asks two URLs and reports whether their answers are the
// same: the same status and the same JSON value (a defect's wrapper writes
// its members in another order).
func sameBody(t *testing.T, a, b string) bool {
	t.Helper()
	get := func(u string) (int, any) {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		return resp.StatusCode, v
	}
	sa, va := get(a)
	sb, vb := get(b)
	return sa == sb && reflect.DeepEqual(va, vb)
}
