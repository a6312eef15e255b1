package main

// The documentation is checked, not trusted: every shell block of the
// Markdown files below is either run here, as a testscript script, or
// marked as illustrative with the reason it is not run.
//
// A marker is an HTML comment on the line right before the block's opening
// fence (invisible on GitHub, plain in the source):
//
//	<!-- example: NAME -->         run by testdata/examples/NAME.txtar
//	<!-- illustrative: REASON -->  not run, because REASON
//	<!-- output: NAME -->          (before any block) what example NAME prints
//
// The script of an example runs the block's commands, in order, with the
// command doc (each call runs the next one), and checks what they did with
// testscript's own commands (stdout, exists, cmp, ...) and with cmpdoc, which
// compares the example's output block with what the last command printed.
// See docs/development.md, "The examples in the docs are tests".

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/chaindata/harness/conformance"
)

// moduleRoot is the repository root, relative to this package.
const moduleRoot = "../.."

// examplesDir holds one testscript script per runnable example.
const examplesDir = "testdata/examples"

// docGlobs are the Markdown files whose shell blocks are checked, relative
// to the module root.
var docGlobs = []string{"README.md", "docs/*.md", "schemas/README.md"}

// shellInfo are the fence info strings of shell blocks.
var shellInfo = map[string]bool{"sh": true, "shell": true, "bash": true, "console": true, "zsh": true}

// docBlock is one fenced block of a Markdown file.
type docBlock struct {
	file string // relative to the module root
	line int    // of the opening fence, from 1
	info string // the fence's info string: sh, text, yaml, ...
	// kind and arg are the marker on the line before the fence:
	// "example" and the example's name, "illustrative" and the reason,
	// "output" and the name of the example whose output the block shows,
	// or "" and "" when there is none.
	kind, arg string
	body      []string
}

func (b docBlock) String() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

// shell reports whether the block holds shell commands.
func (b docBlock) shell() bool { return shellInfo[b.info] }

var markerRE = regexp.MustCompile(`^<!--\s*(example|illustrative|output):\s*(.*?)\s*-->$`)

// readDocBlocks returns the fenced blocks of every file of docGlobs.
func readDocBlocks(root string) ([]docBlock, error) {
	var files []string
	for _, g := range docGlobs {
		m, err := filepath.Glob(filepath.Join(root, g))
		if err != nil {
			return nil, fmt.Errorf("glob %s: %w", g, err)
		}
		files = append(files, m...)
	}
	var blocks []docBlock
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("read the docs: %w", err)
		}
		rel, err := filepath.Rel(root, f)
		if err != nil {
			return nil, fmt.Errorf("docs file %s: %w", f, err)
		}
		bs, err := parseBlocks(filepath.ToSlash(rel), string(data))
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, bs...)
	}
	return blocks, nil
}

// parseBlocks returns the fenced blocks of one Markdown text, each with the
// marker of the last non-blank line before it.
func parseBlocks(file, text string) ([]docBlock, error) {
	lines := strings.Split(text, "\n")
	var blocks []docBlock
	prev := "" // the last non-blank line outside a block
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimSpace(lines[i])
		fence := leadingRun(trimmed, '`')
		if fence < 3 {
			if trimmed != "" {
				prev = trimmed
			}
			continue
		}
		b := docBlock{file: file, line: i + 1, info: strings.TrimSpace(trimmed[fence:])}
		if m := markerRE.FindStringSubmatch(prev); m != nil {
			b.kind, b.arg = m[1], m[2]
		}
		closed := false
		for i++; i < len(lines); i++ {
			t := strings.TrimSpace(lines[i])
			if leadingRun(t, '`') >= fence && strings.Trim(t, "`") == "" {
				closed = true
				break
			}
			b.body = append(b.body, lines[i])
		}
		if !closed {
			return nil, fmt.Errorf("%s:%d: the block is never closed", file, b.line)
		}
		blocks = append(blocks, b)
		prev = ""
	}
	return blocks, nil
}

