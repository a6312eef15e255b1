package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Listing is one of the five listings of the API.
type Listing int

// The listings, in the order the suite checks them.
const (
	Games Listing = iota
	Snapshots
	Rotations
	Parameters
	Transactions
)

// Listings are every listing, in order.
var Listings = []Listing{Games, Snapshots, Rotations, Parameters, Transactions}

var listingInfo = [...]struct {
	label, path, field string
	// params are the listing's query parameters, in the spelling of
	// docs/behaviour.md.
	params []string
}{
	Games: {"games", "/api/v2/games", "games", append(pagination(),
		"gameId", "epochFrom", "epochTo", "entityScope", "teamId", "partyId")},
	Snapshots:  {"snapshots", "/api/v2/snapshots", "coreSnapshots", pagination()},
	Rotations:  {"key-rotations", "/api/v2/core/keys/ethereum/rotations", "keyRotations", append(pagination(), "nodeId")},
	Parameters: {"network-parameters", "/api/v2/network/parameters", "networkParameters", pagination()},
	Transactions: {"transactions", "/transactions", "transactions",
		[]string{"first", "last", "before", "after", "cmdTypes", "excludeCmdTypes", "parties"}},
}

func pagination() []string {
	return []string{pFirst, pAfter, pLast, pBefore, pNewest}
}

// The pagination parameters of the four /api/v2 listings.
const (
	pFirst  = "pagination.first"
	pAfter  = "pagination.after"
	pLast   = "pagination.last"
	pBefore = "pagination.before"
	pNewest = "pagination.newestFirst"
)

// String is the listing's label, as the suite's labels spell it.
func (l Listing) String() string { return listingInfo[l].label }

// Path is the listing's path (for transactions, under the transactions URL).
func (l Listing) Path() string { return listingInfo[l].path }

// Params are the listing's query parameters.
func (l Listing) Params() []string { return listingInfo[l].params }

// paged reports whether the listing is one of the four cursor-paged
// /api/v2 listings.
func (l Listing) paged() bool { return l != Transactions }

// ordered reports whether newestFirst orders the listing (every paged
// listing but network parameters, which are in key order always).
func (l Listing) ordered() bool { return l != Parameters }

// Key is a row's sort key: Num is the epoch or block height (0 for network
// parameters), Str the game ID, node ID or parameter key, Sub a
// transaction's index in its block.
type Key struct {
	Num uint64
	Str string
	Sub uint64
}

// String writes the key for a message.
func (k Key) String() string {
	switch {
	case k.Str != "" && k.Num != 0:
		return fmt.Sprintf("%d/%s", k.Num, k.Str)
	case k.Str != "":
		return k.Str
	case k.Sub != 0:
		return fmt.Sprintf("%d.%d", k.Num, k.Sub)
	}
	return strconv.FormatUint(k.Num, 10)
}

// newer orders keys newest first, the default order of every listing: Num
// descending, then Str ascending, then Sub descending (a later transaction
// of a block is newer). Network parameters (Num 0) are in key order.
func newer(a, b Key) int {
	switch {
	case a.Num != b.Num:
		if a.Num > b.Num {
			return -1
		}
		return 1
	case a.Str != b.Str:
		return strings.Compare(a.Str, b.Str)
	case a.Sub != b.Sub:
		if a.Sub > b.Sub {
			return -1
		}
		return 1
	}
	return 0
}

// Row is what the model keeps of a record: its key, its cursor and every
// field a filter reads.
type Row struct {
	Key    Key
	Cursor string
	// Digest is the digest of the record's content (see digest.go): 0 when
	// unknown.
	Digest uint64
	// Games: whether the game has individual and team entries, its teams
	// and the parties in each role.
	Individual, Team bool
	Teams            []string
	Players          []string // individual entries
	Members          []string // team members participating
	// Transactions: the command type, the submitter and the receivers the
	// command names.
	Type      string
	Submitter string
	Receivers []string
}

// ErrNotShown is wrapped by the errors of records that lack what the model
// needs but the spec does not show (a transaction's index in its block): a
// deployment that conforms may lack it, and the model then cannot judge the
// listing.
var ErrNotShown = errors.New("the records lack a field the spec does not show")

// num is a uint64 as the API writes it: a JSON string of digits (or a
// number).
type num struct {
	v   uint64
	set bool
}

func (n *num) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		return nil
	}
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return fmt.Errorf("%s is not a uint64", b)
	}
	n.v, n.set = v, true
	return nil
}

