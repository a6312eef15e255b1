package model

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
)

// The oracle places a cursor in one of three ways, from the firmest:
//
//   - a cursor of a held row (the listing's unfiltered walk issued it) is
//     that row's;
//   - a cursor the deployment issued in an answer of this run (Issue), a
//     filtered answer's among them, is the row it was issued with: the
//     spec's pagination.after is "the cursor of the last row of the
//     previous page", whichever query that page answered;
//   - any other cursor that decodes, in the form docs/behaviour.md gives
//     (base64 of the key's JSON object for the /api/v2 listings,
//     "<block>.<index>" for transactions), to a key is placed by that key,
//     and the answer is docs/behaviour.md's (SHOULD): the spec leaves the
//     cursor's format to the deployment.
//
// The first two are judged at the level of the rest of the query.

// issuedCursor is a cursor the deployment issued, with the key of the row it
// was issued with; ambiguous when it was issued with two different rows.
type issuedCursor struct {
	key       Key
	ambiguous bool
}

// Issue records that the deployment issued cursor c with the row of key k
// (an edge's cursor and its node, or a transaction's cursor field). A cursor
// issued with two different rows places neither. Issue is not safe to call
// while Expect runs.
func (m *Model) Issue(c string, k Key) {
	if c == "" {
		return
	}
	if held, ok := m.cursors[c]; ok && held == k {
		return
	}
	if m.issued == nil {
		m.issued = map[string]issuedCursor{}
	}
	if old, ok := m.issued[c]; ok {
		if old.key != k {
			m.issued[c] = issuedCursor{key: old.key, ambiguous: true}
		}
		return
	}
	m.issued[c] = issuedCursor{key: k}
}

// IssuedCount is how many cursors the deployment issued that Issue
// recorded and that place a row (not ambiguous).
func (m *Model) IssuedCount() int {
	n := 0
	for _, c := range m.issued {
		if !c.ambiguous {
			n++
		}
	}
	return n
}

// placeCursor places a cursor of a paged listing: its key, and the reason
// the answer is docs/behaviour.md's ("" when the deployment issued it).
// known is false when the cursor cannot be placed.
func (m *Model) placeCursor(c string) (k Key, should string, known bool) {
	if k, ok := m.cursors[c]; ok {
		return k, "", true
	}
	if ic, ok := m.issued[c]; ok {
		return ic.key, "", !ic.ambiguous
	}
	if k, ok := decodePagedCursor(m.Listing, c); ok {
		return k, "a cursor the deployment did not issue, placed by the key it decodes to in docs/behaviour.md's form", true
	}
	return Key{}, "", false
}

// cursorFields are the members of a paged listing's cursor object, in
// docs/behaviour.md's order; numeric says which hold a uint64.
var cursorFields = map[Listing][]struct {
	name    string
	numeric bool
}{
	Games:      {{"epoch", true}, {"id", false}},
	Snapshots:  {{"blockHeight", true}},
	Rotations:  {{"blockHeight", true}, {"nodeId", false}},
	Parameters: {{"key", false}},
}

// decodePagedCursor reads a cursor in docs/behaviour.md's form: standard
// padded base64 of a JSON object holding exactly the listing's key
// members, in order, each a string (digits for a number). ok is false for
// anything else.
func decodePagedCursor(l Listing, c string) (Key, bool) {
	fields, paged := cursorFields[l]
	if !paged {
		return Key{}, false
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(c)
	if err != nil {
		return Key{}, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return Key{}, false
	}
	var k Key
	for _, f := range fields {
		name, err := dec.Token()
		if err != nil || name != f.name {
			return Key{}, false
		}
		v, err := dec.Token()
		s, isString := v.(string)
		if err != nil || !isString || s == "" {
			return Key{}, false
		}
		if !f.numeric {
			k.Str = s
			continue
		}
		n, err := strconv.ParseUint(s, 10, 64) // digits only: no sign, no space
		if err != nil {
			return Key{}, false
		}
		k.Num = n
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return Key{}, false
	}
	if _, err := dec.Token(); err == nil {
		return Key{}, false // something follows the object
	}
	return k, true
}

// encodePagedCursor writes a key as a cursor in docs/behaviour.md's form;
// "" for the transactions, whose cursors are "<block>.<index>".
func encodePagedCursor(l Listing, k Key) string {
	fields, paged := cursorFields[l]
	if !paged {
		return ""
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		v := k.Str
		if f.numeric {
			v = strconv.FormatUint(k.Num, 10)
		}
		name, _ := json.Marshal(f.name)
		val, _ := json.Marshal(v)
		b.Write(name)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteByte('}')
	return base64.StdEncoding.EncodeToString([]byte(b.String()))
}

// cursorForm reports whether the model's held cursors are in
// docs/behaviour.md's form: each decodes to its own row's key. The
// generator writes cursors of rows not held only for a deployment whose
// cursors are.
func (m *Model) cursorForm() bool {
	rows := m.head
	if len(rows) == 0 {
		return false
	}
	for _, r := range rows[:min(len(rows), 8)] {
		if m.Listing == Transactions {
			if k, err := txCursor(r.Cursor); err != nil || k != r.Key {
				return false
			}
			continue
		}
		if k, ok := decodePagedCursor(m.Listing, r.Cursor); !ok || k != r.Key {
			return false
		}
	}
	return true
}

// txCursorParam reads a transaction cursor parameter: an empty one reads
// as not given (docs/behaviour.md), as the explorer reads it.
func (m *Model) txCursorParam(p params, name string, e *Expected) (string, bool) {
	v, ok := p.get(name)
	if ok && v == "" {
		e.should("an empty " + name + " (read as not given)")
		return "", false
	}
	return v, ok
}

// placeTx places a transaction cursor: the row the deployment issued it
// with, else the key it reads as in docs/behaviour.md's form
// "<block>.<index>" (and then the answer is behaviour.md's).
func (m *Model) placeTx(c string, e *Expected) (Key, error) {
	if k, ok := m.cursors[c]; ok {
		return k, nil
	}
	if ic, ok := m.issued[c]; ok && !ic.ambiguous {
		return ic.key, nil
	}
	k, err := txCursor(c)
	if err == nil {
		e.should("a cursor the deployment did not issue, placed by the key it reads as in docs/behaviour.md's form <block>.<index>")
	}
	return k, err
}
