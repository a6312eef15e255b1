package conformance

import (
	"flag"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// suiteFlags are the suite's flags under go test:
//
//	go test ./conformance -args --base-url=http://127.0.0.1:8080 [--ginkgo.label-filter='!strict']
var suiteFlags Config

func init() {
	RegisterFlags(flag.CommandLine, &suiteFlags)
}

// TestConformance runs the suite against --base-url. Without it the suite is
// skipped, so that go test ./... needs no deployment.
func TestConformance(t *testing.T) {
	if suiteFlags.BaseURL == "" {
		t.Skip("conformance suite skipped: no deployment given; run go test ./conformance -args --base-url=URL")
	}
	if err := suiteFlags.Validate(); err != nil {
		t.Fatal(err)
	}
	setActiveConfig(suiteFlags)
	RegisterFailHandler(Fail)
	RunSpecs(t, SuiteDescription)
}
