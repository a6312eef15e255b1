// Package edges names the boundaries of the JSON Schemas a record can hold
// (an integer string at the uint64 maximum, an optional field absent, an
// enum value, a string with characters JSON must escape...) and catalogues
// where the edge world (harness serve --world edges) holds each of them:
// the listing, the row's cursor, the JSON path in the row, and a query that
// answers that row.
//
// The catalogue is data: package world makes it with the edge world, the
// docs show it as a table (docs/edge-world.md), and it is cheap to match
// against a row a server answered, by listing and cursor (Catalogue.Row).
// The package imports nothing of the generators, so that the mock's side can
// read a catalogue without reaching the schema walker.
package edges

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Class is a kind of boundary a value can sit at.
type Class string

// The classes, in the order tables list them.
const (
	// Zero is an integer at 0: the digit string "0" or the JSON number 0.
	Zero Class = "zero"
	// Above2To53 is an integer string above 2^53, the largest integer a
	// JavaScript number holds exactly: 9007199254740993 (which
	// JSON.parse and Number() read as 9007199254740992).
	Above2To53 Class = "above-2^53"
	// Uint64Max is a uint64 string at its maximum, 18446744073709551615.
	Uint64Max Class = "uint64-max"
	// Int64Max is an int64 string at its maximum, 9223372036854775807.
	Int64Max Class = "int64-max"
	// Int64Min is an int64 string at its minimum, -9223372036854775808.
	Int64Min Class = "int64-min"
	// Minimum is a JSON number at its schema's minimum (-2147483648 for
	// an int32 field, 0 for a probability).
	Minimum Class = "minimum"
	// Maximum is a JSON number at its schema's maximum (2147483647 for an
	// int32 field, 1 for a probability).
	Maximum Class = "maximum"
	// ManyDigits is a decimal string or JSON number of at least
	// ManyDigitsCount digits: more than a float64 or a uint64 holds.
	ManyDigits Class = "many-digits"
	// Negative is a negative decimal string or JSON number.
	Negative Class = "negative"
	// EmptyString is the string "".
	EmptyString Class = "empty-string"
	// LongString is a string at its schema's maxLength, in code points
	// (LongStringRunes when the schema gives none), with characters
	// outside the Basic Multilingual Plane: a UTF-16 length (JavaScript's
	// String.length) counts them twice.
	LongString Class = "long-string"
	// NonASCII is a string with emoji (outside the Basic Multilingual
	// Plane, and joined by U+200D), right-to-left text (Hebrew, Arabic),
	// combining marks and CJK.
	NonASCII Class = "non-ascii"
	// Escapes is a string with every character JSON must escape: the
	// quote, the backslash and every control character U+0000 to U+001F;
	// with U+2028 and U+2029 too, which JavaScript source cannot hold.
	Escapes Class = "escapes"
	// True and False are the two values of a boolean field.
	True  Class = "true"
	False Class = "false"
	// Enum is one value of an enumeration (Edge.Value), anywhere it is
	// used.
	Enum Class = "enum"
	// Branch is one member of an exclusive group (a oneOf of one required
	// property each: a command kind, a data source, a product), or one
	// branch of an anyOf (Edge.Value).
	Branch Class = "branch"
	// Absent is an optional field left out of its object.
	Absent Class = "absent"
	// Present is an optional field present in its object.
	Present Class = "present"
	// Null is null in a field the schemas allow to be null.
	Null Class = "null"
	// EmptyArray is an array with no element.
	EmptyArray Class = "empty-array"
)

// Classes lists every class, in table order.
var Classes = []Class{Zero, Above2To53, Uint64Max, Int64Max, Int64Min, Minimum, Maximum, ManyDigits, Negative,
	EmptyString, LongString, NonASCII, Escapes, True, False, Enum, Branch, Absent, Present, Null, EmptyArray}

// Sizes of the values of some classes.
const (
	// ManyDigitsCount is the fewest digits of a ManyDigits value.
	ManyDigitsCount = 30
	// LongStringRunes is the length of a LongString where the schema sets
	// no maxLength.
	LongStringRunes = 10_000
)