// leadingRun counts the copies of c that s starts with.
func leadingRun(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// shellCommands returns the commands of a shell block: lines joined where
// they end with a backslash, comments and blank lines dropped.
func shellCommands(body []string) []string {
	var cmds []string
	pending := ""
	for _, raw := range body {
		line := strings.TrimRight(raw, " \t")
		if cont, ok := strings.CutSuffix(line, `\`); ok {
			pending += strings.TrimSpace(cont) + " "
			continue
		}
		if c := stripComment(pending + strings.TrimSpace(line)); c != "" {
			cmds = append(cmds, c)
		}
		pending = ""
	}
	if c := stripComment(pending); c != "" {
		cmds = append(cmds, c)
	}
	return cmds
}

// stripComment cuts a shell comment (a # at the start of a word, outside
// quotes) off line.
func stripComment(line string) string {
	var quote rune
	for i, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return strings.TrimSpace(line[:i])
		}
	}
	return strings.TrimSpace(line)
}

// docExamples is what the Markdown files say: the runnable examples by
// name, and their output blocks.
type docExamples struct {
	examples map[string]docBlock
	outputs  map[string]docBlock
}

// checkDocBlocks returns the examples and outputs of blocks, and one
// problem per block that breaks the marker rules.
func checkDocBlocks(blocks []docBlock, scripts map[string]bool) (docExamples, []string) {
	d := docExamples{examples: map[string]docBlock{}, outputs: map[string]docBlock{}}
	var problems []string
	bad := func(b docBlock, format string, a ...any) {
		problems = append(problems, b.String()+": "+fmt.Sprintf(format, a...))
	}
	for _, b := range blocks {
		switch b.kind {
		case "":
			if b.shell() {
				bad(b, "a ```%s block that no test runs: put <!-- example: NAME --> on the line before it and write %s/NAME.txtar, or <!-- illustrative: why it is not run -->", b.info, examplesDir)
			}
		case "illustrative":
			if b.arg == "" {
				bad(b, "an illustrative block must say why it is not run: <!-- illustrative: REASON -->")
			}
		case "example":
			switch {
			case !b.shell():
				bad(b, "<!-- example: %s --> marks a ```%s block; examples are shell blocks (```sh)", b.arg, b.info)
			case !regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`).MatchString(b.arg):
				bad(b, "example name %q: use lowercase letters, digits and dashes", b.arg)
			case d.examples[b.arg].file != "":
				bad(b, "example %q is also at %s", b.arg, d.examples[b.arg])
			case len(shellCommands(b.body)) == 0:
				bad(b, "example %q has no command", b.arg)
			case !scripts[b.arg]:
				bad(b, "example %q has no script: write %s/%s.txtar", b.arg, examplesDir, b.arg)
			default:
				d.examples[b.arg] = b
			}
		case "output":
			if d.outputs[b.arg].file != "" {
				bad(b, "example %q already has an output block at %s", b.arg, d.outputs[b.arg])
			}
			d.outputs[b.arg] = b
		}
	}
	for name, b := range d.outputs {
		if _, ok := d.examples[name]; !ok {
			bad(b, "<!-- output: %s --> names no example", name)
		}
	}
	for name := range scripts {
		if _, ok := d.examples[name]; !ok {
			problems = append(problems, fmt.Sprintf("%s/%s.txtar: no block is marked <!-- example: %s -->", examplesDir, name, name))
		}
	}
	slices.Sort(problems)
	return d, problems
}

// exampleScripts returns the names of the scripts in examplesDir.
func exampleScripts() (map[string]bool, error) {
	files, err := filepath.Glob(filepath.Join(examplesDir, "*.txtar"))
	if err != nil {
		return nil, fmt.Errorf("list the example scripts: %w", err)
	}
	names := map[string]bool{}
	for _, f := range files {
		names[strings.TrimSuffix(filepath.Base(f), ".txtar")] = true
	}
	return names, nil
}

// loadDocExamples reads the docs and the scripts and fails the test on any
// block that breaks the marker rules.
func loadDocExamples(t *testing.T) docExamples {
	t.Helper()
	blocks, err := readDocBlocks(moduleRoot)
	if err != nil {
		t.Fatal(err)
	}
	scripts, err := exampleScripts()
	if err != nil {
		t.Fatal(err)
	}
	d, problems := checkDocBlocks(blocks, scripts)
	for _, p := range problems {
		t.Error(p)
	}
	if len(d.examples) == 0 {
		t.Fatal("the docs have no runnable example")
	}
	return d
}

// TestDocBlocksAreMarked fails on a shell block of the docs that is neither
// run by a script nor marked illustrative, and on markers that name nothing.
func TestDocBlocksAreMarked(t *testing.T) {
	loadDocExamples(t)
}

func TestParseDocBlocks(t *testing.T) {
	const md = "# T\n\n<!-- example: two-cmds -->\n```sh\nharness a --x 'y # z' \\\n    --w   # why\n\n# alone\nharness b &\n```\n" +
		"<!-- output: two-cmds -->\n```text\nout\n```\n\n<!-- illustrative: needs a node -->\n\n```sh\ncurl https://node.example\n```\n" +
		"```sh\nunmarked\n```\n````md\n```sh\nnot a block\n```\n````\n```yaml\nk: v\n```\n"
	blocks, err := parseBlocks("x.md", md)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		line            int
		info, kind, arg string
		cmds            []string
	}
	want := []got{
		{4, "sh", "example", "two-cmds", []string{"harness a --x 'y # z' --w", "harness b &"}},
		{12, "text", "output", "two-cmds", []string{"out"}},
		{18, "sh", "illustrative", "needs a node", []string{"curl https://node.example"}},
		{21, "sh", "", "", []string{"unmarked"}},
		{24, "md", "", "", []string{"```sh", "not a block", "```"}},
		{29, "yaml", "", "", []string{"k: v"}},
	}
	if len(blocks) != len(want) {
		t.Fatalf("%d blocks, want %d: %+v", len(blocks), len(want), blocks)
	}
	for i, b := range blocks {
		g := got{b.line, b.info, b.kind, b.arg, shellCommands(b.body)}
		if g.line != want[i].line || g.info != want[i].info || g.kind != want[i].kind || g.arg != want[i].arg || !slices.Equal(g.cmds, want[i].cmds) {
			t.Errorf("block %d = %+v, want %+v", i, g, want[i])
		}
	}
	_, problems := checkDocBlocks(blocks, map[string]bool{"two-cmds": true, "orphan": true})
	wantProblems := []string{examplesDir + "/orphan.txtar: no block is marked", "x.md:21: a ```sh block that no test runs"}
	if len(problems) != len(wantProblems) {
		t.Fatalf("problems %q, want %d", problems, len(wantProblems))
	}
	for i, p := range problems {
		if !strings.HasPrefix(p, wantProblems[i]) {
			t.Errorf("problem %q, want it to start with %q", p, wantProblems[i])
		}
	}
	if _, err := parseBlocks("y.md", "```sh\nopen"); err == nil {
		t.Error("an unclosed block parsed")
	}
}

// TestDocExamples runs every example of the docs with its script in
// testdata/examples, against harness serve (the default world) on a free
// port of 127.0.0.1 standing for 127.0.0.1:8080.
func TestDocExamples(t *testing.T) {
	d := loadDocExamples(t)
	if t.Failed() {
		t.FailNow()
	}
	bin := mustHarnessBinary(t)
	mock := mustSharedMock(t)
	root, err := filepath.Abs(moduleRoot)
	if err != nil {
		t.Fatal(err)
	}
	ignore, err := readGitignore(filepath.Join(root, ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	goVars, err := goEnv()
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 examplesDir,
		RequireUniqueNames:  true,
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("MODROOT", root)
			env.Setenv("MOCK", mock)
			for _, kv := range goVars {
				env.Setenv(kv[0], kv[1])
			}
			env.Setenv("GOFLAGS", strings.Join(append(strings.Fields(env.Getenv("GOFLAGS")), docBuildFlags...), " "))
			st := &exampleState{docs: d, root: root, mock: mock, ignore: ignore, ports: map[string]string{}}
			for _, kv := range env.Vars {
				if k, _, ok := strings.Cut(kv, "="); ok && !slices.Contains(st.envKeys, k) {
					st.envKeys = append(st.envKeys, k)
				}
			}
			env.Values[exampleStateKey{}] = st
			env.Defer(func() { st.finish(env.T()) })
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"doc":         cmdDoc,
			"cmpdoc":      cmdCmpDoc,
			"clone":       cmdClone,
			"junit-rules": cmdJUnitRules,
			"ran-rules":   cmdRanRules,
		},
	})
}

// docBuildFlags are added to GOFLAGS for the examples' go commands (and
// harnessBinary builds with them): with -trimpath the build cache keys the
// module's packages without their directory, so that a clone's go test and
// go run reuse what harnessBinary compiled, and every run the clones of the
// last; -ldflags=-w leaves DWARF out, a third of each link's time. Neither
// changes what the commands do.
var docBuildFlags = []string{"-trimpath", "-ldflags=-w"}

// goEnv returns the go command's settings that scripts need to build and
// test the module (testscript gives them no HOME to find the defaults in).
func goEnv() ([][2]string, error) {
	keys := []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS", "GOPROXY", "GOSUMDB", "GONOSUMDB", "GOPRIVATE", "GONOPROXY", "GOINSECURE", "GOTOOLCHAIN"}
	out, err := exec.Command(goTool(), append([]string{"env", "-json"}, keys...)...).Output()
	if err != nil {
		return nil, fmt.Errorf("go env: %w", err)
	}
	var m map[string]string
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, fmt.Errorf("go env -json: %w", err)
	}
	var vars [][2]string
	for _, k := range keys {
		if m[k] != "" {
			vars = append(vars, [2]string{k, m[k]})
		}
	}
	return vars, nil
}

