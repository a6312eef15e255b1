package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// Rewrite is a row served with other content than in another answer.
type Rewrite struct {
	Listing Listing
	Key     Key
	// Blamed is the URL of the answer whose content differs, Reference the
	// URL of the answer it differs from: the row's first answer, unless
	// the first was filtered and a later one was not (an unfiltered answer
	// is the reference the model is built from).
	Blamed, Reference string
	// Detail says what differs, from the reference to the blamed answer,
	// when the reference's record was kept.
	Detail string
}

// remembered is what the memory holds of one row: its reference content's
// digest, the answer it came in and whether that was unfiltered, and its
// record's bytes while the memory has room.
type remembered struct {
	digest     uint64
	answer     int
	unfiltered bool
	raw        []byte
	reported   bool
}

// rememberRow compares a row with the memory and remembers it; name names
// its answer. An unfiltered answer's content becomes the reference of a
// row first seen filtered.
func (o *Observer) rememberRow(ob *observed, r Row, node []byte, unfiltered bool, name func() int) {
	old, ok := ob.memory[r.Key]
	if !ok {
		m := &remembered{digest: r.Digest, answer: name(), unfiltered: unfiltered}
		o.keep(m, node)
		ob.memory[r.Key] = m
		return
	}
	ob.compared++
	if old.digest == r.Digest {
		if unfiltered && !old.unfiltered {
			old.answer, old.unfiltered = name(), true
		}
		return
	}
	blamed, reference := name(), old.answer
	before, after := old.raw, node
	if unfiltered && !old.unfiltered {
		// The filtered answer before is the one that differs from the
		// listing itself: this answer becomes the reference.
		blamed, reference = old.answer, name()
		before, after = node, old.raw
		o.kept -= len(old.raw)
		old.digest, old.answer, old.unfiltered, old.raw = r.Digest, reference, true, nil
		o.keep(old, node)
	}
	if old.reported {
		return // each row once
	}
	old.reported = true
	if len(ob.rewrites) >= maxFindings {
		ob.moreRewrites++
		return
	}
	detail := "the record differs; the earlier content was not kept (the observer's memory was full)"
	if before != nil && after != nil {
		detail = describeChange(before, after)
	}
	ob.rewrites = append(ob.rewrites, Rewrite{Key: r.Key, Blamed: o.urls[blamed], Reference: o.urls[reference], Detail: detail})
}

// keep keeps a copy of a row's record while the memory has room.
func (o *Observer) keep(m *remembered, node []byte) {
	if node != nil && o.kept+len(node) <= o.keepLimit {
		m.raw = slices.Clone(node)
		o.kept += len(node)
	}
}

// unfiltered reports whether an answer's query asks for the listing
// itself: pagination alone, no filter (an epoch window is one).
func unfiltered(a *Answer) bool {
	for k := range a.Query {
		switch k {
		case pFirst, pAfter, pLast, pBefore, pNewest:
			if !a.Listing.paged() {
				return false
			}
		case "first", "last", "before", "after":
			if a.Listing.paged() {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// Rewrites returns the rows of a listing served with other content than
// before, and how many more there were.
func (o *Observer) Rewrites(l Listing) ([]Rewrite, int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	ob := o.lists[l]
	out := slices.Clone(ob.rewrites)
	for i := range out {
		out[i].Listing = l
	}
	return out, ob.moreRewrites
}

// Compared is how many rows of a listing came again after their first
// answer (each compared with it), and how many 200 answers of it were
// read.
func (o *Observer) Compared(l Listing) (rows, answers int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.lists[l].compared, o.lists[l].answers
}

// describeChange says where two records' contents first differ (members in
// name order, elements in order): the path and the two values.
func describeChange(before, after []byte) string {
	a, errA := decodeValue(before)
	b, errB := decodeValue(after)
	if errA != nil || errB != nil {
		return "the record's content differs"
	}
	path, x, y, ok := firstChange("", a, b)
	if !ok {
		return "the record's content differs"
	}
	if path == "" {
		path = "the record"
	}
	return fmt.Sprintf("%s: %s before, %s now", path, show(x), show(y))
}

func decodeValue(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

// absent stands for a member or element one of the values lacks.
type absent struct{}

// firstChange returns the first path at which a and b differ, with the two
// values there.
func firstChange(path string, a, b any) (string, any, any, bool) {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return path, a, b, true
		}
		var names []string
		for k := range x {
			names = append(names, k)
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				names = append(names, k)
			}
		}
		slices.Sort(names)
		for _, k := range names {
			p := k
			if path != "" {
				p = path + "." + k
			}
			va, inA := x[k]
			vb, inB := y[k]
			switch {
			case !inA:
				return p, absent{}, vb, true
			case !inB:
				return p, va, absent{}, true
			}
			if p, u, v, ok := firstChange(p, va, vb); ok {
				return p, u, v, true
			}
		}
		return "", nil, nil, false
	case []any:
		y, ok := b.([]any)
		if !ok {
			return path, a, b, true
		}
		for i := range max(len(x), len(y)) {
			p := path + "[" + strconv.Itoa(i) + "]"
			switch {
			case i >= len(x):
				return p, absent{}, y[i], true
			case i >= len(y):
				return p, x[i], absent{}, true
			}
			if p, u, v, ok := firstChange(p, x[i], y[i]); ok {
				return p, u, v, true
			}
		}
		return "", nil, nil, false
	}
	if _, ok := b.(map[string]any); ok {
		return path, a, b, true
	}
	if _, ok := b.([]any); ok {
		return path, a, b, true
	}
	if a != b {
		return path, a, b, true
	}
	return "", nil, nil, false
}

// show writes a value for a message, cut short.
func show(v any) string {
	if _, ok := v.(absent); ok {
		return "absent"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	const n = 80
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
