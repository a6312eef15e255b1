package paging

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/chaindata/harness/conformance/client"
)

// TestDecodePage reads pages and refuses, saying where, bodies that cannot
// be used.
func TestDecodePage(t *testing.T) {
	l := SnapshotsListing
	const info = `"pageInfo":{"startCursor":"a","endCursor":"b","hasNextPage":true,"hasPreviousPage":false}`
	p, err := decodePage(l, &client.Exchange{Status: 200, Body: []byte(
		`{"coreSnapshots":{"edges":[{"cursor":"a","node":{"blockHeight":"7","z":1.50,"a":[2]}},{"cursor":"b","node":{"blockHeight":"x"}}],` + info + `}}`)})
	if err != nil {
		t.Fatal(err)
	}
	if p.Info != (pageInfo{StartCursor: "a", EndCursor: "b", HasNext: true}) {
		t.Errorf("page info %+v", p.Info)
	}
	if len(p.Rows) != 2 || p.Rows[0].Cursor != "a" || p.Rows[0].Key.Num != 7 || p.Rows[0].KeyErr != nil || p.Rows[0].Ident != l.describe(RowKey{Num: 7}) {
		t.Fatalf("rows %+v", p.Rows)
	}
	if got, want := p.Rows[0].Compact(), `{"a":[2],"blockHeight":"7","z":1.50}`; got != want {
		t.Errorf("Compact = %s, want %s (keys sorted, numbers as sent)", got, want)
	}
	if r := p.Rows[1]; r.KeyErr == nil || !strings.Contains(r.Ident, "key cannot be read") || !strings.Contains(r.Ident, `cursor "b"`) {
		t.Errorf("a row whose key cannot be read: %+v", r)
	}
	// A null member of pageInfo and a null cursor read as their zero values.
	p, err = decodePage(l, &client.Exchange{Status: 200, Body: []byte(
		`{"coreSnapshots":{"edges":[{"cursor":null,"node":{"blockHeight":"1"}}],"pageInfo":{"startCursor":null,"endCursor":"e","hasNextPage":null,"hasPreviousPage":true}}}`)})
	if err != nil || p.Info != (pageInfo{EndCursor: "e", HasPrev: true}) || p.Rows[0].Cursor != "" {
		t.Errorf("nulls: %+v %v", p, err)
	}
	// No edges member, or null edges: no rows.
	for _, body := range []string{`{"coreSnapshots":{` + info + `}}`, `{"coreSnapshots":{"edges":null,` + info + `}}`} {
		if p, err := decodePage(l, &client.Exchange{Status: 200, Body: []byte(body)}); err != nil || len(p.Rows) != 0 {
			t.Errorf("%s: %+v %v", body, p, err)
		}
	}
	for name, tc := range map[string]struct{ body, want string }{
		"not json":         {`{`, "body is not a JSON object"},
		"not an object":    {`[1]`, "body is not a JSON object"},
		"no field":         {`{"games":{}}`, `no "coreSnapshots" field`},
		"field not object": {`{"coreSnapshots":[]}`, `"coreSnapshots" is not a page of edges: it is an array`},
		"field null":       {`{"coreSnapshots":null}`, "coreSnapshots.pageInfo is missing"},
		"edges not array":  {`{"coreSnapshots":{"edges":{},` + info + `}}`, "its edges are an object"},
		"no page info":     {`{"coreSnapshots":{"edges":[]}}`, "coreSnapshots.pageInfo is missing"},
		"page info string": {`{"coreSnapshots":{"edges":[],"pageInfo":"x"}}`, "its pageInfo is a string"},
		"no end cursor":    {`{"coreSnapshots":{"edges":[],"pageInfo":{"startCursor":"a","hasNextPage":true,"hasPreviousPage":false}}}`, "pageInfo: endCursor is missing"},
		"cursor a number":  {`{"coreSnapshots":{"edges":[],"pageInfo":{"startCursor":1,"endCursor":"b","hasNextPage":true,"hasPreviousPage":false}}}`, "startCursor is a number, not a string"},
		"flag a string":    {`{"coreSnapshots":{"edges":[],"pageInfo":{"startCursor":"a","endCursor":"b","hasNextPage":"true","hasPreviousPage":false}}}`, "hasNextPage is a string, not a boolean"},
		"no has previous":  {`{"coreSnapshots":{"edges":[],"pageInfo":{"startCursor":"a","endCursor":"b","hasNextPage":true}}}`, "hasPreviousPage is missing"},
		"edge a number":    {`{"coreSnapshots":{"edges":[{"cursor":"a","node":{}},3],` + info + `}}`, "edge 1 is a number"},
		"edge null":        {`{"coreSnapshots":{"edges":[null],` + info + `}}`, "coreSnapshots.edges[0]: cursor is missing"},
		"no cursor":        {`{"coreSnapshots":{"edges":[{"node":{}}],` + info + `}}`, "edges[0]: cursor is missing"},
		"cursor a bool":    {`{"coreSnapshots":{"edges":[{"cursor":true,"node":{}}],` + info + `}}`, "cursor is a boolean, not a string"},
		"no node":          {`{"coreSnapshots":{"edges":[{"cursor":"a"}],` + info + `}}`, "edges[0]: node is missing"},
		"node null":        {`{"coreSnapshots":{"edges":[{"cursor":"a","node":null}],` + info + `}}`, "node is null, not an object"},
		"node an array":    {`{"coreSnapshots":{"edges":[{"cursor":"a","node":[]}],` + info + `}}`, "node is an array, not an object"},
	} {
		_, err := decodePage(l, &client.Exchange{Status: 200, Body: []byte(tc.body)})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", name, err, tc.want)
		}
	}
	if _, err := decodePage(l, &client.Exchange{Status: 404}); err == nil || err.Error() != "HTTP 404, want 200" {
		t.Errorf("a 404: %v", err)
	}
	cause := errors.New("refused")
	if _, err := decodePage(l, &client.Exchange{Err: cause}); !errors.Is(err, cause) {
		t.Errorf("no response: %v", err)
	}
}

