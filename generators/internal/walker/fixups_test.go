package walker

import (
	"encoding/json"
	"testing"
)

// TestCompositePriceStalenessPerSource checks the fixup the spec's section
// 2.8 asks for: a composite price configuration that gives staleness
// tolerances gives one for trades, one for the book and one per oracle
// source, and every instance still validates (TestInstanceValidatesForEverySchema).
func TestCompositePriceStalenessPerSource(t *testing.T) {
	given := 0
	for seed := int64(1); seed <= 200; seed++ {
		doc, err := Instance("CompositePriceConfiguration", seed)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		var cfg struct {
			Staleness []string          `json:"sourceStalenessTolerance"`
			Sources   []json.RawMessage `json:"dataSourcesSpec"`
		}
		if err := json.Unmarshal(doc, &cfg); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, doc)
		}
		if cfg.Staleness == nil {
			continue
		}
		given++
		if want := 2 + len(cfg.Sources); len(cfg.Staleness) != want {
			t.Errorf("seed %d: %d staleness tolerances for %d sources, want %d\n%s", seed, len(cfg.Staleness), len(cfg.Sources), want, doc)
		}
	}
	if given < 20 {
		t.Errorf("only %d of 200 instances give staleness tolerances: the test judges too few", given)
	}
}
