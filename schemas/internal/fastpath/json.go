package fastpath

import (
	"bytes"
	"encoding/json"
	"errors"
	"sort"
	"sync"
)

// The fast path's view of a document: a tree parsed straight from the
// bytes, with no maps and, for plain ASCII strings, no copies. It holds
// exactly the values decodeDocument decodes (numbers as their text, as
// json.Number does; strings as encoding/json unescapes them); a document
// the parser is not sure of (not JSON, a key twice, nesting too deep) it
// leaves to decodeDocument.

// jkind is the JSON type of a jval.
type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

// jval is one JSON value.
type jval struct {
	kind jkind
	b    bool      // a boolean's value
	s    string    // a string's value, a number's text
	kids []jmember // an array's elements (no keys) or an object's members
}

// jmember is a member of an object (or an element of an array, key "").
type jmember struct {
	key string
	val jval
}

// get returns the member of an object named key.
func (v *jval) get(key string) (*jval, bool) {
	for i := range v.kids {
		if v.kids[i].key == key {
			return &v.kids[i].val, true
		}
	}
	return nil, false
}

// maxParseDepth bounds the containers the parser follows one inside the
// other; deeper documents go to decodeDocument, which has its own bound.
const maxParseDepth = 200

// jparser parses one document.
type jparser struct {
	src string
	pos int
	ok  bool
	// stack holds the members of the containers being read; a container,
	// once read, gets its own from arena, a few large allocations.
	stack []jmember
	arena []jmember
}

// members moves the members from base up out of the stack.
func (p *jparser) members(base int) []jmember {
	n := len(p.stack) - base
	if cap(p.arena)-len(p.arena) < n {
		p.arena = make([]jmember, 0, max(64, n))
	}
	out := p.arena[len(p.arena) : len(p.arena)+n : len(p.arena)+n]
	p.arena = p.arena[:len(p.arena)+n]
	copy(out, p.stack[base:])
	clear(p.stack[base:])
	p.stack = p.stack[:base]
	return out
}

// parseJSON parses a document as decodeDocument decodes it (one value, white
// space around it). ok is false when it is not sure: the document is then
// to be decoded by decodeDocument, which decides.
func parseJSON(doc []byte) (jval, bool) {
	return parseJSONInto(doc, nil)
}

// jbuffers are the parser's memory, kept between documents (jbufferPool):
// a document's tree lives in them until it is released.
type jbuffers struct {
	members, stack []jmember
}

var jbufferPool = sync.Pool{New: func() any { return new(jbuffers) }}

// maxPooledMembers bounds the members a pooled buffer keeps room for.
const maxPooledMembers = 1 << 14

// parseJSONInto is parseJSON, with the tree in buf's memory when buf is not
// nil; the tree is then valid until buf.release.
func parseJSONInto(doc []byte, buf *jbuffers) (jval, bool) {
	// Every member but a container's first follows a comma: room for all
	// of them at once (commas in strings only add room).
	room := bytes.Count(doc, []byte{','}) + bytes.Count(doc, []byte{'{'}) + bytes.Count(doc, []byte{'['})
	p := jparser{src: string(doc), ok: true}
	pooled := buf != nil && room <= maxPooledMembers
	if pooled {
		if cap(buf.members) < room {
			buf.members = make([]jmember, 0, room)
		}
		p.arena, p.stack = buf.members[:0], buf.stack[:0]
	} else {
		p.arena, p.stack = make([]jmember, 0, room), make([]jmember, 0, 32)
	}
	p.space()
	v := p.value(0)
	p.space()
	if pooled {
		buf.members, buf.stack = p.arena, p.stack[:0]
	}
	if !p.ok || p.pos != len(p.src) {
		return jval{}, false
	}
	return v, true
}

// release forgets the tree held, and returns the memory to the pool.
func (b *jbuffers) release() {
	clear(b.members)
	clear(b.stack[:cap(b.stack)])
	b.members = b.members[:0]
	jbufferPool.Put(b)
}

func (p *jparser) fail() jval {
	p.ok = false
	return jval{}
}

