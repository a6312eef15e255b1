package config

import (
	"flag"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// secret is a header value the tests check is never shown.
const secret = "s3cr3t-api-key-value"

func TestValidate(t *testing.T) {
	base := "http://127.0.0.1:8080"
	tests := []struct {
		name string
		cfg  Config
		want string // "" for valid
	}{
		{"defaults", Config{BaseURL: base}, ""},
		{"all set", Config{BaseURL: base, Rate: 2.5, Concurrency: 8, Retries: 3, Headers: []string{"X-Api-Key: abc", "Authorization:Bearer x"}}, ""},
		{"retries off", Config{BaseURL: base, Retries: -1}, ""},
		{"unlimited rate", Config{BaseURL: base, Rate: math.Inf(1)}, ""},
		{"negative rate", Config{BaseURL: base, Rate: -1}, "--rate must not be negative"},
		{"NaN rate", Config{BaseURL: base, Rate: math.NaN()}, "--rate must not be negative"},
		{"negative concurrency", Config{BaseURL: base, Concurrency: -2}, "--concurrency must not be negative"},
		{"header without colon", Config{BaseURL: base, Headers: []string{"X-Api-Key " + secret}}, "no colon"},
		{"header without name", Config{BaseURL: base, Headers: []string{": " + secret}}, "empty name"},
		{"header name with space", Config{BaseURL: base, Headers: []string{"X Api: " + secret}}, "not an HTTP token"},
		{"header value with LF", Config{BaseURL: base, Headers: []string{"X-Api-Key: " + secret + "\nEvil: 1"}}, "--header 1: the value of header X-Api-Key holds a CR, LF or NUL"},
		{"header value with CR", Config{BaseURL: base, Headers: []string{"A: b", "X-Api-Key: " + secret + "\r"}}, "--header 2:"},
		{"credentials in the URL", Config{BaseURL: "https://user:" + secret + "@node.example"}, "without user information"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("Validate() = %v, want an error saying %q", err, tc.want)
			case err != nil && strings.Contains(err.Error(), secret):
				t.Errorf("the error prints the secret: %v", err)
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	tests := []struct {
		name        string
		cfg         Config
		rate        float64
		retries     int
		concurrency int
	}{
		{"loopback IPv4", Config{BaseURL: "http://127.0.0.1:8080"}, math.Inf(1), DefaultRetries, DefaultConcurrency},
		{"loopback 127/8", Config{BaseURL: "http://127.3.4.5:8080"}, math.Inf(1), DefaultRetries, DefaultConcurrency},
		{"localhost", Config{BaseURL: "http://localhost:8080"}, math.Inf(1), DefaultRetries, DefaultConcurrency},
		{"IPv6 loopback", Config{BaseURL: "http://[::1]:8080"}, math.Inf(1), DefaultRetries, DefaultConcurrency},
		{"remote", Config{BaseURL: "https://node.example"}, DefaultRate, DefaultRetries, DefaultConcurrency},
		{"loopback data node, remote explorer", Config{BaseURL: "http://127.0.0.1:8080", TransactionsURL: "https://explorer.example/rest"}, DefaultRate, DefaultRetries, DefaultConcurrency},
		{"a name that only looks local", Config{BaseURL: "http://127.0.0.1.example.com"}, DefaultRate, DefaultRetries, DefaultConcurrency},
		{"given", Config{BaseURL: "https://node.example", Rate: 3, Retries: 1, Concurrency: 2}, 3, 1, 2},
		{"no limit, no retries", Config{BaseURL: "https://node.example", Rate: math.Inf(1), Retries: -1}, math.Inf(1), -1, DefaultConcurrency},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.cfg.WithDefaults()
			if got.Rate != tc.rate || got.Retries != tc.retries || got.Concurrency != tc.concurrency {
				t.Errorf("rate %v retries %d concurrency %d, want %v %d %d", got.Rate, got.Retries, got.Concurrency, tc.rate, tc.retries, tc.concurrency)
			}
			if again := got.WithDefaults(); again.Rate != got.Rate || again.Retries != got.Retries {
				t.Errorf("withDefaults is not idempotent: %+v then %+v", got, again)
			}
		})
	}
}

func TestFlagsAndEnvironment(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		// want
		base    string
		rate    float64
		retries int
		headers []string
		err     string
	}{
		{"defaults", nil, []string{"--base-url", "http://127.0.0.1:1"}, "http://127.0.0.1:1", 0, 0, nil, ""},
		{"environment", map[string]string{EnvBaseURL: "https://a.example", EnvRate: "2", EnvHeaders: "A: 1\r\n\nB: 2\n"}, nil, "https://a.example", 2, 0, []string{"A: 1", "B: 2"}, ""},
		{"flags win", map[string]string{EnvBaseURL: "https://a.example", EnvRate: "2", EnvHeaders: "A: 1\nB: 2"},
			[]string{"--base-url", "https://b.example", "--rate", "5", "--header", "C: 3", "--header", "D: 4"}, "https://b.example", 5, 0, []string{"C: 3", "D: 4"}, ""},
		{"rate 0 is no limit", nil, []string{"--base-url", "http://127.0.0.1:1", "--rate", "0"}, "http://127.0.0.1:1", math.Inf(1), 0, nil, ""},
		{"rate 0 from the environment", map[string]string{EnvBaseURL: "http://127.0.0.1:1", EnvRate: "0"}, nil, "http://127.0.0.1:1", math.Inf(1), 0, nil, ""},
		{"retries 0 is none", nil, []string{"--base-url", "http://127.0.0.1:1", "--retries", "0"}, "http://127.0.0.1:1", 0, -1, nil, ""},
		{"retries given", nil, []string{"--base-url", "http://127.0.0.1:1", "--retries", "2"}, "http://127.0.0.1:1", 0, 2, nil, ""},
		{"bad rate variable", map[string]string{EnvRate: "fast"}, nil, "", 0, 0, nil, EnvRate},
		{"negative rate variable", map[string]string{EnvRate: "-3"}, nil, "", 0, 0, nil, EnvRate},
		{"bad headers variable", map[string]string{EnvHeaders: "A: 1\n" + secret}, nil, "", 0, 0, nil, EnvHeaders + " line 2"},
		{"bad base URL variable", map[string]string{EnvBaseURL: "node.example"}, nil, "", 0, 0, nil, EnvBaseURL},
		{"bad header flag", nil, []string{"--base-url", "http://127.0.0.1:1", "--header", secret}, "", 0, 0, nil, "--header 1: a header is \"Name: value\", and this one has no colon"},
		{"bad header flag after good variable", map[string]string{EnvHeaders: "A: 1"}, []string{"--base-url", "http://127.0.0.1:1", "--header", "B: 2", "--header", "C: x\ny"}, "", 0, 0, nil, "--header 2: the value of header C"},
		{"negative rate flag", nil, []string{"--rate", "-1"}, "", 0, 0, nil, "not negative"},
		{"negative retries flag", nil, []string{"--retries", "-1"}, "", 0, 0, nil, "not negative"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var cfg Config
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			RegisterFlags(fs, &cfg)
			err := cfg.ApplyEnv(func(k string) string { return tc.env[k] })
			if err == nil {
				err = fs.Parse(tc.args)
			}
			if err == nil {
				err = cfg.Validate()
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), secret) {
					t.Errorf("error %v, want one saying %q (and no secret)", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.BaseURL != tc.base || cfg.Rate != tc.rate || cfg.Retries != tc.retries || !slices.Equal(cfg.Headers, tc.headers) {
				t.Errorf("got base %q rate %v retries %d headers %q; want %q %v %d %q", cfg.BaseURL, cfg.Rate, cfg.Retries, cfg.Headers, tc.base, tc.rate, tc.retries, tc.headers)
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{BaseURL: "http://127.0.0.1:8080"}, ""},
		{Config{}, "--base-url is required"},
		{Config{BaseURL: "127.0.0.1:8080"}, "--base-url"},
		{Config{BaseURL: "localhost:8080"}, "absolute http or https URL"},
		{Config{BaseURL: "http://h", TransactionsURL: "ftp://h"}, "--transactions-url"},
		{Config{BaseURL: "http://h?x=1"}, "without query"},
		{Config{BaseURL: "http://h", MaxPages: -1}, "--max-pages"},
		{Config{BaseURL: "http://h", Timeout: -time.Second}, "--timeout"},
		{Config{BaseURL: "http://h", RunTimeout: -time.Second}, "--run-timeout"},
	}
	for _, tc := range tests {
		err := tc.cfg.Validate()
		if tc.want == "" && err != nil {
			t.Errorf("%+v: %v", tc.cfg, err)
		}
		if tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: got %v, want an error saying %q", tc.cfg, err, tc.want)
		}
	}
	d := Config{BaseURL: "http://h/"}.WithDefaults()
	if d.BaseURL != "http://h" || d.TransactionsURL != "http://h" || d.MaxPages != DefaultMaxPages || d.PageSize != DefaultPageSize || d.Timeout != DefaultTimeout || d.RunTimeout != DefaultRunTimeout {
		t.Errorf("defaults: %+v", d)
	}
}

// TestExamplesFlagAndEnvironment checks --examples and its variable: the
// flag wins, and the file is in the configuration's text.
func TestExamplesFlagAndEnvironment(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  string
		args []string
		want string
	}{
		{"none", "", nil, ""},
		{"the variable", "ex.json", nil, "ex.json"},
		{"the flag", "", []string{"--examples", "flag.json"}, "flag.json"},
		{"the flag wins", "ex.json", []string{"--examples", "flag.json"}, "flag.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cfg Config
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			RegisterFlags(fs, &cfg)
			if err := cfg.ApplyEnv(func(k string) string { return map[string]string{EnvExamples: tc.env}[k] }); err != nil {
				t.Fatal(err)
			}
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			if cfg.Examples != tc.want || cfg.WithDefaults().Examples != tc.want || !strings.Contains(cfg.String(), "Examples:"+tc.want+"}") {
				t.Errorf("examples %q (%s), want %q", cfg.Examples, cfg, tc.want)
			}
		})
	}
}