// record holds the fields of any listing's record the model reads.
type record struct {
	Epoch       num                `json:"epoch"`
	ID          *string            `json:"id"`
	BlockHeight num                `json:"blockHeight"`
	NodeID      *string            `json:"nodeId"`
	Key         *string            `json:"key"`
	Individual  *individualEntries `json:"individual"`
	Team        *teamEntries       `json:"team"`
	Block       num                `json:"block"`
	Index       num                `json:"index"`
	Cursor      string             `json:"cursor"`
	Type        string             `json:"type"`
	Submitter   string             `json:"submitter"`
	Command     json.RawMessage    `json:"command"`
}

// parseRow reads one record of the listing (for the paged listings, the
// node of an edge, with the edge's cursor) from the record as decoded.
func parseRow(l Listing, rec *record, cursor string) (Row, error) {
	if rec == nil {
		return Row{}, errors.New("the record is null")
	}
	r := Row{Cursor: cursor}
	need := func(n num, name string) (uint64, error) {
		if !n.set {
			return 0, fmt.Errorf("field %q is missing", name)
		}
		return n.v, nil
	}
	str := func(s *string, name string) (string, error) {
		if s == nil {
			return "", fmt.Errorf("field %q is missing or not a string", name)
		}
		return *s, nil
	}
	var err, err2 error
	switch l {
	case Games:
		r.Key.Num, err = need(rec.Epoch, "epoch")
		r.Key.Str, err2 = str(rec.ID, "id")
		if rec.Individual != nil {
			r.Individual = true
			for _, e := range rec.Individual.Individual {
				r.Players = append(r.Players, e.Individual)
			}
		}
		if rec.Team != nil {
			r.Team = true
			for _, e := range rec.Team.Team {
				r.Teams = append(r.Teams, e.Team.TeamID)
				for _, m := range e.Team.MembersParticipating {
					r.Members = append(r.Members, m.Individual)
				}
			}
		}
	case Snapshots:
		r.Key.Num, err = need(rec.BlockHeight, "blockHeight")
	case Rotations:
		r.Key.Num, err = need(rec.BlockHeight, "blockHeight")
		r.Key.Str, err2 = str(rec.NodeID, "nodeId")
	case Parameters:
		r.Key.Str, err = str(rec.Key, "key")
	case Transactions:
		r.Cursor, r.Type, r.Submitter = rec.Cursor, rec.Type, rec.Submitter
		r.Key.Num, err = need(rec.Block, "block")
		if rec.Index.set {
			r.Key.Sub = rec.Index.v
		} else if k, cerr := txCursor(rec.Cursor); cerr == nil && k.Num == r.Key.Num {
			// The spec does not show the index in the block; the cursor
			// (docs/behaviour.md: "<block>.<index>") holds it too.
			r.Key.Sub = k.Sub
		} else {
			err2 = fmt.Errorf("%w: field %q is missing, and the cursor %q is not <block>.<index>", ErrNotShown, "index", rec.Cursor)
		}
		if bytes.Contains(rec.Command, []byte("ACCOUNT_TYPE_GENERAL")) {
			var cmd any
			if json.Unmarshal(rec.Command, &cmd) == nil {
				r.Receivers = receivers(cmd)
			}
		}
	}
	if err == nil {
		err = err2
	}
	return r, err
}

// receivers lists the parties a command names as receivers: the
// destination of a governance transfer whose destination type is a general
// account (docs/behaviour.md; for other account types the destination is a
// market).
func receivers(v any) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			if d, ok := t["destination"].(string); ok && t["destinationType"] == "ACCOUNT_TYPE_GENERAL" {
				out = append(out, d)
			}
			for _, x := range t {
				walk(x)
			}
		case []any:
			for _, x := range t {
				walk(x)
			}
		}
	}
	walk(v)
	return out
}

// Page is one decoded answer.
type Page struct {
	Status int
	Rows   []Row
	// Paged listings only: the page flags and cursors.
	HasNext, HasPrev       bool
	StartCursor, EndCursor string
	// Edge cursors equal to the row's Cursor are the rows' own.

	// nodes are the records' bytes in the body, one a row (nil when they
	// could not be found).
	nodes []node
}

// Node returns the bytes of row i's record in the answer's body (the node
// of its edge, or the transaction), or nil when they are not known.
func (p *Page) Node(i int) []byte {
	if i < 0 || i >= len(p.nodes) {
		return nil
	}
	return p.nodes[i].raw
}

