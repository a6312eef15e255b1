package conformance

import (
	"flag"
	"os"
	"testing"

	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/config"
	"github.com/chaindata/harness/conformance/rule"
	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
)

// suiteFlags are the suite's flags under go test:
//
//	go test ./conformance -args --base-url=http://127.0.0.1:8080 [--ginkgo.label-filter='!strict']
var suiteFlags config.Config

// ginkgoFlags is Ginkgo's configuration as the command line gave it, taken
// before any test of the package runs: TestRuleCatalogue previews the
// suite with a configuration of its own, and the suite must run with the
// user's (label filter, focus, reports).
var ginkgoFlags struct {
	suite    types.SuiteConfig
	reporter types.ReporterConfig
}

func init() {
	// The environment first (HARNESS_BASE_URL, ...), so that the flags
	// parsed later win over it.
	if err := suiteFlags.ApplyEnv(os.Getenv); err != nil {
		panic(err)
	}
	config.RegisterFlags(flag.CommandLine, &suiteFlags)
}

func TestMain(m *testing.M) {
	flag.Parse()
	ginkgoFlags.suite, ginkgoFlags.reporter = GinkgoConfiguration()
	os.Exit(m.Run())
}

// TestConformance runs the suite against --base-url. Without it the suite is
// skipped, so that go test ./... needs no deployment. Every Ginkgo flag
// given (--ginkgo.label-filter, --ginkgo.focus, --ginkgo.junit-report,
// --ginkgo.json-report, ...) applies. As with harness conform, a preflight
// first checks that the URLs answer (the test fails with its one line
// when they do not), and --run-timeout bounds the run.
func TestConformance(t *testing.T) {
	if suiteFlags.BaseURL == "" {
		t.Skip("conformance suite skipped: no deployment given; run go test ./conformance -args --base-url=URL")
	}
	if err := suiteFlags.Validate(); err != nil {
		t.Fatal(err)
	}
	rules, err := Rules()
	if err != nil {
		t.Fatal(err)
	}
	setActiveConfig(suiteFlags, ginkgoFlags.suite.LabelFilter)
	defer client.Current().Stop()
	if err := preflight(suiteFlags, transactionsSelected(rules, ginkgoFlags.suite.LabelFilter)); err != nil {
		t.Fatal(err)
	}
	RegisterFailHandler(rule.FailRule)
	suiteMu.Lock()
	defer suiteMu.Unlock()
	resetSuite() // a test before may have run the suite (Run)
	RunSpecs(t, rule.SuiteDescription, ginkgoFlags.suite, ginkgoFlags.reporter)
}
