package conformance

import (
	"testing"

	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/config"
)

// useTraffic configures the run's traffic for cfg and returns a client.
func useTraffic(t *testing.T, cfg config.Config) *client.Client {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	client.ConfigureTraffic(cfg)
	t.Cleanup(func() { client.ConfigureTraffic(config.Config{BaseURL: "http://127.0.0.1"}) })
	return client.NewClient(cfg)
}
