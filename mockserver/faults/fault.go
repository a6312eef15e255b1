package faults

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"time"

	"github.com/chaindata/harness/internal/quote"
)

// Header is the request header that asks for a fault for that request only.
const Header = "X-Harness-Fault"

// Kind is what a fault does besides adding latency.
type Kind int

// The kinds of fault.
const (
	// None answers normally (after the fault's latency, if any).
	None Kind = iota
	// Status answers with an error status and the spec's error body.
	Status
	// Reset closes the connection without an answer (a TCP reset).
	Reset
	// Empty sends the answer's status and headers, then closes the
	// connection: no body, though Content-Length promises one.
	Empty
	// Truncate sends the answer cut at a fraction of its body, then closes
	// the connection, though Content-Length promises all of it.
	Truncate
	// SlowBody sends the answer's body at a given number of bytes a second.
	SlowBody
	// Garbage answers 200 with a body that is not JSON.
	Garbage
)

var kindNames = [...]string{None: "none", Status: "status", Reset: "reset", Empty: "empty", Truncate: "truncate", SlowBody: "slow-body", Garbage: "garbage"}

// Kinds lists every kind but None, in the order of their constants.
var Kinds = []Kind{Status, Reset, Empty, Truncate, SlowBody, Garbage}

// String returns the kind's name in the fault grammar.
func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return "Kind(" + strconv.Itoa(int(k)) + ")"
	}
	return kindNames[k]
}

// Dist is the distribution an added latency is drawn from.
type Dist int

// The latency distributions.
const (
	// NoLatency adds none.
	NoLatency Dist = iota
	// Fixed adds Delay.D.
	Fixed
	// Uniform draws evenly from [Delay.Lo, Delay.Hi].
	Uniform
	// LogNormal draws from the log-normal distribution whose median and
	// 99th percentile are Delay.Median and Delay.P99, a long tail as real
	// latencies have.
	LogNormal
)

// Delay is a latency added before the answer.
type Delay struct {
	Dist        Dist
	D           time.Duration // Fixed
	Lo, Hi      time.Duration // Uniform
	Median, P99 time.Duration // LogNormal
}

// MaxLatency is the longest latency a fault may add (a client that gives up
// earlier ends the wait).
const MaxLatency = time.Hour

// z99 is the standard normal distribution's 99th percentile.
const z99 = 2.3263478740408408

// Sample draws one latency.
func (d Delay) Sample(r *rand.Rand) time.Duration {
	switch d.Dist {
	case Fixed:
		return d.D
	case Uniform:
		return d.Lo + time.Duration(r.Int63n(int64(d.Hi-d.Lo)+1))
	case LogNormal:
		sigma := math.Log(float64(d.P99)/float64(d.Median)) / z99
		x := float64(d.Median) * math.Exp(sigma*r.NormFloat64())
		return time.Duration(min(x, float64(MaxLatency)))
	}
	return 0
}

// Max returns the longest latency the delay can add.
func (d Delay) Max() time.Duration {
	switch d.Dist {
	case Fixed:
		return d.D
	case Uniform:
		return d.Hi
	case LogNormal:
		return MaxLatency
	}
	return 0
}

// String writes the delay as the value of latency= in the grammar.
func (d Delay) String() string {
	switch d.Dist {
	case Fixed:
		return d.D.String()
	case Uniform:
		return "uniform:" + d.Lo.String() + "-" + d.Hi.String()
	case LogNormal:
		return "lognormal:median=" + d.Median.String() + ",p99=" + d.P99.String()
	}
	return ""
}

// Fault is what happens to one request: an optional latency, then at most
// one other kind. The zero Fault does nothing.
type Fault struct {
	Latency Delay
	Kind    Kind
	// Status is the HTTP status of a Status fault: 429, 500, 502, 503 or
	// 504.
	Status int
	// RetryAfter is the Retry-After of a Status fault in seconds, when
	// HasRetryAfter (always for a 429: 1 unless given).
	RetryAfter    int
	HasRetryAfter bool
	// Fraction is where a Truncate fault cuts the body, in [0, 1).
	Fraction float64
	// Rate is a SlowBody fault's rate in bytes per second.
	Rate int
}

// Statuses are the statuses a Status fault may answer with.
var Statuses = []int{429, 500, 502, 503, 504}

