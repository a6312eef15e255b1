package model

import (
	"fmt"
	"strings"
)

// sideContext is how many equal rows SideBySide shows before the first
// difference.
const sideContext = 2

// SideBySide sets the rows the oracle expects beside the rows an answer
// gave, by key, one line a place: the first differing place marked with
// ">", from sideContext places before it, and at most lines places in all.
// It returns "" when the two agree.
func SideBySide(want, got []Row, lines int) string {
	n := max(len(want), len(got))
	first := -1
	for i := range n {
		if i >= len(want) || i >= len(got) || want[i].Key != got[i].Key {
			first = i
			break
		}
	}
	if first < 0 {
		return ""
	}
	cell := func(rows []Row, i int) string {
		if i >= len(rows) {
			return "(none)"
		}
		return rows[i].Key.String()
	}
	width := len("expected")
	start := max(0, first-sideContext)
	end := min(n, start+max(lines, 1))
	for i := start; i < end; i++ {
		width = max(width, len(cell(want, i)))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "       %-*s   %s\n", width, "expected", "got")
	for i := start; i < end; i++ {
		mark := " "
		if i >= len(want) || i >= len(got) || want[i].Key != got[i].Key {
			mark = ">"
		}
		fmt.Fprintf(&b, "%s %4d  %-*s   %s\n", mark, i+1, width, cell(want, i), cell(got, i))
	}
	if end < n {
		fmt.Fprintf(&b, "  ... %d more places (expected %d rows, got %d)\n", n-end, len(want), len(got))
	}
	return b.String()
}

// SideBySideOf sets the rows of an expectation beside those of an answer
// as Compare compares them (see comparedRows), in at most lines places.
func SideBySideOf(want *Expected, got *Page, newest *Key, lines int) string {
	w, g, _ := comparedRows(want.For(got), got, newest)
	return SideBySide(w, g, lines)
}
