// Package config says which deployment the conformance suite checks and how
// far it may go: the suite's Config, its defaults, its flags (RegisterFlags)
// and environment variables (ApplyEnv), and their validation. Every other
// package of the suite reads a Config; this one imports none of them.
package config