// digest sets the rows' digests from the records found in the body, when
// they are one a row.
func (p *Page) digest(l Listing, body []byte) {
	ns, ok := nodes(l, body)
	if !ok || len(ns) != len(p.Rows) {
		return
	}
	p.nodes = ns
	for i := range p.Rows {
		p.Rows[i].Digest = ns[i].digest
	}
}

// connection is a paged answer's object: its edges, each node read as a
// record, and its page flags and cursors.
type connection struct {
	Edges []struct {
		Cursor string  `json:"cursor"`
		Node   *record `json:"node"`
	} `json:"edges"`
	PageInfo struct {
		StartCursor     string `json:"startCursor"`
		EndCursor       string `json:"endCursor"`
		HasNextPage     bool   `json:"hasNextPage"`
		HasPreviousPage bool   `json:"hasPreviousPage"`
	} `json:"pageInfo"`
}

// Decode reads an answer of the listing. A status other than 200 gives a
// Page with only the status; a 200 whose body cannot be read is an error.
//
// The body is read in one pass of a scanner that reads only what the model
// needs (fastDecode): every answer of a run is read once, and reading them
// is most of a run's work. Its members are matched as encoding/json matches
// struct fields (an exact name first, else one that differs only in case);
// a body the scanner does not read exactly as encoding/json would is read
// by encoding/json (decodeJSON). The schema rules judge the spelling.
func Decode(l Listing, status int, body []byte) (*Page, error) {
	if status != 200 {
		return &Page{Status: status}, nil
	}
	if p, ok := fastDecode(l, body); ok {
		return p, nil
	}
	return decodeJSON(l, body)
}

// decodeJSON reads a 200 answer with encoding/json: the reading fastDecode
// must agree with, and the one that says what is wrong with a body.
func decodeJSON(l Listing, body []byte) (*Page, error) {
	p := &Page{Status: 200}
	field := listingInfo[l].field
	v := reflect.New(answerTypes[l])
	if err := json.Unmarshal(body, v.Interface()); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, fmt.Errorf("body is not JSON: %w", err)
		case errors.As(err, &te) && te.Field == "":
			return nil, fmt.Errorf("body is not a JSON object: %w", err)
		case l.paged():
			return nil, fmt.Errorf("field %q is not a page: %w", field, err)
		}
		return nil, fmt.Errorf("field %q is not an array: %w", field, err)
	}
	f := v.Elem().Field(0)
	if f.IsNil() {
		return nil, fmt.Errorf("body has no %q field", field)
	}
	if !l.paged() {
		for i, rec := range *f.Interface().(*[]*record) {
			r, err := parseRow(l, rec, "")
			if err != nil {
				return nil, fmt.Errorf("transaction %d: %w", i, err)
			}
			p.Rows = append(p.Rows, r)
		}
		p.digest(l, body)
		return p, nil
	}
	conn := f.Interface().(*connection)
	for i, e := range conn.Edges {
		r, err := parseRow(l, e.Node, e.Cursor)
		if err != nil {
			return nil, fmt.Errorf("edge %d: %w", i, err)
		}
		p.Rows = append(p.Rows, r)
	}
	pi := conn.PageInfo
	p.HasNext, p.HasPrev, p.StartCursor, p.EndCursor = pi.HasNextPage, pi.HasPreviousPage, pi.StartCursor, pi.EndCursor
	p.digest(l, body)
	return p, nil
}

// answerTypes are the types Decode reads each listing's answers into: a
// struct of one member, the listing's field (a page of records, or for
// the transactions an array of them), as a pointer that stays nil when the
// body lacks it.
var answerTypes = func() map[Listing]reflect.Type {
	out := map[Listing]reflect.Type{}
	for _, l := range Listings {
		t := reflect.TypeFor[*connection]()
		if !l.paged() {
			t = reflect.TypeFor[*[]*record]()
		}
		out[l] = reflect.StructOf([]reflect.StructField{{
			Name: "Field", Type: t, Tag: reflect.StructTag(`json:"` + listingInfo[l].field + `"`),
		}})
	}
	return out
}()

// individualEntries and teamEntries are a game's entries as its record
// gives them: the parties of its individual entries, and each team entry's
// team and members participating.
type individualEntries struct {
	Individual []partyEntry `json:"individual"`
}

type teamEntries struct {
	Team []teamEntry `json:"team"`
}

type teamEntry struct {
	Team struct {
		TeamID               string       `json:"teamId"`
		MembersParticipating []partyEntry `json:"membersParticipating"`
	} `json:"team"`
}

// partyEntry is a party named in a game's entry.
type partyEntry struct {
	Individual string `json:"individual"`
}
