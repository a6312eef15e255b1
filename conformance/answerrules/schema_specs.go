package answerrules

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"github.com/chaindata/harness/conformance/client"
	"github.com/chaindata/harness/conformance/rule"
	"github.com/chaindata/harness/schemas"
)

// maxViolations is how many schema violations a message lists per body.
const maxViolations = 8

// SchemaRules registers the rules on the wire shape of every answer a
// container received from its listing's path. They run last in their
// ordered container so that they see every answer its other rules fetched.
// The MUST rules judge the spec profile of the schemas (only what the spec
// states); a SHOULD rule judges the reference profile (the shape the real
// network writes). blockHeaders adds the rules on the X-Block-* headers, and
// newestBlock, when set, gives the newest row's block to compare them with.
func SchemaRules(schemaName, path string, cite rule.Level, c func() *client.Client, blockHeaders bool, newestBlock func() (uint64, *client.Exchange, bool)) {
	answers := func() []*client.Exchange {
		var out []*client.Exchange
		for _, ex := range c().Exchanges() {
			// A request the deployment kept refusing (429/503) says nothing
			// of the listing's shape; the rate-limit rule reports it.
			if ex.Path == path && !ex.Refused {
				out = append(out, ex)
			}
		}
		return out
	}
	rule.Define("answers with Content-Type application/json", rule.CiteJSON, func() {
		v := rule.NewVerdict("a Content-Type of application/json on every answer")
		for _, ex := range answers() {
			v.Judged(1)
			if ct := ex.ContentType(); ct != "application/json" {
				v.Add(ex, "Content-Type is %q", ex.Header.Get("Content-Type"))
				if len(v.Problems) >= rule.MaxProblems {
					break
				}
			}
		}
		v.Check()
	})

	if blockHeaders {
		rule.Define("answers carry the newest block's X-Block-Height and X-Block-Timestamp headers", rule.Should, func() {
			v := rule.NewVerdict("X-Block-Height and X-Block-Timestamp (Unix nanoseconds) headers of digits on every 200 answer")
			digits := regexp.MustCompile(`^[0-9]+$`)
			for _, ex := range answers() {
				if ex.Status != 200 {
					continue
				}
				v.Judged(1)
				h, ts := ex.Header.Get("X-Block-Height"), ex.Header.Get("X-Block-Timestamp")
				if !digits.MatchString(h) || !digits.MatchString(ts) {
					v.Add(ex, "X-Block-Height is %q and X-Block-Timestamp is %q", h, ts)
					break
				}
			}
			v.Check()
		})
	}
	if blockHeaders && newestBlock != nil {
		rule.Define("X-Block-Height is never below the block of the newest row the listing has shown", rule.Should, func() {
			v := rule.NewVerdict("X-Block-Height at or above the newest row's block: the header names the newest block the data comes from")
			newest, seenIn, ok := newestBlock()
			if !ok {
				rule.Skipf("the listing showed no row with a readable block height")
			}
			started := false
			for _, ex := range answers() {
				started = started || ex.Same(seenIn)
				if !started || ex.Status != 200 {
					continue
				}
				h, err := strconv.ParseUint(ex.Header.Get("X-Block-Height"), 10, 64)
				if err != nil {
					continue // the header rule above reports it
				}
				v.Judged(1)
				if h < newest {
					v.Add(ex, "X-Block-Height is %d, but the listing already showed a row of block %d (in the answer below)", h, newest)
					v.Add(seenIn, "the answer with the row of block %d:", newest)
					break
				}
			}
			v.NoneBecause("no answer after the newest row was seen carried a readable X-Block-Height")
			v.Check()
		})
	}

	rule.Define(fmt.Sprintf("every 200 body validates against the %s schema (spec profile: the spec's fields, types and enums)", schemaName), cite, func() {
		validator := mustValidator(schemaName, schemas.Spec)
		v := rule.NewVerdict("every 200 body to match the %s schema, spec profile (schemas/; only what the spec states; JSON paths below)", schemaName)
		ValidateAll(v, validator, answers(), func(ex *client.Exchange) bool { return ex.Status == 200 })
		v.Check()
	})

	rule.Define(fmt.Sprintf("every 200 body has the reference shape of %s: every field the real network writes, no unknown field", schemaName), rule.Should, func() {
		validator := mustValidator(schemaName, schemas.Reference)
		v := rule.NewVerdict("every 200 body to match the %s schema, reference profile (the exact shape the real network writes)", schemaName)
		ValidateAll(v, validator, answers(), func(ex *client.Exchange) bool { return ex.Status == 200 })
		v.Check()
	})

	rule.Define("every error body validates against the Error schema", rule.CiteErrorBody, func() {
		validator := mustValidator("Error", schemas.Spec)
		v := rule.NewVerdict("every non-200 body to be the error body {code, message, details[]} of the Error schema")
		v.NoneBecause("the deployment refused nothing the suite asked of this listing")
		ValidateAll(v, validator, answers(), func(ex *client.Exchange) bool { return ex.Status != 200 })
		v.Check()
	})
}

func mustValidator(name string, p schemas.Profile) *schemas.Validator {
	GinkgoHelper()
	validator, err := schemas.LoadProfile(name, p)
	if err != nil {
		rule.FailRule(fmt.Sprintf("load schema %s (%s profile): %v", name, p, err))
	}
	return validator
}

// ValidateAll validates the bodies of the selected exchanges, each distinct
// body once, on every CPU. Answers kept without their body (past the bytes
// a run keeps) are not judged.
func ValidateAll(v *rule.Verdict, validator *schemas.Validator, exs []*client.Exchange, selected func(*client.Exchange) bool) {
	seen := map[[32]byte]bool{}
	var todo []*client.Exchange
	unkept := 0
	for _, ex := range exs {
		if !selected(ex) {
			continue
		}
		if ex.Unkept {
			unkept++
			continue
		}
		v.Judged(1)
		h := sha256.Sum256(ex.Body)
		if seen[h] {
			continue
		}
		seen[h] = true
		todo = append(todo, ex)
	}
	if unkept > 0 {
		v.NoneBecause("the run kept no body of the %d answers it would judge: it keeps %d MiB of bodies in all", unkept, client.MaxKeptBodies>>20)
	}
	bodies := make([][]byte, len(todo))
	for i, ex := range todo {
		bodies[i] = ex.Body
	}
	// On every core, each result at its body's index: the problems are
	// reported in the order of the exchanges.
	errs := validator.ValidateEach(bodies)
	for i, err := range errs {
		if err == nil {
			continue
		}
		v.Add(todo[i], "the body does not match %s:\n%s", validator.Name(), violations(err))
		if len(v.Problems) >= rule.MaxProblems {
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
