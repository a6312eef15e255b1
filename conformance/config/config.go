package config

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Defaults of the Config fields a zero value leaves unset.
const (
	DefaultMaxPages = 20
	DefaultPageSize = 50
	DefaultTimeout  = 10 * time.Second
	// DefaultRate is the request rate (per second) against a deployment
	// that is not on this machine, when no rate is given.
	DefaultRate        = 10
	DefaultConcurrency = 4
	DefaultRetries     = 5
	// DefaultSeed, DefaultQueries and DefaultMaxRows are the model rules'
	// defaults: the seed of the generated queries, how many each listing
	// is asked, and how many rows of each listing the model holds.
	DefaultSeed    = 1
	DefaultQueries = 300
	DefaultMaxRows = 10000
	// DefaultGrowthWait bounds how long the growth rules wait for a new row.
	DefaultGrowthWait = 60 * time.Second
	// DefaultRunTimeout bounds a whole run: when it passes, the rules not
	// yet run are skipped and the run fails.
	DefaultRunTimeout = 15 * time.Minute
)

// Environment variables the suite reads (see ApplyEnv). A flag given on the
// command line wins over its variable.
const (
	EnvBaseURL         = "HARNESS_BASE_URL"
	EnvTransactionsURL = "HARNESS_TRANSACTIONS_URL"
	// EnvHeaders holds "Name: value" lines, one header a line.
	EnvHeaders = "HARNESS_HEADERS"
	// EnvLabelFilter is read by harness conform for --label-filter; it is
	// not a Config field.
	EnvLabelFilter = "HARNESS_LABEL_FILTER"
	EnvRate        = "HARNESS_RATE"
	// EnvExamples names the examples file (--examples).
	EnvExamples = "HARNESS_EXAMPLES"
)

// Config says which deployment the suite checks and how far it may go.
// Its zero values are safe against a real network.
type Config struct {
	// BaseURL is the address of the data-node listings (/api/v2/...), such
	// as "http://127.0.0.1:8080". Required.
	BaseURL string
	// TransactionsURL is the address the transaction listing's /transactions
	// path is appended to, where the block explorer lives apart from the
	// data node (for example "https://explorer.example/rest"). Empty means
	// BaseURL.
	TransactionsURL string
	// MaxPages bounds every walk over a listing, so that the suite is safe
	// against a large real network; expectations are checked within the
	// rows the walks reached. Zero means DefaultMaxPages.
	MaxPages int
	// PageSize is the largest count the walks ask for per page. Zero means
	// DefaultPageSize. Smaller listings are walked with smaller pages so that
	// a walk has first, middle and last pages.
	PageSize int
	// Timeout bounds every attempt of a request (waits for the rate limit
	// and before retries are not counted). Zero means DefaultTimeout.
	Timeout time.Duration
	// RunTimeout bounds the whole run, from the preflight to the last rule:
	// when it passes, requests in flight are abandoned and the rules not
	// yet judged are skipped ("the run deadline passed"), and the run
	// fails. Zero means DefaultRunTimeout.
	RunTimeout time.Duration
	// Rate bounds the requests per second of the whole run, every listing
	// and retry included: requests are spaced by at least 1/Rate, so no
	// one-second window holds more than Rate of them. Zero means the
	// default: no bound when every URL's host is a loopback address
	// (127.0.0.0/8, ::1, localhost), DefaultRate otherwise. +Inf means no
	// bound (--rate 0 sets it).
	Rate float64
	// Concurrency bounds the requests in flight at once, over the whole
	// run. Zero means DefaultConcurrency.
	Concurrency int
	// Retries is how many times a request answered 429 or 503 is asked
	// again. Zero means DefaultRetries; a negative value means never
	// (--retries 0 sets -1).
	Retries int
	// Headers are "Name: value" lines sent with every request, for
	// gateways that want an API key. Their values are never printed.
	Headers []string
	// Seed seeds the model rules' generated queries: the same seed asks
	// the same queries of the same data. Zero means DefaultSeed.
	Seed int64
	// Queries is how many generated queries the model rules ask of each
	// listing. Zero means DefaultQueries.
	Queries int
	// MaxRows bounds the rows the model holds of each listing. Zero means
	// DefaultMaxRows.
	MaxRows int
	// GrowthWait bounds how long a growth rule waits for a new row of its
	// listing before it is skipped. Zero means DefaultGrowthWait.
	GrowthWait time.Duration
	// Examples is a file of failing queries: the model rules ask those of
	// the file first, and the run adds the shrunk failing queries it finds
	// (see model.SaveExamples). Empty means none.
	Examples string
}

