package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/chaindata/harness/generators/world"
)

// ErrMaxBlocks is returned when adding blocks would pass a chain's bound.
var ErrMaxBlocks = errors.New("the chain's block bound would be passed")

// Chain makes a Store grow as a live network does: each new block, made by a
// generated world's Growth, is appended at the newest end of every listing.
// The world after K new blocks depends on the seed and K alone, however the
// blocks came: one Advance of K, K ticks of a wall clock, or any mix. It is
// safe for concurrent use.
type Chain struct {
	store     *Store
	maxBlocks int

	mu     sync.Mutex
	growth *world.Growth
	// The wall clock, while Run runs: the chain should have ticked blocks
	// added by the clock since start.
	interval time.Duration
	start    time.Time
	ticked   int
}

// NewChain returns a chain growing store, which must hold the world w as
// built (New(w)) and nothing appended. maxBlocks bounds the blocks the
// chain adds (0: no bound).
func NewChain(store *Store, w *world.World, maxBlocks int) (*Chain, error) {
	g, err := w.Growth()
	if err != nil {
		return nil, fmt.Errorf("live chain: %w", err)
	}
	if maxBlocks < 0 {
		return nil, fmt.Errorf("live chain: max blocks %d is negative", maxBlocks)
	}
	store.mu.RLock()
	latest, grown := store.latestBlock, store.mark() != store.base
	store.mu.RUnlock()
	if latest != g.Height() || grown {
		return nil, fmt.Errorf("live chain: the store does not hold the world as built (latest block %d, the world's %d)", latest, g.Height())
	}
	return &Chain{store: store, growth: g, maxBlocks: maxBlocks}, nil
}

// Store returns the store the chain grows.
func (c *Chain) Store() *Store { return c.store }

// MaxBlocks returns the bound on the blocks added (0: none).
func (c *Chain) MaxBlocks() int { return c.maxBlocks }

// Added returns the number of blocks added since the start or the last
// Reset.
func (c *Chain) Added() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.growth.Added()
}

// Interval returns the wall clock's block interval while Run runs, else 0.
func (c *Chain) Interval() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.interval
}

// Advance adds n blocks, one after the other (readers may see the heights
// between). Passing the bound adds none and returns ErrMaxBlocks.
func (c *Chain) Advance(n int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.advance(n)
}

// AdvanceEpochs adds the blocks that start n more epochs (the last block
// added starts the n-th) and returns how many it added.
func (c *Chain) AdvanceEpochs(n int) (int, error) { return c.AdvanceEpochsAtMost(n, 0) }

// AdvanceEpochsAtMost is AdvanceEpochs adding at most limit blocks (0: no
// limit): when n epochs take more, it adds none and says so.
func (c *Chain) AdvanceEpochsAtMost(n, limit int) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	blocks, err := c.growth.BlocksForEpochs(n)
	if err != nil {
		return 0, fmt.Errorf("advance: %w", err)
	}
	if limit > 0 && blocks > limit {
		return 0, fmt.Errorf("advance %d epochs: %d blocks, more than %d at once", n, blocks, limit)
	}
	return blocks, c.advance(blocks)
}

func (c *Chain) advance(n int) error {
	if n < 1 {
		return fmt.Errorf("advance: %d blocks: want at least 1", n)
	}
	if added := c.growth.Added(); c.maxBlocks > 0 && n > c.maxBlocks-added {
		return fmt.Errorf("advance %d blocks: %w: %d of %d added", n, ErrMaxBlocks, added, c.maxBlocks)
	}
	for range n {
		b, err := c.growth.Next()
		if err != nil {
			return fmt.Errorf("advance: %w", err)
		}
		if err := c.store.Append(b); err != nil {
			return fmt.Errorf("advance: %w", err)
		}
	}
	return nil
}

// Reset goes back to the world at start: the blocks added are dropped, and
// a running wall clock starts again from now.
func (c *Chain) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.growth.Reset()
	c.store.Reset()
	c.ticked, c.start = 0, time.Now()
}

// Run adds a block every interval of the wall clock until ctx ends: the
// chain holds a block for every whole interval since genesis (a start in
// the future waits for it), catching up at once when it falls behind, so
// replicas started with the same seed and genesis serve the same world.
// Blocks added by Advance come on top. It returns ctx's error, or the error
// that stopped the growth.
func (c *Chain) Run(ctx context.Context, interval time.Duration, genesis time.Time) error {
	if interval <= 0 {
		return fmt.Errorf("live chain: block interval %v is not positive", interval)
	}
	c.mu.Lock()
	c.interval, c.start, c.ticked = interval, genesis, 0
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.interval = 0
		c.mu.Unlock()
	}()
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
		}
		next, err := c.tick(time.Now())
		if err != nil {
			return err
		}
		timer.Reset(time.Until(next))
	}
}

// tick adds the blocks the clock owes at now and returns when the next is
// due.
func (c *Chain) tick(now time.Time) (time.Time, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	due := int(now.Sub(c.start) / c.interval)
	n := due - c.ticked
	if c.maxBlocks > 0 {
		n = min(n, c.maxBlocks-c.growth.Added())
	}
	if n > 0 {
		if err := c.advance(n); err != nil {
			return time.Time{}, err
		}
	}
	c.ticked = max(c.ticked, due) // at the bound, the blocks not added are skipped
	return c.start.Add(time.Duration(c.ticked+1) * c.interval), nil
}