// exampleStateKey keys a script's exampleState in testscript's Values.
type exampleStateKey struct{}

// exampleState is what the custom commands of one script share.
type exampleState struct {
	docs   docExamples
	root   string // the module root
	mock   string // the shared mock's base URL
	ignore gitignore
	// envKeys are the names of the script's environment variables at
	// the start, for background commands.
	envKeys []string

	mu      sync.Mutex
	started bool
	cmds    []string // the example's commands
	next    int      // the next command doc runs
	// ports maps each port the example names (8080, 8081, ...) to the
	// port it uses here: 8080 the shared mock's, the others free ones.
	ports map[string]string
}

func state(ts *testscript.TestScript) *exampleState {
	st, _ := ts.Value(exampleStateKey{}).(*exampleState)
	if st == nil {
		ts.Fatalf("no example state: run the script from TestDocExamples")
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.started {
		st.started = true
		b, ok := st.docs.examples[ts.Name()]
		if !ok {
			ts.Fatalf("no block of the docs is marked <!-- example: %s -->", ts.Name())
		}
		st.cmds = shellCommands(b.body)
		_, port, err := net.SplitHostPort(strings.TrimPrefix(st.mock, "http://"))
		if err != nil {
			ts.Fatalf("shared mock URL %q: %v", st.mock, err)
		}
		st.ports["8080"] = port
	}
	return st
}

// finish fails the script when it left commands of its example unrun.
func (st *exampleState) finish(t testscript.T) {
	tt, ok := t.(interface {
		Failed() bool
		Skipped() bool
		Errorf(format string, args ...any)
	})
	if !ok || tt.Failed() || tt.Skipped() {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.started {
		tt.Errorf("the script never runs its example (doc)")
		return
	}
	if st.next < len(st.cmds) {
		tt.Errorf("the script runs %d of the example's %d commands; the first not run: %s", st.next, len(st.cmds), st.cmds[st.next])
	}
}

var hostPortRE = regexp.MustCompile(`\b(127\.0\.0\.1|localhost):([0-9]{2,5})\b`)

// substitute puts this run's ports in place of the documented ones.
func (st *exampleState) substitute(ts *testscript.TestScript, cmd string) string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return hostPortRE.ReplaceAllStringFunc(cmd, func(hp string) string {
		m := hostPortRE.FindStringSubmatch(hp)
		port, ok := st.ports[m[2]]
		if !ok {
			var err error
			if port, err = freePort(); err != nil {
				ts.Fatalf("%v", err)
			}
			st.ports[m[2]] = port
		}
		return m[1] + ":" + port
	})
}

// unsubstitute puts the documented ports back in place of this run's.
func (st *exampleState) unsubstitute(s string) string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return hostPortRE.ReplaceAllStringFunc(s, func(hp string) string {
		m := hostPortRE.FindStringSubmatch(hp)
		for doc, port := range st.ports {
			if port == m[2] {
				return m[1] + ":" + doc
			}
		}
		return hp
	})
}

