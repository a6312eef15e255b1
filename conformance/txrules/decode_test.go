package txrules

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/paging"
)

// TestDecodeTransactions reads an answer of /transactions into rows named
// by cursor, or by block and a digest of the record without one, and
// refuses bodies that cannot be used.
func TestDecodeTransactions(t *testing.T) {
	p, err := decodeTransactions(&client.Exchange{Status: 200, Body: []byte(
		`{"transactions":[{"block":"9","index":2,"cursor":"9.2"},{"z":1,"block":8},{"cursor":"x"}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Rows) != 3 {
		t.Fatalf("%d rows", len(p.Rows))
	}
	if r := p.Rows[0]; r.Cursor != "9.2" || r.Key.Num != 9 || r.Key.Sub != 2 || r.Ident != "transaction 9.2 (block 9)" {
		t.Errorf("row 0: %+v", r)
	}
	sum := sha256.Sum256([]byte(`{"block":8,"z":1}`))
	if r := p.Rows[1]; r.Ident != fmt.Sprintf("transaction block=8 #%x", sum[:6]) {
		t.Errorf("row 1 is named %q, want its block and the digest of its sorted record", r.Ident)
	}
	if r := p.Rows[2]; r.KeyErr == nil || !strings.Contains(r.Ident, "block cannot be read") {
		t.Errorf("row 2: %+v", r)
	}
	for name, tc := range map[string]struct{ body, want string }{
		"not json":      {`[`, "body is not an object with a transactions array"},
		"not an object": {`"s"`, "body is not an object with a transactions array"},
		"no array":      {`{"transaction":[]}`, "body has no transactions array"},
		"null array":    {`{"transactions":null}`, "body has no transactions array"},
		"an object":     {`{"transactions":{}}`, "body has no transactions array"},
		"not a record":  {`{"transactions":[{},4]}`, "transactions[1] is not an object"},
	} {
		_, err := decodeTransactions(&client.Exchange{Status: 200, Body: []byte(tc.body)})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", name, err, tc.want)
		}
	}
	if _, err := decodeTransactions(&client.Exchange{Status: 503}); err == nil || !strings.Contains(err.Error(), "HTTP 503") {
		t.Errorf("a 503: %v", err)
	}
	if _, err := decodeTransactions(&client.Exchange{Err: fmt.Errorf("reset")}); err == nil || !strings.Contains(err.Error(), "no response: reset") {
		t.Errorf("no response: %v", err)
	}
}

// TestDestinations: the receivers of a command are the destinations of its
// transfers to a general account, whatever their shape (the spec says "party
// public key", no more), and no other destination.
func TestDestinations(t *testing.T) {
	cmd := map[string]any{"batchProposalSubmission": map[string]any{"terms": map[string]any{"changes": []any{
		map[string]any{"newTransfer": map[string]any{"changes": map[string]any{
			"destinationType": "ACCOUNT_TYPE_GENERAL", "destination": "69464E35BCB8E8A2900CA0F87ACAF252D50CF2AB2FC73694845A16B7C8A0DC6F"}}},
		map[string]any{"newTransfer": map[string]any{"changes": map[string]any{
			"destinationType": "ACCOUNT_TYPE_GENERAL", "destination": "party-7"}}},
		map[string]any{"newTransfer": map[string]any{"changes": map[string]any{
			"destinationType": "ACCOUNT_TYPE_INSURANCE", "destination": "market-1"}}},
		map[string]any{"newTransfer": map[string]any{"changes": map[string]any{
			"destinationType": "ACCOUNT_TYPE_GENERAL", "destination": ""}}},
	}}}}
	got := destinations(cmd)
	want := []string{"69464E35BCB8E8A2900CA0F87ACAF252D50CF2AB2FC73694845A16B7C8A0DC6F", "party-7"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("destinations = %v, want %v", got, want)
	}
	tx := map[string]any{"submitter": "s", "command": cmd}
	for party, want := range map[string]bool{"s": true, "party-7": true, "market-1": false, "": false, "other": false} {
		if got := txMatchesParty(tx, []string{party}); got != want {
			t.Errorf("txMatchesParty(%q) = %v, want %v", party, got, want)
		}
	}
}

// TestMissingKnownRow: a filtered walk lacks a known matching row only when
// it held it nowhere though it reached past the row's block; inside that
// block the order is not the spec's, so a walk cut short there says
// nothing.
func TestMissingKnownRow(t *testing.T) {
	row := func(block, index uint64) paging.Row {
		return paging.Row{Key: paging.RowKey{Num: block, Sub: index}, Ident: fmt.Sprintf("%d.%d", block, index)}
	}
	known := row(8, 1)
	tests := []struct {
		name    string
		w       *paging.Walk
		missing bool
	}{
		{"held", &paging.Walk{Rows: []paging.Row{row(9, 0), row(8, 1)}}, false},
		{"complete without it", &paging.Walk{Rows: []paging.Row{row(9, 0), row(7, 0)}, Complete: true}, true},
		{"cut short past its block", &paging.Walk{Rows: []paging.Row{row(9, 0), row(7, 0)}}, true},
		{"cut short inside its block, before it by index", &paging.Walk{Rows: []paging.Row{row(9, 0), row(8, 0)}}, false},
		{"cut short before its block", &paging.Walk{Rows: []paging.Row{row(9, 0)}}, false},
		{"cut short before any row", &paging.Walk{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := missingKnownRow(tc.w, known); (got != "") != tc.missing {
				t.Errorf("missingKnownRow = %q, want missing %v", got, tc.missing)
			}
		})
	}
}
