package conformance

import (
	"encoding/json"
	"fmt"
	"github.com/chaindata/harness/conformance/rule"
	"strconv"
)

// rowKey is the sort key of a row: num is the epoch or block height (0 for
// network parameters), str the tie-breaking ID or the parameter key, sub the
// transaction's index in its block.
type rowKey struct {
	num uint64
	str string
	sub uint64
}

// pagedListing describes one of the four cursor-paged /api/v2 listings.
type pagedListing struct {
	// label is the listing's Ginkgo label and name in rule texts.
	label string
	// path is the listing's path under the base URL.
	path string
	// field is the body's wrapper field holding the page.
	field string
	// schema is the name of the response schema.
	schema string
	// ordered is false for network parameters, which have no age: they are
	// in key order and ignore newestFirst.
	ordered bool
	// primary and secondary name the sort key's fields ("" when none).
	primary, secondary string
	// keyOf reads the sort key of a record.
	keyOf func(node map[string]any) (rowKey, error)
	// describe writes a key for a message.
	describe func(k rowKey) string
	// cite is the spec text of the listing's record shape.
	cite rule.Level
	// blockField names the record's block height field, for the listings
	// whose rows carry one.
	blockField string
	// donors are the labels of listings whose cursors this listing cannot
	// have issued (their cursors hold a differently shaped key).
	donors []string
}

// compare orders two keys in the listing's newest-first order: num
// descending, then str ascending. For network parameters (num always 0) this
// is key order A to Z.
func (l *pagedListing) compare(a, b rowKey) int {
	switch {
	case a.num > b.num:
		return -1
	case a.num < b.num:
		return 1
	case a.str < b.str:
		return -1
	case a.str > b.str:
		return 1
	}
	return 0
}

var (
	gamesListing = &pagedListing{
		label: "games", cite: rule.Must("2.2", "Game page wrapper: games (object) containing edges and pageInfo"), path: "/api/v2/games", field: "games", schema: "ListGamesResponse",
		ordered: true, primary: "epoch", secondary: "id",
		keyOf: func(n map[string]any) (rowKey, error) {
			epoch, err := uintField(n, "epoch")
			if err != nil {
				return rowKey{}, err
			}
			id, err := stringField(n, "id")
			return rowKey{num: epoch, str: id}, err
		},
		describe: func(k rowKey) string { return fmt.Sprintf("game epoch=%d id=%s", k.num, k.str) },
		donors:   []string{"network-parameters", "snapshots"},
	}
	snapshotsListing = &pagedListing{
		label: "snapshots", cite: rule.Must("2.3", "Page wrapper: coreSnapshots. Node: blockHash (string), blockHeight (string), coreVersion (string), protocolUpgradeBlock (boolean)"), path: "/api/v2/snapshots", field: "coreSnapshots", schema: "ListCoreSnapshotsResponse",
		ordered: true, primary: "blockHeight",
		keyOf: func(n map[string]any) (rowKey, error) {
			h, err := uintField(n, "blockHeight")
			return rowKey{num: h}, err
		},
		describe:   func(k rowKey) string { return fmt.Sprintf("snapshot blockHeight=%d", k.num) },
		blockField: "blockHeight",
		donors:     []string{"network-parameters", "games"},
	}
	rotationsListing = &pagedListing{
		label: "key-rotations", cite: rule.Must("2.4", "Page wrapper: keyRotations. Node: blockHeight (uint64), newAddress (string ... nodeId (string), oldAddress (string"), path: "/api/v2/core/keys/ethereum/rotations", field: "keyRotations",
		schema: "ListEthereumKeyRotationsResponse", ordered: true, primary: "blockHeight", secondary: "nodeId",
		keyOf: func(n map[string]any) (rowKey, error) {
			h, err := uintField(n, "blockHeight")
			if err != nil {
				return rowKey{}, err
			}
			id, err := stringField(n, "nodeId")
			return rowKey{num: h, str: id}, err
		},
		describe:   func(k rowKey) string { return fmt.Sprintf("rotation blockHeight=%d nodeId=%s", k.num, k.str) },
		blockField: "blockHeight",
		donors:     []string{"network-parameters", "games"},
	}
	parametersListing = &pagedListing{
		label: "network-parameters", cite: rule.Must("2.5", "Page wrapper: networkParameters. Node: key (string, unique key of the parameter), value (string)"), path: "/api/v2/network/parameters", field: "networkParameters",
		schema: "ListNetworkParametersResponse", ordered: false, secondary: "key",
		keyOf: func(n map[string]any) (rowKey, error) {
			k, err := stringField(n, "key")
			return rowKey{str: k}, err
		},
		describe: func(k rowKey) string { return fmt.Sprintf("parameter key=%s", k.str) },
		donors:   []string{"snapshots", "games"},
	}
)

// pagedListings are the four paged listings, in the order the suite checks
// them.
var pagedListings = []*pagedListing{gamesListing, snapshotsListing, rotationsListing, parametersListing}

func listingByLabel(label string) *pagedListing {
	for _, l := range pagedListings {
		if l.label == label {
			return l
		}
	}
	return nil
}

// uintField reads a uint64 carried as a digit string (or, leniently, as a
// JSON number: the schema rules judge the wire type).
func uintField(n map[string]any, name string) (uint64, error) {
	v, ok := n[name]
	if !ok || v == nil {
		return 0, fmt.Errorf("field %q is missing", name)
	}
	var s string
	switch t := v.(type) {
	case string:
		s = t
	case json.Number:
		s = t.String()
	default:
		return 0, fmt.Errorf("field %q is %T, not a number", name, v)
	}
	u, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("field %q = %q is not a uint64", name, s)
	}
	return u, nil
}

// stringField reads a string field.
func stringField(n map[string]any, name string) (string, error) {
	v, ok := n[name]
	if !ok || v == nil {
		return "", fmt.Errorf("field %q is missing", name)
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("field %q is %T, not a string", name, v)
	}
	return s, nil
}

// object returns the named sub-object, or nil.
func object(n map[string]any, name string) map[string]any {
	m, _ := n[name].(map[string]any)
	return m
}

// array returns the named array, or nil.
func array(n map[string]any, name string) []any {
	a, _ := n[name].([]any)
	return a
}
