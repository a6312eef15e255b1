package modelrules

import (
	"testing"

	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/config"
	"github.com/chaindata/harness/conformance/model"
	"github.com/chaindata/harness/conformance/rule"
)

// TestGrowthWalksArePerRun: a run's growth rules judge the walks of that
// run, never those a run before started against another deployment.
func TestGrowthWalksArePerRun(t *testing.T) {
	growth.mu.Lock()
	growth.started = true
	growth.walks = map[model.Listing]*growthResult{model.Games: {done: make(chan struct{})}}
	growth.mu.Unlock()
	rule.SetActive(config.Config{BaseURL: "http://127.0.0.1:1"}) // as a run sets it (setActiveConfig)
	ResetGrowth()
	defer client.Current().Stop()
	if r := growthWalkOf(model.Games); r != nil || growth.started {
		t.Errorf("a new run keeps the growth walks of the run before: started %v, games walk %v", growth.started, r)
	}
}
