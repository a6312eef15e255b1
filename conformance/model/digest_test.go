package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// digestOf digests one JSON value, failing the test when it cannot.
func digestOf(t *testing.T, v string) uint64 {
	t.Helper()
	s := &scanner{b: []byte(v)}
	h, ok := s.value(0)
	if !ok || s.next() != 0 {
		t.Fatalf("cannot digest %s", v)
	}
	return h
}

func TestDigestIsOfContent(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{`{"a":"1","b":[1,2]}`, `{"b":[1,2],"a":"1"}`, true},
		{`{"a":"1","b":[1,2]}`, " {\n \"a\" : \"1\" ,\t\"b\":[ 1 , 2 ] }\r\n", true},
		{`{"a":"x/y"}`, `{"a":"x\/y"}`, true},
		{`{"a":"é"}`, `{"a":"\u00e9"}`, true},
		{`{}`, `{ }`, true},
		{`[]`, `[ ]`, true},
		{`{"a":{"b":{"c":null}}}`, `{"a":{"b":{"c":null}}}`, true},
		{`{"a":"1"}`, `{"a":1}`, false},
		{`{"a":1}`, `{"a":1.0}`, false},
		{`{"a":true}`, `{"a":"true"}`, false},
		{`{"a":null}`, `{}`, false},
		{`{"a":[1,2]}`, `{"a":[2,1]}`, false},
		{`{"a":"1","b":"2"}`, `{"a":"2","b":"1"}`, false},
		{`{"ab":"c"}`, `{"a":"bc"}`, false},
		{`{"a":{}}`, `{"a":[]}`, false},
		{`{"a":[]}`, `{"a":[[]]}`, false},
		{`{"a":"1","a":"1"}`, `{"a":"1"}`, false},
		{`{"a":""}`, `{"a":" "}`, false},
		{`[9,90,0.9,1e9,-9,0]`, `[ 9, 90, 0.9, 1e9, -9, 0 ]`, true},
		{`[9]`, `[90]`, false},
		{`9`, `9`, true},
		{`{}`, `{"a":null}`, false},
		{`{"a":""}`, `{ "a" : "" }`, true},
		{"{\"a\":\"\xc3\xa9\"}", `{"a":"\u00e9"}`, true},
		{"{\"a\":\"\xff\xfe\"}", `{"a":"\ufffd\ufffd"}`, true}, // bytes that are not UTF-8 read as encoding/json reads them
		{`["a","b"]`, `["ab"]`, false},
		{`{"x":{"a":"1"},"y":{"b":"2"}}`, `{"x":{"b":"2"},"y":{"a":"1"}}`, false},
	} {
		a, b := digestOf(t, tc.a), digestOf(t, tc.b)
		if (a == b) != tc.same {
			t.Errorf("%s and %s: same digest %v, want %v", tc.a, tc.b, a == b, tc.same)
		}
	}
}

func TestScannerRefusesWhatItDoesNotExpect(t *testing.T) {
	for _, v := range []string{``, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `[1 2]`, `"abc`, `"a\"`, `{"a":1]`, `{1:2}`, `"\x"`,
		`01`, `-`, `1.`, `1e`, `1e+`, `.5`, `+1`, `tru`, `nul`, `falsy`, `[1.e3]`} {
		s := &scanner{b: []byte(v)}
		if _, ok := s.value(0); ok && s.next() == 0 {
			t.Errorf("%q: digested", v)
		}
	}
	deep := strings.Repeat("[", maxDepth+2) + strings.Repeat("]", maxDepth+2)
	if _, ok := (&scanner{b: []byte(deep)}).value(0); ok {
		t.Errorf("a value nested deeper than %d is digested", maxDepth)
	}
	deepObjects := strings.Repeat(`{"a":`, maxDepth+2) + "1" + strings.Repeat("}", maxDepth+2)
	if _, ok := (&scanner{b: []byte(deepObjects)}).value(0); ok {
		t.Errorf("objects nested deeper than %d are digested", maxDepth)
	}
	deepest := strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)
	if _, ok := (&scanner{b: []byte(deepest)}).value(0); !ok {
		t.Errorf("a value nested %d deep is not digested", maxDepth+1)
	}
}

