package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaindata/harness/schemas"
)

// writeInputFile writes content to the file name in dir and returns its path.
func writeInputFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const (
	validParam   = `{"key": "spam.pow.difficulty", "value": "15"}`
	invalidParam = `{"key": "spam pow", "value": 15, "extra": true}` // three violations
)

// invalidParamPaths are the paths of invalidParam's violations.
var invalidParamPaths = []string{"/extra", "/key", "/value"}

// wantViolationLines checks that out holds exactly one line per path, each starting
// with prefix and naming its path.
func wantViolationLines(t *testing.T, out, prefix string, paths []string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if out == "" {
		lines = nil
	}
	if len(lines) != len(paths) {
		t.Fatalf("%d lines, want %d (one per violation):\n%s", len(lines), len(paths), out)
	}
	for i, line := range lines {
		if want := prefix + paths[i] + ": "; !strings.HasPrefix(line, want) {
			t.Errorf("line %d = %q, want it to start with %q", i+1, line, want)
		}
		if !strings.HasSuffix(line, "]") {
			t.Errorf("line %d = %q does not end with the rule broken", i+1, line)
		}
	}
}

func TestValidateFiles(t *testing.T) {
	dir := t.TempDir()
	valid := writeInputFile(t, dir, "valid.json", validParam)
	invalid := writeInputFile(t, dir, "invalid.json", invalidParam)
	notJSON := writeInputFile(t, dir, "broken.json", `{"key": `)
	missing := filepath.Join(dir, "missing.json")

	tests := []struct {
		name      string
		args      []string
		wantCode  int
		wantOut   func(t *testing.T, out string)
		wantInErr string
	}{
		{"valid file", []string{"--schema", "NetworkParameter", valid}, exitOK,
			func(t *testing.T, out string) { wantViolationLines(t, out, "", nil) }, ""},
		{"invalid file", []string{"--schema", "NetworkParameter", invalid}, exitFailure,
			func(t *testing.T, out string) { wantViolationLines(t, out, invalid+": ", invalidParamPaths) }, ""},
		{"valid and invalid files", []string{"--schema", "NetworkParameter", valid, invalid, valid}, exitFailure,
			func(t *testing.T, out string) { wantViolationLines(t, out, invalid+": ", invalidParamPaths) }, ""},
		{"--schema=NAME form", []string{"--schema=NetworkParameter", valid}, exitOK,
			func(t *testing.T, out string) { wantViolationLines(t, out, "", nil) }, ""},
		{"not JSON", []string{"--schema", "NetworkParameter", notJSON}, exitFailure,
			func(t *testing.T, out string) {
				if !strings.HasPrefix(out, notJSON+": ") || !strings.Contains(out, "not valid JSON") || strings.Count(out, "\n") != 1 {
					t.Errorf("stdout %q, want one line saying the input is not JSON", out)
				}
			}, ""},
		{"missing file", []string{"--schema", "NetworkParameter", missing, valid}, exitFailure,
			func(t *testing.T, out string) { wantViolationLines(t, out, "", nil) }, missing + ": "},
		{"a whole response", []string{"--schema", "ListNetworkParametersResponse", writeInputFile(t, dir, "page.json",
			`{"networkParameters": {"edges": [{"node": `+validParam+`, "cursor": "eyJrZXkiOiJzcGFtLnBvdy5kaWZmaWN1bHR5In0="}],
			"pageInfo": {"startCursor": "a", "endCursor": "a", "hasNextPage": false, "hasPreviousPage": false}}}`)}, exitOK,
			func(t *testing.T, out string) { wantViolationLines(t, out, "", nil) }, ""},
		{"a nested violation", []string{"--schema", "ListNetworkParametersResponse", writeInputFile(t, dir, "badpage.json",
			`{"networkParameters": {"edges": [{"node": {"key": "a.b"}, "cursor": "x"}],
			"pageInfo": {"startCursor": "x", "endCursor": "x", "hasNextPage": false, "hasPreviousPage": false}}}`)}, exitFailure,
			func(t *testing.T, out string) {
				wantViolationLines(t, out, filepath.Join(dir, "badpage.json")+": ", []string{"/networkParameters/edges/0/node/value"})
			}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runHarness(t, "", append([]string{"validate", "-q"}, tc.args...)...)
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.wantCode, errOut)
			}
			tc.wantOut(t, out)
			if tc.wantInErr == "" && errOut != "" {
				t.Errorf("stderr %q, want nothing", errOut)
			}
			if !strings.Contains(errOut, tc.wantInErr) {
				t.Errorf("stderr %q does not say %q", errOut, tc.wantInErr)
			}
		})
	}
}

