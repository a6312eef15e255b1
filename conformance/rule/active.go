package rule

import (
	"sync"

	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/config"
)

// active is the configuration the specs read. It is set before RunSpecs, by
// Run or by the go test entry point, with the run's traffic afresh.
var (
	activeMu sync.Mutex
	active   config.Config
)

// SetActive sets the configuration the specs read, with its defaults, and
// configures the run's traffic afresh.
func SetActive(cfg config.Config) {
	activeMu.Lock()
	defer activeMu.Unlock()
	active = cfg.WithDefaults()
	client.ConfigureTraffic(active)
}

// ActiveConfig is the configuration the specs read.
func ActiveConfig() config.Config {
	activeMu.Lock()
	defer activeMu.Unlock()
	return active
}
