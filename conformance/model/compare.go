package model

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Aspect is one part of an answer the oracle judges; each is a rule of the
// suite.
type Aspect string

// The aspects, in the order Compare judges them.
const (
	// AspectStatus: a query the spec defines is answered 200; one
	// docs/behaviour.md refuses is answered 4xx.
	AspectStatus Aspect = "status"
	// AspectRows: the rows are the ones the query selects, in the order of
	// the listing's key.
	AspectRows Aspect = "rows"
	// AspectTies: rows that share the primary key (epoch, block) keep the
	// order of their secondary key, and network parameters are in key
	// order (SHOULD: docs/behaviour.md; the MUST aspects judge the order
	// the deployment's own walks showed).
	AspectTies Aspect = "tie-order"
	// AspectSize: the page holds as many rows as the query selects.
	AspectSize Aspect = "page-size"
	// AspectNext and AspectPrev: the page flags.
	AspectNext Aspect = "has-next"
	AspectPrev Aspect = "has-previous"
	// AspectCursors: startCursor and endCursor are the first and last
	// edges' cursors, and every edge's cursor is its row's own.
	AspectCursors Aspect = "cursors"
)

// Aspects are every aspect of a listing's answers.
func (l Listing) Aspects() []Aspect {
	out := []Aspect{AspectStatus, AspectRows, AspectSize}
	if l != Snapshots {
		out = append(out, AspectTies)
	}
	if l.paged() {
		out = append(out, AspectNext, AspectPrev, AspectCursors)
	}
	return out
}

// Difference is one aspect in which an answer differs from the oracle.
type Difference struct {
	Aspect Aspect
	// Level is the level the difference breaks: the query's, or Should for
	// aspects docs/behaviour.md alone decides.
	Level Level
	// Detail says what differs: expected against got, with the first
	// differing row by key.
	Detail string
}

// Judgement is one aspect Compare judged, at its level.
type Judgement struct {
	Aspect Aspect
	Level  Level
}

// Judged is what Compare judged of an answer: the aspects it could judge,
// each at its level, and the differences it found.
type Judged struct {
	Aspects     []Judgement
	Differences []Difference
}

// Compare sets an answer beside the oracle's expectation. newest is the
// model's newest key: rows of a newer epoch or block than its own arrived
// after the model was built and are left out of the answer before
// comparing (only the primary key tells: the order of ties, and of network
// parameters, is the one the deployment's walks showed, not Key's). When the deployment
// grew, volatile expectations are not judged.
func Compare(l Listing, want *Expected, got *Page, newest *Key, grew bool) Judged {
	want = want.For(got)
	var j Judged
	judge := func(a Aspect, lvl Level, differs bool, format string, args ...any) {
		lvl = max(lvl, want.Level)
		j.Aspects = append(j.Aspects, Judgement{a, lvl})
		if differs {
			j.Differences = append(j.Differences, Difference{Aspect: a, Level: lvl, Detail: fmt.Sprintf(format, args...)})
		}
	}
	if want.Status != 200 {
		judge(AspectStatus, want.Level, got.Status < 400 || got.Status > 499,
			"want a 4xx refusal (%s), got HTTP %d", strings.Join(want.Why, "; "), got.Status)
		return j
	}
	if !want.Known || want.Volatile && grew {
		return j
	}
	judge(AspectStatus, want.Level, got.Status != 200, "want HTTP 200, got HTTP %d", got.Status)
	if got.Status != 200 {
		return j
	}
	wr, gr, pinned := comparedRows(want, got, newest)
	judge(AspectSize, want.Level, len(gr) != len(wr), "want %d rows, got %d", len(wr), len(gr))
	d := firstDifference(keys(wr), keys(gr))
	if d == "" {
		d = contentDiffers(wr, gr)
	}
	judge(AspectRows, want.Level, d != "", "%s", d)
	if d == "" && slices.Contains(l.Aspects(), AspectTies) {
		d := tieOrder(l, keys(pinned), want.Asc)
		judge(AspectTies, Should, d != "", "%s", d)
	}
	if !l.paged() {
		return j
	}
	for _, f := range []struct {
		a    Aspect
		want Tri
		got  bool
		name string
	}{{AspectNext, want.HasNext, got.HasNext, "hasNextPage"}, {AspectPrev, want.HasPrev, got.HasPrev, "hasPreviousPage"}} {
		if f.want == Unknown {
			continue
		}
		lvl := want.Level
		if len(want.Rows) == 0 {
			lvl = Should // an empty page's flags are behaviour.md's
		}
		judge(f.a, lvl, f.want != tri(f.got), "want %s %s, got %v", f.name, f.want, f.got)
	}
	judge(AspectCursors, want.Level, cursorsDiffer(got) != "", "%s", cursorsDiffer(got))
	if len(gr) == len(got.Rows) && len(gr) == len(wr) {
		d := ""
		for i, r := range gr {
			if r.Key == wr[i].Key && r.Cursor != wr[i].Cursor {
				d = fmt.Sprintf("the row %s has cursor %q here and %q in the listing's unfiltered walk (docs/behaviour.md: the same row always has the same cursor)", r.Key, r.Cursor, wr[i].Cursor)
				break
			}
		}
		judge(AspectCursors, Should, d != "", "%s", d)
	}
	return j
}

