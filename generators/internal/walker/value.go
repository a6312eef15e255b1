package walker

import (
	"strconv"

	"github.com/chaindata/harness/generators/records"
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

// Value is a generated JSON value. Objects keep their property order. It is
// kept small (48 bytes): the walker copies values as it returns them.
type Value struct {
	kind kind
	b    bool
	text string // string content, or number text
	// obj holds an object's properties or, with empty names, an array's
	// items.
	obj []field
}

type field struct {
	name string
	val  Value
}

func str(s string) Value             { return Value{kind: kString, text: s} }
func num(i int64) Value              { return Value{kind: kNumber, text: strconv.FormatInt(i, 10)} }
func numText(s string) Value         { return Value{kind: kNumber, text: s} }
func boolean(b bool) Value           { return Value{kind: kBool, b: b} }
func object(fs ...field) Value       { return Value{kind: kObject, obj: fs} }
func u64str(u uint64) Value          { return str(strconv.FormatUint(u, 10)) }
func i64str(i int64) Value           { return str(strconv.FormatInt(i, 10)) }
func fld(name string, v Value) field { return field{name: name, val: v} }

// Uint64Text returns a string value holding u's decimal digits, as a
// uint64 is written in JSON.
func Uint64Text(u uint64) Value { return u64str(u) }

// Text returns a string value.
func Text(s string) Value { return str(s) }

// Number returns a JSON number value.
func Number(i int64) Value { return num(i) }

// Get returns the named property of an object value.
func (v *Value) Get(name string) (*Value, bool) { return v.get(name) }

// Set replaces or appends a property of an object value.
func (v *Value) Set(name string, x Value) { v.set(name, x) }

// Text returns a string value's content, or a number's text.
func (v *Value) Text() string { return v.text }

// Len returns the number of an object's properties or an array's items.
func (v *Value) Len() int { return len(v.obj) }

// Field returns an object's i-th property (name and value), or an
// array's i-th item (with an empty name).
func (v *Value) Field(i int) (string, *Value) { return v.obj[i].name, &v.obj[i].val }

// AppendJSON appends the value's JSON encoding to b.
func (v *Value) AppendJSON(b []byte) []byte { return v.appendJSON(b) }

// get returns the named property of an object value.
func (v *Value) get(name string) (*Value, bool) {
	for i := range v.obj {
		if v.obj[i].name == name {
			return &v.obj[i].val, true
		}
	}
	return nil, false
}

// set replaces or appends a property.
func (v *Value) set(name string, x Value) {
	if p, ok := v.get(name); ok {
		*p = x
		return
	}
	v.obj = append(v.obj, field{name: name, val: x})
}

// del removes a property.
func (v *Value) del(name string) {
	for i := range v.obj {
		if v.obj[i].name == name {
			v.obj = append(v.obj[:i], v.obj[i+1:]...)
			return
		}
	}
}

// appendJSON appends the value's JSON encoding to b.
func (v *Value) appendJSON(b []byte) []byte {
	switch v.kind {
	case kNull:
		return append(b, "null"...)
	case kString:
		return records.AppendQuoted(b, v.text)
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
			b = records.AppendQuoted(b, v.obj[i].name)
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