func TestJSONKind(t *testing.T) {
	for v, want := range map[string]string{`null`: "null", `{}`: "an object", `[]`: "an array", `"s"`: "a string", `true`: "a boolean", `1.5`: "a number"} {
		obj, err := client.DecodeObject([]byte(`{"v":` + v + `}`))
		if err != nil {
			t.Fatal(err)
		}
		if got := jsonKind(obj["v"]); got != want {
			t.Errorf("jsonKind(%s) = %q, want %q", v, got, want)
		}
	}
}

// TestUintField reads a uint64 in either encoding the spec allows, and
// nothing else.
func TestUintField(t *testing.T) {
	tests := []struct {
		name    string
		v       any
		want    uint64
		wantErr string
	}{
		{"digit string", "45120415", 45120415, ""},
		{"largest digit string", "18446744073709551615", 1<<64 - 1, ""},
		{"JSON integer", json.Number("45120415"), 45120415, ""},
		{"largest JSON integer", json.Number("18446744073709551615"), 1<<64 - 1, ""},
		{"JSON integer with a zero fraction", json.Number("12.0"), 12, ""},
		{"JSON integer with an exponent", json.Number("1.2e1"), 12, ""},
		{"JSON integer with a signed exponent", json.Number("1200e-2"), 12, ""},
		{"zero", json.Number("0"), 0, ""},
		{"JSON number with a fraction", json.Number("12.5"), 0, `field "h" = 12.5 is not a uint64`},
		{"negative JSON integer", json.Number("-1"), 0, "is not a uint64"},
		{"JSON integer beyond uint64", json.Number("18446744073709551616"), 0, "is not a uint64"},
		{"exponent far beyond uint64", json.Number("1e1000000000"), 0, "is not a uint64"},
		{"exponent that is not a number", json.Number("1e+x"), 0, "is not a uint64"},
		{"a very long number", json.Number("1" + strings.Repeat("0", 70) + "e-70"), 0, "…"},
		{"64 characters", json.Number("12." + strings.Repeat("0", 61)), 12, ""},
		{"65 characters", json.Number("12." + strings.Repeat("0", 62)), 0, "is not a uint64"},
		{"exponent 64", json.Number("0e64"), 0, ""},
		{"exponent -64", json.Number("0e-64"), 0, ""},
		{"exponent 65", json.Number("0e65"), 0, "is not a uint64"},
		{"exponent -65", json.Number("0e-65"), 0, "is not a uint64"},
		{"a number of 40 characters, whole in the message", json.Number("0." + strings.Repeat("0", 37) + "5"), 0, "= 0." + strings.Repeat("0", 37) + "5 is not"},
		{"digit string beyond uint64", "18446744073709551616", 0, `field "h" = "18446744073709551616" is not a uint64`},
		{"digit string with a fraction", "12.0", 0, "is not a uint64"},
		{"boolean", true, 0, `field "h" is a boolean, not a number`},
		{"object", map[string]any{}, 0, "is an object, not a number"},
		{"missing", nil, 0, `field "h" is missing`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := map[string]any{}
			if tc.v != nil {
				n["h"] = tc.v
			}
			got, err := UintField(n, "h")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("UintField = %d, %v; want an error saying %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("UintField = %d, %v; want %d", got, err, tc.want)
			}
		})
	}
}