// cursorsDiffer says how a page's start and end cursors differ from its
// first and last edges' cursors, or "".
func cursorsDiffer(p *Page) string {
	var s, e string
	if n := len(p.Rows); n > 0 {
		s, e = p.Rows[0].Cursor, p.Rows[n-1].Cursor
	}
	if p.StartCursor != s || p.EndCursor != e {
		return fmt.Sprintf("want startCursor %q and endCursor %q (the first and last edges' cursors), got %q and %q", s, e, p.StartCursor, p.EndCursor)
	}
	return ""
}

func keys(rows []Row) []Key {
	out := make([]Key, len(rows))
	for i, r := range rows {
		out[i] = r.Key
	}
	return out
}

// firstDifference compares two key sequences and describes the first
// place they differ, or "".
func firstDifference(w, g []Key) string {
	for i := range max(len(w), len(g)) {
		switch {
		case i >= len(w):
			return fmt.Sprintf("row %d: want no further row, got %s (%d rows in all, want %d)", i+1, g[i], len(g), len(w))
		case i >= len(g):
			return fmt.Sprintf("row %d: want %s, got no further row (%d rows in all, want %d)", i+1, w[i], len(g), len(w))
		case w[i] != g[i]:
			return fmt.Sprintf("row %d: want %s, got %s", i+1, w[i], g[i])
		}
	}
	return ""
}

// contentDiffers says which row of a page has other content than the
// model's (the same keys in the same order), or "".
func contentDiffers(want, got []Row) string {
	for i, r := range got {
		if i < len(want) && r.Key == want[i].Key && r.Digest != 0 && want[i].Digest != 0 && r.Digest != want[i].Digest {
			return fmt.Sprintf("row %d: %s: content differs from the row in the listing's unfiltered walk", i+1, r.Key)
		}
	}
	return ""
}

// tieOrder says where rows that share their primary key are not in
// docs/behaviour.md's order, or "": by secondary key (games by id,
// rotations by node ID, ascending; transactions by index, the latest
// first), reversed oldest first; network parameters by key, A to Z,
// always.
func tieOrder(l Listing, ks []Key, asc bool) string {
	for i := 1; i < len(ks); i++ {
		a, b := ks[i-1], ks[i]
		if a.Num != b.Num {
			continue
		}
		c := newer(a, b)
		if asc && l.ordered() {
			c = -c
		}
		if c > 0 {
			return fmt.Sprintf("ties out of order: row %d (%s) comes before row %d (%s), which shares its %s (docs/behaviour.md: %s)",
				i, a, i+1, b, tiedOn(l), tieRule(l, asc))
		}
	}
	return ""
}

// tiedOn names what rows of a listing share when they tie.
func tiedOn(l Listing) string {
	switch l {
	case Games:
		return "epoch"
	case Parameters:
		return "place (network parameters have no other order)"
	}
	return "block"
}

// tieRule says docs/behaviour.md's order of ties.
func tieRule(l Listing, asc bool) string {
	rule := map[Listing]string{
		Games: "game ID ascending", Rotations: "node ID ascending", Snapshots: "block height",
		Transactions: "index in the block, the latest first", Parameters: "key ascending (A to Z), whatever newestFirst",
	}[l]
	if asc && l.ordered() {
		return "oldest first, the exact reverse of " + rule
	}
	return rule
}

// comparedRows returns the rows an expectation holds and those an answer
// gave, as Compare sets them side by side: the answer's rows of a newer
// epoch or block than newest left out (nil: none), and, when the
// expectation's ties are loose, the rows that share their primary key
// sorted in both, so that they compare as sets. Otherwise the rows are in
// the order the deployment's own walks showed, with the content they had
// there. pinned is the answer's rows left after the first step, in the
// answer's order.
func comparedRows(want *Expected, got *Page, newest *Key) (w, g, pinned []Row) {
	pinned = got.Rows
	if newest != nil {
		pinned = slices.DeleteFunc(slices.Clone(pinned), func(r Row) bool { return r.Key.Num > newest.Num })
	}
	w, g = want.Rows, pinned
	if want.LooseTies {
		w, g = sortRowTies(w), sortRowTies(g)
	}
	return w, g, pinned
}

// sortRowTies returns rows with each run of rows that share their primary
// key sorted by secondary key (as sortTies sorts keys): two sequences
// that hold the same rows in any order of ties then compare equal.
func sortRowTies(rows []Row) []Row {
	out := slices.Clone(rows)
	for i := 0; i < len(out); {
		j := i
		for j < len(out) && out[j].Key.Num == out[i].Key.Num {
			j++
		}
		slices.SortStableFunc(out[i:j], func(a, b Row) int {
			if c := strings.Compare(a.Key.Str, b.Key.Str); c != 0 {
				return c
			}
			return cmp.Compare(a.Key.Sub, b.Key.Sub)
		})
		i = j
	}
	return out
}

// SameAnswer reports whether two answers of a listing say the same: the
// status, each row (its key, cursor and content), the page's flags and its
// start and end cursors.
func SameAnswer(a, b *Page) bool {
	if a.Status != b.Status || len(a.Rows) != len(b.Rows) || a.HasNext != b.HasNext || a.HasPrev != b.HasPrev ||
		a.StartCursor != b.StartCursor || a.EndCursor != b.EndCursor {
		return false
	}
	for i, r := range a.Rows {
		o := b.Rows[i]
		if r.Key != o.Key || r.Cursor != o.Cursor || r.Digest != o.Digest {
			return false
		}
	}
	return true
}
