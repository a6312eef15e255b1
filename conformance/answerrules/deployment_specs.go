package answerrules

import (
	"net/http"
	"strings"

	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/rule"
)

// DeploymentRules are the rules on the deployment as a whole (see
// conformance's declareSuite).
func DeploymentRules() {
	rule.Area("limits", func() {
		rule.Define(rule.RateLimitRuleText, rule.Must("1", "The service answers HTTP GET requests and returns JSON bodies."), func() {
			t := client.CurrentTraffic()
			v := rule.NewVerdict("every request answered, at the latest after the retries a 429 or 503 allows (Retry-After honoured, --retries times)")
			v.Judged(t.Requests)
			v.NoneBecause("the run made no request (the label filter selected no listing's rules)")
			if t.Refused > 0 {
				var names []string
				for _, h := range rule.ActiveConfig().Headers {
					name, _, _ := strings.Cut(h, ":")
					names = append(names, strings.TrimSpace(name))
				}
				var asked []string
				for _, u := range t.RefusedURLs {
					asked = append(asked, (&client.Exchange{Method: http.MethodGet, URL: u, Headers: names}).Curl())
				}
				v.Add(nil, "%d of %d requests were still refused after every retry (%d retries in all, %s of waiting); rules that needed them were skipped. The first refused:\n    %s\n  Lower --rate, or raise --retries, or ask the deployment's operator for a higher limit.",
					t.Refused, t.Requests, t.Retries, t.RetryWait, strings.Join(asked, "\n    "))
			}
			v.Check()
		})
	})
}