// String writes cfg for people, the headers by name only (%v and %+v use
// it too), so that printing a Config never shows a header's value.
func (cfg Config) String() string {
	return fmt.Sprintf("{BaseURL:%s TransactionsURL:%s MaxPages:%d PageSize:%d Timeout:%s RunTimeout:%s Rate:%v Concurrency:%d Retries:%d Headers:%q Seed:%d Queries:%d MaxRows:%d GrowthWait:%s Examples:%s}",
		cfg.BaseURL, cfg.TransactionsURL, cfg.MaxPages, cfg.PageSize, cfg.Timeout, cfg.RunTimeout, cfg.Rate, cfg.Concurrency, cfg.Retries, redactedHeaders(cfg.Headers),
		cfg.Seed, cfg.Queries, cfg.MaxRows, cfg.GrowthWait, cfg.Examples)
}

// GoString is String, for %#v.
func (cfg Config) GoString() string { return "conformance.Config" + cfg.String() }

// RegisterFlags registers the suite's flags on fs, bound to cfg: --base-url,
// --transactions-url, --max-pages, --page-size, --timeout, --run-timeout,
// --rate, --concurrency, --retries, --header (repeatable), and the model rules'
// --seed, --queries, --max-rows, --growth-wait and --examples.
func RegisterFlags(fs *flag.FlagSet, cfg *Config) {
	fs.StringVar(&cfg.BaseURL, "base-url", cfg.BaseURL, "base URL of the deployment's data-node listings, e.g. http://127.0.0.1:8080 (required; env "+EnvBaseURL+")")
	fs.StringVar(&cfg.TransactionsURL, "transactions-url", cfg.TransactionsURL, "base URL that /transactions is appended to (default: the base URL; env "+EnvTransactionsURL+")")
	fs.IntVar(&cfg.MaxPages, "max-pages", cfg.MaxPages, fmt.Sprintf("most pages any walk over a listing fetches (0: %d)", DefaultMaxPages))
	fs.IntVar(&cfg.PageSize, "page-size", cfg.PageSize, fmt.Sprintf("largest page the walks ask for (0: %d)", DefaultPageSize))
	fs.DurationVar(&cfg.Timeout, "timeout", cfg.Timeout, fmt.Sprintf("time limit of every attempt of a request (0: %s)", DefaultTimeout))
	fs.DurationVar(&cfg.RunTimeout, "run-timeout", cfg.RunTimeout, fmt.Sprintf("time limit of the whole run: when it passes, the rules not yet run are skipped and the run fails (0: %s)", DefaultRunTimeout))
	fs.Var(RateFlag(&cfg.Rate), "rate", fmt.Sprintf("at most `N` requests per second over the whole run, retries included; 0: no limit (default: no limit when every URL is loopback, else %d; env %s)", DefaultRate, EnvRate))
	fs.IntVar(&cfg.Concurrency, "concurrency", cfg.Concurrency, fmt.Sprintf("most requests in flight at once (0: %d)", DefaultConcurrency))
	fs.Var(retriesFlag{&cfg.Retries}, "retries", "ask a request answered 429 or 503 again up to `N` times, after its Retry-After (0: never)")
	fs.Int64Var(&cfg.Seed, "seed", cfg.Seed, fmt.Sprintf("seed of the model rules' generated queries; printed in every report, so a run can be repeated exactly (0: %d)", DefaultSeed))
	fs.IntVar(&cfg.Queries, "queries", cfg.Queries, fmt.Sprintf("generated queries the model rules ask of each listing (0: %d)", DefaultQueries))
	fs.IntVar(&cfg.MaxRows, "max-rows", cfg.MaxRows, fmt.Sprintf("most rows of each listing the model holds (0: %d)", DefaultMaxRows))
	fs.DurationVar(&cfg.GrowthWait, "growth-wait", cfg.GrowthWait, fmt.Sprintf("how long a growth rule waits for a new row before it is skipped (0: %s)", DefaultGrowthWait))
	fs.StringVar(&cfg.Examples, "examples", cfg.Examples, "ask the failing queries saved in `FILE` first, and save this run's shrunk failing queries there (JSON; env "+EnvExamples+")")
	fs.Var(HeaderFlag(&cfg.Headers), "header", "`Name: value` header sent with every request, e.g. an API key; repeatable; values are never printed (env "+EnvHeaders+", one a line; any --header replaces them)")
}

// RateFlag returns a flag.Value for a request rate stored in *p, as Config
// stores it: "0" means no limit (+Inf), and not giving the flag leaves *p
// as it is (zero: the default). Negative rates are refused.
func RateFlag(p *float64) flag.Value { return rateFlag{p} }

type rateFlag struct{ p *float64 }

func (f rateFlag) String() string {
	switch {
	case f.p == nil, *f.p == 0:
		return "" // the default depends on the URLs; the usage says how
	case math.IsInf(*f.p, 1):
		return "0"
	}
	return strconv.FormatFloat(*f.p, 'g', -1, 64)
}