// freePort returns a port of 127.0.0.1 that was free a moment ago.
func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free port: %w", err)
	}
	defer ln.Close()
	_, port, err := net.SplitHostPort(ln.Addr().String())
	if err != nil {
		return "", fmt.Errorf("find a free port: %w", err)
	}
	return port, nil
}

// cmdDoc runs the example's next command with sh, its ports substituted.
// "! doc" expects it to fail. A command that ends with & runs in the
// background until the script ends, and doc waits for its first line of
// output (a server's URL). Every file or directory the command creates in
// the working directory must be one .gitignore ignores.
func cmdDoc(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 0 {
		ts.Fatalf("usage: doc (runs the example's next command)")
	}
	st := state(ts)
	if st.next >= len(st.cmds) {
		ts.Fatalf("doc: the example has only %d commands", len(st.cmds))
	}
	documented := st.cmds[st.next]
	st.next++
	cmd := st.substitute(ts, documented)
	ts.Logf("> %s", documented)
	if cmd != documented {
		ts.Logf("  (run as: %s)", cmd)
	}
	dir := ts.MkAbs(".")
	before, err := dirEntries(dir)
	ts.Check(err)
	if bg, ok := strings.CutSuffix(cmd, "&"); ok && !strings.HasSuffix(bg, "&") {
		if neg {
			ts.Fatalf("! doc: a background command cannot be expected to fail")
		}
		startBackground(ts, st, strings.TrimSpace(bg))
	} else {
		err := ts.Exec("sh", "-c", cmd)
		switch {
		case neg && err == nil:
			ts.Fatalf("doc: %s succeeded, want a failure", documented)
		case !neg && err != nil:
			ts.Fatalf("doc: %s: %v", documented, err)
		}
	}
	after, err := dirEntries(dir)
	ts.Check(err)
	for name, isDir := range after {
		if _, ok := before[name]; !ok && !st.ignore.ignores(name, isDir) {
			ts.Fatalf("doc: %s wrote %s, which .gitignore does not ignore", documented, name)
		}
	}
}

