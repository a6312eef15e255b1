package main

// The README is the project's front page and the reference lives in docs/:
// these tests hold the README to its length and to its two key commands,
// and every relative link of the docs to a file of the repository and, for
// a #fragment, to a heading of that file. No page of docs/ is left
// unreachable from the README, and no page names a Markdown file the
// repository does not hold.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"unicode"
)

// readmeMaxLines is the most lines README.md may have.
const readmeMaxLines = 300

// readmeCommands are the commands README.md must show in a shell block:
// the one that runs the main job (the mock, with no flags) and the one that
// runs every test (.ci/run runs it).
var readmeCommands = []string{"go run ./cmd/harness serve", "make test"}

// TestREADMEIsAFrontPage holds README.md to readmeMaxLines lines and to its
// two key commands.
func TestREADMEIsAFrontPage(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(moduleRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if n := lineCount(text); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, more than %d: move reference material to a page of docs/ and link to it", n, readmeMaxLines)
	}
	blocks, err := parseBlocks("README.md", text)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range readmeCommands {
		found := false
		for _, b := range blocks {
			if b.shell() && slices.ContainsFunc(shellCommands(b.body), func(c string) bool {
				return c == want || strings.HasPrefix(c, want+" ")
			}) {
				found = true
			}
		}
		if !found && !strings.Contains(text, "`"+want+"`") {
			t.Errorf("README.md does not give the command %q", want)
		}
	}
}

// lineCount counts the lines of a text, a last line without a newline too.
func lineCount(text string) int {
	n := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		n++
	}
	return n
}

// TestDocLinks checks every relative link and #anchor of the docs, that
// every page of docs/ is reachable from README.md, and that the Markdown
// files the docs name are in the repository.
func TestDocLinks(t *testing.T) {
	root, err := filepath.Abs(moduleRoot)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, g := range docGlobs {
		m, err := filepath.Glob(filepath.Join(root, g))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			rel, err := filepath.Rel(root, f)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, filepath.ToSlash(rel))
		}
	}
	if !slices.Contains(files, "README.md") {
		t.Fatal("no README.md")
	}
	c := newLinkChecker(os.DirFS(root))
	for _, f := range files {
		for _, p := range c.check(f) {
			t.Error(p)
		}
	}
	reached := c.reachable("README.md")
	for _, f := range files {
		if strings.HasPrefix(f, "docs/") && !reached[f] {
			t.Errorf("%s: no link leads to it from README.md", f)
		}
	}
}

// linkChecker checks the links of Markdown files of one repository.
type linkChecker struct {
	repo    fs.FS
	anchors map[string]map[string]bool // by file, read once
	links   map[string][]string        // the .md files each file links to
}

func newLinkChecker(repo fs.FS) *linkChecker {
	return &linkChecker{repo: repo, anchors: map[string]map[string]bool{}, links: map[string][]string{}}
}

