// Command harness is the chain data query API's mock and conformance harness:
// one binary that serves a mock of the API, generates fixture data, validates
// documents against the API's schemas and checks any implementation against
// the spec.
//
// Usage:
//
//	harness <command> [flags] [arguments]
//
// Run "harness help" for the list of commands.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/chaindata/harness/internal/suggest"
)

// command is one subcommand of the binary.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env *env, args []string) int
}

// env is what a subcommand may touch besides its arguments, so that tests can
// run subcommands in-process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// getenv reads an environment variable; nil means an empty
	// environment.
	getenv func(string) string
	// memAvailable returns the memory the process may still use (ok false
	// when unknown); nil reads the machine's (availableMemory).
	memAvailable func() (bytes uint64, ok bool)
	// setMemoryLimit sets the process's soft memory limit and returns the
	// previous one (runtime/debug.SetMemoryLimit); nil leaves it alone, as
	// the tests that run commands in their own process do.
	setMemoryLimit func(int64) int64
	// flagSet, when set, is given every flag set a command makes (see
	// newFlagSet): harness completion reads the commands' flags from it.
	flagSet func(*flag.FlagSet)
}

// lookupEnv returns the environment variable's value, "" when unset.
func (e *env) lookupEnv(name string) string {
	if e.getenv == nil {
		return ""
	}
	return e.getenv(name)
}

// Exit codes shared by every subcommand.
const (
	exitOK      = 0
	exitFailure = 1 // the command ran and found a problem (invalid data, failed rules)
	exitUsage   = 2 // the command line is wrong
)

func commands() []command {
	return []command{
		{"serve", "serve the mock API on a built-in or recorded dataset", runServe},
		{"generate", "write a generated world as fixture files", runGenerate},
		{"validate", "check JSON documents against a schema", runValidate},
		{"schemas", "list the schemas, print one or all in one document, or export OpenAPI", runSchemas},
		{"conform", "run the conformance suite against a base URL", runConform},
		{"report", "turn a conform run's JSON report into a CI job's summary and annotations", runReport},
		{"record", "record a live deployment's listings as fixtures", runRecord},
		{"proxy", "forward requests to a deployment and validate its responses", runProxy},
		{"version", "print the version of this binary", runVersion},
		{"completion", "print a shell completion script: bash, zsh or fish", runCompletion},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, setMemoryLimit: debug.SetMemoryLimit}, os.Args[1:])
	stop()
	os.Exit(code)
}

func run(ctx context.Context, e *env, args []string) int {
	if len(args) > 1 && args[0] == "help" && args[1] != "help" {
		// "harness help serve" is "harness serve --help".
		if _, ok := findCommand(args[1]); !ok {
			return unknownCommand(e.stderr, args[1])
		}
		return run(ctx, e, []string{args[1], "--help"})
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(e.stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	if args[0] == "--version" || args[0] == "-version" {
		return runVersion(ctx, e, args[1:])
	}
	if c, ok := findCommand(args[0]); ok {
		return c.run(ctx, e, args[1:])
	}
	return unknownCommand(e.stderr, args[0])
}

// findCommand returns the command of a name.
func findCommand(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// commandSynonyms are names people reach for (from other tools) and the
// command that does it.
var commandSynonyms = map[string]string{
	"server": "serve", "start": "serve", "run": "serve", "mock": "serve",
	"check": "validate", "lint": "validate",
	"test": "conform", "conformance": "conform", "suite": "conform",
	"schema": "schemas", "openapi": "schemas", "spec": "schemas",
	"fixtures": "generate", "forward": "proxy",
}

// unknownCommand says, in two lines, that name is no command, which one
// was probably meant, and where to see them all; it returns exitUsage.
func unknownCommand(w io.Writer, name string) int {
	if strings.HasPrefix(name, "-") {
		fmt.Fprintf(w, "harness: %s is not a command; flags come after the command, as in \"harness serve %s\"\n", name, name)
	} else {
		fmt.Fprintf(w, "harness: unknown command %q%s\n", name, suggest.Phrase(nearestCommands(name), func(s string) string { return s }))
	}
	fmt.Fprintln(w, `Run "harness help" to see all commands.`)
	return exitUsage
}

// nearestCommands returns the commands a mistyped name most likely meant:
// its synonym (commandSynonyms), else the nearest by edit distance.
func nearestCommands(name string) []string {
	if c, ok := commandSynonyms[strings.ToLower(name)]; ok {
		return []string{c}
	}
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return suggest.Nearest(name, names, 2)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "harness: mock server, fixture generator and conformance suite for the chain data query API")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: harness <command> [flags] [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run \"harness help <command>\" (or \"harness <command> -h\") for the flags of a command.")
}
