package main

import (
	"bytes"
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/chaindata/harness/conformance/config"
)

// mistake is a wrong command line and the whole of what harness must say
// about it on standard error, exiting with exitUsage and printing nothing on
// standard output.
type mistake struct {
	args   []string
	stderr string
}

// checkMistakes runs every mistake in-process and holds it to its message,
// to the usage exit code and to a few lines.
func checkMistakes(t *testing.T, tests []mistake) {
	t.Helper()
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errOut := runCmd(t, tc.args...)
			if code != exitUsage {
				t.Errorf("harness %s: exit %d, want %d", strings.Join(tc.args, " "), code, exitUsage)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
			if errOut != tc.stderr {
				t.Errorf("harness %s: stderr\n%s\nwant\n%s", strings.Join(tc.args, " "), errOut, tc.stderr)
			}
			if n := strings.Count(errOut, "\n"); n > 3 {
				t.Errorf("stderr has %d lines, want at most 3", n)
			}
		})
	}
}

// TestFlagMistakes holds an unknown flag to a line naming the nearest
// known flag (by edit distance or synonym) and the way to see all, and a
// flag's missing or wrong value to a line in our words: never the flag
// package's "flag provided but not defined" and its whole usage.
func TestFlagMistakes(t *testing.T) {
	checkMistakes(t, []mistake{
		{[]string{"serve", "--port", "9090"},
			"harness serve: unknown flag --port; did you mean --addr?\nRun \"harness serve -h\" to see all flags.\n"},
		{[]string{"serve", "-port=9090"},
			"harness serve: unknown flag --port; did you mean --addr?\nRun \"harness serve -h\" to see all flags.\n"},
		{[]string{"serve", "--prot", "9090"}, // near a synonym
			"harness serve: unknown flag --prot; did you mean --addr?\nRun \"harness serve -h\" to see all flags.\n"},
		{[]string{"proxy", "--port", "9090"},
			"harness proxy: unknown flag --port; did you mean --listen?\nRun \"harness proxy -h\" to see all flags.\n"},
		{[]string{"serve", "--sacle", "2"},
			"harness serve: unknown flag --sacle; did you mean --scale?\nRun \"harness serve -h\" to see all flags.\n"},
		{[]string{"serve", "--max-page", "10"},
			"harness serve: unknown flag --max-page; did you mean --max-page-size?\nRun \"harness serve -h\" to see all flags.\n"},
		{[]string{"generate", "--output", "dir"},
			"harness generate: unknown flag --output; did you mean --out?\nRun \"harness generate -h\" to see all flags.\n"},
		{[]string{"record", "--base-url", "http://127.0.0.1:8080"},
			"harness record: unknown flag --base-url; did you mean --from?\nRun \"harness record -h\" to see all flags.\n"},
		{[]string{"conform", "--url", "http://127.0.0.1:8080"},
			"harness conform: unknown flag --url; did you mean --base-url?\nRun \"harness conform -h\" to see all flags.\n"},
		{[]string{"conform", "--verbose"},
			"harness conform: unknown flag --verbose; did you mean -v?\nRun \"harness conform -h\" to see all flags.\n"},
		{[]string{"validate", "--frobnicate"},
			"harness validate: unknown flag --frobnicate\nRun \"harness validate -h\" to see all flags.\n"},

		{[]string{"serve", "--addr"},
			"harness serve: --addr needs a value\nRun \"harness serve -h\" to see all flags.\n"},
		{[]string{"serve", "--scale", "big"},
			"harness serve: --scale: \"big\" is not a number\nRun \"harness serve -h\" to see all flags.\n"},
		{[]string{"serve", "--seed", "1.5"},
			"harness serve: --seed: \"1.5\" is not a whole number\nRun \"harness serve -h\" to see all flags.\n"},
		{[]string{"serve", "--seed", "99999999999999999999"},
			"harness serve: --seed: \"99999999999999999999\" is out of range\nRun \"harness serve -h\" to see all flags.\n"},
		{[]string{"serve", "--latency", "soon"},
			"harness serve: --latency: \"soon\" is not a duration (such as 500ms, 2s or 1m30s)\nRun \"harness serve -h\" to see all flags.\n"},
		{[]string{"serve", "--strict=maybe"},
			"harness serve: --strict: \"maybe\" is not true or false\nRun \"harness serve -h\" to see all flags.\n"},
		{[]string{"conform", "--rate", "fast"},
			"harness conform: --rate: want requests per second, a number, got \"fast\"\nRun \"harness conform -h\" to see all flags.\n"},
		{[]string{"serve", "---addr"},
			"harness serve: bad flag syntax: ---addr\nRun \"harness serve -h\" to see all flags.\n"},
	})
}

