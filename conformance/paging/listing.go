package paging

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/chaindata/harness/conformance/rule"
)

// RowKey is the sort key of a row: Num is the epoch or block height (0 for
// network parameters), Str the tie-breaking ID or the parameter key, Sub the
// transaction's index in its block.
type RowKey struct {
	Num uint64
	Str string
	Sub uint64
}

// PagedListing describes one of the four cursor-paged /api/v2 listings.
type PagedListing struct {
	// Label is the listing's Ginkgo label and name in rule texts.
	Label string
	// Path is the listing's path under the base URL.
	Path string
	// field is the body's wrapper field holding the page.
	field string
	// Schema is the name of the response schema.
	Schema string
	// Ordered is false for network parameters, which have no age: they are
	// in key order and ignore newestFirst.
	Ordered bool
	// Primary and secondary name the sort key's fields ("" when none).
	Primary, Secondary string
	// keyOf reads the sort key of a record.
	keyOf func(node map[string]any) (RowKey, error)
	// describe writes a key for a message.
	describe func(k RowKey) string
	// Cite is the spec text of the listing's record shape.
	Cite rule.Level
	// BlockField names the record's block height field, for the listings
	// whose rows carry one.
	BlockField string
	// Donors are the labels of listings whose cursors this listing cannot
	// have issued (their cursors hold a differently shaped key).
	Donors []string
}

// Compare orders two keys in the listing's newest-first order: num
// descending, then str ascending. For network parameters (num always 0) this
// is key order A to Z.
func (l *PagedListing) Compare(a, b RowKey) int {
	switch {
	case a.Num > b.Num:
		return -1
	case a.Num < b.Num:
		return 1
	case a.Str < b.Str:
		return -1
	case a.Str > b.Str:
		return 1
	}
	return 0
}

// The four paged listings.
var (
	GamesListing = &PagedListing{
		Label: "games", Cite: rule.Must("2.2", "Game page wrapper: games (object) containing edges and pageInfo"), Path: "/api/v2/games", field: "games", Schema: "ListGamesResponse",
		Ordered: true, Primary: "epoch", Secondary: "id",
		keyOf: func(n map[string]any) (RowKey, error) {
			epoch, err := UintField(n, "epoch")
			if err != nil {
				return RowKey{}, err
			}
			id, err := StringField(n, "id")
			return RowKey{Num: epoch, Str: id}, err
		},
		describe: func(k RowKey) string { return fmt.Sprintf("game epoch=%d id=%s", k.Num, k.Str) },
		Donors:   []string{"network-parameters", "snapshots"},
	}
	SnapshotsListing = &PagedListing{
		Label: "snapshots", Cite: rule.Must("2.3", "Page wrapper: coreSnapshots. Node: blockHash (string), blockHeight (string), coreVersion (string), protocolUpgradeBlock (boolean)"), Path: "/api/v2/snapshots", field: "coreSnapshots", Schema: "ListCoreSnapshotsResponse",
		Ordered: true, Primary: "blockHeight",
		keyOf: func(n map[string]any) (RowKey, error) {
			h, err := UintField(n, "blockHeight")
			return RowKey{Num: h}, err
		},
		describe:   func(k RowKey) string { return fmt.Sprintf("snapshot blockHeight=%d", k.Num) },
		BlockField: "blockHeight",
		Donors:     []string{"network-parameters", "games"},
	}
	RotationsListing = &PagedListing{
		Label: "key-rotations", Cite: rule.Must("2.4", "Page wrapper: keyRotations. Node: blockHeight (uint64), newAddress (string ... nodeId (string), oldAddress (string"), Path: "/api/v2/core/keys/ethereum/rotations", field: "keyRotations",
		Schema: "ListEthereumKeyRotationsResponse", Ordered: true, Primary: "blockHeight", Secondary: "nodeId",
		keyOf: func(n map[string]any) (RowKey, error) {
			h, err := UintField(n, "blockHeight")
			if err != nil {
				return RowKey{}, err
			}
			id, err := StringField(n, "nodeId")
			return RowKey{Num: h, Str: id}, err
		},
		describe:   func(k RowKey) string { return fmt.Sprintf("rotation blockHeight=%d nodeId=%s", k.Num, k.Str) },
		BlockField: "blockHeight",
		Donors:     []string{"network-parameters", "games"},
	}
	ParametersListing = &PagedListing{
		Label: "network-parameters", Cite: rule.Must("2.5", "Page wrapper: networkParameters. Node: key (string, unique key of the parameter), value (string)"), Path: "/api/v2/network/parameters", field: "networkParameters",
		Schema: "ListNetworkParametersResponse", Ordered: false, Secondary: "key",
		keyOf: func(n map[string]any) (RowKey, error) {
			k, err := StringField(n, "key")
			return RowKey{Str: k}, err
		},
		describe: func(k RowKey) string { return fmt.Sprintf("parameter key=%s", k.Str) },
		Donors:   []string{"snapshots", "games"},
	}
)

// pagedListings are the four paged listings, in the order the suite checks
// them.
var pagedListings = []*PagedListing{GamesListing, SnapshotsListing, RotationsListing, ParametersListing}

// ListingByLabel returns the paged listing of a label, or nil.
func ListingByLabel(label string) *PagedListing {
	for _, l := range pagedListings {
		if l.Label == label {
			return l
		}
	}
	return nil
}

// UintField reads a uint64 written either way the spec allows (section 1:
// "uint64 and int64 typed fields are noted per field"): a string of
// decimal digits, or a JSON integer (any number without a fraction, 12 as
// 12.0 or 1.2e1, as JSON Schema counts integers). The schema rules judge
// which encoding is the reference's; the sort key is the same either way.
func UintField(n map[string]any, name string) (uint64, error) {
	v, ok := n[name]
	if !ok || v == nil {
		return 0, fmt.Errorf("field %q is missing", name)
	}
	switch t := v.(type) {
	case string:
		u, err := strconv.ParseUint(t, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("field %q = %q is not a uint64", name, t)
		}
		return u, nil
	case json.Number:
		if u, err := strconv.ParseUint(t.String(), 10, 64); err == nil {
			return u, nil
		}
		if u, ok := integralNumber(t.String()); ok {
			return u, nil
		}
		return 0, fmt.Errorf("field %q = %s is not a uint64", name, clipNumber(t.String()))
	}
	return 0, fmt.Errorf("field %q is %s, not a number", name, jsonKind(v))
}

// integralNumber reads a JSON number with a fraction or an exponent whose
// value is a whole number within uint64 (12.0, 1.2e1). A number of more
// than 64 characters, or with an exponent beyond ±64, is none: no uint64
// needs them, and an exponent of millions would cost big.Rat as much work.
func integralNumber(s string) (uint64, bool) {
	if len(s) > 64 {
		return 0, false
	}
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		exp, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil || exp < -64 || exp > 64 {
			return 0, false
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok || !r.IsInt() || !r.Num().IsUint64() {
		return 0, false
	}
	return r.Num().Uint64(), true
}

// clipNumber shortens a number for a message.
func clipNumber(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// StringField reads a string field.
func StringField(n map[string]any, name string) (string, error) {
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

// Object returns the named sub-object, or nil.
func Object(n map[string]any, name string) map[string]any {
	m, _ := n[name].(map[string]any)
	return m
}

// Array returns the named array, or nil.
func Array(n map[string]any, name string) []any {
	a, _ := n[name].([]any)
	return a
}
