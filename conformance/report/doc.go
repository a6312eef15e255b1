// Package report writes what a run of the conformance suite found: the
// Summary of a run (each rule's outcome, the traffic, the model rules'
// coverage), and from it the console summary (WriteSummary), the JUnit
// report (WriteJUnit), the self-contained HTML page (WriteHTMLReport), and
// what a CI job shows (WriteMarkdown, WriteAnnotations, WriteOutputs).
// Every one escapes the bytes of the deployment's answers that are not
// UTF-8. It runs nothing.
package report
