package selftest

import (
	"context"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/chaindata/harness/conformance"
)

// TestDocumentedGoTestCommands runs the suite the two other ways the README
// shows, go test and the ginkgo command line, against the mock, and checks
// that Ginkgo's own flags are honoured: the label filter selects exactly
// its rules, and the JUnit report is written where it was asked for.
func TestDocumentedGoTestCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: each command compiles the conformance package")
	}
	srv := server(t, defect{})
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	rules, err := conformance.Rules()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		filter string
		args   func(junit string) []string
	}{
		{"go test", "games && epochs", func(junit string) []string {
			return []string{"test", "-count=1", "./conformance", "-args", "--base-url=" + srv.URL,
				"--ginkgo.label-filter=games && epochs", "--ginkgo.junit-report=" + junit}
		}},
		{"ginkgo", "snapshots", func(junit string) []string {
			return []string{"run", "github.com/onsi/ginkgo/v2/ginkgo", "--label-filter=snapshots", "--junit-report=" + junit,
				"./conformance", "--", "--base-url=" + srv.URL}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			filter, err := types.ParseLabelFilter(tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			for _, r := range rules {
				if filter(r.Labels) {
					want++
				}
			}
			junit := filepath.Join(t.TempDir(), "conformance.xml")
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, goTool, tc.args(junit)...)
			cmd.Dir = filepath.Join("..", "..")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, tail(string(out)))
			}
			data, err := os.ReadFile(junit)
			if err != nil {
				t.Fatalf("the JUnit report was not written where asked: %v\n%s", err, tail(string(out)))
			}
			var doc struct {
				Suites []struct {
					Cases []struct {
						Name    string    `xml:"name,attr"`
						Skipped *struct{} `xml:"skipped"`
						Failure *struct{} `xml:"failure"`
					} `xml:"testcase"`
				} `xml:"testsuite"`
			}
			if err := xml.Unmarshal(data, &doc); err != nil {
				t.Fatalf("the JUnit report is not XML: %v", err)
			}
			ran, failed := 0, 0
			var names []string
			for _, s := range doc.Suites {
				for _, c := range s.Cases {
					if c.Skipped == nil && strings.HasPrefix(c.Name, "[It]") {
						ran++
						names = append(names, c.Name)
					}
					if c.Failure != nil {
						failed++
					}
				}
			}
			if ran != want {
				t.Errorf("%d rules ran, want the %d the label filter %q selects:\n%s", ran, want, tc.filter, strings.Join(names, "\n"))
			}
			if failed != 0 || !slices.ContainsFunc(names, func(n string) bool { return strings.Contains(n, "-") }) {
				t.Errorf("%d rules failed against the clean mock, or no case names a rule ID", failed)
			}
		})
	}
}
