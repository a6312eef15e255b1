// Package client makes the conformance suite's HTTP requests: the client
// that asks a deployment and remembers each Exchange (what was asked and
// what came back), the retries after 429 and 503, and the traffic every
// client of a run shares (RunState: the rate limit, the bound on requests
// in flight, the counters and the run deadline), with the memory budget
// response bodies are read into. It knows nothing of the rules.
package client
