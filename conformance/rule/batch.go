package rule

import (
	"cmp"
	"net/http"
	"sync"

	"github.com/chaindata/harness/conformance/client"
	. "github.com/onsi/ginkgo/v2"
)

// Batch holds the requests of a group of rules that judge one answer each
// (the error rules of a listing). They are asked together, up to
// --concurrency at once, when the first of the rules runs, so that a
// deployment that answers slowly, or never, costs one request timeout
// per --concurrency requests, not one per rule. Only the requests of the
// rules the label filter selects are asked.
type Batch struct {
	items []*BatchItem
	// Asked is set once the batch's requests were asked.
	Asked bool
}

// BatchItem is one rule's request in a batch.
type BatchItem struct {
	// labels are the rule's labels, for the label filter.
	labels []string
	// prepare returns the request, or why the rule cannot make it (the
	// data lacks what it needs). It may ask requests of its own.
	prepare func() (client.Request, string)

	ex  *client.Exchange
	why string
}

// Add declares a rule's request. Call it where the rule is declared (in
// the rule's scope and area, with the rule's text and level), so that the
// item carries the rule's labels.
func (b *Batch) Add(text string, lvl Level, prepare func() (client.Request, string)) *BatchItem {
	it := &BatchItem{labels: ruleLabels(text, lvl), prepare: prepare}
	b.items = append(b.items, it)
	return it
}

// Answer returns a rule's answer, or why the rule could not ask its
// request. The first call asks the whole batch with the client.
func (b *Batch) Answer(c *client.Client, it *BatchItem) (*client.Exchange, string) {
	if !b.Asked {
		b.Asked = true
		b.Ask(c, GinkgoLabelFilter())
	}
	if it.ex == nil && it.why == "" {
		// Selected by more than the label filter: asked on its own.
		b.askOne(c, it)
		if it.ex != nil {
			c.Keep(it.ex)
		}
	}
	return it.ex, it.why
}

// Ask prepares and asks the requests of the items the filter selects, side
// by side, and keeps the answers in the order of the items.
func (b *Batch) Ask(c *client.Client, filter string) {
	var wg sync.WaitGroup
	for _, it := range b.items {
		if !Selected(it.labels, filter) {
			continue
		}
		wg.Go(func() { b.askOne(c, it) })
	}
	wg.Wait()
	for _, it := range b.items {
		if it.ex != nil {
			c.Keep(it.ex)
		}
	}
}

// askOne prepares and asks one item's request, without keeping the answer.
func (b *Batch) askOne(c *client.Client, it *BatchItem) {
	req, why := it.prepare()
	if why != "" {
		it.why = why
		return
	}
	it.ex = c.Fetch(cmp.Or(req.Method, http.MethodGet), req.Base, req.Path, req.Query)
}

// ruleLabels are the labels of a rule declared here with the text and
// level: its scope and area, its ID, and "strict" for a SHOULD rule.
func ruleLabels(text string, lvl Level) []string {
	id, ok := Registry().ByKey[Key(declaring.scope, declaring.area, text)]
	if !ok {
		id = Unassigned
	}
	labels := []string{declaring.scope, declaring.area, id}
	if lvl.Strict {
		labels = append(labels, StrictLabel)
	}
	return labels
}