// TestValidateReportsEveryViolation checks the command against the package:
// one line per violation the validator finds, in its order.
func TestValidateReportsEveryViolation(t *testing.T) {
	doc := `{"transactions": [{"block": "-1", "index": -1, "hash": "abc", "code": "0", "cursor": "1-2", "command": {},
		"signature": null, "createdAt": "yesterday", "version": "V3", "pow": {"tid": "", "nonce": 1}}]}`
	err := schemas.MustLoad("ListTransactionsResponse").Validate([]byte(doc))
	var verr *schemas.ValidationError
	if !errors.As(err, &verr) || len(verr.Violations) < 10 {
		t.Fatalf("the document should break many rules: %v", err)
	}
	path := writeInputFile(t, t.TempDir(), "txs.json", doc)
	code, out, _ := runHarness(t, "", "validate", "--schema", "ListTransactionsResponse", path)
	if code != exitFailure {
		t.Fatalf("exit %d, want %d", code, exitFailure)
	}
	var want strings.Builder
	for _, v := range verr.Violations {
		want.WriteString(path + ": " + v.String() + "\n")
	}
	if out != want.String() {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want.String())
	}
}

func TestValidateUsageErrors(t *testing.T) {
	file := writeInputFile(t, t.TempDir(), "valid.json", validParam)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no schema", []string{file}, "--schema is required"},
		{"empty schema", []string{"--schema", "", file}, "--schema is required"},
		{"unknown schema", []string{"--schema", "NetworkParam", file}, `no schema named "NetworkParam"`},
		{"no files", []string{"--schema", "NetworkParameter"}, "no input files"},
		{"unknown flag", []string{"--schema", "NetworkParameter", "--strict", file}, "unknown flag --strict"},
		{"schema without value", []string{"--schema"}, "--schema needs a value"},
		{"unknown profile", []string{"--schema", "NetworkParameter", "--profile", "strict", file}, `--profile: unknown profile "strict" (want reference or spec)`},
		{"empty profile", []string{"--schema", "NetworkParameter", "--profile=", file}, `--profile: unknown profile ""`},
		{"profile without value", []string{"--schema", "NetworkParameter", "--profile"}, "--profile needs a value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, _ := wantUsageError(t, append([]string{"validate", "-q"}, tc.args...), tc.want)
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
		})
	}
}

func TestValidateHelp(t *testing.T) {
	code, _, errOut := runHarness(t, "", "validate", "-h")
	if code != exitOK || !strings.Contains(errOut, "--schema") || !strings.Contains(errOut, "-profile") {
		t.Errorf("exit %d, stderr %q; want 0 and the flags", code, errOut)
	}
}

func TestValidateStandardInput(t *testing.T) {
	tests := []struct {
		name     string
		stdin    string
		args     []string
		wantCode int
		prefix   string
		paths    []string
	}{
		{"valid", validParam, []string{"-"}, exitOK, "", nil},
		{"invalid", invalidParam, []string{"-"}, exitFailure, "-: ", invalidParamPaths},
		{"not JSON", "not json", []string{"-"}, exitFailure, "-: ", []string{"validate NetworkParameter"}},
		{"lines with --ndjson", validParam + "\n" + invalidParam + "\n", []string{"--ndjson", "-"}, exitFailure, "-:2: ", invalidParamPaths},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"validate", "-q", "--schema", "NetworkParameter"}, tc.args...)
			code, out, errOut := runHarness(t, tc.stdin, args...)
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.wantCode, errOut)
			}
			if tc.name == "not JSON" {
				if !strings.HasPrefix(out, "-: ") || !strings.Contains(out, "not valid JSON") {
					t.Errorf("stdout %q, want a line saying the input is not JSON", out)
				}
				return
			}
			wantViolationLines(t, out, tc.prefix, tc.paths)
		})
	}
}

