// Package conformance is the conformance suite of the chain data query API:
// a Ginkgo v2 suite that judges any deployment by the wire alone. It imports
// the schemas package and the standard library's HTTP client, never the mock
// server or the generators.
//
// The suite assumes nothing about the data. Each listing is walked forwards
// and backwards (bounded by config.Config.MaxPages), the walks are compared
// with each other, filters are checked against the unfiltered walk, and the
// games epoch window is derived from the epochs the server reports. Rows
// newer than every row of a listing's first walk are left out of
// comparisons: on a live network they arrived while the suite ran. Every
// rule of the spec is its own spec (It), labelled by listing (games,
// snapshots, key-rotations, network-parameters, transactions) and by area
// (schema, pagination, filters, epochs, errors); rules that only
// docs/behaviour.md decides also carry the label "strict", so a deployment
// can be checked against the spec alone with the label filter '!strict'.
//
// This package runs the suite. The rules live in ordinary (non-test)
// packages, so that the harness binary can run them: one package per area
// (conformance/pagedrules, conformance/txrules, conformance/modelrules and
// conformance/answerrules), declared with conformance/rule, probing with
// conformance/paging and asking through conformance/client; this package
// puts them in the suite's tree (declareSuite), and the reports are written
// by conformance/report. Run runs the suite with its own reporter
// configuration, as often as asked, one run at a time, and Rules lists the
// rules without running them (the catalogue in docs/conformance-rules.md is
// generated from it). Under go test the suite runs from
// conformance_suite_test.go:
//
//	go test ./conformance -args --base-url=http://127.0.0.1:8080
//
// Against what is not a deployment the suite fails fast and stays small. A
// preflight asks each URL for one row before any rule runs and says in one
// line what is wrong (a *PreflightError); config.Config.RunTimeout bounds
// the whole run, the rules not yet judged when it passes being skipped;
// independent requests go side by side up to config.Config.Concurrency, so
// that requests that time out wait together; and response bodies are read
// streaming into a memory budget every request in flight shares, the bodies
// kept for the schema rules bounded too; a run that holds too much of the
// deployment's answers stops as at its deadline.
//
// Mistakes a CI job would otherwise pass with are refused before the run:
// a label filter naming no label of the suite, or selecting no rule (a
// *LabelFilterError). ReadJSONReport reads a run's JSON report back into
// its summary, from which conformance/report writes a CI job's summary.
package conformance
