package model

import (
	"reflect"
	"strings"
	"testing"
)

// agree checks that fastDecode reads a body as decodeJSON does, or leaves it
// to it; it returns whether fastDecode read it.
func agree(t *testing.T, l Listing, body []byte) bool {
	t.Helper()
	fast, ok := fastDecode(l, body)
	slow, err := decodeJSON(l, body)
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("%s %q: fastDecode reads a body encoding/json refuses (%v)", l, body, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%s %q: fastDecode reads\n%+v\nencoding/json\n%+v", l, body, fast, slow)
	}
	return true
}

// gameBody is a games answer with one game, written as given.
const gameBody = `{"games":{"edges":[{"cursor":"c1","node":{"epoch":"7","id":"g","participants":"3",` +
	`"individual":{"individual":[{"individual":"p1","rank":"1"},{"individual":"p2"}]},` +
	`"team":{"team":[{"team":{"teamId":"t1","membersParticipating":[{"individual":"m1"}]}},{"team":{"teamId":"t2"}}]}}}],` +
	`"pageInfo":{"startCursor":"c1","endCursor":"c1","hasNextPage":true,"hasPreviousPage":false}}}`

const txBody = `{"transactions":[{"block":"9","index":1,"cursor":"9.1","type":"Transfer Funds","submitter":"s",` +
	`"command":{"proposalSubmission":{"terms":{"destination":"r","destinationType":"ACCOUNT_TYPE_GENERAL"}}}},` +
	`{"block":9,"index":"0","cursor":"9.0","type":"Submit Order","submitter":"s","command":null}]}`

func TestFastDecodeAgreesWithEncodingJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    Listing
		body string
		fast bool // whether fastDecode reads it (else it leaves it to encoding/json)
	}{
		{"a game", Games, gameBody, true},
		{"transactions", Transactions, txBody, true},
		{"spaces and other members", Snapshots, " { \"x\" : [1, {\"a\": null}, -2.5e+3, true] , \"coreSnapshots\" : { \"pageInfo\" : null , \"edges\" : [ { \"node\" : { \"blockHeight\" : \"5\" , \"y\" : false } } ] } } \n", true},
		{"escapes", Parameters, `{"networkParameters":{"edges":[{"cursor":"a\/b","node":{"key":"k\u00e9y","value":"\"x\""}}]}}`, true},
		{"an escaped member name", Parameters, `{"networkParameters":{"edges":[{"node":{"\u006bey":"k"}}]}}`, true},
		{"bytes outside ASCII", Parameters, "{\"networkParameters\":{\"edges\":[{\"node\":{\"key\":\"k\u00e9\xff\"}}]}}", true},
		{"bytes that are not UTF-8", Parameters, "{\"networkParameters\":{\"edges\":[{\"node\":{\"key\":\"k\xc3\xa9\xff\x80\"}}]}}", true},
		{"a lone continuation byte", Parameters, "{\"networkParameters\":{\"edges\":[{\"node\":{\"key\":\"k\x80\"}}]}}", true},
		{"empty objects and arrays", Snapshots, `{"x":{},"coreSnapshots":{"edges":[{"node":{"blockHeight":"5","o":{},"a":[],"n":[{},[]]}}],"pageInfo":{}}}`, true},
		{"empty strings", Parameters, `{"networkParameters":{"edges":[{"cursor":"","node":{"key":""}}],"pageInfo":{"startCursor":"","endCursor":""}}}`, true},
		{"nulls", Games, `{"games":{"edges":[{"cursor":null,"node":{"epoch":"1","id":"g","individual":null,"team":{"team":[null,{"team":null}]}}}],"pageInfo":{"hasNextPage":null}}}`, true},
		{"null edges", Snapshots, `{"coreSnapshots":{"edges":null}}`, true},
		{"empty", Transactions, `{"transactions":[]}`, true},
		{"a member in another case", Snapshots, `{"coreSnapshots":{"Edges":[{"node":{"blockHeight":"5"}}]}}`, false},
		{"a record member in another case", Snapshots, `{"coreSnapshots":{"edges":[{"node":{"BlockHeight":"5"}}]}}`, false},
		{"a folded letter", Rotations, "{\"keyRotations\":{\"edges\":[{\"node\":{\"blockHeight\":\"1\",\"nodeId\":\"n\",\"nodeI\u212a\":\"x\"}}]}}", true},
		{"the field in another case", Snapshots, `{"CoreSnapshots":{"edges":[]}}`, false},
		{"the field twice", Snapshots, `{"coreSnapshots":{"edges":[]},"coreSnapshots":{"edges":[]}}`, false},
		{"a member twice", Snapshots, `{"coreSnapshots":{"edges":[{"node":{"blockHeight":"5","blockHeight":"6"}}]}}`, false},
		{"no field", Snapshots, `{"games":{"edges":[]}}`, false},
		{"null field", Snapshots, `{"coreSnapshots":null}`, false},
		{"a number as a number", Snapshots, `{"coreSnapshots":{"edges":[{"node":{"blockHeight":5}}]}}`, true},
		{"a number that is not a uint", Snapshots, `{"coreSnapshots":{"edges":[{"node":{"blockHeight":"-5"}}]}}`, false},
		{"a number with an exponent", Snapshots, `{"coreSnapshots":{"edges":[{"node":{"blockHeight":5e2}}]}}`, false},
		{"a number with an escape", Snapshots, `{"coreSnapshots":{"edges":[{"node":{"blockHeight":"\u0035"}}]}}`, false},
		{"a string of another type", Parameters, `{"networkParameters":{"edges":[{"node":{"key":5}}]}}`, false},
		{"a record that is null", Snapshots, `{"coreSnapshots":{"edges":[{"node":null}]}}`, false},
		{"an edge that is null", Snapshots, `{"coreSnapshots":{"edges":[null]}}`, false},
		{"a missing field of the record", Snapshots, `{"coreSnapshots":{"edges":[{"node":{}}]}}`, false},
		{"trailing bytes", Snapshots, `{"coreSnapshots":{"edges":[]}} x`, false},
		{"a control character", Parameters, "{\"networkParameters\":{\"edges\":[{\"node\":{\"key\":\"a\x01\"}}]}}", false},
		{"a bad literal elsewhere", Snapshots, `{"x":tru,"coreSnapshots":{"edges":[]}}`, false},
		{"a bad number elsewhere", Snapshots, `{"x":01,"coreSnapshots":{"edges":[]}}`, false},
		{"cut", Snapshots, `{"coreSnapshots":{"edges":[`, false},
		{"not an object", Snapshots, `[]`, false},
		{"a flag of another type", Snapshots, `{"coreSnapshots":{"edges":[],"pageInfo":{"hasNextPage":"true"}}}`, false},
		{"a transaction without an index, its cursor holding it", Transactions, `{"transactions":[{"block":"3","cursor":"3.2"}]}`, true},
	} {
		got := agree(t, tc.l, []byte(tc.body))
		if got != tc.fast {
			t.Errorf("%s: read by fastDecode %v, want %v", tc.name, got, tc.fast)
		}
	}
}

