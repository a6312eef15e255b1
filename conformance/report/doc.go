// Package report writes what a run of the conformance suite found: the
// Summary of a run (each rule's outcome, the traffic, the model rules'
// coverage), and from it the console summary (WriteSummary), the JUnit
// report (WriteJUnit) and the self-contained HTML page (WriteHTMLReport).
// It runs nothing.
package report
