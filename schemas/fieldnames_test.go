package schemas_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/chaindata/harness/schemas"
)

// fieldNamesDoc lists the places where the schemas follow the spec's names
// and shapes, not the real network's.
const fieldNamesDoc = "../docs/field-names.md"

// specNamedPlaces are the objects docs/field-names.md lists: has holds the
// spec's names the object must keep, lacks the real network's names it must
// not have (the mock never writes them; the reference profile refuses them).
var specNamedPlaces = []struct {
	schema     string
	has, lacks []string
}{
	{"AnnounceNode", []string{"corePubKey", "corePubKeyIndex", "coreSignature"}, nil},
	{"NewSpotMarketConfiguration",
		[]string{"decimalPlaces", "positionDecimalPlaces", "liquiditySlaParameters", "liquidityMonitoringParameters", "linearSlippageFactor", "quadraticSlippageFactor"},
		[]string{"priceDecimalPlaces", "sizeDecimalPlaces", "slaParams", "targetStakeParameters", "allowedSellers"}},
	{"AmendAmm", nil, []string{"minimumPriceChangeTrigger"}},
	{"ConcentratedLiquidityParameters", nil, []string{"dataSourceId"}},
	{"NewMarketConfiguration", nil, []string{"allowedEmptyAmmLevels"}},
	{"UpdateMarketConfiguration", []string{"allowedEmptyAmmLevels"}, nil},
	{"DispatchStrategy", nil, []string{"targetNotionalVolume", "eligibleKeys"}},
	{"InstrumentConfiguration", []string{"future", "perpetual"}, []string{"spot"}},
	{"SpotInstrumentConfiguration", []string{"future", "perpetual", "spot"}, nil},
}

// TestFieldNamesDoc keeps the schemas and docs/field-names.md saying the
// same: each object it lists has the spec's names and not the real
// network's, and is closed; AccountType has the spec's 32 values, not the
// network's extra one; and the page names every field and value involved.
func TestFieldNamesDoc(t *testing.T) {
	data, err := os.ReadFile(fieldNamesDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	mentioned := func(name string) {
		t.Helper()
		if !strings.Contains(doc, "`"+name+"`") {
			t.Errorf("%s does not name `%s`", fieldNamesDoc, name)
		}
	}
	for _, p := range specNamedPlaces {
		n := schemas.MustLookup(p.schema).Resolve()
		if n.AdditionalProperties {
			t.Errorf("%s is open: a real node's fields would pass the reference profile", p.schema)
		}
		for _, name := range p.has {
			if n.Property(name) == nil {
				t.Errorf("%s has no %s (the spec's name)", p.schema, name)
			}
			mentioned(name)
		}
		for _, name := range p.lacks {
			if n.Property(name) != nil {
				t.Errorf("%s has the real network's %s: change %s too", p.schema, name, fieldNamesDoc)
			}
			mentioned(name)
		}
	}
	const locked = "ACCOUNT_TYPE_LOCKED_FOR_STAKING"
	values := schemas.MustLookup("AccountType").Resolve().Enum
	if len(values) != 32 || slices.Contains(values, any(locked)) {
		t.Errorf("AccountType has %d values (%s among them: %v), want the spec's 32: change %s too",
			len(values), locked, slices.Contains(values, any(locked)), fieldNamesDoc)
	}
	mentioned(locked)
	mentioned("GET /api/v2/core/keys/ethereum/rotations")
}