// TestHelpStillPrintsEveryFlag: -h, which the short messages point to,
// prints the whole usage and exits 0.
func TestHelpStillPrintsEveryFlag(t *testing.T) {
	for _, arg := range []string{"-h", "--help", "-help"} {
		code, _, errOut := runCmd(t, "serve", arg)
		if code != exitOK {
			t.Errorf("harness serve %s: exit %d, want %d", arg, code, exitOK)
		}
		if !strings.HasPrefix(errOut, "Usage: harness serve") || !strings.Contains(errOut, "-max-header-bytes") {
			t.Errorf("harness serve %s: stderr %q, want the whole usage", arg, errOut)
		}
	}
}

// TestCommandMistakes holds an unknown command to a line naming the
// nearest command (by edit distance, prefix or synonym) and how to see all.
func TestCommandMistakes(t *testing.T) {
	checkMistakes(t, []mistake{
		{[]string{"serv"},
			"harness: unknown command \"serv\"; did you mean serve?\nRun \"harness help\" to see all commands.\n"},
		{[]string{"server", "--addr", "127.0.0.1:0"},
			"harness: unknown command \"server\"; did you mean serve?\nRun \"harness help\" to see all commands.\n"},
		{[]string{"gen", "--out", "dir"},
			"harness: unknown command \"gen\"; did you mean generate?\nRun \"harness help\" to see all commands.\n"},
		{[]string{"schema", "Transaction"},
			"harness: unknown command \"schema\"; did you mean schemas?\nRun \"harness help\" to see all commands.\n"},
		{[]string{"test", "--base-url", "http://127.0.0.1:8080"},
			"harness: unknown command \"test\"; did you mean conform?\nRun \"harness help\" to see all commands.\n"},
		{[]string{"frobnicate"},
			"harness: unknown command \"frobnicate\"\nRun \"harness help\" to see all commands.\n"},
		{[]string{"--addr", "127.0.0.1:0", "serve"},
			"harness: --addr is not a command; flags come after the command, as in \"harness serve --addr\"\nRun \"harness help\" to see all commands.\n"},
	})
}

// TestURLWithoutScheme holds every URL flag given without a scheme to a
// line naming the URL to give, never Go's "first path segment in URL
// cannot contain colon".
func TestURLWithoutScheme(t *testing.T) {
	checkMistakes(t, []mistake{
		{[]string{"conform", "--base-url", "127.0.0.1:8080"},
			"harness conform: --base-url 127.0.0.1:8080 has no scheme; use http://127.0.0.1:8080\nRun \"harness conform -h\" for usage.\n"},
		{[]string{"conform", "--base-url", "localhost:8080"},
			"harness conform: --base-url localhost:8080 has no scheme; use http://localhost:8080\nRun \"harness conform -h\" for usage.\n"},
		{[]string{"conform", "--base-url", "http://127.0.0.1:8080", "--transactions-url", "127.0.0.1:8080/rest"},
			"harness conform: --transactions-url 127.0.0.1:8080/rest has no scheme; use http://127.0.0.1:8080/rest\nRun \"harness conform -h\" for usage.\n"},
		{[]string{"conform", "--base-url", "api.example.com"},
			"harness conform: --base-url api.example.com has no scheme; use https://api.example.com (or http://api.example.com)\nRun \"harness conform -h\" for usage.\n"},
		{[]string{"record", "--from", "[::1]:8080", "--out", "dir"},
			"harness record: --from [::1]:8080 has no scheme; use http://[::1]:8080\nRun \"harness record -h\" for usage.\n"},
		{[]string{"record", "--from", "http://127.0.0.1:8080", "--transactions-url", "127.0.0.1:8081", "--out", "dir"},
			"harness record: --transactions-url 127.0.0.1:8081 has no scheme; use http://127.0.0.1:8081\nRun \"harness record -h\" for usage.\n"},
		{[]string{"proxy", "--upstream", "127.0.0.1:8080"},
			"harness proxy: --upstream 127.0.0.1:8080 has no scheme; use http://127.0.0.1:8080\nRun \"harness proxy -h\" for usage.\n"},
		// A scheme with a slash missing is the commands' own check's.
		{[]string{"conform", "--base-url", "http:/127.0.0.1:8080"},
			"harness conform: --base-url: want an absolute http or https URL, got \"http:/127.0.0.1:8080\"\nRun \"harness conform -h\" for usage.\n"},
	})
}

