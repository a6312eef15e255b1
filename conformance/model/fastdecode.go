package model

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// fastDecode reads a 200 answer of the listing in one pass of the scanner,
// the way decodeJSON (encoding/json into Decode's struct) reads it, rows,
// flags, cursors and digests alike. It reports false on anything it does
// not read exactly as encoding/json would (a member named in another case,
// a known member twice, an escape in a number, a value of another type, a
// record that does not parse): Decode then reads the body with
// encoding/json, which also says what is wrong.
func fastDecode(l Listing, body []byte) (*Page, bool) {
	s := &scanner{b: body}
	p := &Page{Status: 200}
	field := listingInfo[l].field
	found := false
	ok := s.object(func(k []byte) bool {
		switch {
		case string(k) == field:
			if found {
				return false
			}
			found = true
			if l.paged() {
				return s.connection(l, p)
			}
			return s.records(l, p)
		case foldsTo(k, field):
			return false
		}
		return s.skip()
	})
	if !ok || !found || s.next() != 0 {
		return nil, false
	}
	return p, true
}

// foldsTo reports whether a member's name matches one of names but for
// case, as encoding/json would match it (it matches any case, and some
// Unicode letters fold to ASCII ones).
func foldsTo(k []byte, names ...string) bool {
	for _, n := range names {
		if string(k) != n && (len(k) == len(n) || !isASCII(k)) && strings.EqualFold(string(k), n) {
			return true
		}
	}
	return false
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// member dispatches the members of the object at s.i: each known name to
// its reader (once: a known member twice is refused), other names skipped;
// a name that matches a known one but for case is refused.
func (s *scanner) members(known []string, read func(i int) bool) bool {
	var seen uint64
	return s.object(func(k []byte) bool {
		for i, n := range known {
			if string(k) == n {
				if seen&(1<<i) != 0 {
					return false
				}
				seen |= 1 << i
				return read(i)
			}
		}
		if foldsTo(k, known...) {
			return false
		}
		return s.skip()
	})
}

// null moves past a null at s.i and reports whether there was one.
func (s *scanner) null() bool {
	if s.next() == 'n' && bytes.HasPrefix(s.b[s.i:], []byte("null")) {
		s.i += 4
		return true
	}
	return false
}

// text reads a string member as encoding/json reads it into a string:
// null leaves it as it was.
func (s *scanner) text(dst *string) bool {
	if s.null() {
		return true
	}
	v, ok := s.str()
	if !ok {
		return false
	}
	*dst = string(v)
	return true
}

// textPtr reads a string member into a *string: null makes it nil.
func (s *scanner) textPtr(dst **string) bool {
	if s.null() {
		*dst = nil
		return true
	}
	v, ok := s.str()
	if !ok {
		return false
	}
	t := string(v)
	*dst = &t
	return true
}

// uint reads a num member as num.UnmarshalJSON does; anything it would
// refuse is refused here (Decode then reports it).
func (s *scanner) uint(dst *num) bool {
	if s.null() {
		return true
	}
	var digits []byte
	switch s.next() {
	case '"':
		start := s.i + 1
		end := bytes.IndexByte(s.b[start:], '"')
		if end < 0 {
			return false
		}
		digits = s.b[start : start+end]
		if bytes.IndexByte(digits, '\\') >= 0 {
			return false
		}
		s.i = start + end + 1
	default:
		start := s.i
		if _, ok := s.value(0); !ok {
			return false
		}
		digits = s.b[start:s.i]
	}
	v, err := strconv.ParseUint(string(digits), 10, 64)
	if err != nil {
		return false
	}
	dst.v, dst.set = v, true
	return true
}

// boolean reads a bool member: null leaves it as it was.
func (s *scanner) boolean(dst *bool) bool {
	if s.null() {
		return true
	}
	switch {
	case bytes.HasPrefix(s.b[s.i:], []byte("true")):
		*dst = true
		s.i += 4
	case bytes.HasPrefix(s.b[s.i:], []byte("false")):
		*dst = false
		s.i += 5
	default:
		return false
	}
	return true
}

// each reads the array at s.i (null: none), calling read at each element.
func (s *scanner) each(read func() bool) bool {
	if s.null() {
		return true
	}
	return s.array(read)
}

// connection reads a page object into p.
func (s *scanner) connection(l Listing, p *Page) bool {
	if s.null() {
		return false // encoding/json leaves the field nil: Decode says so
	}
	return s.members(connectionFields, func(i int) bool {
		if i == 1 {
			if s.null() {
				return true
			}
			return s.members(pageInfoFields, func(i int) bool {
				switch i {
				case 0:
					return s.text(&p.StartCursor)
				case 1:
					return s.text(&p.EndCursor)
				case 2:
					return s.boolean(&p.HasNext)
				}
				return s.boolean(&p.HasPrev)
			})
		}
		p.Rows, p.nodes = nil, nil
		return s.each(func() bool {
			var cursor string
			var rec *record
			var n node
			ok := s.members(edgeFields, func(i int) bool {
				if i == 0 {
					return s.text(&cursor)
				}
				if s.null() {
					return true
				}
				var ok bool
				rec, n, ok = s.record()
				return ok
			})
			if !ok || rec == nil {
				return false
			}
			r, err := parseRow(l, rec, cursor)
			if err != nil {
				return false
			}
			r.Digest = n.digest
			p.Rows = append(p.Rows, r)
			p.nodes = append(p.nodes, n)
			return true
		})
	})
}

// records reads the transactions array into p.
func (s *scanner) records(l Listing, p *Page) bool {
	if s.null() {
		return false
	}
	return s.array(func() bool {
		rec, n, ok := s.record()
		if !ok {
			return false
		}
		r, err := parseRow(l, rec, "")
		if err != nil {
			return false
		}
		r.Digest = n.digest
		p.Rows = append(p.Rows, r)
		p.nodes = append(p.nodes, n)
		return true
	})
}

// The members of a page, its page info and its edges the model reads.
var (
	connectionFields = []string{"edges", "pageInfo"}
	pageInfoFields   = []string{"startCursor", "endCursor", "hasNextPage", "hasPreviousPage"}
	edgeFields       = []string{"cursor", "node"}
)

// recordFields are the members of a record the model reads.
var recordFields = []string{"epoch", "id", "blockHeight", "nodeId", "key", "individual", "team", "block", "index", "cursor", "type", "submitter", "command"}

// record reads the record object at s.i: its digest and bytes, then the
// members the model reads.
func (s *scanner) record() (*record, node, bool) {
	s.ws()
	start := s.i
	h, ok := s.value(0)
	if !ok || s.b[start] != '{' {
		return nil, node{}, false
	}
	n := node{raw: s.b[start:s.i], digest: h}
	in := &scanner{b: n.raw, valid: true}
	rec := &record{}
	ok = in.members(recordFields, func(i int) bool {
		switch i {
		case 0:
			return in.uint(&rec.Epoch)
		case 1:
			return in.textPtr(&rec.ID)
		case 2:
			return in.uint(&rec.BlockHeight)
		case 3:
			return in.textPtr(&rec.NodeID)
		case 4:
			return in.textPtr(&rec.Key)
		case 5:
			return in.individuals(rec)
		case 6:
			return in.teams(rec)
		case 7:
			return in.uint(&rec.Block)
		case 8:
			return in.uint(&rec.Index)
		case 9:
			return in.text(&rec.Cursor)
		case 10:
			return in.text(&rec.Type)
		case 11:
			return in.text(&rec.Submitter)
		}
		in.ws()
		from := in.i
		in.skipValid()
		rec.Command = json.RawMessage(in.b[from:in.i])
		return true
	})
	return rec, n, ok
}

// entry reads an IndividualEntry's individual into dst (an element that is
// null, or lacks it, gives "").
func (s *scanner) entry(dst *[]string) bool {
	var v string
	if !s.null() && !s.members([]string{"individual"}, func(int) bool { return s.text(&v) }) {
		return false
	}
	*dst = append(*dst, v)
	return true
}

// individuals reads a game's individual member.
func (s *scanner) individuals(rec *record) bool {
	if s.null() {
		rec.Individual = nil
		return true
	}
	rec.Individual = &individualEntries{}
	var players []string
	ok := s.members([]string{"individual"}, func(int) bool {
		players = players[:0]
		return s.each(func() bool { return s.entry(&players) })
	})
	for _, p := range players {
		rec.Individual.Individual = append(rec.Individual.Individual, partyEntry{p})
	}
	return ok
}

// teams reads a game's team member.
func (s *scanner) teams(rec *record) bool {
	if s.null() {
		rec.Team = nil
		return true
	}
	rec.Team = &teamEntries{}
	return s.members([]string{"team"}, func(int) bool {
		rec.Team.Team = nil
		return s.each(func() bool {
			var e teamEntry
			if !s.null() && !s.members([]string{"team"}, func(int) bool {
				if s.null() {
					return true
				}
				return s.members([]string{"teamId", "membersParticipating"}, func(i int) bool {
					if i == 0 {
						return s.text(&e.Team.TeamID)
					}
					var members []string
					if !s.each(func() bool { return s.entry(&members) }) {
						return false
					}
					e.Team.MembersParticipating = nil
					for _, m := range members {
						e.Team.MembersParticipating = append(e.Team.MembersParticipating, partyEntry{m})
					}
					return true
				})
			}) {
				return false
			}
			rec.Team.Team = append(rec.Team.Team, e)
			return true
		})
	})
}
