package conformance

import (
	"bytes"
	"strings"
	"testing"
)

// ginkgoOutput is what Ginkgo's default reporter prints for a run, as its
// writes come (one string per write), colour codes and all.
var ginkgoOutput = []string{
	"\x1b[1mRunning Suite: Chain data query API conformance - /src\x1b[0m\n",
	"=============================================================\n",
	"Random Seed: \x1b[1m1795853356\x1b[0m\n",
	"\n",
	"Will run \x1b[1m3\x1b[0m of \x1b[1m291\x1b[0m specs\n",
	"S", "S", "\x1b[38;5;10m•\x1b[0m", "\x1b[38;5;10m•\x1b[0m",
	"\n------------------------------\n",
	"\x1b[38;5;9m• [FAILED] [0.001 seconds]\x1b[0m\n",
	"Random rows are not a dropped line\n",
	"  Ran out of rows\n",
	"\n",
	"S", "\n",
	"\n",
	"\x1b[38;5;9m\x1b[1mSummarizing 1 Failure:\x1b[0m\n",
	"  [FAIL] games pagination [It] a rule\n",
	"\n",
	"\x1b[38;5;9m\x1b[1mRan 2 of 291 Specs in 0.206 seconds\x1b[0m\n",
	"\x1b[38;5;9m\x1b[1mFAIL!\x1b[0m -- ", "\x1b[38;5;10m\x1b[1m1 Passed\x1b[0m | ", "\x1b[38;5;9m\x1b[1m1 Failed\x1b[0m | ", "\x1b[38;5;14m\x1b[1m289 Skipped\x1b[0m\n",
}

// TestGinkgoConsole: Ginkgo's header and final count go, with the blank
// lines around them; everything else passes, whatever the writes' sizes.
func TestGinkgoConsole(t *testing.T) {
	want := "SS\x1b[38;5;10m•\x1b[0m\x1b[38;5;10m•\x1b[0m" +
		"\n------------------------------\n" +
		"\x1b[38;5;9m• [FAILED] [0.001 seconds]\x1b[0m\n" +
		"Random rows are not a dropped line\n" +
		"  Ran out of rows\n" +
		"\nS\n\n" +
		"\x1b[38;5;9m\x1b[1mSummarizing 1 Failure:\x1b[0m\n" +
		"  [FAIL] games pagination [It] a rule\n"
	whole := strings.Join(ginkgoOutput, "")
	splits := map[string][]string{
		"as Ginkgo writes": ginkgoOutput,
		"in one write":     {whole},
		"a byte at a time": strings.Split(whole, ""),
	}
	for name, writes := range splits {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			c := &ginkgoConsole{out: &out}
			for _, w := range writes {
				n, err := c.Write([]byte(w))
				if err != nil || n != len(w) {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			if err := c.Flush(); err != nil {
				t.Fatal(err)
			}
			if out.String() != want {
				t.Errorf("console wrote\n%q\nwant\n%q", out.String(), want)
			}
		})
	}
}

// TestGinkgoConsoleProgress: a line that cannot be dropped is passed on at
// once, before its newline, so that progress shows as it comes.
func TestGinkgoConsoleProgress(t *testing.T) {
	var out bytes.Buffer
	c := &ginkgoConsole{out: &out}
	steps := []struct{ write, shown string }{
		{"S", ""},             // could start "SUCCESS! "
		{"S", "SS"},           // cannot
		{"•", "SS•"},          // passed on as it comes
		{"\n", "SS•\n"},       // the line ends
		{"\n", "SS•\n"},       // a blank line waits for the next
		{"Ra", "SS•\n"},       // could start "Ran "
		{"n 3 of 4", "SS•\n"}, // it does
		{"\n", "SS•\n"},       // and goes, with the blank line before it
		{"x", "SS•\nx"},       // the next line is passed on
	}
	for i, s := range steps {
		c.Write([]byte(s.write))
		if out.String() != s.shown {
			t.Fatalf("after write %d (%q) the console shows %q, want %q", i, s.write, out.String(), s.shown)
		}
	}
	c.Write([]byte("\n\n"))
	c.Flush()
	if out.String() != "SS•\nx\n\n" {
		t.Errorf("Flush wrote %q, want the blank line held back", out.String())
	}
}

// failingWriter takes ok writes, then fails every write.
type failingWriter struct{ ok int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.ok == 0 {
		return 0, errBroken
	}
	w.ok--
	return len(p), nil
}

var errBroken = bytes.ErrTooLarge

// TestGinkgoConsoleWriteError: a failed write is returned, with the bytes
// taken before it.
func TestGinkgoConsoleWriteError(t *testing.T) {
	c := &ginkgoConsole{out: &failingWriter{}}
	if n, err := c.Write([]byte("kept line\n")); n != 0 || err != errBroken {
		t.Errorf("Write returned %d, %v; want 0 and the writer's error", n, err)
	}
	c = &ginkgoConsole{out: &failingWriter{ok: 2}} // the blank line, then the first line
	if n, err := c.Write([]byte("\nfirst\nsecond\nthird\n")); n != len("\nfirst\n") || err != errBroken {
		t.Errorf("Write returned %d, %v; want %d (the lines written) and the writer's error", n, err, len("\nfirst\n"))
	}
	c = &ginkgoConsole{out: &failingWriter{}}
	c.Write([]byte("\n"))
	if err := c.Flush(); err != errBroken {
		t.Errorf("Flush returned %v, want the writer's error", err)
	}
	c = &ginkgoConsole{out: &failingWriter{}}
	if err := c.Flush(); err != nil {
		t.Errorf("Flush with nothing held back wrote, and returned %v", err)
	}
}