// TestNodesFindTheRecords checks that the records found in a body are the
// ones encoding/json reads into Decode's struct, one a row, and that a
// body read otherwise leaves the digests unknown.
func TestNodesFindTheRecords(t *testing.T) {
	n1, n2 := `{"blockHeight":"2","x":{"node":"no"}}`, `{"blockHeight":"1"}`
	for _, tc := range []struct {
		name string
		l    Listing
		body string
		want []string // the records' bytes; nil: the digests stay unknown
	}{
		{"page", Snapshots, `{"coreSnapshots":{"edges":[{"cursor":"a","node":` + n1 + `},{"node":` + n2 + `,"cursor":"b"}],"pageInfo":{}}}`, []string{n1, n2}},
		{"other members first", Snapshots, `{"x":[{"edges":[1]}],"coreSnapshots":{"pageInfo":{"a":[]},"edges":[{"node":` + n1 + `}]}}`, []string{n1}},
		{"a field in another case", Snapshots, `{"CoreSnapshots":{"Edges":[{"Node":` + n1 + `}]}}`, []string{n1}},
		{"the last member of a name wins", Snapshots, `{"coreSnapshots":{"edges":[{"node":` + n2 + `}],"edges":[{"node":{"a":1},"node":` + n1 + `}]}}`, []string{n1}},
		{"no edges", Snapshots, `{"coreSnapshots":{"edges":null,"pageInfo":{}}}`, []string{}},
		{"transactions", Transactions, `{"transactions":[` + n1 + `, ` + n2 + `]}`, []string{n1, n2}},
		{"no transactions", Transactions, `{"transactions":null}`, []string{}},
		{"no field", Snapshots, `{"games":{"edges":[]}}`, nil},
		{"an edge without a node", Snapshots, `{"coreSnapshots":{"edges":[{"cursor":"a"}]}}`, nil},
		{"not an object", Snapshots, `[]`, nil},
		{"cut", Snapshots, `{"coreSnapshots":{"edges":[{"node":` + n1, nil},
	} {
		ns, ok := nodes(tc.l, []byte(tc.body))
		if tc.want == nil {
			if ok {
				t.Errorf("%s: records found: %d", tc.name, len(ns))
			}
			continue
		}
		if !ok || len(ns) != len(tc.want) {
			t.Errorf("%s: found %v (%d records), want %d", tc.name, ok, len(ns), len(tc.want))
			continue
		}
		for i, n := range ns {
			if string(n.raw) != tc.want[i] || n.digest != digestOf(t, tc.want[i]) {
				t.Errorf("%s: record %d is %s, want %s", tc.name, i, n.raw, tc.want[i])
			}
		}
	}
}

// TestDecodeDigestsEachRow checks that Decode gives each row its record's
// digest and bytes, the same for the same content however it is written,
// and none when the records are not one a row.
func TestDecodeDigestsEachRow(t *testing.T) {
	rows := snaps(3, 2, 1)
	body := encode(Snapshots, rows, false, false)
	p, err := Decode(Snapshots, 200, body)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range p.Rows {
		if r.Digest == 0 || r.Digest != digestOf(t, string(p.Node(i))) || !bytes.Contains(p.Node(i), []byte(fmt.Sprintf(`"blockHeight":"%d"`, r.Key.Num))) {
			t.Errorf("row %d: digest %x of %s", i, r.Digest, p.Node(i))
		}
	}
	if p.Node(-1) != nil || p.Node(3) != nil {
		t.Errorf("Node out of range gives bytes")
	}
	// The same records, written with members in another order.
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	indented, err := json.MarshalIndent(v, "", "   ")
	if err != nil {
		t.Fatal(err)
	}
	q, err := Decode(Snapshots, 200, indented)
	if err != nil {
		t.Fatal(err)
	}
	for i := range q.Rows {
		if q.Rows[i].Digest != p.Rows[i].Digest {
			t.Errorf("row %d: written otherwise, digest %x, want %x", i, q.Rows[i].Digest, p.Rows[i].Digest)
		}
	}
	// Transactions.
	txs := txRows("5.1 A p1", "5.0 B p2")
	tp, err := Decode(Transactions, 200, encode(Transactions, txs, false, false))
	if err != nil || tp.Rows[0].Digest == 0 || tp.Rows[0].Digest == tp.Rows[1].Digest {
		t.Errorf("transactions: %v, digests %x %x", err, tp.Rows[0].Digest, tp.Rows[1].Digest)
	}
}

func TestSkipValid(t *testing.T) {
	for _, v := range []string{
		`"abc"`, `"a\"b"`, `"a\\"`, `"a\\\"b"`, `""`, `123`, `-1.5e3`, `true`, `null`,
		`{}`, `[]`, `{"a":[1,"]",{"b":"}"}],"c":null}`, `[[[]],{}]`, `{ "a" : "x\\" , "b" : 2 }`,
	} {
		for _, after := range []string{` ,"next"`, ``} {
			s := &scanner{b: []byte(v + after), valid: true}
			s.skipValid()
			if got := string(s.b[:s.i]); got != v {
				t.Errorf("skipValid over %s stops after %q", v+after, got)
			}
		}
	}
}
