// Package fastpath is the schemas' compiled fast path: a compiled form of a
// schema that answers nothing but whether a document is valid, with no
// error values, contexts or scores. schemas.Validator.Validate asks it
// first, from the document's bytes; only when it says no (or cannot
// decide) does gojsonschema check the document, to build the violations.
//
// It is compiled from the very bytes gojsonschema compiles (a profile's
// files), for the keywords the files use and nothing else: any other
// keyword, or a supported keyword with a value of a form not supported,
// makes the compilation fail, and the validator then always uses
// gojsonschema. Every keyword is checked as gojsonschema v1.2.0 checks it
// (its validation.go): the same order of type checks, numbers compared as
// big.Rat, "integer" by big.Rat.IsInt (1.0 is an integer), lengths in
// runes, patterns by Go's regexp (matched by a DFA built from the same
// program where that is safe, json.go and regexp.go), formats by
// gojsonschema's own format checkers, enum and const by gojsonschema's
// canonical JSON text, $ref ignoring the keywords beside it. The verdicts
// are compared with gojsonschema's on a corpus and by a fuzz target
// (schemas/compiled_test.go).
package fastpath
