package world

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"

	"github.com/chaindata/harness/generators/internal/random"
	"github.com/chaindata/harness/generators/internal/walker"
	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/schemas"
)

// CommandTypes maps each command kind the generators make to the human name
// the block explorer gives it: the value of a transaction's type, which the
// cmdTypes and excludeCmdTypes filters match.
var CommandTypes = map[string]string{
	"amendAmm":                "Amend AMM",
	"announceNode":            "Register New Node",
	"applyReferralCode":       "Apply Referral Code",
	"batchMarketInstructions": "Batch Market Instructions",
	"batchProposalSubmission": "Batch Proposal",
	"orderSubmission":         "Submit Order",
	"orderAmendment":          "Amend Order",
	"orderCancellation":       "Cancel Order",
	"stopOrdersSubmission":    "Stop Orders Submission",
	"stopOrdersCancellation":  "Stop Orders Cancellation",
	"updateMarginMode":        "Update Margin Mode",
}

// commandWeights is how common each kind is on a busy network: mostly order
// flow, rarely governance or validator announcements.
var commandWeights = []struct {
	kind   string
	weight int
}{
	{"orderSubmission", 300},
	{"batchMarketInstructions", 180},
	{"orderCancellation", 130},
	{"orderAmendment", 120},
	{"stopOrdersSubmission", 60},
	{"amendAmm", 50},
	{"updateMarginMode", 40},
	{"applyReferralCode", 40},
	{"stopOrdersCancellation", 40},
	{"batchProposalSubmission", 15},
	{"announceNode", 5},
}

// commandWeightList holds the weights of commandWeights, in order.
var commandWeightList = func() []int {
	out := make([]int, len(commandWeights))
	for i, cw := range commandWeights {
		out[i] = cw.weight
	}
	return out
}()

// failures are result codes and errors of rejected transactions.
var failures = []struct {
	code int32
	err  string
}{
	{70, "insufficient funds to cover margin requirement"},
	{70, "order rejected: market is not active"},
	{89, "tx already exists in cache"},
	{60, "invalid command: market does not exist"},
	{70, "post only order would trade"},
}

const (
	// coveragePreludeMax bounds the first, sequential transactions made to
	// produce every enum value and command branch the schemas allow.
	coveragePreludeMax = 400
	failureRate        = 0.03
)

// placement is where a transaction sits in the chain.
type placement struct {
	block uint64
	index uint32
}

// placeTransactions spreads n transactions over the chain's blocks, one to
// seven per block, with gaps between blocks.
func (w *World) placeTransactions(n int) []placement {
	g := w.stream("tx-placement")
	out := make([]placement, 0, n)
	h := w.GenesisHeight
	for len(out) < n {
		remaining := n - len(out)
		blocksNeeded := uint64(remaining/4 + 1)
		room := (w.LatestBlock - h) / blocksNeeded
		h += uint64(g.Between(1, int64(max(1, 2*room-1))))
		h = min(h, w.LatestBlock)
		var index uint32
		if len(out) > 0 && out[len(out)-1].block == h {
			index = out[len(out)-1].index + 1
		}
		for k := int(g.Between(1, 7)); k > 0 && len(out) < n; k-- {
			out = append(out, placement{block: h, index: index})
			index++
		}
	}
	return out
}

// txPlan is what making any transaction of a world needs: where each sits,
// the coverage prelude (made in order, so kept), and the universe the
// values draw from. With it, transaction i can be made again at any time.
type txPlan struct {
	places  []placement
	prelude []records.Transaction
	u       *walker.Universe
	command *schemas.Node
	workers int
}

func (w *World) makeTransactions(s Sizes, opts Options) error {
	workers := opts.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	plan := &txPlan{
		places:  w.placeTransactions(s.Transactions),
		u:       w.universe(),
		command: schemas.MustLookup("Command"),
		workers: workers,
	}
	w.plan = plan

	// The oldest transactions cover every enum value and branch; they are
	// made in order, as each depends on what the previous ones produced.
	c := newTxMaker(plan.u)
	c.walker.Cover()
	for len(plan.prelude) < min(len(plan.places), coveragePreludeMax) && len(c.walker.Missing(plan.command)) > 0 {
		var t records.Transaction
		if err := w.makeTransaction(c, plan.command, plan.places[len(plan.prelude)], len(plan.prelude), &t); err != nil {
			return err
		}
		plan.prelude = append(plan.prelude, t)
	}
	if opts.Lazy {
		return nil
	}
	w.Transactions = make([]records.Transaction, 0, len(plan.places))
	done := 0
	return w.eachPlanned(context.Background(), false, false, func(t *records.Transaction) error {
		w.Transactions = append(w.Transactions, *t)
		done++
		if opts.Progress != nil && (done%4096 == 0 || done == len(plan.places)) {
			opts.Progress(done, len(plan.places))
		}
		return nil
	})
}

// TransactionCount returns the number of transactions in the world.
func (w *World) TransactionCount() int {
	if w.Transactions == nil && w.plan != nil {
		return len(w.plan.places)
	}
	return len(w.Transactions)
}

