// Package schemas holds the JSON Schemas (draft-07) of the chain data query
// API: every response body, record, nested object, enumeration and command
// variant of the spec. They are the single source of truth of the harness: the
// generators walk them to make data, the mock server's responses are checked
// against them, and the conformance suite judges other implementations by them.
//
// The schema files are embedded. Each definition has a project-wide unique
// name (for example "ListGamesResponse", "OrderSubmission", "TimeInForce"):
//
//   - Load(name) gives a compiled validator, built once and safe for
//     concurrent use, whose errors name the JSON path and the rule broken.
//     It uses every core: Validate checks a page's records (the
//     transactions of a ListTransactionsResponse, the edges of a
//     connection) apart, and ValidateEach many documents, on a pool the
//     package bounds to GOMAXPROCS, with the verdicts and violations of
//     checking each document whole, in input order. A compiled fast path
//     (internal/fastpath) decides valid documents from their bytes; only a
//     document it does not find valid is checked by gojsonschema, which
//     gives the violations (README.md, "Validation: the fast path").
//   - LoadProfile(name, p) gives the validator of one profile: Reference
//     (the files as written, strict: what the mock writes) or Spec (derived
//     from the same files by their x-spec-fields, x-spec-oneof,
//     x-spec-types and x-spec-pattern annotations: only what the spec
//     states). Load(name) is the Reference profile; Validate(name, p,
//     doc) loads and validates in one call.
//   - Lookup(name) gives the parsed definition as a Node tree with its
//     references resolved and property order kept, for code that walks the
//     schemas (data generators, the OpenAPI export).
//   - Standalone(name) and Bundle() give the schemas to other validators:
//     one definition with everything it uses, or every definition, in one
//     draft-07 document each; OpenAPI() gives an OpenAPI 3.0 document of the
//     five listings that client generators take.
//
// Conventions shared by every file are described in README.md beside them.
package schemas
