package schemas_test

import (
	"reflect"
	"sort"
	"testing"

	"github.com/chaindata/harness/schemas"
)

// specOneOfs are the definitions whose oneOf the spec itself states, with
// where it says so. Every other oneOf (a game's individual or team, a
// governance transfer's oneOff or recurring, a stop order's price or
// trailingPercentOffset, the open Command and ProposalChange) is ours, and
// the spec profile drops it.
var specOneOfs = map[string]string{
	"InstrumentConfiguration":       "2.8: exactly one product: future or perpetual",
	"SpotInstrumentConfiguration":   "2.9: the same product variants as 2.8, and additionally spot",
	"UpdateInstrumentConfiguration": "2.11: the instrument section of 2.8, future or perpetual product",
	"NewMarketConfiguration":        "2.8: logNormal and simple are each valid when that model is selected",
	"NewSpotMarketConfiguration":    "2.9: the futures configuration's risk model",
	"DataSourceDefinition":          "2.12: one of external or internal",
	"ExternalDataSource":            "2.12: either ethOracle or oracle",
	"InternalDataSource":            "2.12: either time or timeTrigger",
	"AssetDetails":                  "2.7 newAsset: one of builtinAsset or erc20",
	"Signer":                        "2.12: each signer has ethAddress or pubKey",
}

// annotatedObjects returns every object schema the annotations must cover:
// each object node under the definitions (inline ones too), Opaque aside,
// which has no properties and is accepted by name.
func annotatedObjects(t *testing.T) []*schemas.Node {
	t.Helper()
	var out []*schemas.Node
	for _, n := range shapeNodes() {
		if (n.HasType("object") || len(n.Properties) > 0) && !n.IsOpaque() {
			out = append(out, n)
		}
	}
	if len(out) < 100 {
		t.Fatalf("only %d object schemas found", len(out))
	}
	return out
}

func TestEveryObjectHasSpecFields(t *testing.T) {
	for _, n := range annotatedObjects(t) {
		if !n.HasSpecFields {
			t.Errorf("%s#%s: no x-spec-fields: list the properties the spec shows for it ([] for none)", n.File, n.Pointer)
			continue
		}
		for _, f := range n.SpecFields {
			if n.Property(f) == nil {
				t.Errorf("%s#%s: x-spec-fields names %q, which is not one of its properties", n.File, n.Pointer, f)
			}
		}
	}
	// Only object schemas carry the keyword.
	for _, n := range allNodes() {
		if n.HasSpecFields && !n.HasType("object") {
			t.Errorf("%s#%s: x-spec-fields on a schema that is not an object", n.File, n.Pointer)
		}
	}
}

// TestSpecFieldsAgreeWithTheFieldTable checks the annotations against the
// hand-written table of spec_test.go: a field is in x-spec-fields exactly
// when the table says it comes from the spec.
func TestSpecFieldsAgreeWithTheFieldTable(t *testing.T) {
	for _, f := range specFields {
		n := schemas.MustLookup(f.def).Resolve()
		if got, want := n.IsSpecField(f.field), f.from == fromSpec; got != want {
			t.Errorf("%s.%s (from %s): in x-spec-fields = %v, want %v", f.def, f.field, f.from, got, want)
		}
	}
	// The examples the task states.
	tests := []struct {
		def  string
		want []string
	}{
		{"Transaction", []string{"block", "code", "command"}},
		{"Command", []string{"amendAmm", "announceNode", "applyReferralCode", "batchMarketInstructions", "batchProposalSubmission"}},
		{"CoreSnapshot", []string{"blockHash", "blockHeight", "coreVersion", "protocolUpgradeBlock"}},
		{"PageInfo", []string{"startCursor", "endCursor", "hasNextPage", "hasPreviousPage"}},
		{"GameEdge", []string{"node", "cursor"}},
		{"Error", []string{"code", "message", "details"}},
		{"ProofOfWork", []string{}}, // the spec does not describe it: []
		{"NewFreeform", []string{}}, // "no parameters"
		{"UpdateMarketConfiguration", []string{"instrument", "enableTransactionReordering"}},
	}
	for _, tc := range tests {
		n := schemas.MustLookup(tc.def)
		if got := append([]string{}, n.SpecFields...); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: x-spec-fields %q, want %q", tc.def, got, tc.want)
		}
	}
}

func TestSpecOneOfs(t *testing.T) {
	var got []string
	for _, n := range allNodes() {
		if !n.SpecOneOf {
			continue
		}
		got = append(got, n.Name)
		group := n.ExclusiveGroup()
		if group == nil {
			t.Errorf("%s#%s: x-spec-oneof on a oneOf that is not an exclusive group", n.File, n.Pointer)
		}
		for _, m := range group {
			if !n.IsSpecField(m) {
				t.Errorf("%s: the spec's oneOf names %s, which is not in x-spec-fields", n.Name, m)
			}
		}
	}
	var want []string
	for name := range specOneOfs {
		want = append(want, name)
	}
	sort.Strings(got)
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("x-spec-oneof on %v, want %v", got, want)
	}
	// Every other exclusive group (a oneOf, or keyed) is ours.
	var ours []string
	for _, n := range allNodes() {
		if n.ExclusiveGroup() != nil && !n.SpecOneOf {
			ours = append(ours, n.Name)
		}
	}
	sort.Strings(ours)
	wantOurs := []string{"Command", "Game", "NewTransferConfiguration", "ProposalChange", "StopOrderSetup", "UpdateMarketConfiguration"}
	if !reflect.DeepEqual(ours, wantOurs) {
		t.Errorf("oneOfs without x-spec-oneof: %v, want %v", ours, wantOurs)
	}
}
