package model

import (
	"maps"
	"net/url"
	"testing"
)

// TestCoverageCountsEachQuery checks the tallies of a plan's Coverage
// against a count made apart from it: the queries of each source, the
// queries each parameter (in the spec's spelling) appears in, and the
// class queries of each parameter and class, a core query equal to one
// asked before it counted too.
func TestCoverageCountsEachQuery(t *testing.T) {
	rich := richModels()
	for _, m := range []*Model{rich[0], rich[4]} {
		t.Run(m.Listing.String(), func(t *testing.T) {
			mm := *m
			mm.issued = nil
			p := NewPlan(&mm, 2, 320, nil)
			first := p.First()
			all := append(first, p.Then(oracleAnswers(&mm, first))...)
			c := p.Coverage()
			sources, params, classes := map[Source]int{}, map[string]int{}, map[string]map[Class]int{}
			for _, q := range all {
				sources[q.Source]++
				for _, k := range paramNames(q.Values) {
					params[k]++
				}
			}
			for _, q := range append(all, p.alias...) {
				if q.Source != SourceClass {
					continue
				}
				for _, name := range q.Params {
					if classes[name] == nil {
						classes[name] = map[Class]int{}
					}
					classes[name][q.Class]++
				}
			}
			if c.Queries != len(all) || !maps.Equal(c.Sources, sources) {
				t.Errorf("%d queries by source %v, want %d: %v", c.Queries, c.Sources, len(all), sources)
			}
			if !maps.Equal(c.Params, params) {
				t.Errorf("queries by parameter %v, want %v", c.Params, params)
			}
			if len(c.Classes) != len(classes) {
				t.Errorf("classes of %d parameters, want %d", len(c.Classes), len(classes))
			}
			for name, want := range classes {
				if !maps.Equal(c.Classes[name], want) {
					t.Errorf("%s: class queries %v, want %v", name, c.Classes[name], want)
				}
			}
			// The tallies are of queries asked: each is at least one.
			if sources[SourceCore] == 0 || sources[SourceClass] == 0 || sources[SourceTail] == 0 {
				t.Errorf("no core, class or tail query among %v", sources)
			}
		})
	}
}

// TestAnchorDrawsHeldRows checks the rows the generator grows queries
// from: each a held row, the ends of the head and tail around a gap among
// them, and none of a model that holds only a tail, or only a head, is
// out of its rows.
func TestAnchorDrawsHeldRows(t *testing.T) {
	head, tail := txRows("9.2 A p1", "9.1 B p2", "8.0 C p3"), txRows("2.1 D p1", "2.0 E p2", "1.0 F p3")
	for _, tc := range []struct {
		name       string
		m          *Model
		gapEndsToo bool
	}{
		{"head and tail", New(Transactions, DefaultLimits, head, tail, false), true},
		{"tail only", New(Transactions, DefaultLimits, nil, tail, false), false},
		{"head only", New(Transactions, DefaultLimits, head, nil, true), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGen(tc.m, 1)
			drawn := map[Key]int{}
			for range 200 {
				r := g.anchor()
				if !g.held[r.Key] {
					t.Fatalf("anchor %v is not a held row", r.Key)
				}
				drawn[r.Key]++
			}
			if tc.gapEndsToo && (drawn[head[2].Key] < 25 || drawn[tail[0].Key] < 25) {
				t.Errorf("the rows beside the gap drawn %d and %d times of 200, want about 33 (an eighth, and a sixth of a quarter)", drawn[head[2].Key], drawn[tail[0].Key])
			}
		})
	}
}

// TestContextWithoutHeldRows checks the cursor a transactions query is
// given to keep it within the held rows when the model holds no head (a
// forward count then gets none) or no row at all (neither count does).
func TestContextWithoutHeldRows(t *testing.T) {
	tailOnly := New(Transactions, DefaultLimits, nil, txRows("2.1 D p1", "2.0 E p2"), false)
	empty := New(Transactions, DefaultLimits, nil, nil, false)
	for _, tc := range []struct {
		name  string
		m     *Model
		count string
		// cursor is the cursor parameter some seed gives, or "".
		cursor string
	}{
		{"no head, forwards", tailOnly, "first", ""},
		{"no head, backwards", tailOnly, "last", "before"},
		{"no row, forwards", empty, "first", ""},
		{"no row, backwards", empty, "last", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			given := 0
			for seed := int64(1); seed <= 20; seed++ {
				g := newGen(tc.m, seed)
				q := url.Values{"parties": {"p1"}, tc.count: {"2"}}
				g.context(q, &Row{})
				if q.Has("after") || q.Has("before") && tc.cursor != "before" {
					t.Fatalf("seed %d: a cursor of no held row: %s", seed, Canonical(q))
				}
				if q.Has("before") {
					given++
					if k, ok := tc.m.cursors[q.Get("before")]; !ok || !g.held[k] {
						t.Errorf("seed %d: before=%s is no held row's cursor", seed, q.Get("before"))
					}
				}
			}
			if tc.cursor != "" && given == 0 {
				t.Errorf("no seed of 20 gave a %s cursor", tc.cursor)
			}
		})
	}
}
