package proxy

// NewWithCheckHook returns New(cfg) whose checkers call hook on their own
// goroutine before each check: a test blocks in hook to hold every checker
// busy, deterministically, without sleeping.
func NewWithCheckHook(cfg Config, hook func()) *Proxy {
	p := New(cfg)
	p.pool.beforeCheck = hook
	return p
}

// Sampled reports, for the first n listing requests, which a sampler of
// fraction f checks.
func Sampled(f float64, n int) []bool {
	s := newSampler(f)
	out := make([]bool, n)
	for i := range out {
		out[i] = s.take()
	}
	return out
}