func (f rateFlag) Set(s string) error {
	r, err := parseRate(s)
	if err != nil {
		return err
	}
	*f.p = r
	return nil
}

// parseRate reads a rate as the flag and EnvRate take it: a number of
// requests per second, 0 for no limit.
func parseRate(s string) (float64, error) {
	r, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	switch {
	case err != nil:
		return 0, fmt.Errorf("want requests per second, a number, got %q", s)
	case math.IsNaN(r) || r < 0:
		return 0, fmt.Errorf("want requests per second, not negative, got %q", s)
	case r == 0:
		return math.Inf(1), nil
	}
	return r, nil
}

// retriesFlag maps the command line's "0: never" to Config's negative.
type retriesFlag struct{ p *int }

func (f retriesFlag) String() string {
	switch {
	case f.p == nil:
		return ""
	case *f.p == 0:
		return strconv.Itoa(DefaultRetries)
	case *f.p < 0:
		return "0"
	}
	return strconv.Itoa(*f.p)
}

func (f retriesFlag) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 {
		return fmt.Errorf("want a count, not negative, got %q", s)
	}
	if n == 0 {
		n = -1
	}
	*f.p = n
	return nil
}

// HeaderFlag returns a repeatable flag.Value that collects "Name: value"
// headers into *p. The first use on a command line replaces what *p held
// (headers from the environment); later uses add to it. Its String shows
// names only. The headers are checked by Config.Validate.
func HeaderFlag(p *[]string) flag.Value { return &headerFlag{p: p} }

type headerFlag struct {
	p   *[]string
	set bool
}

func (f *headerFlag) String() string {
	if f == nil || f.p == nil {
		return ""
	}
	return strings.Join(redactedHeaders(*f.p), ", ")
}

// Set never fails: the flag package would quote the value in its error.
// Validate checks the headers without printing them.
func (f *headerFlag) Set(s string) error {
	if !f.set {
		*f.p = nil
		f.set = true
	}
	*f.p = append(*f.p, s)
	return nil
}

// ParseHeader splits a "Name: value" line. Its errors never quote the
// value, which may be a secret.
func ParseHeader(line string) (name, value string, err error) {
	name, value, ok := strings.Cut(line, ":")
	if !ok {
		return "", "", errors.New(`a header is "Name: value", and this one has no colon (its text is not shown: it may hold a secret)`)
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return "", "", errors.New(`a header is "Name: value", and this one has an empty name`)
	}
	if !validHeaderName(name) {
		return "", "", fmt.Errorf("header name %q is not an HTTP token", name)
	}
	if strings.ContainsAny(value, "\r\n\x00") {
		return "", "", fmt.Errorf("the value of header %s holds a CR, LF or NUL character", name)
	}
	return name, strings.TrimSpace(value), nil
}

// validHeaderName reports whether name is an HTTP token (RFC 9110 5.1).
func validHeaderName(name string) bool {
	for _, c := range []byte(name) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// ParseHeaders reads "Name: value" lines, as --header takes them, into a
// header map for a request. Its errors name the flag's position and never
// the value.
func ParseHeaders(lines []string) (http.Header, error) {
	h := http.Header{}
	for i, line := range lines {
		name, value, err := ParseHeader(line)
		if err != nil {
			return nil, fmt.Errorf("--header %d: %w", i+1, err)
		}
		h.Add(name, value)
	}
	return h, nil
}

// redactedHeaders returns the headers as "Name: <redacted>".
func redactedHeaders(lines []string) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		name, _, _ := strings.Cut(l, ":")
		out = append(out, strings.TrimSpace(name)+": <redacted>")
	}
	return out
}

// ApplyEnv sets the fields whose environment variable (EnvBaseURL,
// EnvTransactionsURL, EnvHeaders, EnvRate, EnvExamples) is set and not empty, reading
// them with getenv (os.Getenv). Call it before parsing flags, so that a
// flag given wins over its variable. An error names the variable.
func (cfg *Config) ApplyEnv(getenv func(string) string) error {
	if v := getenv(EnvBaseURL); v != "" {
		if err := checkURL(EnvBaseURL, v); err != nil {
			return err
		}
		cfg.BaseURL = v
	}
	if v := getenv(EnvTransactionsURL); v != "" {
		if err := checkURL(EnvTransactionsURL, v); err != nil {
			return err
		}
		cfg.TransactionsURL = v
	}
	if v := getenv(EnvHeaders); v != "" {
		headers, err := HeadersFromEnv(v)
		if err != nil {
			return err
		}
		cfg.Headers = headers
	}
	if v := getenv(EnvExamples); v != "" {
		cfg.Examples = v
	}
	if v := getenv(EnvRate); v != "" {
		r, err := parseRate(v)
		if err != nil {
			return fmt.Errorf("%s: %w", EnvRate, err)
		}
		cfg.Rate = r
	}
	return nil
}