func TestFastDecodeReadsEveryListing(t *testing.T) {
	for _, l := range Listings {
		var rows []Row
		switch l {
		case Games:
			rows = []Row{game(9, "a", individual("p1", "p2")), game(9, "b", team([]string{"t1", "t2"}, "m1")), game(8, "a", nil)}
		case Transactions:
			rows = txRows("9.1 A p1", "9.0 B p2")
			rows[0].Receivers = []string{"r1"}
		case Parameters:
			rows = []Row{{Key: Key{Str: "a"}, Cursor: "YQ=="}, {Key: Key{Str: "b"}, Cursor: "Yg=="}}
		default:
			rows = snaps(3, 2, 1)
			if l == Rotations {
				for i := range rows {
					rows[i].Key.Str = "n"
				}
			}
		}
		body := encode(l, rows, true, false)
		if !agree(t, l, body) {
			t.Errorf("%s: fastDecode does not read %s", l, body)
		}
		p, _ := Decode(l, 200, body)
		if len(p.Rows) != len(rows) || p.Rows[0].Digest == 0 || p.Node(0) == nil {
			t.Errorf("%s: %d rows, digest %x", l, len(p.Rows), p.Rows[0].Digest)
		}
	}
}

func FuzzFastDecode(f *testing.F) {
	for _, s := range []string{gameBody, txBody, `{"coreSnapshots":{"edges":[{"node":{"blockHeight":"5"}}]}}`,
		`{"networkParameters":{"edges":[{"cursor":"a","node":{"key":"k"}}],"pageInfo":{"hasNextPage":false}}}`,
		`{"keyRotations":{"edges":[{"node":{"blockHeight":1,"nodeId":"n"}}]}}`} {
		for _, l := range Listings {
			f.Add(uint8(l), s)
		}
	}
	f.Fuzz(func(t *testing.T, l uint8, body string) {
		if int(l) >= len(Listings) || strings.Count(body, "[")+strings.Count(body, "{") > 200 {
			return
		}
		agree(t, Listing(l), []byte(body))
	})
}