// TestURLWithoutSchemeFromTheEnvironment: a URL set through the
// environment is named by its variable.
func TestURLWithoutSchemeFromTheEnvironment(t *testing.T) {
	for _, name := range []string{config.EnvBaseURL, config.EnvTransactionsURL} {
		vars := map[string]string{config.EnvBaseURL: "http://127.0.0.1:8080", name: "127.0.0.1:9090"}
		var out, errOut bytes.Buffer
		code := run(context.Background(), &env{stdout: &out, stderr: &errOut, getenv: func(k string) string { return vars[k] }}, []string{"conform"})
		want := "harness conform: " + name + "=127.0.0.1:9090 has no scheme; use http://127.0.0.1:9090\nRun \"harness conform -h\" for usage.\n"
		if code != exitUsage || errOut.String() != want {
			t.Errorf("%s=127.0.0.1:9090 harness conform: exit %d, stderr\n%s\nwant exit %d and\n%s", name, code, errOut.String(), exitUsage, want)
		}
	}
}

// TestSchemaNameMistakes holds an unknown schema name or file to a line
// suggesting the nearest ones and how to list them all.
func TestSchemaNameMistakes(t *testing.T) {
	const all = "Run \"harness schemas\" to see all (--long with their files).\n"
	checkMistakes(t, []mistake{
		{[]string{"schemas", "Transactions"},
			"harness schemas: no schema named \"Transactions\"; did you mean Transaction?\n" + all},
		{[]string{"schemas", "networkparameter"},
			"harness schemas: no schema named \"networkparameter\"; did you mean NetworkParameter?\n" + all},
		{[]string{"schemas", "Gme"},
			"harness schemas: no schema named \"Gme\"; did you mean Game?\n" + all},
		{[]string{"schemas", "Frobnicate"},
			"harness schemas: no schema named \"Frobnicate\"\n" + all},
		{[]string{"schemas", "trades.json"},
			"harness schemas: no schema file \"trades.json\"; did you mean games.json or orders.json?\n" + all},
		{[]string{"validate", "--schema", "Transactions", "tx.json"},
			"harness validate: --schema Transactions: no schema named \"Transactions\"; did you mean Transaction?\n" + all},
		{[]string{"validate", "--schema", "NetworkParam", "-"},
			"harness validate: --schema NetworkParam: no schema named \"NetworkParam\"; did you mean NetworkParameter?\n" + all},
	})
}

