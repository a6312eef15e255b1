package conformance

import (
	"github.com/chaindata/harness/conformance/client"
	"net/http"
	"strings"
)

// rateLimitRuleText is the text of the rule that reports requests the
// deployment kept refusing; rules that needed them are skipped, not failed.
const rateLimitRuleText = "the deployment answers within its rate limit: no request is still refused (429 or 503) after the retries"

// deploymentRules are the rules on the deployment as a whole (see
// declareSuite).
func deploymentRules() {
	area("limits", func() {
		rule(rateLimitRuleText, must("1", "The service answers HTTP GET requests and returns JSON bodies."), func() {
			t := client.CurrentTraffic()
			v := newVerdict("every request answered, at the latest after the retries a 429 or 503 allows (Retry-After honoured, --retries times)")
			v.judged(t.Requests)
			v.noneBecause("the run made no request (the label filter selected no listing's rules)")
			if t.Refused > 0 {
				var names []string
				for _, h := range activeConfig().Headers {
					name, _, _ := strings.Cut(h, ":")
					names = append(names, strings.TrimSpace(name))
				}
				var asked []string
				for _, u := range t.RefusedURLs {
					asked = append(asked, (&client.Exchange{Method: http.MethodGet, URL: u, Headers: names}).Curl())
				}
				v.add(nil, "%d of %d requests were still refused after every retry (%d retries in all, %s of waiting); rules that needed them were skipped. The first refused:\n    %s\n  Lower --rate, or raise --retries, or ask the deployment's operator for a higher limit.",
					t.Refused, t.Requests, t.Retries, t.RetryWait, strings.Join(asked, "\n    "))
			}
			v.check()
		})
	})
}
