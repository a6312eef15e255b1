package walker

import (
	"bytes"
	"testing"

	"github.com/chaindata/harness/internal/race"
	"github.com/chaindata/harness/schemas"
)

// TestInstanceValidatesForEverySchema generates several instances of every
// definition and validates each against its schema.
func TestInstanceValidatesForEverySchema(t *testing.T) {
	if testing.Short() && race.Enabled {
		// The walker runs on one goroutine: the detector has nothing of its
		// own to watch here (the validator's is the schemas package's), and
		// make test runs this test in full without it.
		t.Skip("-short under the race detector: nothing concurrent; make test runs it without the detector")
	}
	for _, name := range schemas.Names() {
		t.Run(name, func(t *testing.T) {
			v := schemas.MustLoad(name)
			for seed := int64(1); seed <= 20; seed++ {
				doc, err := Instance(name, seed)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if err := v.Validate(doc); err != nil {
					t.Fatalf("seed %d: %v\n%s", seed, err, doc)
				}
			}
		})
	}
}

func TestInstanceIsDeterministic(t *testing.T) {
	for _, name := range []string{"Command", "BatchProposalSubmission", "Game", "Transaction"} {
		a, err := Instance(name, 42)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Instance(name, 42)
		c, _ := Instance(name, 43)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two instances from seed 42 differ", name)
		}
		if bytes.Equal(a, c) {
			t.Errorf("%s: seeds 42 and 43 gave the same instance", name)
		}
	}
}
