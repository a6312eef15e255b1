package model

import (
	"net/http"
	"net/url"
	"sync"
	"time"
)

// Answer is one answer of a run as the observer reads it: the request
// asked of a listing and what came back.
type Answer struct {
	// Listing is the listing asked; URL the whole URL, Query its query.
	Listing Listing
	URL     string
	Query   url.Values
	// Status, Header and Body are the answer's.
	Status int
	Header http.Header
	Body   []byte
	// Sent and Received are when the request went and the whole answer
	// came back: an answer was asked after another came back when its Sent
	// is after the other's Received.
	Sent, Received time.Time
}

// AnswerCheck judges every answer the observer reads, with its page
// decoded: the relations the spec fixes inside a record and between
// records (Relations implements it). CheckObserved is called from many
// goroutines at once.
type AnswerCheck interface {
	CheckObserved(a *Answer, p *Page)
}

// Observer reads every answer of a run once, whatever asked it: it decodes
// each 200 answer of a listing, remembers each row's content (a row served
// with other content than before is a Rewrite), tracks each listing's head
// (an answer from an older head than one seen before is an OlderHead), and
// hands each row to the relation checks. It is safe for concurrent use.
type Observer struct {
	relations AnswerCheck

	mu    sync.Mutex
	lists [len(listingInfo)]*observed
	// urls names the answers findings point to, by index.
	urls []string
	// kept is the bytes of records kept for showing what differs, at most
	// keepLimit.
	kept, keepLimit int
}

// ObserverOptions configure an Observer.
type ObserverOptions struct {
	// Relations, when set, judges every answer (the call point of the
	// relation checks).
	Relations AnswerCheck
	// KeepBytes bounds the bytes of records the observer keeps to show
	// what differs when a row comes back with other content; past it, it
	// keeps digests only. Zero means 16 MiB.
	KeepBytes int
}

// defaultKeepBytes is ObserverOptions.KeepBytes's default.
const defaultKeepBytes = 16 << 20

// NewObserver returns an observer that has seen nothing.
func NewObserver(opt ObserverOptions) *Observer {
	o := &Observer{relations: opt.Relations, keepLimit: opt.KeepBytes}
	if o.keepLimit <= 0 {
		o.keepLimit = defaultKeepBytes
	}
	for i := range o.lists {
		o.lists[i] = newObserved()
	}
	return o
}

// observed is what the observer holds of one listing.
type observed struct {
	answers int // 200 answers read
	memory  map[Key]*remembered
	// rewrites are the rows served with other content than before (at most
	// maxFindings), more how many more there were; compared counts the rows
	// served again.
	rewrites       []Rewrite
	moreRewrites   int
	compared       int
	heads, heights track
	// cursors finds the primary key of a row seen, by its cursor.
	cursors map[string]uint64
}

func newObserved() *observed {
	return &observed{memory: map[Key]*remembered{}, cursors: map[string]uint64{}}
}

// maxFindings bounds the findings of each kind kept per listing.
const maxFindings = 20

// Observe reads one answer: for a 200 answer of a listing it returns the
// page decoded (or why it cannot be read), having remembered its rows,
// tracked its head and handed its rows to the relation checks. It returns
// nil, nil for any other answer.
func (o *Observer) Observe(a *Answer) (*Page, error) {
	if a.Status != http.StatusOK || int(a.Listing) >= len(o.lists) {
		return nil, nil
	}
	p, err := Decode(a.Listing, a.Status, a.Body)
	if err != nil {
		return nil, err
	}
	o.remember(a, p)
	o.checkRelations(a, p)
	return p, nil
}

// checkRelations is the call point of the relation checks: the answer
// and its page.
func (o *Observer) checkRelations(a *Answer, p *Page) {
	if o.relations != nil {
		o.relations.CheckObserved(a, p)
	}
}

// remember takes an answer's rows into the memory and its head into the
// listing's track.
func (o *Observer) remember(a *Answer, p *Page) {
	o.mu.Lock()
	defer o.mu.Unlock()
	ob := o.lists[a.Listing]
	ob.answers++
	ref, named := 0, false
	name := func() int {
		if !named {
			ref, named = len(o.urls), true
			o.urls = append(o.urls, a.URL)
		}
		return ref
	}
	whole := unfiltered(a)
	for i, r := range p.Rows {
		if r.Digest != 0 {
			o.rememberRow(ob, r, p.Node(i), whole, name)
		}
		if r.Cursor != "" {
			ob.cursors[r.Cursor] = r.Key.Num
		}
	}
	o.trackHead(ob, a, p, name)
}
