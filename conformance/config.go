package conformance

import (
	"errors"
	"flag"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Defaults of the Config fields a zero value leaves unset.
const (
	DefaultMaxPages = 20
	DefaultPageSize = 50
	DefaultTimeout  = 10 * time.Second
)

// Config says which deployment the suite checks and how far it may go.
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
	// Timeout bounds every request. Zero means DefaultTimeout.
	Timeout time.Duration
}

// RegisterFlags registers the suite's flags on fs, bound to cfg: --base-url,
// --transactions-url, --max-pages, --page-size and --timeout.
func RegisterFlags(fs *flag.FlagSet, cfg *Config) {
	fs.StringVar(&cfg.BaseURL, "base-url", cfg.BaseURL, "base URL of the deployment's data-node listings, e.g. http://127.0.0.1:8080 (required)")
	fs.StringVar(&cfg.TransactionsURL, "transactions-url", cfg.TransactionsURL, "base URL that /transactions is appended to (default: the base URL)")
	fs.IntVar(&cfg.MaxPages, "max-pages", cfg.MaxPages, fmt.Sprintf("most pages any walk over a listing fetches (0: %d)", DefaultMaxPages))
	fs.IntVar(&cfg.PageSize, "page-size", cfg.PageSize, fmt.Sprintf("largest page the walks ask for (0: %d)", DefaultPageSize))
	fs.DurationVar(&cfg.Timeout, "timeout", cfg.Timeout, fmt.Sprintf("time limit of every request (0: %s)", DefaultTimeout))
}

// withDefaults returns cfg with its zero fields set to their defaults and
// trailing slashes removed from the URLs.
func (cfg Config) withDefaults() Config {
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
	return cfg
}

// Validate reports whether cfg can be run: the base URL is given and both
// URLs are absolute http or https URLs, and no bound is negative.
func (cfg Config) Validate() error {
	if cfg.BaseURL == "" {
		return errors.New("--base-url is required")
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
	return nil
}