// Bounds of the values the grammar accepts.
const (
	maxRetryAfter = 86400   // a day
	maxRate       = 1 << 30 // bytes per second
	maxFaultText  = 1024    // the longest fault text read
	names         = "latency, status, retry-after, reset, empty, truncate, slow-body, garbage or none"
)

// ErrSyntax is wrapped by every error of Parse.
var ErrSyntax = errors.New("invalid fault")

// Parse reads a fault in the grammar of the X-Harness-Fault header: items
// separated by ";", each a name or name=value (names in any case, spaces
// around ";" and "=" ignored):
//
//	latency=D | latency=uniform:D-D | latency=lognormal:median=D,p99=D
//	status=429|500|502|503|504 [; retry-after=SECONDS]
//	reset | empty | garbage | truncate=FRACTION | slow-body=BYTES_PER_SECOND
//	none
//
// where D is a Go duration ("300ms", "1.5s") of at most an hour. At most one
// item besides latency; none stands alone.
func Parse(s string) (Fault, error) {
	var f Fault
	if len(s) > maxFaultText {
		return Fault{}, fmt.Errorf("%w: %d characters, more than %d", ErrSyntax, len(s), maxFaultText)
	}
	if strings.TrimSpace(s) == "" {
		return Fault{}, fmt.Errorf("%w: empty; want %s", ErrSyntax, names)
	}
	seen := map[string]bool{}
	var kinds []string
	for _, item := range strings.Split(s, ";") {
		name, value, hasValue := strings.Cut(item, "=")
		name, value = strings.ToLower(strings.TrimSpace(name)), strings.TrimSpace(value)
		if name == "" {
			return Fault{}, fmt.Errorf("%w: %s: an empty item", ErrSyntax, quote.Value(s))
		}
		if seen[name] {
			return Fault{}, fmt.Errorf("%w: %s: %s given twice", ErrSyntax, quote.Value(s), name)
		}
		seen[name] = true
		takesValue := name != "none" && name != "reset" && name != "empty" && name != "garbage"
		if _, known := itemKinds[name]; known && takesValue != hasValue {
			if hasValue {
				return Fault{}, fmt.Errorf("%w: %s: %s takes no value", ErrSyntax, quote.Value(s), name)
			}
			return Fault{}, fmt.Errorf("%w: %s: %s needs a value (%s=...)", ErrSyntax, quote.Value(s), name, name)
		}
		if err := f.set(name, value); err != nil {
			return Fault{}, fmt.Errorf("%w: %s: %w", ErrSyntax, quote.Value(s), err)
		}
		if itemKinds[name] != None {
			kinds = append(kinds, name)
		}
	}
	if seen["none"] && len(seen) > 1 {
		return Fault{}, fmt.Errorf("%w: %s: none stands alone", ErrSyntax, quote.Value(s))
	}
	if len(kinds) > 1 {
		return Fault{}, fmt.Errorf("%w: %s: at most one fault besides latency, got %s", ErrSyntax, quote.Value(s), strings.Join(kinds, " and "))
	}
	if f.HasRetryAfter && f.Kind != Status {
		return Fault{}, fmt.Errorf("%w: %s: retry-after goes with status", ErrSyntax, quote.Value(s))
	}
	if f.Kind == Status && f.Status == 429 && !f.HasRetryAfter {
		f.RetryAfter, f.HasRetryAfter = 1, true // a 429 always says when to come back
	}
	return f, nil
}

// itemKinds maps each item name of the grammar to the kind it sets.
var itemKinds = map[string]Kind{
	"none": None, "latency": None, "retry-after": None,
	"status": Status, "reset": Reset, "empty": Empty, "truncate": Truncate, "slow-body": SlowBody, "garbage": Garbage,
}

