// Package pagedrules declares the conformance rules of the four
// cursor-paged listings (games, snapshots, key rotations, network
// parameters): their pagination forwards and backwards, the games' filters
// and epoch window, the key rotations' filters, and, through
// conformance/answerrules, their errors and schemas (DeclarePagedRules).
package pagedrules
