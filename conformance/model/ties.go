package model

import (
	"slices"
)

// The order of rows that share their primary key (an epoch, a block
// height) is fixed by the spec for no query: one query's pages keep one
// order, but a filter or an epoch window may give them in another order
// than the unfiltered listing. The model learns the unfiltered order from
// its walks; a filtered query's own order is read from its answer.

// expectTies is the expectation of a filtered query of a model built from
// a deployment (see expectPaged): seq is the query's rows in the order the
// unfiltered walks showed.
func (m *Model) expectTies(seq []item, r pagedReq, e *Expected) *Expected {
	// A filtered query orders the rows that share their primary key its
	// own way: which of them an answer holds at a page's edge, and where
	// it placed its cursor among them, is read from the answer (resolve),
	// and the rest of the page follows from that.
	loosenTies(seq)
	forward := r.hasFirst || !r.hasLast && !r.hasBefore
	var cursor *Key
	switch {
	case forward && r.hasAfter:
		cursor = &r.after
	case !forward && r.hasBefore:
		cursor = &r.before
	}
	base := *e
	resolve := func(got []Row) *Expected {
		out := base
		arranged, at, ok := arrangeByAnswer(seq, got, forward, cursor, false)
		if !ok {
			return &out
		}
		a := m.page(arranged, r, &out, at)
		if !a.Known || cursor == nil {
			return a
		}
		// The rows of the cursor's key the answer does not hold lie behind
		// the cursor, unless the page is full before its key ends: they may
		// then lie beyond the page too, and a flag that depends on which
		// is not known.
		other := base
		arranged, at, _ = arrangeByAnswer(seq, got, forward, cursor, true)
		if b := m.page(arranged, r, &other, at); b.Known && slices.Equal(keys(a.Rows), keys(b.Rows)) {
			if a.HasNext != b.HasNext {
				a.HasNext = Unknown
			}
			if a.HasPrev != b.HasPrev {
				a.HasPrev = Unknown
			}
		}
		return a
	}
	out := resolve(nil) // an answer in the order the unfiltered walks showed
	out.resolve = resolve
	return out
}

// narrowingParams are the parameters that make a query of a paged listing
// another query than the unfiltered one: its filters and epoch window.
var narrowingParams = map[Listing][]string{
	Games:     {"epochFrom", "epochTo", "entityScope", "gameId", "teamId", "partyId"},
	Rotations: {"nodeId"},
}

// narrowed reports whether the query filters the listing or asks an epoch
// window. The spec fixes the order of rows that share their primary key
// for no such query: the order the unfiltered walks showed binds only the
// unfiltered listing (docs/conformance.md), so its ties are loose.
func (m *Model) narrowed(p params) bool {
	return slices.ContainsFunc(narrowingParams[m.Listing], p.has)
}

// loosenTies marks loose every row of seq that shares its primary key
// with a neighbour.
func loosenTies(seq []item) {
	for i := 1; i < len(seq); i++ {
		a, b := &seq[i-1], &seq[i]
		if !a.gap && !b.gap && a.row.Key.Num == b.row.Key.Num {
			a.loose, b.loose = true, true
		}
	}
}

// arrangeByAnswer lays out each run of seq's rows that share a primary
// key (loose: in an order the query decides) as an answer got shows the
// query ordered them: the run's rows the answer holds, in the answer's
// order, on the side the page reads them from (first for a page read
// forwards, last for one read backwards), the others beyond. The run of
// the cursor c's key (nil: none) is laid out around the cursor's own row:
// the rows the answer holds next to it on the page's side, the others on
// the far side: behind the cursor, or, with beyond, past the rows the answer
// holds. It returns the sequence, the place where the cursor lies (-1 when
// no run holds its key: the model's own sequence places it), and false
// when a gap splits the cursor's run.
func arrangeByAnswer(seq []item, got []Row, forward bool, c *Key, beyond bool) ([]item, int, bool) {
	onPage := map[Key]int{}
	for i, g := range got {
		if _, dup := onPage[g.Key]; !dup {
			onPage[g.Key] = i
		}
	}
	out := make([]item, 0, len(seq))
	at := -1
	for i := 0; i < len(seq); {
		if seq[i].gap {
			if c != nil && i > 0 && i+1 < len(seq) && !seq[i-1].gap && !seq[i+1].gap &&
				seq[i-1].row.Key.Num == c.Num && seq[i+1].row.Key.Num == c.Num {
				return nil, 0, false // the cursor's run is split by rows not held
			}
			out = append(out, seq[i])
			i++
			continue
		}
		j := i + 1
		for j < len(seq) && !seq[j].gap && seq[j].row.Key.Num == seq[i].row.Key.Num {
			j++
		}
		run := seq[i:j]
		isCursors := c != nil && run[0].row.Key.Num == c.Num
		if !isCursors && (len(run) == 1 || !run[0].loose) {
			out = append(out, run...)
			i = j
			continue
		}
		// The answer decides the run's order: none of it is loose now.
		var on, off, own []item
		for _, it := range run {
			it.loose = false
			_, shown := onPage[it.row.Key]
			switch {
			case isCursors && it.row.Key == *c:
				own = append(own, it)
			case shown:
				on = append(on, it)
			default:
				off = append(off, it)
			}
		}
		slices.SortFunc(on, func(a, b item) int { return onPage[a.row.Key] - onPage[b.row.Key] })
		switch {
		case isCursors && forward && beyond:
			out = append(out, own...)
			at = len(out)
			out = append(append(out, on...), off...)
		case isCursors && forward:
			out = append(out, off...)
			out = append(out, own...)
			at = len(out)
			out = append(out, on...)
		case isCursors && beyond:
			out = append(append(out, off...), on...)
			at = len(out)
			out = append(out, own...)
		case isCursors:
			out = append(out, on...)
			at = len(out)
			out = append(out, own...)
			out = append(out, off...)
		case forward:
			out = append(append(out, on...), off...)
		default:
			out = append(append(out, off...), on...)
		}
		i = j
	}
	return out, at, true
}
