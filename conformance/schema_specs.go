package conformance

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"

	"github.com/chaindata/harness/schemas"
)

// maxViolations is how many schema violations a message lists per body.
const maxViolations = 8

// schemaRules registers the rules on the wire shape of every answer a
// container received from its listing's path. They run last in their
// ordered container so that they see every answer its other rules fetched.
func schemaRules(schemaName, path string, c func() *client, blockHeaders bool) {
	answers := func() []*exchange {
		var out []*exchange
		for _, ex := range c().exchanges() {
			if ex.path == path {
				out = append(out, ex)
			}
		}
		return out
	}
	It("answers with Content-Type application/json", func() {
		v := newVerdict("a Content-Type of application/json on every answer")
		for _, ex := range answers() {
			if ct := ex.contentType(); ct != "application/json" {
				v.add(ex, "Content-Type is %q", ex.header.Get("Content-Type"))
				if len(v.problems) >= maxProblems {
					break
				}
			}
		}
		v.check()
	})

	if blockHeaders {
		It("answers carry the newest block's X-Block-Height and X-Block-Timestamp headers", Label("strict"), func() {
			v := newVerdict("X-Block-Height and X-Block-Timestamp (Unix nanoseconds) headers of digits on every 200 answer")
			digits := regexp.MustCompile(`^[0-9]+$`)
			for _, ex := range answers() {
				if ex.status != 200 {
					continue
				}
				h, ts := ex.header.Get("X-Block-Height"), ex.header.Get("X-Block-Timestamp")
				if !digits.MatchString(h) || !digits.MatchString(ts) {
					v.add(ex, "X-Block-Height is %q and X-Block-Timestamp is %q", h, ts)
					break
				}
			}
			v.check()
		})
	}

	It(fmt.Sprintf("every 200 body validates against the %s schema", schemaName), func() {
		validator := mustValidator(schemaName)
		v := newVerdict("every 200 body to match the %s schema (schemas/, JSON paths below)", schemaName)
		validateAll(v, validator, answers(), func(ex *exchange) bool { return ex.status == 200 })
		v.check()
	})

	It("every error body validates against the Error schema", func() {
		validator := mustValidator("Error")
		v := newVerdict("every non-200 body to be the error body {code, message, details[]} of the Error schema")
		validateAll(v, validator, answers(), func(ex *exchange) bool { return ex.status != 200 })
		v.check()
	})
}

func mustValidator(name string) *schemas.Validator {
	GinkgoHelper()
	validator, err := schemas.Load(name)
	if err != nil {
		Fail(fmt.Sprintf("load schema %s: %v", name, err))
	}
	return validator
}

// validateAll validates the bodies of the selected exchanges, each distinct
// body once, on every CPU.
func validateAll(v *verdict, validator *schemas.Validator, exs []*exchange, selected func(*exchange) bool) {
	seen := map[[32]byte]bool{}
	var todo []*exchange
	for _, ex := range exs {
		if !selected(ex) {
			continue
		}
		h := sha256.Sum256(ex.body)
		if seen[h] {
			continue
		}
		seen[h] = true
		todo = append(todo, ex)
	}
	errs := make([]error, len(todo))
	var wg sync.WaitGroup
	next := make(chan int)
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = validator.Validate(todo[i].body)
			}
		}()
	}
	for i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err == nil {
			continue
		}
		v.add(todo[i], "the body does not match %s:\n%s", validator.Name(), violations(err))
		if len(v.problems) >= maxProblems {
			return
		}
	}
}

// violations lists a validation error's violations, one per line, each with
// its JSON path.
func violations(err error) string {
	var verr *schemas.ValidationError
	if !errors.As(err, &verr) {
		return "    " + err.Error()
	}
	var lines []string
	for i, viol := range verr.Violations {
		if i == maxViolations {
			lines = append(lines, fmt.Sprintf("    ... and %d more", len(verr.Violations)-maxViolations))
			break
		}
		lines = append(lines, "    "+viol.String())
	}
	return strings.Join(lines, "\n")
}