// dirEntries returns the names in dir and whether each is a directory.
func dirEntries(dir string) (map[string]bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	m := map[string]bool{}
	for _, e := range entries {
		m[e.Name()] = e.IsDir()
	}
	return m, nil
}

// startBackground starts cmd with sh (exec'd, so that SIGINT reaches it),
// waits for its first line of standard output, and stops it with SIGINT
// when the script ends.
func startBackground(ts *testscript.TestScript, st *exampleState, cmd string) {
	c := exec.Command("sh", "-c", "exec "+cmd)
	c.Dir = ts.MkAbs(".")
	for _, k := range st.envKeys {
		c.Env = append(c.Env, k+"="+ts.Getenv(k))
	}
	c.Env = append(c.Env, "PWD="+c.Dir)
	stdout, err := c.StdoutPipe()
	ts.Check(err)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	ts.Check(c.Start())
	first := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		r := bufio.NewReader(stdout)
		line, _ := r.ReadString('\n')
		first <- line
		io.Copy(io.Discard, r)
		done <- c.Wait()
	}()
	ts.Defer(func() {
		c.Process.Signal(syscall.SIGINT)
		select {
		case <-done:
		case <-time.After(stopTimeout):
			c.Process.Kill()
			<-done
		}
	})
	select {
	case line := <-first:
		if line == "" {
			ts.Fatalf("doc: %s ended without output: %s", cmd, stderr.String())
		}
		ts.Logf("  (in the background, ready: %s)", strings.TrimSpace(line))
	case <-time.After(startTimeout):
		ts.Fatalf("doc: %s printed nothing within %v; a background command must print a line once it is ready", cmd, startTimeout)
	}
}

// durationRE matches a Go duration as time.Duration prints it (812ms,
// 1.5s, 2m3.4s): output blocks show one, but its value is never the same.
var durationRE = regexp.MustCompile(`\b(?:[0-9]+(?:\.[0-9]+)?(?:ns|µs|us|ms|s|m|h))+\b`)

