package generators

import (
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

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
	var h uint64
	for len(out) < n {
		remaining := n - len(out)
		blocksNeeded := uint64(remaining/4 + 1)
		room := (w.LatestBlock - h) / blocksNeeded
		h += uint64(g.between(1, int64(max(1, 2*room-1))))
		h = min(h, w.LatestBlock)
		var index uint32
		if len(out) > 0 && out[len(out)-1].block == h {
			index = out[len(out)-1].index + 1
		}
		for k := int(g.between(1, 7)); k > 0 && len(out) < n; k-- {
			out = append(out, placement{block: h, index: index})
			index++
		}
	}
	return out
}

func (w *World) makeTransactions(s Sizes, opts Options) error {
	places := w.placeTransactions(s.Transactions)
	w.Transactions = make([]Transaction, len(places))
	u := w.universe()
	command := schemas.MustLookup("Command")
	total := len(places)
	var done atomic.Int64
	report := func() {
		if opts.Progress != nil {
			opts.Progress(int(done.Load()), total)
		}
	}

	// The oldest transactions cover every enum value and branch; they are
	// made in order, as each depends on what the previous ones produced.
	cov := newCoverage()
	c := newGenContext(newRNG(0), u)
	c.cov = cov
	prelude := 0
	for prelude < min(total, coveragePreludeMax) && len(cov.missing(command)) > 0 {
		if err := w.makeTransaction(c, command, places[prelude], prelude); err != nil {
			return err
		}
		prelude++
		done.Add(1)
	}
	report()

	workers := opts.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var (
		wg       sync.WaitGroup
		next     atomic.Int64
		firstErr error
		errOnce  sync.Once
	)
	next.Store(int64(prelude))
	const chunk = 256
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := newGenContext(newRNG(0), u)
			for {
				start := int(next.Add(chunk)) - chunk
				if start >= total {
					return
				}
				for i := start; i < min(start+chunk, total); i++ {
					if err := w.makeTransaction(c, command, places[i], i); err != nil {
						errOnce.Do(func() { firstErr = err })
						return
					}
				}
				done.Add(int64(min(start+chunk, total) - start))
				report()
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// makeTransaction builds transaction i in place. Its content depends only on
// the world, i and, for the coverage prelude, the transactions before it.
func (w *World) makeTransaction(c *genContext, command *schemas.Node, at placement, i int) error {
	c.g.reseed(deriveSeed(w.Seed, "tx", uint64(i)))
	c.now = w.BlockTime(at.block)
	g := c.g
	kind := ""
	if c.cov == nil {
		kind = commandWeights[g.weighted(commandWeightList)].kind
	}
	cmd, err := c.genObject(command, kind)
	if err != nil {
		return fmt.Errorf("transaction %d: %w", i, err)
	}
	if c.cov != nil {
		c.cov.scan(command, &cmd)
	}
	kind = commandKind(&cmd)
	cmd.set("blockHeight", u64str(at.block-uint64(g.between(0, int64(min(at.block-1, 5))))))

	submitter := pick(g, w.Parties)
	if kind == "announceNode" {
		body, _ := cmd.get("announceNode")
		pk, _ := body.get("corePubKey")
		submitter = pk.text
	}
	code, errText := int32(0), ""
	if g.chance(failureRate) {
		f := pick(g, failures)
		code, errText = f.code, f.err
	}

	t := &w.Transactions[i]
	t.Block, t.Index, t.Type, t.Submitter, t.Code = at.block, at.index, CommandTypes[kind], submitter, code
	t.Receivers = receivers(&cmd)

	b := make([]byte, 0, 1024)
	b = append(b, `{"block":"`...)
	b = strconv.AppendUint(b, at.block, 10)
	b = append(b, `","index":`...)
	b = strconv.AppendUint(b, uint64(at.index), 10)
	b = append(b, `,"hash":"`...)
	b = g.appendHex(b, 64, upperHexDigits)
	b = append(b, `","submitter":"`...)
	b = append(b, submitter...)
	b = append(b, `","type":`...)
	b = appendQuoted(b, t.Type)
	b = append(b, `,"code":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, `,"cursor":"`...)
	b = strconv.AppendUint(b, at.block, 10)
	b = append(b, '.')
	b = strconv.AppendUint(b, uint64(at.index), 10)
	b = append(b, `","command":`...)
	b = cmd.appendJSON(b)
	b = append(b, `,"signature":{"value":"`...)
	b = g.appendHex(b, 128, hexDigits)
	b = append(b, `","algo":"core/ed25519","version":1}`...)
	if code != 0 {
		b = append(b, `,"error":`...)
		b = appendQuoted(b, errText)
	}
	b = append(b, `,"createdAt":"`...)
	b = w.BlockTime(at.block).AppendFormat(b, "2006-01-02T15:04:05Z07:00")
	b = append(b, `","version":"TX_VERSION_V3","pow":{"tid":"`...)
	b = g.appendHex(b, 64, upperHexDigits)
	b = append(b, `","nonce":"`...)
	b = strconv.AppendUint(b, g.src.Uint64()>>44, 10)
	b = append(b, `"}}`...)
	t.JSON = b
	return nil
}

// commandKind returns the name of the command kind a command holds.
func commandKind(cmd *value) string {
	for _, f := range cmd.obj {
		if _, ok := CommandTypes[f.name]; ok {
			return f.name
		}
	}
	return ""
}

// receivers lists the parties a command names as receivers: destinations of
// governance transfers to a general account.
func receivers(cmd *value) []string {
	batch, ok := cmd.get("batchProposalSubmission")
	if !ok {
		return nil
	}
	terms, ok := batch.get("terms")
	if !ok {
		return nil
	}
	changes, ok := terms.get("changes")
	if !ok {
		return nil
	}
	var out []string
	for i := range changes.arr {
		nt, ok := changes.arr[i].get("newTransfer")
		if !ok {
			continue
		}
		cfg, ok := nt.get("changes")
		if !ok {
			continue
		}
		dt, okT := cfg.get("destinationType")
		dst, okD := cfg.get("destination")
		if okT && okD && dt.text == "ACCOUNT_TYPE_GENERAL" && dst.text != "" {
			out = append(out, dst.text)
		}
	}
	return out
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
