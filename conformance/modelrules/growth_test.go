package modelrules

import (
	"strings"
	"testing"

	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/config"
	"github.com/chaindata/harness/conformance/model"
	"github.com/chaindata/harness/conformance/rule"
)

// TestGrowthWalksArePerRun: a run's growth rules judge the walks of that
// run, never those a run before started against another deployment.
func TestGrowthWalksArePerRun(t *testing.T) {
	growth.mu.Lock()
	growth.started = true
	growth.walks = map[model.Listing]*growthResult{model.Games: {done: make(chan struct{})}}
	growth.mu.Unlock()
	rule.SetActive(config.Config{BaseURL: "http://127.0.0.1:1"}) // as a run sets it (setActiveConfig)
	ResetGrowth()
	defer client.Current().Stop()
	if r := growthWalkOf(model.Games); r != nil || growth.started {
		t.Errorf("a new run keeps the growth walks of the run before: started %v, games walk %v", growth.started, r)
	}
}

func TestAscFlags(t *testing.T) {
	rows := func(nums ...uint64) []model.Row {
		var out []model.Row
		for _, n := range nums {
			out = append(out, model.Row{Key: model.Key{Num: n}})
		}
		return out
	}
	k := func(n uint64) *model.Key { return &model.Key{Num: n} }
	oldest := ascStep{name: "the oldest page"}
	later := ascStep{name: "the page after 3", cursor: true}
	for _, tc := range []struct {
		name  string
		step  ascStep
		page  model.Page
		known *model.Key
		cases int
		want  []string
	}{
		{"the oldest, right", oldest, model.Page{Rows: rows(1, 2), HasNext: true}, k(9), 2, nil},
		{"the oldest says a page before it", oldest, model.Page{Rows: rows(1, 2), HasNext: true, HasPrev: true}, k(9), 2, []string{"hasPreviousPage true, want false"}},
		{"after a cursor says none before it", later, model.Page{Rows: rows(4, 5), HasNext: true}, k(9), 2, []string{"hasPreviousPage false, want true"}},
		{"a newer row came before it was asked", later, model.Page{Rows: rows(4, 5), HasPrev: true}, k(9), 2, []string{"hasNextPage false, but 9"}},
		{"no newer row known", later, model.Page{Rows: rows(4, 5), HasPrev: true}, k(5), 1, nil},
		{"a tie with the newest known", later, model.Page{Rows: rows(4, 5), HasPrev: true}, k(5), 1, nil},
		{"nothing known", later, model.Page{Rows: rows(4, 5), HasPrev: true}, nil, 1, nil},
		{"an empty page", later, model.Page{HasPrev: true}, k(9), 1, nil},
	} {
		cases, got := ascFlags(tc.step, &tc.page, tc.known)
		if cases != tc.cases || len(got) != len(tc.want) {
			t.Errorf("%s: %d cases, problems %q; want %d, %q", tc.name, cases, got, tc.cases, tc.want)
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(got[i], w) || !strings.Contains(got[i], tc.step.name) {
				t.Errorf("%s: %q, want it to say %q and name %q", tc.name, got[i], w, tc.step.name)
			}
		}
	}
}
