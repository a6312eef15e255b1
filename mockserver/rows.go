package mockserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/internal/quote"
	"github.com/chaindata/harness/internal/suggest"
	"github.com/chaindata/harness/schemas"
)

// Rows for one test: records a test adds to a listing, checked against the
// listing's record schema (the reference profile, as the mock writes its
// own rows) and then served in their place by the listing's order, paged,
// filtered and carrying cursors like every other row, until a reset.
//
//	POST /harness/rows   {"listing": "snapshots", "rows": [{...}, ...], "replace": false}
//
// The store keeps them apart from the world (package store, added.go).
// Adding rows empties the request journal: its pages were numbered by the
// rows as they were.

// MaxRowsBytes is the largest body POST /harness/rows takes.
const MaxRowsBytes = 8 << 20

// maxRowProblems bounds the violations a refusal lists.
const maxRowProblems = 100

// rowSchemas are the schema definitions of each listing's records.
var rowSchemas = map[string]string{
	records.ListingGames:             "Game",
	records.ListingSnapshots:         "CoreSnapshot",
	records.ListingKeyRotations:      "EthereumKeyRotation",
	records.ListingNetworkParameters: "NetworkParameter",
	records.ListingTransactions:      "Transaction",
}

// Rows are records to add to one listing: the body of POST /harness/rows,
// and mocktest's Options.Rows.
type Rows struct {
	// Listing is the listing's name: "games", "snapshots", "keyrotations",
	// "networkparameters" or "transactions".
	Listing string `json:"listing"`
	// Rows are its records, each as the listing serves it (a game, a core
	// snapshot, a key rotation, a network parameter or a transaction: the
	// node of an edge, not the edge).
	Rows []json.RawMessage `json:"rows"`
	// Replace lets a row take the place of the row of its key (the world's,
	// or one added before); without it such a row is refused.
	Replace bool `json:"replace,omitempty"`
}

// RowsError is the refusal of rows: what is wrong, and each problem (a
// schema's violation with the row's place, such as "/rows/2/blockHeight:
// ...").
type RowsError struct {
	Message  string
	Problems []string
}

// Error says it on one line.
func (e *RowsError) Error() string {
	if len(e.Problems) == 0 {
		return e.Message
	}
	return e.Message + ": " + strings.Join(e.Problems, "; ")
}

// AddRows adds rows to their listing, each checked against the listing's
// record schema, in their place by its order; the request journal is
// emptied. A *RowsError says why rows were refused, and then none was
// added. Reset removes them.
func (s *Server) AddRows(r Rows) error {
	recs, err := parseRows(r)
	if err != nil {
		return err
	}
	if err := s.store.AddRows(r.Listing, recs, r.Replace); err != nil {
		return &RowsError{Message: "rows refused", Problems: []string{err.Error()}}
	}
	s.journal.Clear()
	return nil
}

// AddRowsAtStart adds rows as AddRows does, and makes them part of the
// server's start: Reset serves them again, as it does the world.
func (s *Server) AddRowsAtStart(rows ...Rows) error {
	for _, r := range rows {
		if err := s.AddRows(r); err != nil {
			return fmt.Errorf("%s rows: %w", r.Listing, err)
		}
	}
	s.store.KeepAddedRows()
	return nil
}

// parseRows checks rows against their schema and returns their records,
// each keeping its bytes, compacted.
func parseRows(r Rows) ([]any, error) {
	def, ok := rowSchemas[r.Listing]
	if !ok {
		return nil, &RowsError{Message: "unknown listing", Problems: []string{fmt.Sprintf("listing %s: want one of %s%s",
			quote.Value(r.Listing), strings.Join(listings, ", "), suggest.Phrase(suggest.Nearest(r.Listing, listings, 1), strconv.Quote))}}
	}
	if len(r.Rows) == 0 {
		return nil, &RowsError{Message: "no rows", Problems: []string{`give the records to add in "rows": [{...}, ...]`}}
	}
	v, err := schemas.LoadProfile(def, schemas.Reference)
	if err != nil {
		return nil, fmt.Errorf("rows: schema %s: %w", def, err)
	}
	var problems []string
	recs := make([]any, len(r.Rows))
	for i, raw := range r.Rows {
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			problems = append(problems, fmt.Sprintf("/rows/%d: not JSON: %v", i, err))
			continue
		}
		var ve *schemas.ValidationError
		if err := v.Validate(buf.Bytes()); errors.As(err, &ve) {
			for _, viol := range ve.Violations {
				problems = append(problems, fmt.Sprintf("/rows/%d%s: %s [%s]", i, viol.Path, viol.Message, viol.Rule))
			}
			continue
		} else if err != nil {
			problems = append(problems, fmt.Sprintf("/rows/%d: %v", i, err))
			continue
		}
		rec, err := records.ParseRecord(r.Listing, slices.Clip(buf.Bytes()))
		if err != nil {
			problems = append(problems, fmt.Sprintf("/rows/%d: %v", i, err))
			continue
		}
		if tx, ok := rec.(*records.Transaction); ok {
			if p := txCursorProblem(tx); p != "" {
				problems = append(problems, fmt.Sprintf("/rows/%d/cursor: %s", i, p))
				continue
			}
		}
		recs[i] = rec
	}
	if len(problems) > 0 {
		if n := len(problems); n > maxRowProblems {
			problems = append(problems[:maxRowProblems], fmt.Sprintf("and %d more", n-maxRowProblems))
		}
		return nil, &RowsError{Message: fmt.Sprintf("rows do not match the schema %s (profile %s)", def, schemas.Reference), Problems: problems}
	}
	return recs, nil
}

// txCursorProblem says what is wrong with a transaction's cursor field, the
// cursor a client pages by, when it is not its block and index.
func txCursorProblem(tx *records.Transaction) string {
	var c struct {
		Cursor string `json:"cursor"`
	}
	want := tx.Cursor()
	if err := json.Unmarshal(tx.JSON, &c); err != nil || c.Cursor != want {
		return fmt.Sprintf("%s, but the transaction's block and index make %s: a client pages by it", quote.Value(c.Cursor), quote.Value(want))
	}
	return ""
}

// handleRows adds the body's rows.
func (s *Server) handleRows(w http.ResponseWriter, r *http.Request) {
	if r.URL.RawQuery != "" {
		writeError(w, invalidArgument("invalid rows", "rows takes its records in the body, not parameters: got "+quote.Value(r.URL.RawQuery)))
		return
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRowsBytes))
	if err != nil {
		writeError(w, invalidArgument("invalid rows", fmt.Sprintf("reading the body: %v (at most %d bytes)", err, MaxRowsBytes)))
		return
	}
	var body Rows
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		writeError(w, invalidArgument("invalid rows", quote.Message(`want {"listing": "...", "rows": [{...}], "replace": false}: `+err.Error())))
		return
	}
	if dec.More() {
		writeError(w, invalidArgument("invalid rows", "the body holds more than one JSON value"))
		return
	}
	if err := s.AddRows(body); err != nil {
		var re *RowsError
		if !errors.As(err, &re) {
			writeError(w, internalError(err.Error()))
			return
		}
		e := &apiError{status: http.StatusBadRequest, code: codeInvalidArgument, message: "InvalidArgument error"}
		for _, p := range re.Problems {
			e.details = append(e.details, errorDetail{Type: errorDetailType, Code: detailNotMapped, Message: re.Message, Inner: quote.Message(p)})
		}
		writeError(w, e)
		return
	}
	s.writeStatus(w)
}
