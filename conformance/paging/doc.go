// Package paging is what the conformance suite's rules probe a listing
// with: the paged listings (paths, cursors, order, schemas), a listing's
// pages and rows decoded from its answers, walks forwards and backwards
// over it, the cutoff that leaves out rows that arrived while the suite
// ran, the comparisons of walks, and the state a listing's rules share
// (PagedState). It declares no rule.
package paging
