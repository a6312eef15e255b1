package model

import (
	"net/http"
	"testing"
)

// TestCheckObservedReadsTheBodyAgain checks the relations of an answer
// the observer read: from the records the decoder found, and, when it
// found none a row (a page read otherwise), from the body read again; a
// body that cannot be read is left to the schema rules.
func TestCheckObservedReadsTheBodyAgain(t *testing.T) {
	broken := []string{rotation(`"20"`, "n", "0xz", "0xc"), rotation(`"10"`, "n", "0xa", "0xb")}
	body := []byte(`{"keyRotations":{"edges":[{"cursor":"c0","node":` + broken[0] + `},{"cursor":"c1","node":` + broken[1] + `}],"pageInfo":{}}}`)
	decoded, err := Decode(Rotations, 200, body)
	if err != nil {
		t.Fatal(err)
	}
	rows := decoded.Rows
	for _, tc := range []struct {
		name              string
		page              *Page
		body              []byte
		cases, violations int
	}{
		{"the records found", decoded, body, 1, 1},
		{"the body read again", &Page{Status: 200, Rows: rows}, body, 1, 1},
		{"a body that cannot be read", &Page{Status: 200, Rows: rows}, []byte(`{"keyRotations":`), 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRelations()
			a := &Answer{Listing: Rotations, URL: "http://127.0.0.1:1" + Rotations.Path(), Status: 200, Header: http.Header{}, Body: tc.body}
			r.CheckObserved(a, tc.page)
			cases, v := r.Results(RelRotationsChain)
			if cases != tc.cases || len(v) != tc.violations {
				t.Errorf("%d cases, %d violations of %s; want %d, %d", cases, len(v), RelRotationsChain, tc.cases, tc.violations)
			}
		})
	}
}
