// Package selftest proves the conformance suite in both directions: it
// passes against the mock server, and each of a set of deliberately
// defective servers makes it fail on the rule the defect breaks.
//
// The servers run here, on 127.0.0.1 with free ports: the mock, or the mock
// wrapped by a handler that corrupts requests or answers. Wherever the
// suite's verdicts are what a test checks, the suite runs in a worker: the
// test binary started again, which runs it in-process (conformance.Run) run
// after run, writing the JSON, JUnit and HTML reports "harness conform"
// writes; two workers run side by side. Where the command itself is part of
// what a test checks (its exit codes, the traffic line it prints, the flags
// it parses), or where the clock paces the run rather than the CPU (rate
// limits, slow answers, waits for growth), the harness binary, built once,
// runs as "harness conform --base-url URL --json-report FILE --junit FILE"
// in a subprocess, at most two at a time. Each run is bounded by a timeout.
package selftest
