package edges

import (
	"bytes"
	"strings"
	"testing"
)

func sampleCatalogue(t *testing.T) *Catalogue {
	t.Helper()
	rows := []Row{
		{Listing: "transactions", Cursor: "9007199254740993.0", Label: "tx-1", Query: "/transactions?last=1&before=9007199254740993.1"},
		{Listing: "games", Cursor: "eyJlcG9jaCI6IjEifQ==", Label: "g-1", Query: "/api/v2/games?gameId=a|b"},
		{Listing: "snapshots", Cursor: "c", Label: "s-1", Query: "/api/v2/snapshots"},
	}
	list := []Edge{
		{Key: Key{Class: Uint64Max, Field: "ProofOfWork.nonce"}, Row: 0, Path: "/pow/nonce"},
		{Key: Key{Class: Enum, Field: "TxVersion", Value: "TX_VERSION_V2"}, Row: 0, Path: "/version"},
		{Key: Key{Class: Uint64Max, Field: "ProofOfWork.nonce"}, Row: 1, Path: "/x"},
		{Key: Key{Class: Absent, Field: "Game.team"}, Row: 1, Path: ""},
	}
	ex := []Exemption{{Key: Key{Class: Zero, Field: "Transaction.block"}, Reason: "a place | in the chain"}}
	c, err := NewCatalogue(rows, list, ex)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCatalogueLookups(t *testing.T) {
	c := sampleCatalogue(t)
	got := c.Row("transactions", "9007199254740993.0")
	if len(got) != 2 || got[0].Path != "/pow/nonce" || got[1].Value != "TX_VERSION_V2" {
		t.Errorf("Row(tx-1) = %+v", got)
	}
	if got := c.Row("games", "9007199254740993.0"); got != nil {
		t.Errorf("a cursor of another listing matched: %+v", got)
	}
	if got := c.Row("snapshots", "c"); got != nil {
		t.Errorf("a row without edges has %+v", got)
	}
	e, ok := c.First(Key{Class: Uint64Max, Field: "ProofOfWork.nonce"})
	if !ok || e.Row != 0 {
		t.Errorf("First = %+v, %v; want the edge of row 0", e, ok)
	}
	if _, ok := c.First(Key{Class: Null, Field: "X.y"}); ok {
		t.Error("First found a key no edge has")
	}
	keys := c.Keys()
	want := []string{"uint64-max ProofOfWork.nonce", "enum TxVersion=TX_VERSION_V2", "absent Game.team"}
	if len(keys) != len(want) {
		t.Fatalf("Keys = %v", keys)
	}
	for i, k := range keys {
		if k.String() != want[i] {
			t.Errorf("Keys[%d] = %s, want %s", i, k, want[i])
		}
	}
	if !c.Exempt(Key{Class: Zero, Field: "Transaction.block"}) || c.Exempt(Key{Class: Zero, Field: "Game.epoch"}) {
		t.Error("Exempt does not tell the exemption from another key")
	}
}

func TestNewCatalogueRefusesBadInput(t *testing.T) {
	rows := []Row{{Listing: "games", Cursor: "a"}, {Listing: "games", Cursor: "a"}}
	if _, err := NewCatalogue(rows, nil, nil); err == nil || !strings.Contains(err.Error(), "listed twice") {
		t.Errorf("a row listed twice: %v", err)
	}
	for _, row := range []int{-1, 1} {
		_, err := NewCatalogue(rows[:1], []Edge{{Key: Key{Class: Null, Field: "X.y"}, Row: row}}, nil)
		if err == nil || !strings.Contains(err.Error(), "refers to row") {
			t.Errorf("an edge of row %d: %v", row, err)
		}
	}
}

func TestKeyOrderAndText(t *testing.T) {
	tests := []struct {
		a, b Key
		less bool
	}{
		{Key{Class: Zero, Field: "Z"}, Key{Class: Above2To53, Field: "A"}, true},
		{Key{Class: Above2To53, Field: "A"}, Key{Class: Zero, Field: "Z"}, false},
		{Key{Class: Enum, Field: "A"}, Key{Class: Enum, Field: "B"}, true},
		{Key{Class: Enum, Field: "A", Value: "X"}, Key{Class: Enum, Field: "A", Value: "Y"}, true},
		{Key{Class: Enum, Field: "A", Value: "Y"}, Key{Class: Enum, Field: "A", Value: "X"}, false},
		{Key{Class: "unknown"}, Key{Class: EmptyArray}, false},
		{Key{Class: "unknown"}, Key{Class: "other"}, false},
		{Key{Class: Enum, Field: "A", Value: "X"}, Key{Class: Enum, Field: "A", Value: "X"}, false},
	}
	for _, tc := range tests {
		if got := tc.a.Less(tc.b); got != tc.less {
			t.Errorf("%s < %s = %v, want %v", tc.a, tc.b, got, tc.less)
		}
	}
	seen := map[string]Class{}
	for _, c := range Classes {
		d := c.Describe()
		if d == "" || d == string(c) {
			t.Errorf("class %s has no description", c)
		}
		if other, dup := seen[d]; dup {
			t.Errorf("classes %s and %s share the description %q", c, other, d)
		}
		seen[d] = c
	}
	if Class("x").Describe() != "x" {
		t.Error("an unknown class describes itself by its name")
	}
}

func TestWriteMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := sampleCatalogue(t).WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"| `uint64-max` | a uint64 string at 18446744073709551615 | 1 |\n",
		"| `null` | null where the schemas allow it | 0 |\n",
		"| `uint64-max` | `ProofOfWork.nonce` |  | tx-1 | `/pow/nonce` |\n",
		"| `enum` | `TxVersion` | `TX_VERSION_V2` | tx-1 | `/version` |\n",
		"| `absent` | `Game.team` |  | g-1 | `/` |\n",
		"| tx-1 | transactions | `9007199254740993.0` | `/transactions?last=1&before=9007199254740993.1` |\n",
		"| g-1 | games | `eyJlcG9jaCI6IjEifQ==` | `/api/v2/games?gameId=a\\|b` |\n",
		"| `zero` | `Transaction.block` | a place \\| in the chain |\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the tables lack %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "| s-1 |") {
		t.Error("the rows table lists a row that holds no key's first edge")
	}
}