// HeadersFromEnv reads the value of EnvHeaders: "Name: value" lines,
// blank lines ignored. An error names the variable and the line, never the
// value.
func HeadersFromEnv(v string) ([]string, error) {
	var out []string
	for i, line := range strings.Split(v, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if _, _, err := ParseHeader(line); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", EnvHeaders, i+1, err)
		}
		out = append(out, line)
	}
	return out, nil
}

// WithDefaults returns cfg with its zero fields set to their defaults and
// trailing slashes removed from the URLs. It is idempotent.
func (cfg Config) WithDefaults() Config {
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.TransactionsURL == "" {
		cfg.TransactionsURL = cfg.BaseURL
	}
	cfg.TransactionsURL = strings.TrimRight(cfg.TransactionsURL, "/")
	if cfg.MaxPages <= 0 {
		cfg.MaxPages = DefaultMaxPages
	}
	if cfg.PageSize <= 0 {
		cfg.PageSize = DefaultPageSize
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.RunTimeout <= 0 {
		cfg.RunTimeout = DefaultRunTimeout
	}
	if cfg.Rate == 0 {
		cfg.Rate = DefaultRate
		if isLoopbackURL(cfg.BaseURL) && isLoopbackURL(cfg.TransactionsURL) {
			cfg.Rate = math.Inf(1)
		}
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.Retries == 0 {
		cfg.Retries = DefaultRetries
	}
	if cfg.Seed == 0 {
		cfg.Seed = DefaultSeed
	}
	if cfg.Queries <= 0 {
		cfg.Queries = DefaultQueries
	}
	if cfg.MaxRows <= 0 {
		cfg.MaxRows = DefaultMaxRows
	}
	if cfg.GrowthWait <= 0 {
		cfg.GrowthWait = DefaultGrowthWait
	}
	return cfg
}

// EffectiveRate is the request rate a run with cfg keeps to: Rate, or its
// default when zero; +Inf means no limit.
func (cfg Config) EffectiveRate() float64 { return cfg.WithDefaults().Rate }

// isLoopbackURL reports whether the URL's host is this machine: localhost
// or a loopback address.
func isLoopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Validate reports whether cfg can be run: the base URL is given and both
// URLs are absolute http or https URLs, no bound is negative, and every
// header is a "Name: value" line.
func (cfg Config) Validate() error {
	if cfg.BaseURL == "" {
		return fmt.Errorf("--base-url is required (or set %s)", EnvBaseURL)
	}
	if err := checkURL("--base-url", cfg.BaseURL); err != nil {
		return err
	}
	if cfg.TransactionsURL != "" {
		if err := checkURL("--transactions-url", cfg.TransactionsURL); err != nil {
			return err
		}
	}
	if cfg.MaxPages < 0 {
		return fmt.Errorf("--max-pages must not be negative, got %d", cfg.MaxPages)
	}
	if cfg.PageSize < 0 {
		return fmt.Errorf("--page-size must not be negative, got %d", cfg.PageSize)
	}
	if cfg.Timeout < 0 {
		return fmt.Errorf("--timeout must not be negative, got %s", cfg.Timeout)
	}
	if cfg.RunTimeout < 0 {
		return fmt.Errorf("--run-timeout must not be negative, got %s", cfg.RunTimeout)
	}
	if math.IsNaN(cfg.Rate) || cfg.Rate < 0 {
		return fmt.Errorf("--rate must not be negative, got %v", cfg.Rate)
	}
	if cfg.Concurrency < 0 {
		return fmt.Errorf("--concurrency must not be negative, got %d", cfg.Concurrency)
	}
	if cfg.Queries < 0 {
		return fmt.Errorf("--queries must not be negative, got %d", cfg.Queries)
	}
	if cfg.MaxRows < 0 {
		return fmt.Errorf("--max-rows must not be negative, got %d", cfg.MaxRows)
	}
	if cfg.GrowthWait < 0 {
		return fmt.Errorf("--growth-wait must not be negative, got %s", cfg.GrowthWait)
	}
	if _, err := ParseHeaders(cfg.Headers); err != nil {
		return err
	}
	return nil
}

func checkURL(flagName, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", flagName, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s: want an absolute http or https URL, got %q", flagName, raw)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%s: want a URL without query or fragment, got %q", flagName, raw)
	}
	if u.User != nil {
		return fmt.Errorf("%s: want a URL without user information (credentials belong in --header, which is never printed)", flagName)
	}
	return nil
}
