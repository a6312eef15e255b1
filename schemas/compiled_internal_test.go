package schemas

import (
	"encoding/json"
	"testing"
)

// TestFastPathUndecided: what gojsonschema cannot check (a number beyond
// float64 at an enum, where it fails), and values no JSON decoding makes,
// the fast path leaves to gojsonschema.
func TestFastPathUndecided(t *testing.T) {
	c, err := newFastCompiler(map[string][]byte{"t.json": []byte(`{"$schema": "` + draft07 + `", "$id": "` + BaseURL + `t.json",
		"definitions": {"Zero": {"const": 0}, "Min": {"minimum": 1}, "Any": {}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	zero, err := c.compile("t.json", "/definitions/Zero")
	if err != nil {
		t.Fatal(err)
	}
	minimum, err := c.compile("t.json", "/definitions/Min")
	if err != nil {
		t.Fatal(err)
	}
	anything, err := c.compile("t.json", "/definitions/Any")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		n       *fastNode
		v       any
		valid   bool
		decided bool
	}{
		{zero, json.Number("0"), true, true},
		{zero, json.Number("1e400"), false, false},
		{zero, map[string]any{"a": json.Number("1e400")}, false, false},
		{minimum, json.Number("not a number"), false, false},
		{minimum, json.Number("1e400"), true, true},
		{minimum, json.Number("-1e400"), false, true},
		{minimum, json.Number("1"), true, true},
		{anything, 1.5, false, false},
		{anything, json.Number("1e400"), true, true},
	} {
		valid, decided := fastValid(tc.n, tc.v)
		if valid != tc.valid || decided != tc.decided {
			t.Errorf("%#v: valid %v, decided %v; want %v, %v", tc.v, valid, decided, tc.valid, tc.decided)
		}
	}
	defer func() {
		if r := recover(); r == nil || r == errUndecided {
			t.Errorf("fastValid recovered %v, want other panics passed on", r)
		}
	}()
	var broken *fastNode
	fastValid(broken, nil)
}

// TestCanonicalTextIsGojsonschemas: the short cut for short integers gives
// what marshalWithoutNumber gives.
func TestCanonicalTextIsGojsonschemas(t *testing.T) {
	for _, s := range []string{"0", "-0", "1", "-1", "10", "123456789012345", "-123456789012345", "1234567890123456",
		"12345678901234567", "1.0", "1e2", "0.5", "-0.0", "100000000000000000000000"} {
		want, err := marshalWithoutNumber(json.Number(s))
		if err != nil {
			t.Fatal(err)
		}
		if got := canonicalText(&jval{kind: jNumber, s: s}); got != want {
			t.Errorf("%s: %s, want %s", s, got, want)
		}
	}
	for _, s := range []string{"0", "-0", "7", "-7", "123456789012345", "-123456789012345"} {
		if !shortInteger(s) {
			t.Errorf("%s: not a short integer", s)
		}
	}
	for _, s := range []string{"", "-", "1234567890123456", "-1234567890123456", "01", "-01", "1.0", "1e2", "+1", "0x1"} {
		if shortInteger(s) {
			t.Errorf("%s: a short integer", s)
		}
	}
}
