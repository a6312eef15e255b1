package model

import (
	"fmt"
	"slices"
	"strconv"
	"time"
)

// HeadGrace is how long after an answer came back a later request must go
// for its answer to be held to that answer's head: replicas that share a
// chain may add the same block a few milliseconds apart, and an answer
// asked meanwhile is not from a lagging one.
const HeadGrace = 500 * time.Millisecond

// OlderHead is an answer served from an older head than one that came back
// before it was asked: a lagging replica or a cache.
type OlderHead struct {
	Listing Listing
	// Height says which head went back: the newest row (false) or the
	// X-Block-Height header (true).
	Height bool
	// Earlier is the URL of the answer that showed the newer head, Later
	// the URL of the one asked after it that showed an older one; Was and
	// Now describe the two heads.
	Earlier, Later string
	Was, Now       string
	// Back is when the earlier answer came back, Asked when the later
	// one was asked (at least HeadGrace after).
	Back, Asked time.Time
}

// track follows one kind of head of a listing answer by answer: each point
// is an answer that showed a head higher than any that came back before it
// (its Received), in the order they came back.
type track struct {
	points []point
	// checked counts the answers judged; older the ones found older (at
	// most maxFindings), more how many more.
	checked int
	older   []OlderHead
	more    int
}

type point struct {
	at  time.Time
	num uint64
	url int
}

// before returns the highest head among the answers that came back at or
// before t.
func (t *track) before(at time.Time) (point, bool) {
	var best point
	found := false
	for _, p := range t.points {
		if p.at.After(at) {
			break
		}
		if !found || p.num > best.num {
			best, found = p, true
		}
	}
	return best, found
}

// add records an answer's head (num), come back at at.
func (t *track) add(at time.Time, num uint64, url int) {
	if p, ok := t.before(at); ok && p.num >= num {
		return // not higher than what came back before it
	}
	i, _ := slices.BinarySearchFunc(t.points, at, func(p point, at time.Time) int { return p.at.Compare(at) })
	t.points = slices.Insert(t.points, i, point{at: at, num: num, url: url})
	// Keep the track small: points later than this one that are not
	// higher are no longer records.
	j := i + 1
	for j < len(t.points) && t.points[j].num <= num {
		j++
	}
	t.points = slices.Delete(t.points, i+1, j)
}

// judge holds an answer asked at sent, showing head num, to the heads of
// the answers that came back HeadGrace or more before it was asked; it
// returns the earlier answer when its head was higher.
//
// Every answer judged counts, whether one came back before it or not, so
// that the count depends on the answers asked, not on when they came.
func (t *track) judge(sent time.Time, num uint64) (point, bool) {
	t.checked++
	if sent.IsZero() {
		return point{}, false
	}
	p, ok := t.before(sent.Add(-HeadGrace))
	if !ok {
		return point{}, false
	}
	return p, p.num > num
}

// trackHead follows the listing's heads through one answer: the newest row
// of any answer raises the listing's newest row, and an unfiltered page
// from the newest end must reach it; any X-Block-Height raises the height,
// and every answer's must reach it.
func (o *Observer) trackHead(ob *observed, a *Answer, p *Page, name func() int) {
	if a.Listing != Parameters {
		if shown, ok := reachesNewest(a, p, ob.cursors); ok {
			if was, older := ob.heads.judge(a.Sent, shown); older {
				ob.heads.report(OlderHead{Listing: a.Listing, Earlier: o.urls[was.url], Later: o.urls[name()],
					Was: fmt.Sprintf("newest row at %d", was.num), Now: fmt.Sprintf("newest row at %d", shown), Back: was.at, Asked: a.Sent})
			}
		}
		if newest, ok := newestRow(p.Rows); ok {
			ob.heads.add(a.Received, newest, name())
		}
	}
	if h, err := strconv.ParseUint(a.Header.Get("X-Block-Height"), 10, 64); err == nil {
		if was, older := ob.heights.judge(a.Sent, h); older {
			ob.heights.report(OlderHead{Listing: a.Listing, Height: true, Earlier: o.urls[was.url], Later: o.urls[name()],
				Was: fmt.Sprintf("X-Block-Height %d", was.num), Now: fmt.Sprintf("X-Block-Height %d", h), Back: was.at, Asked: a.Sent})
		}
		ob.heights.add(a.Received, h, name())
	}
}