// Describe returns a short description of a class, for tables.
func (c Class) Describe() string {
	switch c {
	case Zero:
		return "an integer at 0"
	case Above2To53:
		return "an integer string above 2^53 (9007199254740993)"
	case Uint64Max:
		return "a uint64 string at 18446744073709551615"
	case Int64Max:
		return "an int64 string at 9223372036854775807"
	case Int64Min:
		return "an int64 string at -9223372036854775808"
	case Minimum:
		return "a JSON number at its schema's minimum"
	case Maximum:
		return "a JSON number at its schema's maximum"
	case ManyDigits:
		return fmt.Sprintf("a decimal of %d digits or more", ManyDigitsCount)
	case Negative:
		return "a negative decimal"
	case EmptyString:
		return `the empty string ""`
	case LongString:
		return fmt.Sprintf("a string at its maxLength (%d code points without one), with emoji", LongStringRunes)
	case NonASCII:
		return "emoji, right-to-left text, combining marks, CJK"
	case Escapes:
		return `" \ U+0000..U+001F U+2028 U+2029`
	case True:
		return "a boolean true"
	case False:
		return "a boolean false"
	case Enum:
		return "each value of each enumeration"
	case Branch:
		return "each member of each exclusive group (oneOf), each anyOf branch"
	case Absent:
		return "an optional field left out"
	case Present:
		return "an optional field present"
	case Null:
		return "null where the schemas allow it"
	case EmptyArray:
		return "an array with no element"
	}
	return string(c)
}

// Key names one edge the schemas allow: its class, where it applies, and
// for an enum value or a branch, which one. Field is a field's place in
// the schemas, "Definition.property" ("OrderSubmission.size"; "[]" marks
// an array's elements, "NewMarketConfiguration.metadata[]"); for Enum the
// enumeration's name, for Branch the group's object.
type Key struct {
	Class Class  `json:"class"`
	Field string `json:"field"`
	Value string `json:"value,omitempty"`
}

// String writes the key as one token: class field[=value].
func (k Key) String() string {
	if k.Value != "" {
		return string(k.Class) + " " + k.Field + "=" + k.Value
	}
	return string(k.Class) + " " + k.Field
}

// Less orders keys by class (in Classes order), field, then value.
func (k Key) Less(o Key) bool {
	if k.Class != o.Class {
		return classRank(k.Class) < classRank(o.Class)
	}
	if k.Field != o.Field {
		return k.Field < o.Field
	}
	return k.Value < o.Value
}

func classRank(c Class) int {
	for i, x := range Classes {
		if x == c {
			return i
		}
	}
	return len(Classes)
}

// Row is a row of the edge world that holds edges, and how to read it.
type Row struct {
	// Listing is the listing's name (records.ListingGames, ...).
	Listing string `json:"listing"`
	// Cursor is the row's cursor as the listing serves it: an edge's
	// cursor on the /api/v2 listings, a transaction's cursor field.
	Cursor string `json:"cursor"`
	// Label is a short name of the row for tables: the listing's initial
	// and the row's place in it ("tx-12").
	Label string `json:"label"`
	// Query is the path and query string of a request whose answer holds
	// this row and no other.
	Query string `json:"query"`
}

// Edge is one place the edge world holds an edge: the key, the row and the
// JSON pointer of the value within the row's record (the node of an
// /api/v2 edge, a transaction), "" for the record itself. An Absent edge
// points at the object the field is missing from.
type Edge struct {
	Key
	Row  int    `json:"row"` // index in Catalogue.Rows
	Path string `json:"path"`
}

// Exemption is an edge the schemas allow that a consistent world cannot
// hold, and why: a key of a listing at the uint64 maximum, say, would leave
// no room for the blocks after it.
type Exemption struct {
	Key    Key    `json:"key"`
	Reason string `json:"reason"`
}

// Catalogue is every edge the edge world holds, where, and what it cannot
// hold. Edges are in the order of the rows (by listing, in Listings order,
// then as the world holds them), then of the paths within a row.
type Catalogue struct {
	Rows       []Row       `json:"rows"`
	Edges      []Edge      `json:"edges"`
	Exemptions []Exemption `json:"exemptions"`

	byRow map[rowID][]int32 // edges of each row, by listing and cursor
	first map[Key]int       // each key's first edge
}

type rowID struct{ listing, cursor string }