// normalizeOutput puts a placeholder in place of every duration.
func normalizeOutput(s string) string {
	return durationRE.ReplaceAllString(s, "<duration>")
}

// cmdCmpDoc compares the example's output block with the last command's
// standard output (cmpdoc stdout) or error (cmpdoc stderr): the block's
// lines must come in it one after the other, exactly, but for the ports
// (the documented ones stand for this run's) and durations (any value).
func cmdCmpDoc(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 || (args[0] != "stdout" && args[0] != "stderr") {
		ts.Fatalf("usage: cmpdoc stdout|stderr")
	}
	st := state(ts)
	b, ok := st.docs.outputs[ts.Name()]
	if !ok {
		ts.Fatalf("cmpdoc: the docs have no <!-- output: %s --> block", ts.Name())
	}
	want := strings.Split(normalizeOutput(strings.Join(b.body, "\n")), "\n")
	got := strings.Split(normalizeOutput(st.unsubstitute(ts.ReadFile(args[0]))), "\n")
	if !containsRun(got, want) {
		ts.Fatalf("cmpdoc: the output block at %s is not in the %s:\n%s\nwant these lines, one after the other:\n%s",
			b, args[0], strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// containsRun reports whether want occurs in got as consecutive lines.
func containsRun(got, want []string) bool {
	for i := 0; i+len(want) <= len(got); i++ {
		if slices.Equal(got[i:i+len(want)], want) {
			return true
		}
	}
	return false
}

// cmdClone makes a clone of the module for go commands and makes it the
// script's directory: go.mod, go.sum and every top-level directory holding
// Go code are symbolic links to the module's. Documentation (docs/) is not
// linked, so that a command writing there writes in the clone.
//
// The clone is in $WORK, a new directory every run: the scripts' go
// commands build with -trimpath (docBuildFlags), so the build cache keys
// the module's packages without their directory and serves any clone.
func cmdClone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: clone")
	}
	st := state(ts)
	dir := ts.MkAbs("clone")
	ts.Check(os.Mkdir(dir, 0o755))
	entries, err := os.ReadDir(st.root)
	ts.Check(err)
	for _, e := range entries {
		name := e.Name()
		link := name == "go.mod" || name == "go.sum"
		if e.IsDir() && !strings.HasPrefix(name, ".") {
			link = holdsGo(filepath.Join(st.root, name))
		}
		if link {
			ts.Check(os.Symlink(filepath.Join(st.root, name), filepath.Join(dir, name)))
		}
	}
	ts.Check(ts.Chdir(dir))
}

// holdsGo reports whether a .go file is anywhere under dir.
func holdsGo(dir string) bool {
	found := false
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// rulesSelected is the number of the suite's rules that the label filter
// selects.
func rulesSelected(ts *testscript.TestScript, expr string) int {
	filter, err := types.ParseLabelFilter(expr)
	ts.Check(err)
	rules, err := conformance.Rules()
	ts.Check(err)
	n := 0
	for _, r := range rules {
		// The growth rules skip against the docs' mock, which does not
		// grow: they never count as run.
		if filter(r.Labels) && r.Area != "growth" {
			n++
		}
	}
	if n == 0 {
		ts.Fatalf("the label filter %q selects no rule", expr)
	}
	return n
}

// cmdJUnitRules checks a Ginkgo JUnit report: the rules that ran are exactly
// the ones the label filter selects, and none failed.
func cmdJUnitRules(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: junit-rules FILE LABEL-FILTER")
	}
	want := rulesSelected(ts, args[1])
	var doc struct {
		Suites []struct {
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Skipped *struct{} `xml:"skipped"`
				Failure *struct{} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(ts.ReadFile(args[0])), &doc); err != nil {
		ts.Fatalf("junit-rules: %s is not XML: %v", args[0], err)
	}
	ran, failed := 0, 0
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			if c.Skipped == nil && strings.HasPrefix(c.Name, "[It]") {
				ran++
			}
			if c.Failure != nil {
				failed++
			}
		}
	}
	if ran != want || failed != 0 {
		ts.Fatalf("junit-rules: %s: %d rules ran and %d failed; want the %d that %q selects, none failed", args[0], ran, failed, want, args[1])
	}
}