func (t *track) report(f OlderHead) {
	if len(t.older) >= maxFindings {
		t.more++
		return
	}
	t.older = append(t.older, f)
}

// newestRow is the highest primary key (epoch or block) among rows.
func newestRow(rows []Row) (uint64, bool) {
	if len(rows) == 0 {
		return 0, false
	}
	n := rows[0].Key.Num
	for _, r := range rows[1:] {
		n = max(n, r.Key.Num)
	}
	return n, true
}

// reachesNewest says whether an answer must reach the listing's newest
// end, unfiltered, and how far it reached (the primary key of its newest
// row): a page from the newest end (at most a count, newest first: its
// first rows are the newest), or a page towards the newest end after a cursor
// (newest first before=C with last=N; oldest first first=N, after a
// cursor or not; transactions first=N after=C) that is short of its count,
// and so holds every row newer than its cursor. An empty such page reached
// its cursor's key (cursors finds a row's primary key by its cursor).
func reachesNewest(a *Answer, p *Page, cursors map[string]uint64) (uint64, bool) {
	one := func(k string) (string, bool) {
		v := a.Query[k]
		return firstOf(v), len(v) == 1
	}
	count := func(k string) (int, bool) {
		v, ok := one(k)
		n, err := strconv.Atoi(v)
		return n, ok && err == nil && n >= 1
	}
	only := func(keys ...string) bool {
		for k := range a.Query {
			if !slices.Contains(keys, k) {
				return false
			}
		}
		return true
	}
	newest, rows := newestRow(p.Rows)
	// shortAfter: a page after cursor c short of n rows reached the newest
	// end: its newest row, or without rows, its cursor's key.
	shortAfter := func(c string, n int) (uint64, bool) {
		if len(p.Rows) >= n {
			return 0, false
		}
		if rows {
			return newest, true
		}
		num, ok := cursors[c]
		if !ok && !a.Listing.paged() {
			k, err := txCursor(c)
			num, ok = k.Num, err == nil
		}
		return num, ok
	}
	if !a.Listing.paged() {
		n, ok := count("first")
		switch {
		case len(a.Query) == 0:
			return newest, rows // the default page, from the newest
		case !ok || !only("first", "after"):
			return 0, false
		case !a.Query.Has("after"):
			return newest, rows
		}
		c, _ := one("after")
		return shortAfter(c, n)
	}
	asc := false
	if a.Query.Has(pNewest) {
		v, ok := one(pNewest)
		if !ok || v != "true" && v != "false" {
			return 0, false
		}
		asc = v == "false"
	}
	switch {
	case !asc && only(pFirst, pNewest):
		if _, ok := count(pFirst); ok || !a.Query.Has(pFirst) {
			return newest, rows
		}
	case !asc && only(pLast, pBefore, pNewest) && a.Query.Has(pBefore):
		if n, ok := count(pLast); ok {
			c, _ := one(pBefore)
			return shortAfter(c, n)
		}
	case asc && only(pFirst, pAfter, pNewest):
		if n, ok := count(pFirst); ok {
			if !a.Query.Has(pAfter) {
				if len(p.Rows) < n {
					return newest, rows
				}
				return 0, false
			}
			c, _ := one(pAfter)
			return shortAfter(c, n)
		}
	}
	return 0, false
}

func firstOf(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// OlderHeads returns the answers of a listing served from an older head
// than one before them (by newest row, or by X-Block-Height), how many
// more there were, and how many answers were judged (each that must reach
// the head, held to the heads that came back before it).
func (o *Observer) OlderHeads(l Listing, height bool) (found []OlderHead, more, checked int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	t := &o.lists[l].heads
	if height {
		t = &o.lists[l].heights
	}
	return slices.Clone(t.older), t.more, t.checked
}
