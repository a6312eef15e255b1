package conformance

import (
	"bytes"
	"io"
	"regexp"
	"strings"
)

// ginkgoConsole is the writer Ginkgo's reporter prints to during a run. It
// passes everything on but the lines of Ginkgo's own header and final
// count: its random seed and its count of specs would stand beside the
// suite's seed and count of rules, which the summary gives, and disagree
// with them (Ginkgo counts a skipped rule as not run). The blank lines
// around a dropped line go with it.
//
// Progress (the dots of the rules as they end) is passed on as it comes:
// a partial line is held back only while it could still be the start of a
// dropped line.
type ginkgoConsole struct {
	out io.Writer
	// line holds a partial line held back; passing is set once the
	// current line is being passed on as it comes.
	line    []byte
	passing bool
	// blanks counts the blank lines held back: written before the next
	// line kept, dropped with the next line dropped.
	blanks int
}

// droppedLines are the starts of Ginkgo's lines the console drops, as
// printed without colour.
var droppedLines = []string{
	"Running Suite: ", "Random Seed: ", "Will run ", "Ran ", "SUCCESS! ", "FAIL! ", "=====",
}

func (c *ginkgoConsole) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i+1]
		}
		p = p[len(chunk):]
		if err := c.take(chunk); err != nil {
			return n - len(p) - len(chunk), err
		}
	}
	return n, nil
}

// take handles a piece of one line: all of it up to and with its newline,
// or the start of a line still to come.
func (c *ginkgoConsole) take(chunk []byte) error {
	ended := chunk[len(chunk)-1] == '\n'
	if c.passing {
		if ended {
			c.passing = false
		}
		return c.write(chunk)
	}
	c.line = append(c.line, chunk...)
	text := plain(c.line)
	if !ended {
		if mayBeDropped(text) {
			return nil
		}
		// Not a dropped line: pass it on now, and the rest as it comes.
		c.passing = true
		return c.flushLine()
	}
	switch {
	case strings.TrimSpace(text) == "":
		c.blanks++
		c.line = c.line[:0]
		return nil
	case isDropped(text):
		c.blanks = 0
		c.line = c.line[:0]
		return nil
	}
	return c.flushLine()
}

// flushLine writes the blank lines held back, then the line held back.
func (c *ginkgoConsole) flushLine() error {
	if err := c.write(bytes.Repeat([]byte{'\n'}, c.blanks)); err != nil {
		return err
	}
	c.blanks = 0
	err := c.write(c.line)
	c.line = c.line[:0]
	return err
}

// Flush writes what is held back: the blank lines and a partial line.
func (c *ginkgoConsole) Flush() error { return c.flushLine() }

func (c *ginkgoConsole) write(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	_, err := c.out.Write(b)
	return err
}

// plain is a line's text without its colour codes (and a code cut off at
// its end) and without the space and newline after it. Ginkgo writes the
// lines the console drops from their first column: an indented line is
// never one.
func plain(line []byte) string {
	text := ansiEscape.ReplaceAllString(string(line), "")
	text = partialEscape.ReplaceAllString(text, "")
	return strings.TrimRight(text, " \t\r\n")
}

// partialEscape is a colour code cut off at the end of a partial line.
var partialEscape = regexp.MustCompile("\x1b(\\[[0-9;]*)?$")

// isDropped reports whether a whole line is one of Ginkgo's the console
// drops.
func isDropped(text string) bool {
	for _, d := range droppedLines {
		if strings.HasPrefix(text, d) {
			return true
		}
	}
	return false
}

// mayBeDropped reports whether a partial line could still become a
// dropped line: it is blank, or a dropped line starts with it, or it
// starts with one (colour codes and all, a partial line may hold a whole
// start).
func mayBeDropped(text string) bool {
	if text == "" || isDropped(text) {
		return true
	}
	for _, d := range droppedLines {
		if strings.HasPrefix(d, text) {
			return true
		}
	}
	return false
}