// set reads one item into f.
func (f *Fault) set(name, value string) error {
	kind, ok := itemKinds[name]
	if !ok {
		return fmt.Errorf("%s is not a fault: want %s", quote.Value(name), names)
	}
	if kind != None {
		f.Kind = kind
	}
	var err error
	switch name {
	case "latency":
		f.Latency, err = parseDelay(value)
	case "status":
		f.Status, err = parseInt("status", value, 0, 999)
		if err == nil && !validStatus(f.Status) {
			err = fmt.Errorf("status %d: want one of 429, 500, 502, 503, 504", f.Status)
		}
	case "retry-after":
		f.RetryAfter, err = parseInt("retry-after", value, 0, maxRetryAfter)
		f.HasRetryAfter = true
	case "truncate":
		f.Fraction, err = strconv.ParseFloat(value, 64)
		if err != nil || !(f.Fraction >= 0 && f.Fraction < 1) {
			err = fmt.Errorf("truncate %s: want a fraction of the body from 0 up to (not including) 1", quote.Value(value))
		}
	case "slow-body":
		f.Rate, err = parseInt("slow-body", value, 1, maxRate)
	}
	return err
}

func validStatus(code int) bool {
	for _, s := range Statuses {
		if s == code {
			return true
		}
	}
	return false
}

// parseInt reads a decimal integer in [lo, hi].
func parseInt(name, value string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(value)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%s %s: want a whole number from %d to %d", name, quote.Value(value), lo, hi)
	}
	return n, nil
}

// parseDelay reads the value of latency=.
func parseDelay(v string) (Delay, error) {
	switch {
	case strings.HasPrefix(v, "uniform:"):
		lo, hi, ok := strings.Cut(strings.TrimPrefix(v, "uniform:"), "-")
		if !ok {
			return Delay{}, fmt.Errorf("latency %s: want uniform:MIN-MAX, such as uniform:50ms-200ms", quote.Value(v))
		}
		d := Delay{Dist: Uniform}
		var err error
		if d.Lo, err = parseDuration(lo); err != nil {
			return Delay{}, err
		}
		if d.Hi, err = parseDuration(hi); err != nil {
			return Delay{}, err
		}
		if d.Lo > d.Hi {
			return Delay{}, fmt.Errorf("latency %s: the minimum is above the maximum", quote.Value(v))
		}
		return d, nil
	case strings.HasPrefix(v, "lognormal:"):
		d := Delay{Dist: LogNormal}
		for _, p := range strings.Split(strings.TrimPrefix(v, "lognormal:"), ",") {
			k, val, _ := strings.Cut(p, "=")
			var dst *time.Duration
			switch strings.TrimSpace(k) {
			case "median":
				dst = &d.Median
			case "p99":
				dst = &d.P99
			default:
				return Delay{}, fmt.Errorf("latency %s: want lognormal:median=D,p99=D, such as lognormal:median=80ms,p99=900ms", quote.Value(v))
			}
			if *dst != 0 {
				return Delay{}, fmt.Errorf("latency %s: %s given twice", quote.Value(v), strings.TrimSpace(k))
			}
			var err error
			if *dst, err = parseDuration(val); err != nil {
				return Delay{}, err
			}
		}
		if !(0 < d.Median && d.Median < d.P99) {
			return Delay{}, fmt.Errorf("latency %s: want 0 < median < p99", quote.Value(v))
		}
		return d, nil
	}
	d, err := parseDuration(v)
	return Delay{Dist: Fixed, D: d}, err
}

// parseDuration reads a Go duration from 0 to MaxLatency.
func parseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d < 0 || d > MaxLatency {
		return 0, fmt.Errorf("latency %s: want a duration such as 300ms, from 0 to %v", quote.Value(s), MaxLatency)
	}
	return d, nil
}

// String writes the fault in the grammar Parse reads, so that
// Parse(f.String()) gives f again.
func (f Fault) String() string {
	var items []string
	if f.Latency.Dist != NoLatency {
		items = append(items, "latency="+f.Latency.String())
	}
	switch f.Kind {
	case Status:
		items = append(items, "status="+strconv.Itoa(f.Status))
		if f.HasRetryAfter {
			items = append(items, "retry-after="+strconv.Itoa(f.RetryAfter))
		}
	case Truncate:
		items = append(items, "truncate="+strconv.FormatFloat(f.Fraction, 'g', -1, 64))
	case SlowBody:
		items = append(items, "slow-body="+strconv.Itoa(f.Rate))
	case Reset, Empty, Garbage:
		items = append(items, f.Kind.String())
	}
	if len(items) == 0 {
		return "none"
	}
	return strings.Join(items, "; ")
}

// IsZero reports whether the fault does nothing.
func (f Fault) IsZero() bool { return f.Kind == None && f.Latency.Dist == NoLatency }
