// Package modelrules declares the conformance rules that judge a listing
// against a model built from its own answers (conformance/model): the
// oracle's answer to each generated query compared with the deployment's,
// one rule per aspect and level (DeclareModelRules), and the growth rules
// that pause a walk until a new row arrives. It keeps each run's model
// reports for the summary (CurrentModelReports).
package modelrules