// EachTransaction calls fn with every transaction, oldest first or newest
// first. A lazy world makes them again, in parallel batches; fn is always
// called from one goroutine, in order. The *Transaction is valid only during
// the call unless the world holds its transactions.
func (w *World) EachTransaction(ctx context.Context, newestFirst bool, fn func(*records.Transaction) error) error {
	if w.Transactions != nil || w.plan == nil {
		n := len(w.Transactions)
		for k := 0; k < n; k++ {
			i := k
			if newestFirst {
				i = n - 1 - k
			}
			if k%4096 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			if err := fn(&w.Transactions[i]); err != nil {
				return err
			}
		}
		return nil
	}
	return w.eachPlanned(ctx, newestFirst, true, fn)
}

// eachPlanned makes every transaction of the plan in batches, each batch in
// parallel, and hands them to fn in order. The next batch is made while fn
// takes the one before, so a consumer that does work of its own (the mock's
// store copies each transaction) runs beside the workers, not between them.
//
// With transient, a transaction's JSON is valid only during fn's call (its
// memory is reused two batches later); without it, each keeps its own.
func (w *World) eachPlanned(ctx context.Context, newestFirst, transient bool, fn func(*records.Transaction) error) error {
	plan := w.plan
	total := len(plan.places)
	const chunk = 256
	size := plan.workers * chunk
	batches := [2][]records.Transaction{make([]records.Transaction, size), make([]records.Transaction, size)}
	// Each slot of a batch writes its transaction's JSON into a buffer of
	// its own, reused from batch to batch: fn has a transaction only during
	// its call, so none of it need outlive the batch.
	bufs := [2][][]byte{make([][]byte, size), make([][]byte, size)}
	ctxs := make([]*txMaker, plan.workers)
	for i := range ctxs {
		ctxs[i] = newTxMaker(plan.u)
	}
	// makeBatch starts making the transactions [done, done+n) into batch and
	// returns where to wait for them: the first error, or nil.
	makeBatch := func(batch []records.Transaction, slotBufs [][]byte, done, n int) <-chan error {
		// index returns the transaction number of batch slot k.
		index := func(k int) int {
			if newestFirst {
				return total - 1 - (done + k)
			}
			return done + k
		}
		var wg sync.WaitGroup
		errs := make([]error, plan.workers)
		for wk := 0; wk < plan.workers; wk++ {
			lo, hi := wk*chunk, min((wk+1)*chunk, n)
			if lo >= hi {
				break
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := lo; k < hi; k++ {
					i := index(k)
					if i < len(plan.prelude) {
						batch[k] = plan.prelude[i]
						continue
					}
					var buf []byte
					if transient {
						if slotBufs[k] == nil {
							slotBufs[k] = make([]byte, 0, 2048)
						}
						buf = slotBufs[k]
					}
					if err := w.makeTransactionInto(ctxs[wk], plan.command, plan.places[i], i, &batch[k], buf); err != nil {
						errs[wk] = err
						return
					}
					if transient {
						slotBufs[k] = batch[k].JSON // keeps what it grew to
					}
				}
			}()
		}
		ready := make(chan error, 1)
		go func() {
			wg.Wait()
			ready <- errors.Join(errs...)
		}()
		return ready
	}
	if total == 0 {
		return nil
	}
	n := min(size, total)
	ready := makeBatch(batches[0], bufs[0], 0, n)
	for done, cur := 0, 0; done < total; cur = 1 - cur {
		if err := <-ready; err != nil {
			return err
		}
		next := done + n
		var nextN int
		if next < total && ctx.Err() == nil {
			nextN = min(size, total-next)
			ready = makeBatch(batches[1-cur], bufs[1-cur], next, nextN)
		}
		err := ctx.Err()
		for k := 0; k < n && err == nil; k++ {
			err = fn(&batches[cur][k])
		}
		if err != nil {
			if nextN > 0 {
				<-ready // the workers write into batches until they finish
			}
			return err
		}
		done, n = next, nextN
	}
	return nil
}

// makeTransaction builds transaction i into t. Its content depends only on
// the world, i and, for the coverage prelude, the transactions before it.
func (w *World) makeTransaction(c *txMaker, command *schemas.Node, at placement, i int, t *records.Transaction) error {
	return w.makeTransactionInto(c, command, at, i, t, nil)
}

