// Package selftest proves the conformance suite in both directions: it
// passes against the mock server, and each of a set of deliberately
// defective servers makes it fail on the rule the defect breaks.
//
// The suite runs in a subprocess per server (Ginkgo runs a suite once per
// process): the harness binary is built once and run as
// "harness conform --base-url URL --json-report FILE --junit FILE", at most
// two at a time, each bounded by a timeout. The servers run here, on
// 127.0.0.1 with free ports: the mock, or the mock wrapped by a handler that
// corrupts requests or answers.
package selftest
