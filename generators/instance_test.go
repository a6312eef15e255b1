package generators

import (
	"testing"

	"github.com/chaindata/harness/schemas"
)

// TestInstanceValidatesForEverySchema generates several instances of every
// definition and validates each against its schema.
func TestInstanceValidatesForEverySchema(t *testing.T) {
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
