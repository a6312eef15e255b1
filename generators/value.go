package generators

import (
	"strconv"
	"unicode/utf8"
)

// kind is the JSON kind of a generated value.
type kind uint8

const (
	kNull kind = iota
	kString
	kNumber // text holds the number as written
	kBool
	kObject
	kArray
)

// value is a generated JSON value. Objects keep their property order. It is
// kept small (48 bytes): the walker copies values as it returns them.
type value struct {
	kind kind
	b    bool
	text string // string content, or number text
	// obj holds an object's properties or, with empty names, an array's
	// items.
	obj []field
}

type field struct {
	name string
	val  value
}

func str(s string) value             { return value{kind: kString, text: s} }
func num(i int64) value              { return value{kind: kNumber, text: strconv.FormatInt(i, 10)} }
func numText(s string) value         { return value{kind: kNumber, text: s} }
func boolean(b bool) value           { return value{kind: kBool, b: b} }
func object(fs ...field) value       { return value{kind: kObject, obj: fs} }
func u64str(u uint64) value          { return str(strconv.FormatUint(u, 10)) }
func i64str(i int64) value           { return str(strconv.FormatInt(i, 10)) }
func fld(name string, v value) field { return field{name: name, val: v} }

// get returns the named property of an object value.
func (v *value) get(name string) (*value, bool) {
	for i := range v.obj {
		if v.obj[i].name == name {
			return &v.obj[i].val, true
		}
	}
	return nil, false
}

// set replaces or appends a property.
func (v *value) set(name string, x value) {
	if p, ok := v.get(name); ok {
		*p = x
		return
	}
	v.obj = append(v.obj, field{name: name, val: x})
}

// del removes a property.
func (v *value) del(name string) {
	for i := range v.obj {
		if v.obj[i].name == name {
			v.obj = append(v.obj[:i], v.obj[i+1:]...)
			return
		}
	}
}

// appendJSON appends the value's JSON encoding to b.
func (v *value) appendJSON(b []byte) []byte {
	switch v.kind {
	case kNull:
		return append(b, "null"...)
	case kString:
		return appendQuoted(b, v.text)
	case kNumber:
		return append(b, v.text...)
	case kBool:
		if v.b {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case kObject:
		b = append(b, '{')
		for i := range v.obj {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendQuoted(b, v.obj[i].name)
			b = append(b, ':')
			b = v.obj[i].val.appendJSON(b)
		}
		return append(b, '}')
	case kArray:
		b = append(b, '[')
		for i := range v.obj {
			if i > 0 {
				b = append(b, ',')
			}
			b = v.obj[i].val.appendJSON(b)
		}
		return append(b, ']')
	}
	return b
}

// plainByte reports, for each byte, whether it stands for itself inside a
// JSON string as encoding/json writes it: ASCII other than control
// characters, '"', '\\', '<', '>' and '&'.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendQuoted appends s as a JSON string, escaping as encoding/json does
// (including <, > and & as \u escapes, so output matches json.Marshal).
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	// Most strings (IDs, digits, enum names) need no escaping: copy them
	// whole.
	i := 0
	for i < len(s) && plainByte[s[i]] {
		i++
	}
	if i == len(s) {
		b = append(b, s...)
		return append(b, '"')
	}
	start := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if plainByte[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