func TestValidateNDJSON(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name     string
		file     string
		content  string
		flags    []string
		wantCode int
		want     []string // each line of stdout starts with one of these, in order
	}{
		{"all valid", "ok.ndjson", validParam + "\n" + validParam + "\n" + validParam + "\n", nil, exitOK, nil},
		{"blank lines are skipped", "blank.ndjson", "\n" + validParam + "\n\n   \n" + validParam, nil, exitOK, nil},
		{"invalid lines are numbered", "bad.ndjson", validParam + "\n" + `{"key": "a.b"}` + "\n\n" + `{"key": "a.b", "value": "1", "x": 1}` + "\n", nil, exitFailure,
			[]string{"bad.ndjson:2: /value: ", "bad.ndjson:4: /x: "}},
		{"a line that is not JSON", "junk.ndjson", validParam + "\n" + `{"key": ` + "\n" + validParam + "\n", nil, exitFailure,
			[]string{"junk.ndjson:2: validate NetworkParameter: input is not valid JSON"}},
		{"CRLF line ends", "crlf.ndjson", validParam + "\r\n" + invalidParam + "\r\n", nil, exitFailure,
			[]string{"crlf.ndjson:2: /extra: ", "crlf.ndjson:2: /key: ", "crlf.ndjson:2: /value: "}},
		{"a .json file read as lines with --ndjson", "lines.json", validParam + "\n" + `{"key": "a.b"}` + "\n", []string{"--ndjson"}, exitFailure,
			[]string{"lines.json:2: /value: "}},
		{"a .json file with one document over several lines", "pretty.json", "{\n  \"key\": \"a.b\",\n  \"value\": \"1\"\n}\n", nil, exitOK, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeInputFile(t, dir, tc.file, tc.content)
			args := append(append([]string{"validate", "-q", "--schema", "NetworkParameter"}, tc.flags...), path)
			code, out, errOut := runHarness(t, "", args...)
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.wantCode, errOut)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if out == "" {
				lines = nil
			}
			if len(lines) != len(tc.want) {
				t.Fatalf("%d lines, want %d:\n%s", len(lines), len(tc.want), out)
			}
			for i, line := range lines {
				if want := filepath.Join(dir, tc.want[i]); !strings.HasPrefix(line, want) {
					t.Errorf("line %d = %q, want it to start with %q", i+1, line, want)
				}
			}
		})
	}
}

// TestValidateProfile checks --profile: the spec profile accepts what the
// spec does not state (fields it does not show, unknown fields, command
// kinds it does not give), still rejects what it does, and says so on each
// line; the default is the reference profile, whose lines are unchanged.
func TestValidateProfile(t *testing.T) {
	dir := t.TempDir()
	const (
		extraField = `{"key": "spam.pow.difficulty", "value": "15", "extra": true}`
		shortTx    = `{"block": "45120415", "code": 0, "command": {"nonce": "1", "blockHeight": "2", "someFutureCommand": {}}, "cursor": "45120415.0"}`
		badTx      = `{"block": true, "code": 0}`
		// The spec says a key is a string, but not its shape ("spam pow"
		// breaks only the reference's pattern).
		specInvalidParam = `{"key": 7, "value": 15, "extra": true}`
	)
	extra := writeInputFile(t, dir, "extra.json", extraField)
	invalid := writeInputFile(t, dir, "invalid.json", specInvalidParam)
	tx := writeInputFile(t, dir, "tx.json", shortTx)
	bad := writeInputFile(t, dir, "bad.json", badTx)
	lines := writeInputFile(t, dir, "params.ndjson", validParam+"\n"+extraField+"\n"+specInvalidParam+"\n")
	refOnly := writeInputFile(t, dir, "refonly.json", `{"key": "spam pow", "value": "15"}`)
	type line struct{ prefix, suffix string }
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     []line // each line of stdout, in order
	}{
		{"an unknown field: reference by default", []string{"--schema", "NetworkParameter", extra}, exitFailure,
			[]line{{extra + ": /extra: ", "[additional_property_not_allowed]"}}},
		{"an unknown field: reference named", []string{"--schema", "NetworkParameter", "--profile", "reference", extra}, exitFailure,
			[]line{{extra + ": /extra: ", "[additional_property_not_allowed]"}}},
		{"an unknown field: spec", []string{"--schema", "NetworkParameter", "--profile", "spec", extra}, exitOK, nil},
		{"what the spec states still fails under spec", []string{"--schema", "NetworkParameter", "--profile=spec", invalid}, exitFailure,
			[]line{{invalid + ": /key: ", "[invalid_type] (profile spec)"}, {invalid + ": /value: ", "[invalid_type] (profile spec)"}}},
		{"a key of a shape only the reference gives: reference", []string{"--schema", "NetworkParameter", refOnly}, exitFailure,
			[]line{{refOnly + ": /key: ", "[pattern]"}}},
		{"a key of a shape only the reference gives: spec", []string{"--schema", "NetworkParameter", "--profile", "spec", refOnly}, exitOK, nil},
		{"a transaction with only the spec's fields: reference", []string{"--schema", "Transaction", tx}, exitFailure, nil},
		{"a transaction with only the spec's fields: spec", []string{"--schema", "Transaction", "--profile", "spec", tx}, exitOK, nil},
		{"a transaction breaking the spec", []string{"--schema", "Transaction", "--profile", "spec", bad}, exitFailure,
			[]line{{bad + ": /block: ", "[invalid_type] (profile spec)"}, {bad + ": /command: ", "[required] (profile spec)"}}},
		{"NDJSON under spec", []string{"--schema", "NetworkParameter", "--profile", "spec", lines}, exitFailure,
			[]line{{lines + ":3: /key: ", "(profile spec)"}, {lines + ":3: /value: ", "(profile spec)"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runHarness(t, "", append([]string{"validate", "-q"}, tc.args...)...)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d (stdout %q, stderr %q)", code, tc.wantCode, out, errOut)
			}
			if errOut != "" {
				t.Errorf("stderr %q, want nothing", errOut)
			}
			if tc.want == nil {
				if code == exitOK && out != "" {
					t.Errorf("stdout %q, want nothing", out)
				}
				if code != exitOK && (out == "" || strings.Contains(out, "profile")) {
					t.Errorf("stdout %q, want violations without a profile", out)
				}
				return
			}
			got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(got) != len(tc.want) {
				t.Fatalf("%d lines, want %d:\n%s", len(got), len(tc.want), out)
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(got[i], w.prefix) || !strings.HasSuffix(got[i], w.suffix) {
					t.Errorf("line %d = %q, want %q ... %q", i+1, got[i], w.prefix, w.suffix)
				}
			}
		})
	}
}