func (p *jparser) space() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jparser) value(depth int) jval {
	if p.pos >= len(p.src) {
		return p.fail()
	}
	switch c := p.src[p.pos]; {
	case c == '{' || c == '[':
		if depth >= maxParseDepth {
			return p.fail()
		}
		if c == '{' {
			return p.object(depth)
		}
		return p.array(depth)
	case c == '"':
		s, ok := p.str()
		if !ok {
			return p.fail()
		}
		return jval{kind: jString, s: s}
	case c == 't':
		return p.literal("true", jval{kind: jBool, b: true})
	case c == 'f':
		return p.literal("false", jval{kind: jBool})
	case c == 'n':
		return p.literal("null", jval{kind: jNull})
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	return p.fail()
}

func (p *jparser) literal(word string, v jval) jval {
	if len(p.src)-p.pos < len(word) || p.src[p.pos:p.pos+len(word)] != word {
		return p.fail()
	}
	p.pos += len(word)
	return v
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (p *jparser) number() jval {
	start := p.pos
	if p.src[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(p.src) && p.src[p.pos] == '0':
		p.pos++
	case p.digits() == 0:
		return p.fail()
	}
	if p.pos < len(p.src) && p.src[p.pos] == '.' {
		p.pos++
		if p.digits() == 0 {
			return p.fail()
		}
	}
	if p.pos < len(p.src) && (p.src[p.pos] == 'e' || p.src[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.src) && (p.src[p.pos] == '+' || p.src[p.pos] == '-') {
			p.pos++
		}
		if p.digits() == 0 {
			return p.fail()
		}
	}
	return jval{kind: jNumber, s: p.src[start:p.pos]}
}

// digits skips digits and returns how many.
func (p *jparser) digits() int {
	start := p.pos
	for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
		p.pos++
	}
	return p.pos - start
}

// str reads a string. One of printable ASCII without escapes is the input
// itself; any other is unquoted by encoding/json, which decides what it
// holds (and whether it is one).
func (p *jparser) str() (string, bool) {
	start := p.pos
	p.pos++
	plain := true
	for {
		// Eight bytes at a time while none of them is special.
		for p.pos+8 <= len(p.src) && !hasSpecialByte(load64(p.src, p.pos)) {
			p.pos += 8
		}
		if p.pos >= len(p.src) {
			break
		}
		c := p.src[p.pos]
		switch {
		case c == '"':
			p.pos++
			if plain {
				return p.src[start+1 : p.pos-1], true
			}
			var s string
			if err := json.Unmarshal([]byte(p.src[start:p.pos]), &s); err != nil {
				return "", false
			}
			return s, true
		case c == '\\':
			plain = false
			p.pos += 2 // the escaped character is never the closing quote
			continue
		case c < 0x20:
			return "", false
		case c >= 0x80:
			plain = false
		}
		p.pos++
	}
	return "", false
}

// load64 reads eight bytes of s from i, the first lowest.
func load64(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// hasSpecialByte reports whether one of the eight bytes of x is special in a
// string: a quote, a backslash, a control character or not ASCII.
func hasSpecialByte(x uint64) bool {
	hasZero := func(v uint64) uint64 { return (v - lowBits) &^ v & highBits }
	return x&highBits != 0 || // not ASCII
		(x-0x20*lowBits)&^x&highBits != 0 || // below 0x20 (exact when all are ASCII)
		hasZero(x^('"'*lowBits)) != 0 ||
		hasZero(x^('\\'*lowBits)) != 0
}

func (p *jparser) array(depth int) jval {
	p.pos++ // [
	p.space()
	base := len(p.stack)
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		return jval{kind: jArray, kids: p.members(base)}
	}
	for p.ok {
		e := p.value(depth + 1)
		p.stack = append(p.stack, jmember{val: e})
		p.space()
		if p.pos >= len(p.src) {
			return p.fail()
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
			p.space()
		case ']':
			p.pos++
			return jval{kind: jArray, kids: p.members(base)}
		default:
			return p.fail()
		}
	}
	return p.fail()
}

func (p *jparser) object(depth int) jval {
	p.pos++ // {
	p.space()
	base := len(p.stack)
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		return jval{kind: jObject, kids: p.members(base)}
	}
	for p.ok {
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return p.fail()
		}
		key, ok := p.str()
		if !ok {
			return p.fail()
		}
		p.space()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return p.fail()
		}
		p.pos++
		p.space()
		e := p.value(depth + 1)
		p.stack = append(p.stack, jmember{key: key, val: e})
		p.space()
		if p.pos >= len(p.src) {
			return p.fail()
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
			p.space()
		case '}':
			p.pos++
			if hasDuplicateKey(p.stack[base:]) {
				return p.fail() // decodeDocument keeps the last: left to it
			}
			return jval{kind: jObject, kids: p.members(base)}
		default:
			return p.fail()
		}
	}
	return p.fail()
}

// hasDuplicateKey reports whether two members have the same key.
func hasDuplicateKey(kids []jmember) bool {
	if len(kids) > 16 {
		seen := make(map[string]bool, len(kids))
		for _, m := range kids {
			if seen[m.key] {
				return true
			}
			seen[m.key] = true
		}
		return false
	}
	for i := 1; i < len(kids); i++ {
		for j := 0; j < i; j++ {
			if kids[i].key == kids[j].key {
				return true
			}
		}
	}
	return false
}

// toJval converts a value decodeDocument decoded; ok is false for a Go
// value JSON decoding never makes.
func toJval(v any) (jval, bool) {
	switch x := v.(type) {
	case nil:
		return jval{kind: jNull}, true
	case bool:
		return jval{kind: jBool, b: x}, true
	case json.Number:
		return jval{kind: jNumber, s: string(x)}, true
	case string:
		return jval{kind: jString, s: x}, true
	case []any:
		out := jval{kind: jArray, kids: make([]jmember, len(x))}
		for i, e := range x {
			c, ok := toJval(e)
			if !ok {
				return jval{}, false
			}
			out.kids[i].val = c
		}
		return out, true
	case map[string]any:
		out := jval{kind: jObject, kids: make([]jmember, 0, len(x))}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			c, ok := toJval(x[k])
			if !ok {
				return jval{}, false
			}
			out.kids = append(out.kids, jmember{key: k, val: c})
		}
		return out, true
	}
	return jval{}, false
}

// toAny converts a value back to what decodeDocument makes of it.
func (v *jval) toAny() any {
	switch v.kind {
	case jBool:
		return v.b
	case jNumber:
		return json.Number(v.s)
	case jString:
		return v.s
	case jArray:
		out := make([]any, len(v.kids))
		for i := range v.kids {
			out[i] = v.kids[i].val.toAny()
		}
		return out
	case jObject:
		out := make(map[string]any, len(v.kids))
		for i := range v.kids {
			out[v.kids[i].key] = v.kids[i].val.toAny()
		}
		return out
	}
	return nil
}

// ErrNotJSON is what Decode reports for input that is not one JSON
// value.
var ErrNotJSON = errors.New("input is not valid JSON")

// Decode decodes one JSON document as gojsonschema does (numbers as
// json.Number), accepting exactly what json.Valid accepts: one value,
// with white space around it.
func Decode(doc []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, ErrNotJSON
	}
	for _, c := range doc[dec.InputOffset():] {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return nil, ErrNotJSON
		}
	}
	return v, nil
}