var ranSpecsRE = regexp.MustCompile(`Ran ([0-9]+) of [0-9]+ Specs`)

// cmdRanRules checks Ginkgo's console report on the last command's standard
// output: it ran exactly the rules the label filter selects.
func cmdRanRules(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: ran-rules LABEL-FILTER")
	}
	want := rulesSelected(ts, args[0])
	m := ranSpecsRE.FindStringSubmatch(ts.ReadFile("stdout"))
	if m == nil {
		ts.Fatalf("ran-rules: no \"Ran N of M Specs\" in the standard output")
	}
	if got, _ := strconv.Atoi(m[1]); got != want {
		ts.Fatalf("ran-rules: %s, want the %d rules that %q selects", m[0], want, args[0])
	}
}

// gitignore is the part of a .gitignore file that applies to the names at
// the top of the repository.
type gitignore []ignoreRule

type ignoreRule struct {
	pattern string // a path.Match pattern for one name
	dirOnly bool
}

// readGitignore reads the patterns of a .gitignore file.
func readGitignore(file string) (gitignore, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read .gitignore: %w", err)
	}
	var g gitignore
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "!") {
			return nil, fmt.Errorf("%s: negated pattern %q: the doc examples' check does not read them", file, line)
		}
		r := ignoreRule{pattern: strings.TrimPrefix(line, "/")}
		r.pattern, r.dirOnly = strings.CutSuffix(r.pattern, "/")
		if strings.Contains(r.pattern, "/") {
			continue // names a path below the top
		}
		if _, err := path.Match(r.pattern, ""); err != nil {
			return nil, fmt.Errorf("%s: pattern %q: %w", file, line, err)
		}
		g = append(g, r)
	}
	return g, nil
}

// ignores reports whether a top-level name is ignored.
func (g gitignore) ignores(name string, isDir bool) bool {
	for _, r := range g {
		if r.dirOnly && !isDir {
			continue
		}
		if ok, _ := path.Match(r.pattern, name); ok {
			return true
		}
	}
	return false
}

func TestGitignoreMatching(t *testing.T) {
	file := writeInputFile(t, t.TempDir(), ".gitignore", "# outputs\n/bin/\n*.test\nconformance.xml\n/big/\nsub/dir/\n")
	g, err := readGitignore(file)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		isDir bool
		want  bool
	}{
		{"bin", true, true},
		{"bin", false, false},
		{"harness.test", false, true},
		{"conformance.xml", false, true},
		{"big", true, true},
		{"fixtures", true, false},
		{"sub", true, false},
		{"report.html", false, false},
	}
	for _, tc := range tests {
		if got := g.ignores(tc.name, tc.isDir); got != tc.want {
			t.Errorf("ignores(%q, dir %v) = %v, want %v", tc.name, tc.isDir, got, tc.want)
		}
	}
}

func TestCmpDocRules(t *testing.T) {
	tests := []struct {
		name      string
		got, want string
		match     bool
	}{
		{"the same lines", "a\nb\nc\n", "b\nc", true},
		{"a duration differs", "Rules: 230 passed; 46239 cases judged in 1m2.5s\n", "Rules: 230 passed; 46239 cases judged in 11.878s", true},
		{"a count differs", "traffic: 570 requests\n", "traffic: 571 requests", false},
		{"lines apart", "a\nx\nb\n", "a\nb", false},
		{"lines in another order", "b\na\n", "a\nb", false},
		{"a line cut short", "Verdict: PASSED (0 waived)\n", "Verdict: PASSED", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Split(normalizeOutput(tc.got), "\n")
			want := strings.Split(normalizeOutput(tc.want), "\n")
			if containsRun(got, want) != tc.match {
				t.Errorf("%q in %q: %v, want %v", tc.want, tc.got, !tc.match, tc.match)
			}
		})
	}
	st := &exampleState{ports: map[string]string{"8080": "40001", "8081": "40002"}}
	if got, want := st.unsubstitute("on http://127.0.0.1:40001 and 127.0.0.1:40002, not 127.0.0.1:40003"), "on http://127.0.0.1:8080 and 127.0.0.1:8081, not 127.0.0.1:40003"; got != want {
		t.Errorf("unsubstitute = %q, want %q", got, want)
	}
}
