package main

// The CI templates (action.yml, ci/gitlab/conform.yml) run as their
// runners would run them: the GitHub Action's steps in order, each script
// with bash as "shell: bash" runs it, with the runner's environment
// variables and files (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_PATH,
// RUNNER_TEMP) and its expressions (${{ inputs.x }}, steps' outputs, if:);
// the GitLab template's script in one bash session with its variables.
// Both build harness from this checkout (no module is fetched: GOPROXY is
// off) and run it against a mock with one defect, behind an API key.

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/chaindata/harness/conformance"
	suitereport "github.com/chaindata/harness/conformance/report"
)

// ciAPIKey is the header the defective deployment wants; its value must
// never reach a log, a summary or a report.
const ciAPIKey = "X-Api-Key: ci-s3cr3t-value"

// ciLabelFilter is the rules the CI runs select: a listing's pagination
// and model rules, so that the failures include hand-written rules and
// model rules with shrunk queries, in about a second.
const ciLabelFilter = "network-parameters && (pagination || model)"

// defectiveDeployment is the shared mock behind a proxy that wants the API
// key and breaks one rule: a first page of network parameters asked for N
// rows (pagination.first without pagination.after) has one row fewer.
func defectiveDeployment(t *testing.T) string {
	t.Helper()
	target, err := url.Parse(mustSharedMock(t))
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ModifyResponse = func(resp *http.Response) error {
		q := resp.Request.URL.Query()
		if resp.Request.URL.Path != "/api/v2/network/parameters" || q.Get("pagination.first") == "" || q.Has("pagination.after") || resp.StatusCode != http.StatusOK {
			return nil
		}
		var page map[string]map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
			return err
		}
		resp.Body.Close()
		if edges, _ := page["networkParameters"]["edges"].([]any); len(edges) > 1 {
			page["networkParameters"]["edges"] = edges[:len(edges)-1]
		}
		body, err := json.Marshal(page)
		if err != nil {
			return err
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		resp.ContentLength = int64(len(body))
		resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
		return nil
	}
	name, value, _ := strings.Cut(ciAPIKey, ": ")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(name) != value {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"code":16,"message":"no API key","details":[]}`)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// absModuleRoot is the checkout's directory, for the scripts that run
// elsewhere.
func absModuleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(moduleRoot)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// ciEnv is the environment the CI scripts run in: the go command this test
// builds with, offline, and nothing of the test process's own.
func ciEnv(t *testing.T, home string) []string {
	t.Helper()
	gobin := filepath.Dir(goTool())
	env := []string{
		"PATH=" + gobin + ":/usr/local/bin:/usr/bin:/bin",
		"HOME=" + home,
		"GOPROXY=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "CI=true",
	}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT"} {
		out, err := exec.Command(goTool(), "env", k).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", k, err)
		}
		env = append(env, k+"="+strings.TrimSpace(string(out)))
	}
	return env
}

// actionFile is what a runner reads of action.yml.
type actionFile struct {
	Inputs map[string]struct {
		Required bool   `yaml:"required"`
		Default  string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	Name  string            `yaml:"name"`
	ID    string            `yaml:"id"`
	If    string            `yaml:"if"`
	Uses  string            `yaml:"uses"`
	Shell string            `yaml:"shell"`
	Run   string            `yaml:"run"`
	Env   map[string]string `yaml:"env"`
	With  map[string]string `yaml:"with"`
}

func readAction(t *testing.T) actionFile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(moduleRoot, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
}

// actionRun is one run of the action's steps by runAction.
type actionRun struct {
	// failed says a step failed (the action fails); outputs are the
	// action's outputs; summary is the job summary the steps wrote; log
	// is every step's output.
	failed  bool
	outputs map[string]string
	summary string
	log     string
	// stepOutputs are each step's outputs, by step ID.
	stepOutputs map[string]map[string]string
	ran         []string
}

// expressionRE is a ${{ }} expression.
var expressionRE = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// runAction runs the action's steps as a runner would, with the inputs
// given (the others at their defaults), in workspace. only, when set, runs
// the named steps alone.
func runAction(t *testing.T, a actionFile, inputs map[string]string, workspace string, only ...string) actionRun {
	t.Helper()
	for name := range inputs {
		if _, ok := a.Inputs[name]; !ok {
			t.Fatalf("action.yml has no input %q", name)
		}
	}
	in := map[string]string{}
	for name, def := range a.Inputs {
		in[name] = def.Default
		if v, ok := inputs[name]; ok {
			in[name] = v
		} else if def.Required {
			t.Fatalf("the required input %q is not given", name)
		}
	}
	temp, root := t.TempDir(), absModuleRoot(t)
	run := actionRun{stepOutputs: map[string]map[string]string{}}
	eval := func(expr string) string {
		switch {
		case strings.HasPrefix(expr, "inputs."):
			v, ok := in[strings.TrimPrefix(expr, "inputs.")]
			if !ok {
				t.Fatalf("action.yml reads an input it does not declare: %s", expr)
			}
			return v
		case expr == "github.action_path":
			return root
		case strings.HasPrefix(expr, "steps."):
			parts := strings.Split(expr, ".")
			if len(parts) != 4 || parts[2] != "outputs" {
				t.Fatalf("action.yml: expression %q", expr)
			}
			return run.stepOutputs[parts[1]][parts[3]]
		}
		t.Fatalf("action.yml: an expression this runner does not know: %q", expr)
		return ""
	}
	subst := func(s string) string {
		return expressionRE.ReplaceAllStringFunc(s, func(m string) string { return eval(expressionRE.FindStringSubmatch(m)[1]) })
	}
	// condition evaluates a step's if: the forms action.yml uses.
	condition := func(cond string) bool {
		cond = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(cond), "${{"), "}}"))
		switch {
		case cond == "":
			return !run.failed
		case cond == "always()":
			return true
		}
		for _, op := range []string{"==", "!="} {
			if l, r, ok := strings.Cut(cond, op); ok {
				lit := strings.TrimSpace(r)
				if !strings.HasPrefix(lit, "'") || !strings.HasSuffix(lit, "'") {
					break
				}
				equal := eval(strings.TrimSpace(l)) == strings.Trim(lit, "'")
				return !run.failed && equal == (op == "==")
			}
		}
		t.Fatalf("action.yml: a condition this runner does not know: %q", cond)
		return false
	}
	path := ""
	env := ciEnv(t, temp)
	var summary, log strings.Builder
	for i, step := range a.Runs.Steps {
		if len(only) > 0 && !slices.Contains(only, step.ID) {
			continue
		}
		if !condition(step.If) {
			continue
		}
		if step.Uses != "" {
			// Actions from the marketplace cannot run here: this runner
			// gives what they set up (a Go toolchain) instead.
			continue
		}
		if step.Shell != "bash" || step.Run == "" {
			t.Fatalf("step %d (%s): shell %q; every step runs a bash script", i+1, step.Name, step.Shell)
		}
		files := map[string]string{}
		for _, f := range []string{"GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_PATH", "GITHUB_ENV"} {
			files[f] = filepath.Join(temp, fmt.Sprintf("%s-%d", strings.ToLower(f), i))
			os.WriteFile(files[f], nil, 0o644)
		}
		script := filepath.Join(temp, fmt.Sprintf("step-%d.sh", i))
		if err := os.WriteFile(script, []byte(step.Run), 0o644); err != nil {
			t.Fatal(err)
		}
		stepEnv := slices.Clone(env)
		if path != "" {
			for j, kv := range stepEnv {
				if strings.HasPrefix(kv, "PATH=") {
					stepEnv[j] = "PATH=" + path + strings.TrimPrefix(kv, "PATH=")
				}
			}
		}
		stepEnv = append(stepEnv, "RUNNER_TEMP="+temp, "RUNNER_OS=Linux", "GITHUB_ACTIONS=true", "GITHUB_WORKSPACE="+workspace,
			"GITHUB_ACTION_PATH="+root, "GITHUB_ACTION_REPOSITORY=chaindata/harness")
		for k, f := range files {
			stepEnv = append(stepEnv, k+"="+f)
		}
		for k, v := range step.Env {
			stepEnv = append(stepEnv, k+"="+subst(v))
		}
		// "shell: bash" runs the script file so.
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
		cmd.Dir, cmd.Env = workspace, stepEnv
		out, err := cmd.CombinedOutput()
		log.WriteString(string(out))
		run.ran = append(run.ran, step.ID)
		if err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("step %s: %v", step.Name, err)
			}
			run.failed = true
		}
		outputs, err := os.ReadFile(files["GITHUB_OUTPUT"])
		if err != nil {
			t.Fatal(err)
		}
		run.stepOutputs[step.ID] = parseStepOutputs(t, string(outputs))
		s, _ := os.ReadFile(files["GITHUB_STEP_SUMMARY"])
		summary.Write(s)
		if p, _ := os.ReadFile(files["GITHUB_PATH"]); len(p) > 0 {
			for _, dir := range strings.Split(strings.TrimSpace(string(p)), "\n") {
				path = dir + ":" + path
			}
		}
	}
	run.outputs = map[string]string{}
	for name, o := range a.Outputs {
		run.outputs[name] = subst(o.Value)
	}
	run.summary, run.log = summary.String(), log.String()
	return run
}

// parseStepOutputs reads a GITHUB_OUTPUT file: name=value lines, and
// name<<DELIMITER blocks.
func parseStepOutputs(t *testing.T, text string) map[string]string {
	t.Helper()
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		if name, delim, ok := strings.Cut(line, "<<"); ok && !strings.Contains(name, "=") {
			var value []string
			for sc.Scan() && sc.Text() != delim {
				value = append(value, sc.Text())
			}
			out[name] = strings.Join(value, "\n")
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("GITHUB_OUTPUT line %q is neither name=value nor name<<DELIMITER", line)
		}
		out[name] = value
	}
	return out
}

// TestAction runs action.yml against the defective deployment: the action
// fails as conform does, its job summary names each failed rule with its
// ID, clause, query (shrunk, for a model rule) and curl line, the waived
// rule and the waiver that excused nothing; its annotations are workflow
// commands; its outputs give the verdict and the reports' paths; the API
// key is never shown.
func TestAction(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the harness and runs the suite")
	}
	t.Parallel()
	a := readAction(t)
	if a.Runs.Using != "composite" {
		t.Fatalf("action.yml runs %q, want a composite action", a.Runs.Using)
	}
	for _, s := range a.Runs.Steps {
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %q has an expression in its script: pass it in env, so that a value cannot become shell code", s.Name)
		}
		if s.Uses != "" && (!strings.HasPrefix(s.Uses, "actions/setup-go@") || s.If != "inputs.version == 'build'") {
			t.Errorf("step %q uses %s (if %q): the only action used is actions/setup-go, when building", s.Name, s.Uses, s.If)
		}
	}
	base := defectiveDeployment(t)
	work := t.TempDir()
	waivers := filepath.Join(work, "waivers.yaml")
	os.WriteFile(waivers, []byte("- rule: PARAM-MOD-012\n  reason: cursors change with the page, a known departure\n  expires: 2099-12-31\n"+
		"- rule: GAMES-PAG-003\n  reason: games are checked elsewhere\n  expires: 2099-12-31\n"), 0o644)
	run := runAction(t, a, map[string]string{
		"base-url": base, "label-filter": ciLabelFilter, "headers": ciAPIKey, "seed": "7", "waivers": waivers,
		"junit": "out/c.xml", "html-report": "out/c.html", "json-report": "c.json",
		"args": "--max-pages 10 --growth-wait 100ms",
	}, work)
	if !run.failed {
		t.Fatalf("the action passed against a defective deployment:\n%s", tail(run.log))
	}
	if !slices.Equal(run.ran, []string{"install", "conform", "report"}) {
		t.Errorf("steps run: %v", run.ran)
	}
	if strings.Contains(run.log+run.summary, "ci-s3cr3t-value") {
		t.Error("the API key's value is in the log or the summary")
	}
	for name, want := range map[string]string{"verdict": "failed", "exit-code": "1", "junit": "out/c.xml", "html-report": "out/c.html", "json-report": "c.json"} {
		if run.outputs[name] != want {
			t.Errorf("output %s = %q, want %q", name, run.outputs[name], want)
		}
	}
	for _, f := range []string{"out/c.xml", "out/c.html", "c.json"} {
		if st, err := os.Stat(filepath.Join(work, f)); err != nil || st.Size() == 0 {
			t.Errorf("report %s: %v", f, err)
		}
	}
	s, err := conformance.ReadJSONReport(filepath.Join(work, "c.json"))
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := strconv.Atoi(run.outputs["failed"]); n != s.Counts().Failed || n == 0 {
		t.Errorf("output failed = %q, the report has %d failed rules", run.outputs["failed"], s.Counts().Failed)
	}
	sum := run.summary
	port := strings.TrimPrefix(base, "http://")
	for _, want := range []string{
		"## Conformance: FAILED",
		"label filter `" + ciLabelFilter + "`, seed 7",
		"#### PARAM-PAG-006 MUST: network-parameters pagination: ",
		"Clause: spec §4 (PAG): \"pagination.first: number of records sorting after the row identified by after\"",
		"  Query: `GET /api/v2/network/parameters?pagination.first=2`",
		"  curl -sS -i -H 'X-Api-Key: <redacted>' 'http://" + port + "/api/v2/network/parameters?pagination.first=2'",
		"- query pagination.first=2 (shrunk from ",
		"### Waived (1)\n\n- **PARAM-MOD-012**",
		"- **GAMES-PAG-003** until 2099-12-31 (games are checked elsewhere): the rule did not run: the label filter left it out",
	} {
		if !strings.Contains(sum, want) {
			t.Errorf("the job summary lacks %q", want)
		}
	}
	failed := 0
	for _, r := range s.Rules {
		if r.State != suitereport.StateFailed {
			continue
		}
		failed++
		if !strings.Contains(sum, "#### "+r.ID+" "+r.Level()+": ") {
			t.Errorf("the job summary does not name the failed rule %s", r.ID)
		}
		if r.Cite.Section != "" && !strings.Contains(sum, "#### "+r.ID+" "+r.Level()+": "+r.Listing+" "+r.Area+": "+r.Text+"\n\nClause: spec §"+r.Cite.Section) {
			t.Errorf("the job summary does not give %s's clause", r.ID)
		}
		if annotated := strings.Contains(run.log, "::error title="+r.ID+" "+r.Level()+" failed::"); annotated != (failed <= suitereport.MaxAnnotations) {
			t.Errorf("failed rule %d, %s: annotated %v; the first %d are", failed, r.ID, annotated, suitereport.MaxAnnotations)
		}
	}
	if more := failed - suitereport.MaxAnnotations; more > 0 && !strings.Contains(run.log, fmt.Sprintf("::notice title=conformance::%d more rules failed", more)) {
		t.Errorf("no notice counts the %d failed rules not annotated", more)
	}
	if t.Failed() || os.Getenv("CI_TEST_SHOW") != "" {
		t.Logf("job summary:\n%s\nlog:\n%s", sum, tail(run.log))
	}
}

// TestActionDownloadsARelease runs the action's install step with a
// release version, against a local server standing in for the releases: a
// binary whose checksum matches is installed on the PATH; one whose
// checksum does not fails the step.
func TestActionDownloadsARelease(t *testing.T) {
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		t.Skip("the install step names linux/amd64 and linux/arm64 binaries")
	}
	t.Parallel()
	a := readAction(t)
	fake := []byte("#!/bin/sh\necho 'harness v9.9.9 (fake)'\n")
	name := "harness-linux-" + runtime.GOARCH
	sum := sha256.Sum256(fake)
	for _, tc := range []struct {
		name   string
		sums   string
		failed bool
	}{
		{"the checksum matches", hex.EncodeToString(sum[:]) + "  " + name + "\n", false},
		{"the checksum does not", strings.Repeat("0", 64) + "  " + name + "\n", true},
		{"no checksum for the binary", hex.EncodeToString(sum[:]) + "  harness-plan9-386\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				asked = append(asked, r.URL.Path)
				switch r.URL.Path {
				case "/v9.9.9/" + name:
					w.Write(fake)
				case "/v9.9.9/SHA256SUMS":
					io.WriteString(w, tc.sums)
				default:
					http.NotFound(w, r)
				}
			}))
			defer srv.Close()
			run := runAction(t, a, map[string]string{"base-url": "http://127.0.0.1:1", "version": "v9.9.9", "download-url": srv.URL}, t.TempDir(), "install")
			if run.failed != tc.failed {
				t.Fatalf("the install step failed: %v, want %v\n%s", run.failed, tc.failed, run.log)
			}
			if !tc.failed && !strings.Contains(run.log, "harness v9.9.9 (fake)") {
				t.Errorf("the installed binary did not run:\n%s", run.log)
			}
			if !slices.Contains(asked, "/v9.9.9/SHA256SUMS") {
				t.Errorf("the step asked %v, not the checksums", asked)
			}
		})
	}
}

// gitlabTemplate is what GitLab reads of ci/gitlab/conform.yml's job.
type gitlabTemplate struct {
	Job struct {
		Image     string            `yaml:"image"`
		Variables map[string]string `yaml:"variables"`
		Script    []string          `yaml:"script"`
		Artifacts struct {
			When    string   `yaml:"when"`
			Paths   []string `yaml:"paths"`
			Reports struct {
				JUnit  string `yaml:"junit"`
				Dotenv string `yaml:"dotenv"`
			} `yaml:"reports"`
		} `yaml:"artifacts"`
	} `yaml:".harness-conform"`
}

// TestGitLabTemplate runs the template's script as a GitLab runner does
// (one bash session, stopping at the first failing command) against the
// defective deployment, with the harness built from this checkout: the job
// fails as conform does, its log holds the summary of each failed rule,
// and the artifacts it names are written: the JUnit report, the HTML, JSON
// and Markdown reports, the dotenv variables.
func TestGitLabTemplate(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the harness and runs the suite")
	}
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(moduleRoot, "ci", "gitlab", "conform.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var tpl gitlabTemplate
	if err := yaml.Unmarshal(data, &tpl); err != nil {
		t.Fatalf("ci/gitlab/conform.yml: %v", err)
	}
	job := tpl.Job
	if len(job.Script) == 0 || job.Artifacts.When != "always" || job.Artifacts.Reports.JUnit == "" {
		t.Fatalf("the template's job: %d script lines, artifacts when %q, JUnit report %q", len(job.Script), job.Artifacts.When, job.Artifacts.Reports.JUnit)
	}
	base := defectiveDeployment(t)
	dir := t.TempDir()
	env := ciEnv(t, t.TempDir())
	for k, v := range job.Variables {
		env = append(env, k+"="+v)
	}
	env = append(env, "GITLAB_CI=true", "CI_PROJECT_DIR="+dir, "HARNESS_SOURCE="+absModuleRoot(t),
		"HARNESS_BASE_URL="+base, "HARNESS_LABEL_FILTER="+ciLabelFilter, "HARNESS_HEADERS="+ciAPIKey,
		"HARNESS_ARGS=--max-pages 10 --growth-wait 100ms")
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", strings.Join(job.Script, "\n"))
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitFailure {
		t.Fatalf("the job ended with %v, want conform's exit 1:\n%s", err, tail(string(out)))
	}
	log := string(out)
	if strings.Contains(log, "ci-s3cr3t-value") {
		t.Error("the API key's value is in the job log")
	}
	for _, want := range []string{"## Conformance: FAILED", "#### PARAM-PAG-006 MUST: ", "Clause: spec §4 (PAG)", "- query pagination.first=2 (shrunk from "} {
		if !strings.Contains(log, want) {
			t.Errorf("the job log lacks %q", want)
		}
	}
	for _, p := range append(slices.Clone(job.Artifacts.Paths), job.Artifacts.Reports.JUnit, job.Artifacts.Reports.Dotenv) {
		if st, err := os.Stat(filepath.Join(dir, p)); err != nil || st.Size() == 0 {
			t.Errorf("artifact %s: %v", p, err)
		}
	}
	junit, _ := os.ReadFile(filepath.Join(dir, job.Artifacts.Reports.JUnit))
	if !strings.Contains(string(junit), `<testcase name="PARAM-PAG-006 `) || !strings.Contains(string(junit), "<failure ") {
		t.Error("the JUnit report does not hold the failed rule")
	}
	dotenv, _ := os.ReadFile(filepath.Join(dir, job.Artifacts.Reports.Dotenv))
	if !strings.Contains(string(dotenv), "CONFORMANCE_VERDICT=failed\n") || !regexp.MustCompile(`(?m)^CONFORMANCE_FAILED=[1-9][0-9]*$`).Match(dotenv) {
		t.Errorf("the dotenv report: %q", dotenv)
	}
	if t.Failed() {
		t.Logf("job log:\n%s", tail(log))
	}
}

// tail is the end of a long text.
func tail(s string) string {
	const n = 6000
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