// TestValidateSaysWhatItChecked: a valid input gets one line saying what
// was checked (documents, schema, profile); -q leaves it out; an invalid
// input gets only its violations.
func TestValidateSaysWhatItChecked(t *testing.T) {
	dir := t.TempDir()
	valid := writeInputFile(t, dir, "valid.json", validParam)
	invalid := writeInputFile(t, dir, "invalid.json", invalidParam)
	three := writeInputFile(t, dir, "three.ndjson", validParam+"\n"+validParam+"\n\n"+validParam+"\n")
	one := writeInputFile(t, dir, "one.ndjson", validParam+"\n")
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"a file", "", []string{"--schema", "NetworkParameter", valid}, valid + ": valid (schema NetworkParameter, profile reference)\n"},
		{"the spec profile", "", []string{"--schema", "NetworkParameter", "--profile", "spec", valid}, valid + ": valid (schema NetworkParameter, profile spec)\n"},
		{"standard input", validParam, []string{"--schema", "NetworkParameter", "-"}, "-: valid (schema NetworkParameter, profile reference)\n"},
		{"NDJSON counts its documents", "", []string{"--schema", "NetworkParameter", three}, three + ": 3 documents valid (schema NetworkParameter, profile reference)\n"},
		{"one NDJSON document", "", []string{"--schema", "NetworkParameter", one}, one + ": 1 document valid (schema NetworkParameter, profile reference)\n"},
		{"a line for each valid input only", "", []string{"--schema", "NetworkParameter", valid, invalid}, valid + ": valid (schema NetworkParameter, profile reference)\n"},
		{"-q", "", []string{"-q", "--schema", "NetworkParameter", valid, three}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, out, errOut := runHarness(t, tc.stdin, append([]string{"validate"}, tc.args...)...)
			if errOut != "" {
				t.Errorf("stderr %q", errOut)
			}
			if tc.name == "a line for each valid input only" {
				if !strings.HasPrefix(out, tc.want) || strings.Contains(out, invalid+": valid") {
					t.Errorf("stdout %q, want it to start with %q and no valid line for %s", out, tc.want, invalid)
				}
				return
			}
			if out != tc.want {
				t.Errorf("stdout %q, want %q", out, tc.want)
			}
		})
	}
}
