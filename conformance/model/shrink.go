package model

import (
	"net/url"
	"slices"
	"strconv"
)

// maxShrinkSteps bounds the queries Shrink asks.
const maxShrinkSteps = 200

// Shrink reduces a query whose answer differs from the oracle in aspect a
// to the smallest query that still differs in it: fewer parameters, fewer
// values, smaller counts. differs asks the deployment and compares; it is
// called at most maxShrinkSteps times. Shrink returns the smallest query
// found and the difference it shows.
func Shrink(q url.Values, d Difference, differs func(url.Values) (Difference, bool)) (url.Values, Difference) {
	best := clone(q)
	steps := 0
	try := func(c url.Values) bool {
		if steps >= maxShrinkSteps {
			return false
		}
		steps++
		got, ok := differs(c)
		if ok && got.Aspect == d.Aspect {
			best, d = c, got
			return true
		}
		return false
	}
	for progress := true; progress && steps < maxShrinkSteps; {
		progress = false
		for _, k := range sortedKeys(best) {
			c := clone(best)
			delete(c, k)
			if try(c) {
				progress = true
				break
			}
			if v := best[k]; len(v) > 1 {
				c := clone(best)
				c[k] = v[:1]
				if try(c) {
					progress = true
					break
				}
			}
			n, err := strconv.Atoi(best.Get(k))
			if err != nil || n <= 1 || !isCount(k) {
				continue
			}
			for _, smaller := range []int{1, n / 2, n - 1} {
				if smaller < 1 || smaller >= n {
					continue
				}
				c := clone(best)
				c.Set(k, strconv.Itoa(smaller))
				if try(c) {
					progress = true
					break
				}
			}
			if progress {
				break
			}
		}
	}
	return best, d
}

func isCount(k string) bool {
	return k == pFirst || k == pLast || k == "first" || k == "last"
}

func sortedKeys(q url.Values) []string {
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Coverage is what a set of queries exercised of a listing's query space.
type Coverage struct {
	Listing Listing
	// Queries is how many queries were asked.
	Queries int
	// Params counts the queries each parameter appeared in (in the spec's
	// spelling), Pairs the queries each pair appeared in ("a&b", sorted).
	Params map[string]int
	Pairs  map[string]int
}

// Cover tallies what queries exercise.
func Cover(l Listing, queries []url.Values) Coverage {
	c := Coverage{Listing: l, Queries: len(queries), Params: map[string]int{}, Pairs: map[string]int{}}
	for _, q := range queries {
		var names []string
		for k := range q {
			if s, ok := snake[k]; ok {
				k = s
			}
			if !slices.Contains(names, k) {
				names = append(names, k)
			}
		}
		slices.Sort(names)
		for i, a := range names {
			c.Params[a]++
			for _, b := range names[i+1:] {
				c.Pairs[a+"&"+b]++
			}
		}
	}
	return c
}

// Missing lists the parameters and pairs of the listing no query
// exercised.
func (c Coverage) Missing() []string {
	var out []string
	ps := c.Listing.Params()
	for i, a := range ps {
		if c.Params[a] == 0 {
			out = append(out, a)
		}
		for _, b := range ps[i+1:] {
			x, y := min(a, b), max(a, b)
			if c.Pairs[x+"&"+y] == 0 {
				out = append(out, x+"&"+y)
			}
		}
	}
	return out
}

// PairCount is the number of pairs of the listing's parameters.
func (c Coverage) PairCount() int {
	n := len(c.Listing.Params())
	return n * (n - 1) / 2
}
