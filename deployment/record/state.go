package record

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/chaindata/harness/generators/fixtures"
)

// StateFile is the name of the resume state in the output directory. It
// exists only while a recording is unfinished.
const StateFile = ".record-state.json"

// stateVersion is the format of the state file.
const stateVersion = 1

// state is what a recording needs to continue after an interruption.
type state struct {
	Version         int                      `json:"version"`
	Source          string                   `json:"source"`
	TransactionsURL string                   `json:"transactionsUrl"`
	Listings        map[string]*listingState `json:"listings"`
	// LatestBlock and LatestBlockTime are the newest block seen in the
	// X-Block-Height and X-Block-Timestamp headers.
	LatestBlock     uint64    `json:"latestBlock,string"`
	LatestBlockTime time.Time `json:"latestBlockTime"`
	// Violations counts the violations found by earlier runs.
	Violations int `json:"violations"`
}

// listingState is the progress of one listing.
type listingState struct {
	Done bool `json:"done"`
	// Truncated is set when MaxPages stopped the listing before its end.
	Truncated bool `json:"truncated,omitempty"`
	// PageSize is the count asked per page; it is halved when the
	// deployment refuses it.
	PageSize int `json:"pageSize"`
	// Cursor is where the next page starts: the after cursor of a paged
	// listing within the current window, the before cursor of the
	// transactions; "" for the first page.
	Cursor string `json:"cursor"`
	Pages  int    `json:"pages"`
	Rows   int    `json:"rows"`
	// Skipped counts rows left out (not parseable, out of order).
	Skipped int `json:"skipped,omitempty"`
	// Size is the length of the listing's file that holds Rows rows; a
	// resumed run cuts the file back to it.
	Size int64 `json:"size"`
	// Last is the key of the last row written, for the order check.
	Last *rowKey `json:"last,omitempty"`

	// Games only: the epoch window walked. Window 0 is the server's default
	// window (the latest epochs); window k > 0 is [WindowTo-29, WindowTo].
	Window       int    `json:"window,omitempty"`
	WindowTo     uint64 `json:"windowTo,string,omitempty"`
	WindowRows   int    `json:"windowRows,omitempty"`
	EmptyWindows int    `json:"emptyWindows,omitempty"`
	// MinEpoch and MaxEpoch are the oldest and newest epochs seen; valid
	// when Rows > 0.
	MinEpoch uint64 `json:"minEpoch,string,omitempty"`
	MaxEpoch uint64 `json:"maxEpoch,string,omitempty"`
}

// rowKey is a row's position in its listing. Every listing's order, as
// walked, is Num descending, then Sub descending, then Str ascending: games
// (epoch, -, ID), snapshots (height), key rotations (height, -, node ID),
// network parameters (-, -, key), transactions (block, index).
type rowKey struct {
	Num uint64 `json:"num,string,omitempty"`
	Sub uint64 `json:"sub,omitempty"`
	Str string `json:"str,omitempty"`
}

// follows reports whether k comes strictly after prev in walk order.
func (k rowKey) follows(prev rowKey) bool {
	if k.Num != prev.Num {
		return k.Num < prev.Num
	}
	if k.Sub != prev.Sub {
		return k.Sub < prev.Sub
	}
	return k.Str > prev.Str
}

// loadState reads the state file of dir; it returns nil, nil when there is
// none.
func loadState(dir string) (*state, error) {
	data, err := os.ReadFile(filepath.Join(dir, StateFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read state: %w", err)
	}
	var st state
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("read state %s: %w", filepath.Join(dir, StateFile), err)
	}
	if st.Version != stateVersion {
		return nil, fmt.Errorf("read state %s: version %d, want %d", filepath.Join(dir, StateFile), st.Version, stateVersion)
	}
	for name, ls := range st.Listings {
		if ls == nil {
			return nil, fmt.Errorf("read state %s: listing %s has no state", filepath.Join(dir, StateFile), name)
		}
	}
	return &st, nil
}

// save replaces the state file atomically.
func (st *state) save(dir string) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("encode state: %w", err)
	}
	if err := fixtures.WriteFileAtomic(filepath.Join(dir, StateFile), append(data, '\n')); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	return nil
}
