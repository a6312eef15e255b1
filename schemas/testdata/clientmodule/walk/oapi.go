package main

import (
	"context"
	"fmt"
	"net/http"
	"reflect"

	"harnessclients/jsondiff"
	"harnessclients/oapiclient"
)

// walkOapi walks every listing with the client oapi-codegen generates
// (-generate types,client): each response's JSON200 is the page decoded
// into the generated types, Body the bytes it was decoded from.
func walkOapi(ctx context.Context, baseURL string, o options) (map[string]int, error) {
	c, err := oapiclient.NewClientWithResponses(baseURL)
	if err != nil {
		return nil, fmt.Errorf("new client: %w", err)
	}
	first := int32(o.pageSize)
	counts := map[string]int{}

	counts["games"], err = walkGames(ctx, o,
		func(ctx context.Context) (string, bool, error) {
			r, err := c.GetGamesWithResponse(ctx, &oapiclient.GetGamesParams{PaginationFirst: &first})
			if err := oapiPage(r, err); err != nil {
				return "", false, err
			}
			if edges := r.JSON200.Games.Edges; len(edges) > 0 {
				return edges[0].Node.Epoch, true, nil
			}
			return "", false, nil
		},
		func(from, to uint64) fetchFunc {
			epochFrom, epochTo := fmt.Sprint(from), fmt.Sprint(to)
			return func(ctx context.Context, cursor string) (page, error) {
				r, err := c.GetGamesWithResponse(ctx, &oapiclient.GetGamesParams{
					EpochFrom: &epochFrom, EpochTo: &epochTo, PaginationFirst: &first, PaginationAfter: after(cursor),
				})
				if err := oapiPage(r, err); err != nil {
					return page{}, err
				}
				g := r.JSON200.Games
				return page{len(g.Edges), g.PageInfo.HasNextPage, g.PageInfo.EndCursor}, nil
			}
		})
	if err != nil {
		return nil, fmt.Errorf("games: %w", err)
	}

	counts["snapshots"], err = walkPages(ctx, o, func(ctx context.Context, cursor string) (page, error) {
		r, err := c.GetCoreSnapshotsWithResponse(ctx, &oapiclient.GetCoreSnapshotsParams{PaginationFirst: &first, PaginationAfter: after(cursor)})
		if err := oapiPage(r, err); err != nil {
			return page{}, err
		}
		s := r.JSON200.CoreSnapshots
		return page{len(s.Edges), s.PageInfo.HasNextPage, s.PageInfo.EndCursor}, nil
	})
	if err != nil {
		return nil, fmt.Errorf("snapshots: %w", err)
	}

	counts["keyrotations"], err = walkPages(ctx, o, func(ctx context.Context, cursor string) (page, error) {
		r, err := c.GetEthereumKeyRotationsWithResponse(ctx, &oapiclient.GetEthereumKeyRotationsParams{PaginationFirst: &first, PaginationAfter: after(cursor)})
		if err := oapiPage(r, err); err != nil {
			return page{}, err
		}
		k := r.JSON200.KeyRotations
		return page{len(k.Edges), k.PageInfo.HasNextPage, k.PageInfo.EndCursor}, nil
	})
	if err != nil {
		return nil, fmt.Errorf("key rotations: %w", err)
	}

	counts["networkparameters"], err = walkPages(ctx, o, func(ctx context.Context, cursor string) (page, error) {
		r, err := c.GetNetworkParametersWithResponse(ctx, &oapiclient.GetNetworkParametersParams{PaginationFirst: &first, PaginationAfter: after(cursor)})
		if err := oapiPage(r, err); err != nil {
			return page{}, err
		}
		n := r.JSON200.NetworkParameters
		return page{len(n.Edges), n.PageInfo.HasNextPage, n.PageInfo.EndCursor}, nil
	})
	if err != nil {
		return nil, fmt.Errorf("network parameters: %w", err)
	}

	// Transactions: the newest page with first, then older pages with last
	// and before (the oldest cursor so far), until a page comes back short.
	count := int64(o.pageSize)
	counts["transactions"], err = walkPages(ctx, o, func(ctx context.Context, cursor string) (page, error) {
		params := &oapiclient.GetTransactionsParams{First: &count}
		if cursor != "" {
			params = &oapiclient.GetTransactionsParams{Last: &count, Before: &cursor}
		}
		r, err := c.GetTransactionsWithResponse(ctx, params)
		if err := oapiPage(r, err); err != nil {
			return page{}, err
		}
		txs := r.JSON200.Transactions
		if len(txs) < o.pageSize {
			return page{rows: len(txs)}, nil
		}
		return page{len(txs), true, txs[len(txs)-1].Cursor}, nil
	})
	if err != nil {
		return nil, fmt.Errorf("transactions: %w", err)
	}
	return counts, nil
}

// oapiResponse is what every generated ...Response wrapper has: its status
// and body; its JSON200 is the body decoded.
type oapiResponse interface {
	StatusCode() int
}

// oapiPage turns a failed call, a status other than 200, or a page that does
// not encode back to the body it was decoded from, into an error.
func oapiPage(r oapiResponse, err error) error {
	if err != nil {
		return err
	}
	var wire []byte
	var decoded any
	switch x := r.(type) {
	case *oapiclient.GetGamesResponse:
		wire, decoded = x.Body, x.JSON200
	case *oapiclient.GetCoreSnapshotsResponse:
		wire, decoded = x.Body, x.JSON200
	case *oapiclient.GetEthereumKeyRotationsResponse:
		wire, decoded = x.Body, x.JSON200
	case *oapiclient.GetNetworkParametersResponse:
		wire, decoded = x.Body, x.JSON200
	case *oapiclient.GetTransactionsResponse:
		wire, decoded = x.Body, x.JSON200
	default:
		return fmt.Errorf("unexpected response type %T", r)
	}
	if r.StatusCode() != http.StatusOK || reflect.ValueOf(decoded).IsNil() {
		return fmt.Errorf("status %d: %.200s", r.StatusCode(), wire)
	}
	return jsondiff.Same(wire, decoded)
}

// after is the pagination.after of a cursor, nil for the first page.
func after(cursor string) *string {
	if cursor == "" {
		return nil
	}
	return &cursor
}
