// Package rule is how the conformance suite's rules are declared and
// judged: each rule's stable ID (the registry rule-ids.txt), its scope and
// area labels, its level (a MUST citing the spec, or a SHOULD), its
// declaration as a Ginkgo spec (Define, DefineEntry, Scope, Area), the
// Verdict that collects what it found wrong, the batch its requests are
// asked in, the fail handler that applies waivers (FailRule), and the
// catalogue's Rule. It holds no rule itself.
package rule
