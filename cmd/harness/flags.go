package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/chaindata/harness/internal/suggest"
)

// newFlagSet returns a flag set that reports errors instead of exiting, with
// a usage line naming the subcommand.
func newFlagSet(e *env, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet("harness "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: harness %s %s\n\nFlags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	if e.flagSet != nil {
		e.flagSet(fs)
	}
	return fs
}

// parseFlags parses args and turns the outcome into an exit code: -1 to go
// on, exitOK after -h (the usage printed), exitUsage after a bad flag. A
// bad flag gets two lines, in our words (flagMistake), not the flag
// package's message and the whole usage.
func parseFlags(fs *flag.FlagSet, args []string) int {
	out := fs.Output()
	fs.SetOutput(io.Discard) // the flag package's message and usage
	err := fs.Parse(args)
	fs.SetOutput(out)
	switch {
	case err == nil:
		return -1
	case errors.Is(err, flag.ErrHelp):
		fs.Usage()
		return exitOK
	}
	fmt.Fprintf(out, "%s: %s\n", fs.Name(), flagMistake(fs, err))
	fmt.Fprintf(out, "Run \"%s -h\" to see all flags.\n", fs.Name())
	return exitUsage
}

// usageError prints a message about a bad command line and returns exitUsage.
func usageError(w io.Writer, fs *flag.FlagSet, format string, a ...any) int {
	fmt.Fprintf(w, "%s: %s\n", fs.Name(), fmt.Sprintf(format, a...))
	fmt.Fprintf(w, "Run \"%s -h\" for usage.\n", fs.Name())
	return exitUsage
}

// The flag package's errors, which carry only their text. Their forms have
// not changed since Go 1; TestFlagMistakes holds them to these patterns.
var (
	undefinedFlagRE = regexp.MustCompile(`^flag provided but not defined: -(.*)$`)
	missingValueRE  = regexp.MustCompile(`^flag needs an argument: -(.*)$`)
	invalidValueRE  = regexp.MustCompile(`^invalid (?:boolean )?value (".*") for (?:flag )?-([^:]*): (.*)$`)
)

// flagMistake says in our words what is wrong with a flag fs.Parse refused:
// an unknown flag with the nearest known ones, a flag without its value, or
// a value of the wrong kind. Other errors keep the flag package's text.
func flagMistake(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	if m := undefinedFlagRE.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("unknown flag %s%s", dashed(m[1]), suggest.Phrase(nearestFlags(fs, m[1]), dashed))
	}
	if m := missingValueRE.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s needs a value", dashed(m[1]))
	}
	if m := invalidValueRE.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s: %s", dashed(m[2]), invalidValue(fs.Lookup(m[2]), m[1], m[3]))
	}
	return msg
}

// dashed writes a flag's name as the docs do: -v for one letter,
// --addr for more.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// invalidValue says why a flag refused a value (quoted): for the flag
// package's own kinds, what kind of value the flag wants; for the others,
// the reason their Set gave.
func invalidValue(f *flag.Flag, quoted, reason string) string {
	switch {
	case reason == "value out of range":
		return quoted + " is out of range"
	case strings.Contains(reason, quoted):
		return reason // a Set of ours, which names the value itself
	case reason != "parse error" || f == nil:
		return fmt.Sprintf("invalid value %s: %s", quoted, reason)
	}
	getter, ok := f.Value.(flag.Getter)
	if !ok {
		return fmt.Sprintf("invalid value %s", quoted)
	}
	switch getter.Get().(type) {
	case bool:
		return quoted + " is not true or false"
	case int, int64, uint, uint64:
		return quoted + " is not a whole number"
	case float64:
		return quoted + " is not a number"
	case time.Duration:
		return quoted + " is not a duration (such as 500ms, 2s or 1m30s)"
	}
	return fmt.Sprintf("invalid value %s", quoted)
}

// flagSynonyms are names people reach for (from other tools, or another of
// our commands) and the flags that mean the same; nearestFlags offers those
// the flag set has.
var flagSynonyms = map[string][]string{
	"port":     {"addr", "listen"},
	"host":     {"addr", "listen"},
	"bind":     {"addr", "listen"},
	"address":  {"addr", "listen"},
	"listen":   {"addr"},
	"addr":     {"listen"},
	"url":      {"base-url", "from", "upstream"},
	"target":   {"base-url", "upstream", "from"},
	"base-url": {"from", "upstream"},
	"from":     {"base-url", "upstream"},
	"upstream": {"base-url", "from"},
	"output":   {"out"},
	"o":        {"out"},
	"dir":      {"out", "data"},
	"fixtures": {"data"},
	"verbose":  {"v"},
	"report":   {"html-report", "json-report", "junit"},
}

// nearestFlags returns the flags of fs a mistyped name most likely meant:
// its synonyms (flagSynonyms), else the nearest flags by edit distance,
// else the synonyms of the nearest name flagSynonyms knows ("prot" is near
// "port", whose synonym is --addr); nil when none is near.
func nearestFlags(fs *flag.FlagSet, name string) []string {
	if s := synonymFlag(fs, strings.ToLower(name)); s != "" {
		return []string{s}
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if near := suggest.Nearest(name, names, 2); near != nil {
		return near
	}
	for _, word := range suggest.Nearest(name, slices.Sorted(maps.Keys(flagSynonyms)), 3) {
		if s := synonymFlag(fs, word); s != "" {
			return []string{s}
		}
	}
	return nil
}

// synonymFlag returns the first synonym of word (flagSynonyms) that fs
// has, "" when it has none.
func synonymFlag(fs *flag.FlagSet, word string) string {
	for _, s := range flagSynonyms[word] {
		if fs.Lookup(s) != nil {
			return s
		}
	}
	return ""
}
