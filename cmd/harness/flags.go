package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
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
	return fs
}

// parseFlags parses args and turns the outcome into an exit code: -1 to go
// on, exitOK after -h, exitUsage after a bad flag.
func parseFlags(fs *flag.FlagSet, args []string) int {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return -1
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	default:
		return exitUsage
	}
}

// usageError prints a message about a bad command line and returns exitUsage.
func usageError(w io.Writer, fs *flag.FlagSet, format string, a ...any) int {
	fmt.Fprintf(w, "%s: %s\n", fs.Name(), fmt.Sprintf(format, a...))
	fmt.Fprintf(w, "Run \"%s -h\" for usage.\n", fs.Name())
	return exitUsage
}
