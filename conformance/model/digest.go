package model

import (
	"bytes"
	"encoding/json"
	"hash/maphash"
	"math/bits"
	"strings"
	"unicode/utf8"
)

// A row's digest is a digest of its record's content: the JSON value of
// the node (for transactions, of the array element), where the order of an
// object's members, whitespace and the escaping of strings do not count,
// and numbers count by their text. Two answers that serve a record with the
// same content give it the same digest; the digests are compared within
// one run only (their seed is the process's).

// digestSeed seeds every digest of the process.
var digestSeed = maphash.MakeSeed()

// Tags keep values of different kinds with the same bytes apart.
const (
	tagString uint64 = 0x9e3779b97f4a7c15 + iota
	tagNumber
	tagLiteral
	tagObject
	tagArray
	tagMember
)

// mix combines two 64-bit values into one, well spread (the finaliser of
// SplitMix64 over a ^ b·k).
func mix(a, b uint64) uint64 {
	x := a ^ (b * 0xbf58476d1ce4e5b9)
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return bits.RotateLeft64(x, 17) ^ a
}

// scanner reads the JSON of a body that encoding/json has already found
// valid: it skips whitespace, hashes values and finds members, without
// building them. Each method reports false on anything it does not expect
// (it is then not trusted, and the digests are left unknown).
type scanner struct {
	b []byte
	i int
	// valid is set on a scanner of bytes value has read already: skip
	// then only finds the end of a value.
	valid bool
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// next returns the next byte after whitespace, or 0 at the end.
func (s *scanner) next() byte {
	s.ws()
	if s.i >= len(s.b) {
		return 0
	}
	return s.b[s.i]
}

// str reads the string at s.i and returns its content as encoding/json
// reads it: its raw bytes when it holds neither an escape nor a byte
// outside ASCII, else read by encoding/json (which unescapes, and replaces
// bytes that are not UTF-8). A control character refuses it, as JSON does.
func (s *scanner) str() ([]byte, bool) {
	if s.next() != '"' {
		return nil, false
	}
	start := s.i + 1
	end := bytes.IndexByte(s.b[start:], '"')
	if end < 0 {
		return nil, false
	}
	raw := s.b[start : start+end]
	plain := true
	for _, c := range raw {
		if c < 0x20 {
			return nil, false
		}
		if c == '\\' || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		s.i = start + end + 1
		return raw, true
	}
	// An escape, or bytes outside ASCII: find the closing quote that no
	// backslash escapes, and let encoding/json read it (such strings are
	// rare).
	j := start
	for j < len(s.b) {
		switch s.b[j] {
		case '\\':
			j += 2
			continue
		case '"':
			var v string
			if json.Unmarshal(s.b[start-1:j+1], &v) != nil {
				return nil, false
			}
			s.i = j + 1
			return []byte(v), true
		}
		j++
	}
	return nil, false
}

// value hashes the value at s.i and moves past it.
func (s *scanner) value(depth int) (uint64, bool) {
	if depth > maxDepth {
		return 0, false
	}
	switch c := s.next(); c {
	case '"':
		v, ok := s.str()
		return mix(tagString, maphash.Bytes(digestSeed, v)), ok
	case '{':
		s.i++
		var sum uint64
		if s.next() == '}' {
			s.i++
			return mix(tagObject, 0), true
		}
		for {
			k, ok := s.str()
			if !ok || s.next() != ':' {
				return 0, false
			}
			s.i++
			h, ok := s.value(depth + 1)
			if !ok {
				return 0, false
			}
			// Members add up, so that their order does not count.
			sum += mix(mix(tagMember, maphash.Bytes(digestSeed, k)), h)
			switch s.next() {
			case ',':
				s.i++
			case '}':
				s.i++
				return mix(tagObject, sum), true
			default:
				return 0, false
			}
		}
	case '[':
		s.i++
		h := mix(tagArray, 0)
		if s.next() == ']' {
			s.i++
			return h, true
		}
		for {
			e, ok := s.value(depth + 1)
			if !ok {
				return 0, false
			}
			h = mix(h, e)
			switch s.next() {
			case ',':
				s.i++
			case ']':
				s.i++
				return h, true
			default:
				return 0, false
			}
		}
	case 0:
		return 0, false
	case 't', 'f', 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
				s.i += len(lit)
				return mix(tagLiteral, maphash.String(digestSeed, lit)), true
			}
		}
		return 0, false
	default:
		start := s.i
		if !s.number() {
			return 0, false
		}
		return mix(tagNumber, maphash.Bytes(digestSeed, s.b[start:s.i])), true
	}
}

