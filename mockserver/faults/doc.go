// Package faults makes the mock misbehave on purpose, as a network does,
// for client developers to test against: added latency (fixed or from a
// distribution), error statuses (5xx, and 429 with Retry-After), connections
// reset without an answer, answers cut short, bodies dribbled slowly, and
// 200s whose body is not JSON.
//
// A fault is a value (Fault), written in one small grammar (Parse):
//
//	latency=300ms
//	latency=uniform:50ms-200ms
//	latency=lognormal:median=80ms,p99=900ms
//	status=503; retry-after=2
//	reset
//	truncate=0.5
//	latency=1s; slow-body=2048
//
// A request asks for one with the X-Harness-Fault header; otherwise rules
// (Rule, RuleSet) choose the requests to fail by listing or path, by
// probability or every n-th request, from a seeded stream, so that which
// requests fail is reproducible for a given order of requests. An Injector
// is the one middleware that applies them; the handlers it wraps know
// nothing of faults.
package faults
