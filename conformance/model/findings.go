package model

import (
	"net/url"
	"slices"
)

// Failure is one query whose answer differed from the oracle, in one or
// more aspects.
type Failure struct {
	Query       url.Values
	Differences []Difference
}

// Primary is the difference a failure is named by: the first of its
// aspects in the order an answer is read (status, rows, page size, flags,
// cursors, tie order), at the firmest level.
func (f Failure) Primary() Difference {
	best := f.Differences[0]
	for _, d := range f.Differences[1:] {
		if d.Level < best.Level || d.Level == best.Level && AspectRank(d.Aspect) < AspectRank(best.Aspect) {
			best = d
		}
	}
	return best
}

// AspectRank orders the aspects as an answer is read: status, rows, page
// size, flags, cursors, tie order.
func AspectRank(a Aspect) int {
	order := []Aspect{AspectStatus, AspectRows, AspectSize, AspectNext, AspectPrev, AspectCursors, AspectTies}
	if i := slices.Index(order, a); i >= 0 {
		return i
	}
	return len(order)
}

// Finding is the failures of one root cause: the smallest query they shrink
// to, every aspect in which its answer differs, and the queries it was found
// by.
type Finding struct {
	// Query is the shrunk query; Shrunk says whether it is smaller than the
	// first query it was found by (Found[0]).
	Query  url.Values
	Shrunk bool
	// Differences are the shrunk query's, its primary first.
	Differences []Difference
	// Found are the generated queries that shrank to it, in the order they
	// were asked.
	Found []url.Values
}

// Primary is the difference the finding is named by.
func (f Finding) Primary() Difference { return f.Differences[0] }

// Aspects reports whether the finding differs in aspect a at level lvl.
func (f Finding) Has(a Aspect, lvl Level) bool {
	return slices.ContainsFunc(f.Differences, func(d Difference) bool { return d.Aspect == a && d.Level == lvl })
}

// Group makes findings of failures, in their order: each of the first
// maxShrunk failures that no finding explains yet is shrunk (shrink returns
// the smallest query that still differs in the failure's primary aspect,
// and every difference of that query's answer), and failures that shrink
// to the same query are one finding. A failure past the bound joins the
// finding whose queries it shares, or stands alone, unshrunk.
func Group(fails []Failure, maxShrunk int, shrink func(Failure) (url.Values, []Difference)) []Finding {
	var out []Finding
	index := map[string]int{}
	shrunk := 0
	for _, f := range fails {
		if len(f.Differences) == 0 {
			continue
		}
		key := Canonical(f.Query)
		if i, ok := index[key]; ok {
			out[i].Found = append(out[i].Found, f.Query)
			continue
		}
		q, ds := f.Query, f.Differences
		if shrunk < maxShrunk {
			shrunk++
			if sq, sds := shrink(f); sq != nil && len(sds) > 0 {
				q, ds = sq, sds
			}
		}
		ds = ordered(ds)
		sk := Canonical(q)
		if i, ok := index[sk]; ok {
			out[i].Found = append(out[i].Found, f.Query)
			index[key] = i
			continue
		}
		out = append(out, Finding{Query: q, Shrunk: sk != key, Differences: ds, Found: []url.Values{f.Query}})
		index[sk] = len(out) - 1
		index[key] = len(out) - 1
	}
	return out
}

// ordered returns differences with the primary first, then in the order an
// answer is read, one a pair of aspect and level.
func ordered(ds []Difference) []Difference {
	out := slices.Clone(ds)
	slices.SortStableFunc(out, func(a, b Difference) int {
		if a.Level != b.Level {
			return int(a.Level) - int(b.Level)
		}
		return AspectRank(a.Aspect) - AspectRank(b.Aspect)
	})
	return slices.CompactFunc(out, func(a, b Difference) bool { return a.Aspect == b.Aspect && a.Level == b.Level })
}