// check returns one problem per broken link of file (a path of the
// repository), and per Markdown file it names that is not there.
func (c *linkChecker) check(file string) []string {
	data, err := fs.ReadFile(c.repo, file)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", file, err)}
	}
	var problems []string
	bad := func(line int, format string, a ...any) {
		problems = append(problems, fmt.Sprintf("%s:%d: ", file, line)+fmt.Sprintf(format, a...))
	}
	prose := proseOf(string(data))
	for _, l := range markdownLinks(prose) {
		dest := l.dest
		if scheme := regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`).FindString(dest); scheme != "" {
			continue // a URL: http:, https:, mailto:
		}
		p, frag, _ := strings.Cut(dest, "#")
		p, err := url.PathUnescape(p)
		if err != nil {
			bad(l.line, "link %q: %v", dest, err)
			continue
		}
		target := file
		if p != "" {
			var ok bool
			if target, ok = resolveRepoPath(file, p); !ok {
				bad(l.line, "link %q leads out of the repository", dest)
				continue
			}
			if _, err := fs.Stat(c.repo, target); err != nil {
				bad(l.line, "link %q: %s is not in the repository", dest, target)
				continue
			}
		}
		if strings.HasSuffix(target, ".md") && target != file {
			c.links[file] = append(c.links[file], target)
		}
		if frag == "" {
			if strings.HasSuffix(dest, "#") {
				bad(l.line, "link %q has an empty #anchor", dest)
			}
			continue
		}
		if !strings.HasSuffix(target, ".md") {
			bad(l.line, "link %q: an #anchor into %s, which is not Markdown, cannot be checked", dest, target)
			continue
		}
		anchors, err := c.anchorsOf(target)
		if err != nil {
			bad(l.line, "link %q: %v", dest, err)
			continue
		}
		if !anchors[frag] {
			bad(l.line, "link %q: %s has no heading whose anchor is #%s%s", dest, target, frag, nearestAnchor(frag, anchors))
		}
	}
	// A link's text may name the file it links to by the name it has
	// elsewhere: the link itself is checked above.
	for _, m := range mdMentions(wholeLinkRE.ReplaceAllStringFunc(string(data), func(l string) string {
		return strings.Repeat("\n", strings.Count(l, "\n"))
	})) {
		if _, ok := c.mentionedFile(file, m.name); !ok {
			bad(m.line, "names %s, which is not a file of the repository", m.name)
		}
	}
	return problems
}

// mentionedFile finds the file a Markdown file name in file means: a path
// from the repository's root, or from file's directory.
func (c *linkChecker) mentionedFile(file, name string) (string, bool) {
	for _, from := range []string{"README.md", file} {
		if p, ok := resolveRepoPath(from, name); ok {
			if _, err := fs.Stat(c.repo, p); err == nil {
				return p, true
			}
		}
	}
	return "", false
}

// reachable returns the .md files the links lead to from start, start
// included; check must have read each of them first.
func (c *linkChecker) reachable(start string) map[string]bool {
	seen := map[string]bool{start: true}
	queue := []string{start}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		for _, g := range c.links[f] {
			if !seen[g] {
				seen[g] = true
				queue = append(queue, g)
			}
		}
	}
	return seen
}

// resolveRepoPath resolves a link's path against the file it is in; ok is
// false when it leads out of the repository.
func resolveRepoPath(file, p string) (string, bool) {
	var r string
	if strings.HasPrefix(p, "/") {
		r = path.Clean(strings.TrimPrefix(p, "/"))
	} else {
		r = path.Join(path.Dir(file), p)
	}
	if r == ".." || strings.HasPrefix(r, "../") {
		return "", false
	}
	return r, true
}

// anchorsOf returns the anchors of a Markdown file's headings.
func (c *linkChecker) anchorsOf(file string) (map[string]bool, error) {
	if a, ok := c.anchors[file]; ok {
		return a, nil
	}
	data, err := fs.ReadFile(c.repo, file)
	if err != nil {
		return nil, err
	}
	a := headingAnchors(string(data))
	c.anchors[file] = a
	return a, nil
}

// nearestAnchor suggests the anchor of anchors that is most like frag.
func nearestAnchor(frag string, anchors map[string]bool) string {
	best, bestScore := "", 0
	for a := range anchors {
		score := 0
		for _, w := range strings.Split(frag, "-") {
			if w != "" && strings.Contains(a, w) {
				score++
			}
		}
		if score > bestScore || (score == bestScore && score > 0 && a < best) {
			best, bestScore = a, score
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean #%s?)", best)
}

// proseOf empties the lines of fenced blocks (their fences included), as
// parseBlocks reads them, and blanks inline code spans, keeping every other
// byte where it was.
func proseOf(md string) string {
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		fence := leadingRun(strings.TrimSpace(lines[i]), '`')
		if fence < 3 {
			continue
		}
		lines[i] = ""
		for i++; i < len(lines); i++ {
			t := strings.TrimSpace(lines[i])
			lines[i] = ""
			if leadingRun(t, '`') >= fence && strings.Trim(t, "`") == "" {
				break
			}
		}
	}
	return blankCodeSpans(strings.Join(lines, "\n"))
}

