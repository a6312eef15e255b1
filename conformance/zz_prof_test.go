package conformance

import (
	"io"
	"os"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/chaindata/harness/conformance/config"
)

func TestZZProf(t *testing.T) {
	u := os.Getenv("PROF_URL")
	if u == "" {
		t.Skip()
	}
	f, _ := os.Create(os.Getenv("PROF_OUT"))
	pprof.StartCPUProfile(f)
	s, err := Run(config.Config{BaseURL: u, GrowthWait: 100 * time.Millisecond}, RunOptions{Output: io.Discard, LabelFilter: os.Getenv("PROF_FILTER")})
	pprof.StopCPUProfile()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("passed %v, requests %d, %s", s.Passed(), s.Traffic.Requests, s.Duration)
}
