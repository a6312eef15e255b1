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