// blankCodeSpans replaces the content of every inline code span (a run of
// backticks up to the next run of as many, in the same paragraph) with x's,
// newlines kept, so that a link written in code is no link and offsets do
// not move.
func blankCodeSpans(s string) string {
	paras := strings.Split(s, "\n\n")
	for i, p := range paras {
		paras[i] = blankParagraphCodeSpans(p)
	}
	return strings.Join(paras, "\n\n")
}

// blankParagraphCodeSpans is blankCodeSpans of one paragraph.
func blankParagraphCodeSpans(s string) string {
	b := []byte(s)
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		n := leadingRun(s[i:], '`')
		end := -1
		for j := i + n; j < len(b); {
			if b[j] != '`' {
				j++
				continue
			}
			m := leadingRun(s[j:], '`')
			if m == n {
				end = j
				break
			}
			j += m
		}
		if end < 0 {
			i += n
			continue
		}
		for k := i + n; k < end; k++ {
			if b[k] != '\n' {
				b[k] = 'x'
			}
		}
		i = end + n
	}
	return string(b)
}

// mdLink is a link of a Markdown text: its destination and its line.
type mdLink struct {
	dest string
	line int
}

var (
	inlineLinkRE = regexp.MustCompile(`\]\(\s*<?([^()<>\s]*)>?(?:\s+"[^"]*")?\s*\)`)
	refDefRE     = regexp.MustCompile(`(?m)^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$`)
	wholeLinkRE  = regexp.MustCompile(`!?\[[^\]]*\]\([^()\n]*\)`)
	htmlLinkRE   = regexp.MustCompile(`<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*"([^"]*)"`)
)

// markdownLinks returns the links of prose (inline links and images,
// reference definitions, <a href> and <img src>).
func markdownLinks(prose string) []mdLink {
	var links []mdLink
	for _, re := range []*regexp.Regexp{inlineLinkRE, refDefRE, htmlLinkRE} {
		for _, m := range re.FindAllStringSubmatchIndex(prose, -1) {
			links = append(links, mdLink{dest: prose[m[2]:m[3]], line: 1 + strings.Count(prose[:m[0]], "\n")})
		}
	}
	slices.SortStableFunc(links, func(a, b mdLink) int { return a.line - b.line })
	return links
}

var (
	headingRE    = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	htmlAnchorRE = regexp.MustCompile(`<a\b[^>]*?\b(?:id|name)\s*=\s*"([^"]+)"`)
	linkTextRE   = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// headingAnchors returns the anchors GitHub gives the headings of a
// Markdown text (outside fenced blocks), and those of <a id> or <a name>.
func headingAnchors(md string) map[string]bool {
	anchors := map[string]bool{}
	count := map[string]int{}
	prose := proseOf(md)
	raw := strings.Split(md, "\n")
	for i, line := range strings.Split(prose, "\n") {
		m := headingRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		// The heading's own text, code spans as written (proseOf blanked them).
		r := headingRE.FindStringSubmatch(raw[i])
		if r == nil {
			continue
		}
		a := githubAnchor(r[2])
		if n := count[a]; n > 0 {
			count[a]++
			a = fmt.Sprintf("%s-%d", a, n)
		} else {
			count[a] = 1
		}
		anchors[a] = true
	}
	for _, m := range htmlAnchorRE.FindAllStringSubmatch(prose, -1) {
		anchors[m[1]] = true
	}
	return anchors
}

// githubAnchor is the anchor GitHub gives a heading: its text (a link's
// text in place of the link) in lower case, each space a '-', and every
// character but letters, digits, '-' and '_' dropped.
func githubAnchor(heading string) string {
	heading = linkTextRE.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdMention is a Markdown file's name in a text, and its line.
type mdMention struct {
	name string
	line int
}

var (
	urlRE       = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s)>\]]*`)
	mdMentionRE = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./-])((?:\.\./|/)?(?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_-][A-Za-z0-9_.-]*\.md)(?:[^A-Za-z0-9_]|$)`)
)

// mdMentions returns every name of a Markdown file in md (code blocks
// included, URLs left out).
func mdMentions(md string) []mdMention {
	var out []mdMention
	for i, line := range strings.Split(md, "\n") {
		line = urlRE.ReplaceAllStringFunc(line, func(u string) string { return strings.Repeat(" ", len(u)) })
		for _, m := range mdMentionRE.FindAllStringSubmatch(line, -1) {
			out = append(out, mdMention{name: m[1], line: i + 1})
		}
	}
	return out
}