// number moves past the JSON number at s.i:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() bool {
	b, i := s.b, s.i
	digits := func() bool {
		from := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > from
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	s.i = i
	return true
}

// maxDepth bounds the nesting the scanner follows (encoding/json's own
// bound is 10,000).
const maxDepth = 10000

// member calls f with each member's name at the object at s.i, positioned at
// its value; f must move past the value (or return false). It moves past
// the object.
func (s *scanner) object(f func(name []byte) bool) bool {
	if s.next() != '{' {
		return false
	}
	s.i++
	if s.next() == '}' {
		s.i++
		return true
	}
	for {
		k, ok := s.str()
		if !ok || s.next() != ':' {
			return false
		}
		s.i++
		if !f(k) {
			return false
		}
		switch s.next() {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

// array calls f at each element of the array at s.i; f must move past it.
func (s *scanner) array(f func() bool) bool {
	if s.next() != '[' {
		return false
	}
	s.i++
	if s.next() == ']' {
		s.i++
		return true
	}
	for {
		if !f() {
			return false
		}
		switch s.next() {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}

// skip moves past the value at s.i.
func (s *scanner) skip() bool {
	if s.valid {
		s.skipValid()
		return true
	}
	_, ok := s.value(0)
	return ok
}

// skipValid moves past the value at s.i of bytes known to be valid JSON:
// past a string, or the brackets that close the one it opens.
func (s *scanner) skipValid() {
	depth := 0
	for s.ws(); s.i < len(s.b); {
		switch c := s.b[s.i]; c {
		case '"':
			j := s.i + 1
			for {
				k := bytes.IndexByte(s.b[j:], '"')
				if k < 0 {
					s.i = len(s.b)
					return
				}
				j += k
				// the quote ends the string unless an odd run of
				// backslashes precedes it
				n := 0
				for n < j && s.b[j-1-n] == '\\' {
					n++
				}
				if n%2 == 0 {
					break
				}
				j++
			}
			s.i = j + 1
		case '{', '[':
			depth++
			s.i++
			continue
		case '}', ']':
			depth--
			s.i++
		default:
			for s.i < len(s.b) {
				switch s.b[s.i] {
				case ',', '}', ']', ' ', '\t', '\n', '\r', ':':
					goto scalar
				}
				s.i++
			}
		scalar:
			if depth == 0 {
				return
			}
			s.ws()
			if s.i < len(s.b) && (s.b[s.i] == ',' || s.b[s.i] == ':') {
				s.i++
			}
			continue
		}
		if depth == 0 {
			return
		}
		s.ws()
		if s.i < len(s.b) && (s.b[s.i] == ',' || s.b[s.i] == ':') {
			s.i++
		}
	}
}

// named reports whether a member's name is the field's as encoding/json
// matches struct fields: exactly, or but for case.
func named(k []byte, field string) bool {
	return string(k) == field || strings.EqualFold(string(k), field)
}

// node is one record of an answer: its bytes in the body and its digest.
type node struct {
	raw    []byte
	digest uint64
}

// nodes finds the records of a listing's answer in its body and digests
// each, as encoding/json reads the body into Decode's struct: the last
// member of a name wins. It reports false when the body is not what it
// expects (the digests then stay unknown).
func nodes(l Listing, body []byte) ([]node, bool) {
	s := &scanner{b: body}
	var out []node
	// record reads one record's value.
	record := func() bool {
		s.ws()
		start := s.i
		h, ok := s.value(0)
		if ok {
			out = append(out, node{raw: s.b[start:s.i], digest: h})
		}
		return ok
	}
	field := listingInfo[l].field
	found := false
	ok := s.object(func(k []byte) bool {
		if !named(k, field) {
			return s.skip()
		}
		found, out = true, out[:0]
		if !l.paged() {
			if s.next() == 'n' {
				return s.skip()
			}
			return s.array(record)
		}
		return s.object(func(k []byte) bool {
			if !named(k, "edges") {
				return s.skip()
			}
			out = out[:0]
			if s.next() == 'n' {
				return s.skip()
			}
			return s.array(func() bool {
				start := len(out)
				ok := s.object(func(k []byte) bool {
					if !named(k, "node") {
						return s.skip()
					}
					out = out[:start] // the last node member wins
					return record()
				})
				return ok && len(out) == start+1
			})
		})
	})
	return out, ok && found
}
