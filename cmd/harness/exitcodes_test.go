package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestExitCodes holds every subcommand to the one rule docs/commands.md states:
// 0 success, 1 the command ran and found a problem, 2 a wrong command line
// (an unknown schema name included). It runs the built binary, so the codes
// are the ones a shell sees.
func TestExitCodes(t *testing.T) {
	bin := mustHarnessBinary(t)
	mock := mustSharedMock(t)
	dir := t.TempDir()
	valid := writeInputFile(t, dir, "valid.json", validParam)
	invalid := writeInputFile(t, dir, "invalid.json", invalidParam)
	aFile := writeInputFile(t, dir, "a-file", "not a directory")

	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	// The mock, but every answer labelled text/plain: PARAM-SCH-001 fails.
	target, err := url.Parse(mock)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ModifyResponse = func(r *http.Response) error {
		r.Header.Set("Content-Type", "text/plain")
		return nil
	}
	wrongType := httptest.NewServer(rp)
	defer wrongType.Close()

	tests := []struct {
		name string
		args []string
		// interrupt: the command serves until interrupted; the test sends
		// SIGINT once it prints its URL.
		interrupt bool
		want      int
	}{
		{"no command", nil, false, exitUsage},
		{"help", []string{"help"}, false, exitOK},
		{"unknown command", []string{"frobnicate"}, false, exitUsage},
		{"--version", []string{"--version"}, false, exitOK},
		{"version", []string{"version"}, false, exitOK},
		{"version with an argument", []string{"version", "extra"}, false, exitUsage},

		{"serve until interrupted", []string{"serve", "--addr", "127.0.0.1:0", "--scale", "0.01", "--log-format", "none"}, true, exitOK},
		{"serve -h", []string{"serve", "-h"}, false, exitOK},
		{"serve on an address in use", []string{"serve", "--addr", busy.Addr().String(), "--scale", "0.01"}, false, exitFailure},
		{"serve fixtures that are not there", []string{"serve", "--data", dir}, false, exitFailure},
		{"serve a scale out of range", []string{"serve", "--scale", "0"}, false, exitUsage},
		{"serve an unknown flag", []string{"serve", "--nope"}, false, exitUsage},

		{"generate", []string{"generate", "--scale", "0.01", "--out", filepath.Join(dir, "fixtures"), "--quiet"}, false, exitOK},
		{"generate into a file", []string{"generate", "--scale", "0.01", "--out", aFile, "--quiet"}, false, exitFailure},
		{"generate without --out", []string{"generate"}, false, exitUsage},

		{"validate a valid document", []string{"validate", "--schema", "NetworkParameter", valid}, false, exitOK},
		{"validate an invalid document", []string{"validate", "--schema", "NetworkParameter", invalid}, false, exitFailure},
		{"validate a missing file", []string{"validate", "--schema", "NetworkParameter", filepath.Join(dir, "missing.json")}, false, exitFailure},
		{"validate against an unknown schema", []string{"validate", "--schema", "Nope", valid}, false, exitUsage},
		{"validate without --schema", []string{"validate", valid}, false, exitUsage},

		{"schemas", []string{"schemas"}, false, exitOK},
		{"schemas one definition", []string{"schemas", "Transaction"}, false, exitOK},
		{"schemas an unknown name", []string{"schemas", "Nope"}, false, exitUsage},
		{"schemas an unknown file", []string{"schemas", "nope.json"}, false, exitUsage},
		{"schemas two names", []string{"schemas", "Transaction", "Command"}, false, exitUsage},

		{"conform, a rule passes", []string{"conform", "--base-url", mock, "--label-filter", "PARAM-PAG-003"}, false, exitOK},
		{"conform, a rule fails", []string{"conform", "--base-url", wrongType.URL, "--label-filter", "PARAM-SCH-001"}, false, exitFailure},
		{"conform without --base-url", []string{"conform"}, false, exitUsage},
		{"conform with a missing waiver file", []string{"conform", "--base-url", mock, "--waivers", filepath.Join(dir, "none.yaml")}, false, exitUsage},

		{"report", []string{"report", writeRunReport(t, dir)}, false, exitOK},
		{"report a missing report", []string{"report", filepath.Join(dir, "none.json")}, false, exitFailure},
		{"report without a report", []string{"report"}, false, exitUsage},

		{"completion", []string{"completion", "bash"}, false, exitOK},
		{"completion for an unknown shell", []string{"completion", "powershell"}, false, exitUsage},

		{"record", []string{"record", "--from", mock, "--out", filepath.Join(dir, "rec"), "--listings", "networkparameters", "--max-pages", "1", "--log-format", "none"}, false, exitOK},
		{"record an unreachable deployment", []string{"record", "--from", deadURL, "--out", filepath.Join(dir, "rec-dead"), "--log-format", "none"}, false, exitFailure},
		{"record without --from", []string{"record", "--out", filepath.Join(dir, "rec-none")}, false, exitUsage},

		{"proxy until interrupted", []string{"proxy", "--upstream", mock, "--listen", "127.0.0.1:0", "--log-format", "none"}, true, exitOK},
		{"proxy on an address in use", []string{"proxy", "--upstream", mock, "--listen", busy.Addr().String()}, false, exitFailure},
		{"proxy without --upstream", []string{"proxy"}, false, exitUsage},
	}

	// Every subcommand has a row for each code it can give. harness
	// schemas only prints what exists, harness version only its version,
	// and harness completion only a script, so none finds a problem to
	// exit 1 with.
	neverFails := map[string]bool{"schemas": true, "version": true, "completion": true}
	covered := map[string]map[int]bool{}
	for _, tc := range tests {
		if len(tc.args) == 0 {
			continue
		}
		if covered[tc.args[0]] == nil {
			covered[tc.args[0]] = map[int]bool{}
		}
		covered[tc.args[0]][tc.want] = true
	}
	for _, c := range commands() {
		for _, code := range []int{exitOK, exitFailure, exitUsage} {
			if code == exitFailure && neverFails[c.name] {
				continue
			}
			if !covered[c.name][code] {
				t.Errorf("no row checks that harness %s exits %d", c.name, code)
			}
		}
	}

	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.interrupt {
				code, out := runBinary(t, bin, 2*time.Minute, tc.args...)
				if code != tc.want {
					t.Errorf("harness %s: exit %d, want %d\n%s", strings.Join(tc.args, " "), code, tc.want, out)
				}
				return
			}
			p, err := startProcess(bin, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			if code := p.stop(); code != tc.want {
				t.Errorf("harness %s: exit %d after SIGINT, want %d", strings.Join(tc.args, " "), code, tc.want)
			}
		})
	}
}