// TestDocLinkRules checks the link checker on a repository of its own: a
// broken link, anchor or file name fails, and the anchors are GitHub's.
func TestDocLinkRules(t *testing.T) {
	repo := fstest.MapFS{}
	for name, data := range map[string]string{
		"README.md": "# Title\n\nSee [the guide](docs/guide.md), [its start](docs/guide.md#the-start-here),\n" +
			"[a missing page](docs/gone.md), [a missing\nanchor](docs/guide.md#nowhere), [here](#title),\n" +
			"[out](../elsewhere/DESIGN.md), `[code](#not-a-link)`, [web](https://example.com/x.md),\n" +
			"![picture](docs/pic.png), and DESIGN.md.\n\n```sh\n# not a heading\ncat docs/guide.md\n```\n",
		"docs/guide.md": "# The guide\n\n## The start (here)\n\n## `harness serve --addr`\n\n## Twice\n\n## Twice\n\n" +
			"Back to the [front page](../README.md#title) and [twice](#twice-1), [thrice](#twice-2),\n" +
			"[flag](#harness-serve---addr), [a file](../cmd/x.go#L3).\n",
		"docs/orphan.md": "# Orphan\n",
		"docs/pic.png":   "",
		"cmd/x.go":       "package x\n",
	} {
		repo[name] = &fstest.MapFile{Data: []byte(data)}
	}
	c := newLinkChecker(repo)
	got := append(c.check("README.md"), c.check("docs/guide.md")...)
	want := []string{
		`README.md:4: link "docs/gone.md": docs/gone.md is not in the repository`,
		`README.md:5: link "docs/guide.md#nowhere": docs/guide.md has no heading whose anchor is #nowhere`,
		`README.md:6: link "../elsewhere/DESIGN.md" leads out of the repository`,
		`README.md:7: names DESIGN.md, which is not a file of the repository`,
		`docs/guide.md:11: link "#twice-2": docs/guide.md has no heading whose anchor is #twice-2 (did you mean #twice?)`,
		`docs/guide.md:12: link "../cmd/x.go#L3": an #anchor into cmd/x.go, which is not Markdown, cannot be checked`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	reached := c.reachable("README.md")
	if !reached["docs/guide.md"] || reached["docs/orphan.md"] {
		t.Errorf("reachable from README.md: %v, want docs/guide.md and not docs/orphan.md", reached)
	}

	for heading, want := range map[string]string{
		"Quick start":                                  "quick-start",
		"harness schemas --openapi":                    "harness-schemas---openapi",
		"Proof that it works (`conformance/selftest`)": "proof-that-it-works-conformanceselftest",
		"Pagination of the four /api/v2 listings":      "pagination-of-the-four-apiv2-listings",
		"Faults, a live chain and the control API":     "faults-a-live-chain-and-the-control-api",
		"For a [client](x.md) developer":               "for-a-client-developer",
		"snake_case and Ünïcode":                       "snake_case-and-ünïcode",
	} {
		if got := githubAnchor(heading); got != want {
			t.Errorf("githubAnchor(%q) = %q, want %q", heading, got, want)
		}
	}
	if got := lineCount("a\nb\n"); got != 2 {
		t.Errorf("lineCount of two lines = %d", got)
	}
	if got := lineCount("a\nb"); got != 2 {
		t.Errorf("lineCount of two lines, the last without a newline = %d", got)
	}
}

// TestLicense: the repository's LICENSE is the Apache License 2.0, word
// for word (the text apache.org publishes, whose SHA-256 this is), and the
// README names it.
func TestLicense(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(moduleRoot, "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	const apache20 = "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != apache20 {
		t.Errorf("LICENSE (SHA-256 %x) is not the Apache License 2.0's text", sum)
	}
	readme, err := os.ReadFile(filepath.Join(moduleRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "Apache License 2.0: [LICENSE](LICENSE)") {
		t.Error("README.md does not name the license")
	}
}
