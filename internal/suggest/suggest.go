// Package suggest finds the known names nearest to a mistyped one, so that
// an error about an unknown flag, command, schema or field can say which
// one was probably meant.
package suggest

import (
	"slices"
	"strings"
)

// Distance is the edit distance between a and b, ignoring case: the
// fewest insertions, deletions and substitutions of one character, or
// swaps of two adjacent ones, that make one the other (the optimal string
// alignment distance, which counts the common typo "sreve" as one edit).
func Distance(a, b string) int {
	ra, rb := []rune(strings.ToLower(a)), []rune(strings.ToLower(b))
	// Three rows of the table: i-2, i-1 and i.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// Threshold is the largest edit distance at which a known name still
// counts as near a mistyped word: about a third of the word, at least 1.
func Threshold(word string) int {
	return max(1, len([]rune(word))/3)
}

// MaxWord is the longest word, in bytes, Nearest finds names near: no name
// is longer, and a hostile word (a megabyte) costs no time.
const MaxWord = 100

// Nearest returns at most limit of the known names nearest to word: those
// within Threshold(word) edits and at most one edit further than the
// nearest, nearest first (ties in the order of known); failing any, the
// names word is a prefix of (at least two characters), as for an
// abbreviation. It returns nil when nothing is near, or word is longer than
// MaxWord.
func Nearest(word string, known []string, limit int) []string {
	if len(word) > MaxWord {
		return nil
	}
	type match struct {
		name string
		dist int
	}
	var near []match
	for _, k := range known {
		if d := Distance(word, k); d <= Threshold(word) {
			near = append(near, match{k, d})
		}
	}
	if len(near) == 0 && len([]rune(word)) >= 2 {
		lw := strings.ToLower(word)
		for _, k := range known {
			if strings.HasPrefix(strings.ToLower(k), lw) {
				near = append(near, match{k, len(k) - len(word)})
			}
		}
	}
	slices.SortStableFunc(near, func(a, b match) int { return a.dist - b.dist })
	out := make([]string, 0, min(limit, len(near)))
	for _, m := range near {
		if len(out) == limit || m.dist > near[0].dist+1 {
			break
		}
		if !slices.Contains(out, m.name) {
			out = append(out, m.name)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Phrase writes names as a question for an error message: "; did you mean
// X?" or "; did you mean X or Y?", each name as quote writes it; "" when
// there are none.
func Phrase(names []string, quote func(string) string) string {
	if len(names) == 0 {
		return ""
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quote(n)
	}
	if len(q) == 1 {
		return "; did you mean " + q[0] + "?"
	}
	return "; did you mean " + strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1] + "?"
}
