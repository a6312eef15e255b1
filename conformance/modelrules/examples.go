package modelrules

import (
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/chaindata/harness/conformance/model"
	"github.com/chaindata/harness/conformance/report"
)

// examples are the run's examples (--examples): those the file held when
// the run began, asked first, and the shrunk failing queries the run found,
// saved at its end.
var examples struct {
	sync.Mutex
	loaded, found []model.Example
}

// LoadExamples reads the examples file at path ("" for none) for the next
// run, and forgets what the run before found. An error means the file
// cannot be read or parsed (it names the file and the line).
func LoadExamples(path string) error {
	var exs []model.Example
	if path != "" {
		var err error
		if exs, err = model.LoadExamples(path); err != nil {
			return err
		}
	}
	examples.Lock()
	defer examples.Unlock()
	examples.loaded, examples.found = exs, nil
	return nil
}

// SaveExamples adds the run's shrunk failing queries to the examples file
// at path ("" for none): see model.SaveExamples.
func SaveExamples(path string) error {
	if path == "" {
		return nil
	}
	examples.Lock()
	found := slices.Clone(examples.found)
	examples.Unlock()
	return model.SaveExamples(path, found)
}

// examplesOf are the queries of the loaded examples of a listing.
func examplesOf(l model.Listing) []url.Values {
	examples.Lock()
	defer examples.Unlock()
	return model.ExamplesOf(examples.loaded, l)
}

// found records a failing query of a rule, to be saved.
func found(l model.Listing, rule string, seed int64, q url.Values) {
	examples.Lock()
	defer examples.Unlock()
	examples.found = append(examples.found, model.Example{Listing: l.String(), Query: q.Encode(), Rule: rule, Seed: seed, Time: time.Now().UTC()})
}

// coverageReport writes what a plan's queries covered into a listing's
// report.
func coverageReport(mr *report.ModelReport, c model.Coverage) {
	mr.Params = c.Params
	mr.Sources = map[string]int{}
	for s, n := range c.Sources {
		mr.Sources[string(s)] = n
	}
	mr.ParamsCovered, mr.ParamCount = c.ParamsCovered(), c.ParamCount
	mr.PairsCovered, mr.PairsShould = c.PairsCovered()
	mr.Pairs = c.PairCount
	mr.Classes = map[string]map[string]int{}
	for p, cs := range c.Classes {
		mr.Classes[p] = map[string]int{}
		for cl, n := range cs {
			mr.Classes[p][string(cl)] = n
		}
	}
	mr.ClassesCovered, mr.ClassCount = c.ClassesCovered(), c.ClassCount
	for _, u := range c.Uncovered {
		mr.Uncovered = append(mr.Uncovered, report.Uncovered{Kind: u.Kind, What: u.What, Reason: u.Reason})
	}
}
