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