// makeTransactionInto builds transaction i into t, its JSON into buf when
// buf is not nil (a buffer the caller reuses: the JSON is then valid until
// it does), or else into memory of its own.
func (w *World) makeTransactionInto(c *txMaker, command *schemas.Node, at placement, i int, t *records.Transaction, buf []byte) error {
	// The previous transaction's values are encoded: their memory is
	// reused.
	c.walker.Start(random.Seed(w.Seed, "tx", uint64(i)), w.BlockTime(at.block))
	g := c.walker.Stream()
	kind := ""
	if !c.walker.Covering() {
		kind = commandWeights[g.Weighted(commandWeightList)].kind
	}
	cmd, err := c.walker.Object(command, kind)
	if err != nil {
		return fmt.Errorf("transaction %d: %w", i, err)
	}
	c.walker.Scan(command, &cmd)
	kind = commandKind(&cmd)
	cmd.Set("blockHeight", walker.Uint64Text(at.block-uint64(g.Between(0, int64(min(at.block-1, 5))))))

	submitter := random.Pick(g, w.Parties)
	if kind == "announceNode" {
		body, _ := cmd.Get("announceNode")
		pk, _ := body.Get("corePubKey")
		submitter = pk.Text()
	}
	code, errText := int32(0), ""
	if g.Chance(failureRate) {
		f := random.Pick(g, failures)
		code, errText = f.code, f.err
	}

	t.Block, t.Index, t.Type, t.Submitter, t.Code = at.block, at.index, CommandTypes[kind], submitter, code
	t.Receivers = receivers(&cmd)

	b := c.scratch[:0]
	b = append(b, `{"block":"`...)
	b = strconv.AppendUint(b, at.block, 10)
	b = append(b, `","index":`...)
	b = strconv.AppendUint(b, uint64(at.index), 10)
	b = append(b, `,"hash":"`...)
	b = g.AppendHex(b, 64, random.UpperHexDigits)
	b = append(b, `","submitter":"`...)
	b = append(b, submitter...)
	b = append(b, `","type":`...)
	b = records.AppendQuoted(b, t.Type)
	b = append(b, `,"code":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, `,"cursor":"`...)
	b = strconv.AppendUint(b, at.block, 10)
	b = append(b, '.')
	b = strconv.AppendUint(b, uint64(at.index), 10)
	b = append(b, `","command":`...)
	b = cmd.AppendJSON(b)
	b = append(b, `,"signature":{"value":"`...)
	b = g.AppendHex(b, 128, random.HexDigits)
	b = append(b, `","algo":"core/ed25519","version":1}`...)
	if code != 0 {
		b = append(b, `,"error":`...)
		b = records.AppendQuoted(b, errText)
	}
	b = append(b, `,"createdAt":"`...)
	b = w.BlockTime(at.block).AppendFormat(b, "2006-01-02T15:04:05Z07:00")
	b = append(b, `","version":"TX_VERSION_V3","pow":{"tid":"`...)
	b = g.AppendHex(b, 64, random.UpperHexDigits)
	b = append(b, `","nonce":"`...)
	b = strconv.AppendUint(b, g.Uint64()>>44, 10)
	b = append(b, `"}}`...)
	c.scratch = b
	if buf != nil {
		t.JSON = append(buf[:0], b...)
	} else {
		t.JSON = c.keep(b)
	}
	return nil
}

// commandKind returns the name of the command kind a command holds.
func commandKind(cmd *walker.Value) string {
	for i := range cmd.Len() {
		if name, _ := cmd.Field(i); CommandTypes[name] != "" {
			return name
		}
	}
	return ""
}

// receivers lists the parties a command names as receivers: destinations of
// governance transfers to a general account.
func receivers(cmd *walker.Value) []string {
	batch, ok := cmd.Get("batchProposalSubmission")
	if !ok {
		return nil
	}
	terms, ok := batch.Get("terms")
	if !ok {
		return nil
	}
	changes, ok := terms.Get("changes")
	if !ok {
		return nil
	}
	var out []string
	for i := range changes.Len() {
		_, change := changes.Field(i)
		nt, ok := change.Get("newTransfer")
		if !ok {
			continue
		}
		cfg, ok := nt.Get("changes")
		if !ok {
			continue
		}
		dt, okT := cfg.Get("destinationType")
		dst, okD := cfg.Get("destination")
		if okT && okD && dt.Text() == "ACCOUNT_TYPE_GENERAL" && dst.Text() != "" {
			out = append(out, dst.Text())
		}
	}
	return out
}

// txMaker makes transactions on one goroutine: the walker that makes
// their commands, and the buffers their JSON is encoded in.
type txMaker struct {
	walker  *walker.Walker
	scratch []byte // reused to encode a transaction
	kept    []byte // the block keep copies into
}

func newTxMaker(u *walker.Universe) *txMaker {
	return &txMaker{walker: walker.New(random.New(0), u)}
}

// keepBlock is the size of the blocks keep copies transactions' JSON into.
const keepBlock = 256 << 10

// keep returns a copy of b, of exactly its length, carved from a block that
// the next copies share: one allocation per block instead of one per
// transaction, and no spare capacity kept with each. A block stays in
// memory while any copy in it does.
func (c *txMaker) keep(b []byte) []byte {
	if len(b) > cap(c.kept)-len(c.kept) {
		if len(b) > keepBlock/4 {
			return append(make([]byte, 0, len(b)), b...)
		}
		c.kept = make([]byte, 0, keepBlock)
	}
	lo := len(c.kept)
	c.kept = append(c.kept, b...)
	return c.kept[lo:len(c.kept):len(c.kept)]
}

// mustEnum returns the values of an enum definition.
func mustEnum(name string) []string {
	n := schemas.MustLookup(name)
	out := make([]string, len(n.Enum))
	for i, v := range n.Enum {
		out[i], _ = v.(string)
	}
	return out
}