// NewCatalogue returns the catalogue of rows and edges, indexed. Edges must
// refer to rows by their index.
func NewCatalogue(rows []Row, list []Edge, exemptions []Exemption) (*Catalogue, error) {
	c := &Catalogue{Rows: rows, Edges: list, Exemptions: exemptions,
		byRow: make(map[rowID][]int32, len(rows)), first: map[Key]int{}}
	for _, r := range rows {
		id := rowID{r.Listing, r.Cursor}
		if _, dup := c.byRow[id]; dup {
			return nil, fmt.Errorf("edge catalogue: row %s %s listed twice", r.Listing, r.Cursor)
		}
		c.byRow[id] = nil
	}
	for i, e := range list {
		if e.Row < 0 || e.Row >= len(rows) {
			return nil, fmt.Errorf("edge catalogue: edge %s refers to row %d of %d", e.Key, e.Row, len(rows))
		}
		id := rowID{rows[e.Row].Listing, rows[e.Row].Cursor}
		c.byRow[id] = append(c.byRow[id], int32(i))
		if _, ok := c.first[e.Key]; !ok {
			c.first[e.Key] = i
		}
	}
	return c, nil
}

// Row returns the edges the row of a listing with the given cursor holds,
// in path order; nil for a row that holds none or is not in the catalogue.
func (c *Catalogue) Row(listing, cursor string) []Edge {
	idx := c.byRow[rowID{listing, cursor}]
	if len(idx) == 0 {
		return nil
	}
	out := make([]Edge, len(idx))
	for i, j := range idx {
		out[i] = c.Edges[j]
	}
	return out
}

// First returns the first edge of a key, and whether the world holds it.
func (c *Catalogue) First(k Key) (Edge, bool) {
	i, ok := c.first[k]
	if !ok {
		return Edge{}, false
	}
	return c.Edges[i], true
}

// Keys returns every key the world holds, sorted.
func (c *Catalogue) Keys() []Key {
	out := make([]Key, 0, len(c.first))
	for k := range c.first {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Less(out[j]) })
	return out
}

// Exempt reports whether the key is one of the catalogue's exemptions.
func (c *Catalogue) Exempt(k Key) bool {
	for _, e := range c.Exemptions {
		if e.Key == k {
			return true
		}
	}
	return false
}

// WriteMarkdown writes the catalogue as the tables of docs/edge-world.md:
// for each class, what it is and how many fields hold it; each key with
// the first row that holds it and where in the row; the rows those are,
// with the query that answers each; and the exemptions.
func (c *Catalogue) WriteMarkdown(w io.Writer) error {
	b := &strings.Builder{}
	keys := c.Keys()
	count := map[Class]int{}
	for _, k := range keys {
		count[k.Class]++
	}
	b.WriteString("| Class | What | Keys |\n|---|---|---|\n")
	for _, cl := range Classes {
		fmt.Fprintf(b, "| `%s` | %s | %d |\n", cl, mdCell(cl.Describe()), count[cl])
	}
	b.WriteString("\n### Each edge and the first row that holds it\n\n")
	b.WriteString("Field is `Definition.property` (`[]`: each element of an array); for `enum` the enumeration, for `branch` the object whose member it is. Path is the JSON pointer of the value in the row's record (for `absent`, of the object the field is missing from).\n\n")
	b.WriteString("| Class | Field | Value | Row | Path |\n|---|---|---|---|---|\n")
	used := map[int]bool{}
	for _, k := range keys {
		e, _ := c.First(k)
		used[e.Row] = true
		fmt.Fprintf(b, "| `%s` | `%s` | %s | %s | `%s` |\n", k.Class, k.Field, mdCode(k.Value), c.Rows[e.Row].Label, mdPath(e.Path))
	}
	b.WriteString("\n### The rows\n\n")
	b.WriteString("Each query answers its row and no other (the path and query string after the mock's base URL).\n\n")
	b.WriteString("| Row | Listing | Cursor | Query |\n|---|---|---|---|\n")
	for i, r := range c.Rows {
		if used[i] {
			fmt.Fprintf(b, "| %s | %s | `%s` | `%s` |\n", r.Label, r.Listing, mdCell(r.Cursor), mdCell(r.Query))
		}
	}
	b.WriteString("\n### What a consistent world cannot hold\n\n")
	b.WriteString("| Class | Field | Why |\n|---|---|---|\n")
	for _, e := range c.Exemptions {
		fmt.Fprintf(b, "| `%s` | `%s` | %s |\n", e.Key.Class, e.Key.Field, mdCell(e.Reason))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdCell escapes the characters that would end a table cell.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// mdCode writes a value as code, or nothing for "".
func mdCode(s string) string {
	if s == "" {
		return ""
	}
	return "`" + mdCell(s) + "`"
}

// mdPath writes a JSON pointer; "" (the record itself) as "/".
func mdPath(p string) string {
	if p == "" {
		return "/"
	}
	return mdCell(p)
}