// TestFaultsFileMistakes holds harness serve --faults to errors that name
// the line of the mistake and the shape wanted, never a Go type.
func TestFaultsFileMistakes(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string { return writeInputFile(t, dir, name, text) }
	const usage = "Run \"harness serve -h\" for usage.\n"
	indent := file("indent.yaml", "rules:\n  - fault: reset\n   listing: games\n")
	tab := file("tab.yaml", "rules:\n  - fault: reset\n\tlisting: games\n")
	bare := file("bare.yaml", "- fault: reset\n  listing: games\n")
	typo := file("typo.yaml", "rules:\n  - fault: reset\n    probabilty: 0.5\n")
	every := file("every.yaml", "rules:\n  - fault: reset\n    every: often\n")
	jsonType := file("every.json", "{\"rules\": [\n  {\"fault\": \"reset\",\n   \"every\": \"often\"}\n]}\n")
	checkMistakes(t, []mistake{
		{[]string{"serve", "--faults", indent},
			"harness serve: --faults " + indent + ": fault rules (YAML): line 3: did not find expected '-' indicator (is the line indented as the ones before it? a rule's fields line up under its first, after \"- \")\n" + usage},
		{[]string{"serve", "--faults", tab},
			"harness serve: --faults " + tab + ": fault rules (YAML): line 3: found a tab character that violates indentation (indent with spaces, not tabs)\n" + usage},
		{[]string{"serve", "--faults", bare},
			"harness serve: --faults " + bare + ": fault rules (YAML): line 1: the file is a list; want a mapping whose \"rules\" key holds the list (\"rules:\" on a line, each rule under it as \"  - fault: ...\")\n" + usage},
		{[]string{"serve", "--faults", typo},
			"harness serve: --faults " + typo + ": fault rules (YAML): line 3: rule 1: unknown field \"probabilty\"; did you mean probability? (a rule has name, listing, path, probability, every, times, fault)\n" + usage},
		{[]string{"serve", "--faults", every},
			"harness serve: --faults " + every + ": fault rules (YAML): line 3: rule 1: every \"often\": want a whole number\n" + usage},
		{[]string{"serve", "--faults", jsonType},
			"harness serve: --faults " + jsonType + ": fault rules (JSON): line 3: rules.every is a string; want a whole number\n" + usage},
	})
}

// TestAddressInUse holds serve and proxy to binding their address before
// anything slow, with one line naming the address and another to give:
// serve --scale 100 on an address in use fails at once, never having
// started to build its world (the context, cancelled, would stop a build
// that started, with another message).
func TestAddressInUse(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	addr := busy.Addr().String()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--addr", addr, "--scale", "100"},
			"harness serve: " + addr + " is already in use; give another address, such as --addr 127.0.0.1:0 (any free port)\n"},
		{[]string{"proxy", "--upstream", "http://127.0.0.1:8080", "--listen", addr},
			"harness proxy: " + addr + " is already in use; give another address, such as --listen 127.0.0.1:0 (any free port)\n"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			e := &env{stdout: &out, stderr: &errOut,
				memAvailable: func() (uint64, bool) { return 1 << 40, true }} // scale 100 fits
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			start := time.Now()
			code := run(ctx, e, tc.args)
			if code != exitFailure {
				t.Errorf("exit %d, want %d", code, exitFailure)
			}
			if errOut.String() != tc.want {
				t.Errorf("stderr\n%s\nwant\n%s", errOut.String(), tc.want)
			}
			if out.Len() != 0 {
				t.Errorf("stdout %q, want nothing", out.String())
			}
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("took %v to report the address in use, want at once", took)
			}
		})
	}
}

// TestAddressMistakes: an address to listen on that is not host:port is a
// wrong command line, answered with the address to give.
func TestAddressMistakes(t *testing.T) {
	checkMistakes(t, []mistake{
		{[]string{"serve", "--addr", "9090"},
			"harness serve: --addr 9090 is a port alone; use 127.0.0.1:9090 (this machine only) or :9090 (every interface)\nRun \"harness serve -h\" for usage.\n"},
		{[]string{"proxy", "--upstream", "http://127.0.0.1:8080", "--listen", "8090"},
			"harness proxy: --listen 8090 is a port alone; use 127.0.0.1:8090 (this machine only) or :8090 (every interface)\nRun \"harness proxy -h\" for usage.\n"},
		{[]string{"serve", "--addr", "localhost"},
			"harness serve: --addr \"localhost\": want host:port, such as 127.0.0.1:8080\nRun \"harness serve -h\" for usage.\n"},
	})
}
