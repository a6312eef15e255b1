package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Example is a failing query a run saved (--examples FILE), so that the
// next run asks it first: a regression once found is tried again after the
// data moved. Its cursors may no longer place a row; the oracle then does
// not judge the answer.
type Example struct {
	// Listing is the listing's label (Listing.String).
	Listing string `json:"listing"`
	// Query is the query as it was sent, URL-encoded.
	Query string `json:"query"`
	// Rule is the ID of the rule it failed; Seed the seed of the run that
	// found it, Time when.
	Rule string    `json:"rule"`
	Seed int64     `json:"seed"`
	Time time.Time `json:"time"`
}

// MaxExamples bounds the examples a file keeps: the newest.
const MaxExamples = 100

// exampleFile is the file's shape: {"examples": [...]}.
type exampleFile struct {
	Examples []Example `json:"examples"`
}

// ListingNamed finds a listing by its label.
func ListingNamed(label string) (Listing, bool) {
	for _, l := range Listings {
		if l.String() == label {
			return l, true
		}
	}
	return 0, false
}

// Values reads the example's query.
func (e Example) Values() (url.Values, error) {
	q, err := url.ParseQuery(e.Query)
	if err != nil {
		return nil, fmt.Errorf("query %q: %w", e.Query, err)
	}
	return q, nil
}

// key identifies an example: its listing and its query, canonical.
func (e Example) key() string {
	q, err := e.Values()
	if err != nil {
		return e.Listing + " " + e.Query
	}
	return e.Listing + " " + Canonical(q)
}

// LoadExamples reads an examples file. A file that does not exist holds
// none (the first run creates it); one that cannot be read or parsed is an
// error naming the file and the line.
func LoadExamples(path string) ([]Example, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("examples %s: %w", path, err)
	}
	exs, err := parseExamples(data)
	if err != nil {
		return nil, fmt.Errorf("examples %s:%w", path, err)
	}
	return exs, nil
}

// parseExamples reads the file's JSON; its errors begin with the line
// ("3: ...").
func parseExamples(data []byte) ([]Example, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	at := func(off int64) int { return 1 + bytes.Count(data[:min(int(off), len(data))], []byte("\n")) }
	fail := func(off int64, format string, args ...any) error {
		return fmt.Errorf("%d: %s", at(off), fmt.Sprintf(format, args...))
	}
	jsonErr := func(err error) error {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			// A Decoder counts the offset from the value it decodes: ask for
			// it anew from the file's start.
			var whole *json.SyntaxError
			if errors.As(json.Unmarshal(data, new(any)), &whole) {
				se = whole
			}
			return fail(se.Offset, "not JSON: %v", se)
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return fail(int64(len(data)), "the JSON ends early")
		}
		return fail(dec.InputOffset(), "%v", err)
	}
	expect := func(want json.Delim, what string) error {
		t, err := dec.Token()
		if err != nil {
			return jsonErr(err)
		}
		if t != want {
			return fail(dec.InputOffset(), "want %s, got %v", what, t)
		}
		return nil
	}
	if err := expect('{', `an object {"examples": [...]}`); err != nil {
		return nil, err
	}
	var out []Example
	seen := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, jsonErr(err)
		}
		if t != "examples" || seen {
			return nil, fail(dec.InputOffset(), "unexpected member %v: the file holds one member, examples", t)
		}
		seen = true
		if err := expect('[', "a list of examples"); err != nil {
			return nil, err
		}
		for dec.More() {
			start := dec.InputOffset()
			// The element starts after the comma and the space before it.
			for int(start) < len(data) && strings.ContainsRune(", \t\r\n", rune(data[start])) {
				start++
			}
			var e Example
			if err := dec.Decode(&e); err != nil {
				var te *json.UnmarshalTypeError
				if errors.As(err, &te) {
					// Counted from the example's start, as a Decoder counts.
					return nil, fail(start+te.Offset, "%v", err)
				}
				return nil, jsonErr(err)
			}
			if err := e.check(); err != nil {
				return nil, fail(start, "example %d: %v", len(out)+1, err)
			}
			out = append(out, e)
		}
		if err := expect(']', "the end of the list"); err != nil {
			return nil, err
		}
	}
	if err := expect('}', "the end of the object"); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fail(dec.InputOffset(), "something follows the object")
	}
	return out, nil
}

// check reports what makes an example unusable.
func (e Example) check() error {
	if _, ok := ListingNamed(e.Listing); !ok {
		return fmt.Errorf("listing %q is none of the API's", e.Listing)
	}
	if _, err := e.Values(); err != nil {
		return err
	}
	if e.Rule == "" {
		return errors.New("no rule")
	}
	return nil
}

// ExamplesOf are the queries of a listing's examples, in the file's order.
func ExamplesOf(exs []Example, l Listing) []url.Values {
	var out []url.Values
	for _, e := range exs {
		if q, err := e.Values(); err == nil && e.Listing == l.String() {
			out = append(out, q)
		}
	}
	return out
}

// MergeExamples adds found to old: one example a listing and query (the
// newest), newest first, at most MaxExamples.
func MergeExamples(old, found []Example) []Example {
	all := append(slices.Clone(found), old...)
	slices.SortStableFunc(all, func(a, b Example) int { return b.Time.Compare(a.Time) })
	var out []Example
	seen := map[string]bool{}
	for _, e := range all {
		if k := e.key(); !seen[k] && len(out) < MaxExamples {
			seen[k] = true
			out = append(out, e)
		}
	}
	return out
}

// SaveExamples merges found into the examples file at path (see
// MergeExamples) and writes it whole to a temporary file beside it, then
// renames that into place: a failed write leaves the previous file intact.
func SaveExamples(path string, found []Example) error {
	old, err := LoadExamples(path)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(exampleFile{Examples: MergeExamples(old, found)}, "", "  ")
	if err != nil {
		return fmt.Errorf("examples %s: %w", path, err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("examples %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o644); err != nil { // CreateTemp makes 0600; the file is for others to read too
		f.Close()
		return fmt.Errorf("examples %s: %w", path, err)
	}
	_, werr := f.Write(append(data, '\n'))
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		return fmt.Errorf("examples %s: %w", path, err)
	}
	if err := renameFile(f.Name(), path); err != nil {
		return fmt.Errorf("examples %s: %w", path, err)
	}
	return nil
}

// renameFile is os.Rename; the tests make it fail.
var renameFile = os.Rename
