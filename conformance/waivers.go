package conformance

// Waiver excuses one rule's failure until a date: a known departure of a
// deployment from the spec, with the reason.
type Waiver struct {
	// Rule is the waived rule's ID.
	Rule string `json:"rule" yaml:"rule"`
	// Reason says why the departure is accepted.
	Reason string `json:"reason" yaml:"reason"`
	// Expires is the last day (YYYY-MM-DD, UTC) the waiver applies.
	Expires string `json:"expires" yaml:"expires"`
}
