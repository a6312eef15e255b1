package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"

	"harnessclients/jsondiff"
	"harnessclients/ogenclient"
)

// walkOgen walks every listing with the client ogen generates. ogen's
// client hands back only the decoded page, so a recorder keeps the body it
// was decoded from.
func walkOgen(ctx context.Context, baseURL string, o options) (map[string]int, error) {
	rec := &recorder{base: http.DefaultTransport}
	c, err := ogenclient.NewClient(baseURL, ogenclient.WithClient(&http.Client{Transport: rec}))
	if err != nil {
		return nil, fmt.Errorf("new client: %w", err)
	}
	first := ogenclient.NewOptInt32(int32(o.pageSize))
	counts := map[string]int{}

	counts["games"], err = walkGames(ctx, o,
		func(ctx context.Context) (string, bool, error) {
			res, err := c.GetGames(ctx, ogenclient.GetGamesParams{PaginationFirst: first})
			p, err := ogenPage[*ogenclient.ListGamesResponseHeaders](rec, res, err)
			if err != nil {
				return "", false, err
			}
			if edges := p.Response.Games.Edges; len(edges) > 0 {
				return string(edges[0].Node.Epoch), true, nil
			}
			return "", false, nil
		},
		func(from, to uint64) fetchFunc {
			return func(ctx context.Context, cursor string) (page, error) {
				res, err := c.GetGames(ctx, ogenclient.GetGamesParams{
					EpochFrom: ogenclient.NewOptStringUint64(from), EpochTo: ogenclient.NewOptStringUint64(to),
					PaginationFirst: first, PaginationAfter: optCursor(cursor),
				})
				p, err := ogenPage[*ogenclient.ListGamesResponseHeaders](rec, res, err)
				if err != nil {
					return page{}, err
				}
				g := p.Response.Games
				return page{len(g.Edges), g.PageInfo.HasNextPage, g.PageInfo.EndCursor}, nil
			}
		})
	if err != nil {
		return nil, fmt.Errorf("games: %w", err)
	}

	counts["snapshots"], err = walkPages(ctx, o, func(ctx context.Context, cursor string) (page, error) {
		res, err := c.GetCoreSnapshots(ctx, ogenclient.GetCoreSnapshotsParams{PaginationFirst: first, PaginationAfter: optCursor(cursor)})
		p, err := ogenPage[*ogenclient.ListCoreSnapshotsResponseHeaders](rec, res, err)
		if err != nil {
			return page{}, err
		}
		s := p.Response.CoreSnapshots
		return page{len(s.Edges), s.PageInfo.HasNextPage, s.PageInfo.EndCursor}, nil
	})
	if err != nil {
		return nil, fmt.Errorf("snapshots: %w", err)
	}

	counts["keyrotations"], err = walkPages(ctx, o, func(ctx context.Context, cursor string) (page, error) {
		res, err := c.GetEthereumKeyRotations(ctx, ogenclient.GetEthereumKeyRotationsParams{PaginationFirst: first, PaginationAfter: optCursor(cursor)})
		p, err := ogenPage[*ogenclient.ListEthereumKeyRotationsResponseHeaders](rec, res, err)
		if err != nil {
			return page{}, err
		}
		k := p.Response.KeyRotations
		return page{len(k.Edges), k.PageInfo.HasNextPage, k.PageInfo.EndCursor}, nil
	})
	if err != nil {
		return nil, fmt.Errorf("key rotations: %w", err)
	}

	counts["networkparameters"], err = walkPages(ctx, o, func(ctx context.Context, cursor string) (page, error) {
		res, err := c.GetNetworkParameters(ctx, ogenclient.GetNetworkParametersParams{PaginationFirst: first, PaginationAfter: optCursor(cursor)})
		p, err := ogenPage[*ogenclient.ListNetworkParametersResponseHeaders](rec, res, err)
		if err != nil {
			return page{}, err
		}
		n := p.Response.NetworkParameters
		return page{len(n.Edges), n.PageInfo.HasNextPage, n.PageInfo.EndCursor}, nil
	})
	if err != nil {
		return nil, fmt.Errorf("network parameters: %w", err)
	}

	// Transactions: the newest page with first, then older pages with last
	// and before (the oldest cursor so far), until a page comes back short.
	count := int64(o.pageSize)
	counts["transactions"], err = walkPages(ctx, o, func(ctx context.Context, cursor string) (page, error) {
		params := ogenclient.GetTransactionsParams{First: ogenclient.NewOptInt64(count)}
		if cursor != "" {
			params = ogenclient.GetTransactionsParams{Last: ogenclient.NewOptInt64(count), Before: ogenclient.NewOptString(cursor)}
		}
		res, err := c.GetTransactions(ctx, params)
		p, err := ogenPage[*ogenclient.ListTransactionsResponse](rec, res, err)
		if err != nil {
			return page{}, err
		}
		txs := p.Transactions
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

// ogenPage returns the decoded page when the call succeeded with a 200,
// and checks that the page encodes back to the body it was decoded from.
func ogenPage[P any](rec *recorder, res any, err error) (P, error) {
	var zero P
	if err != nil {
		return zero, err
	}
	p, ok := res.(P)
	if !ok {
		return zero, fmt.Errorf("answer %T, want %T: %.200s", res, zero, rec.last)
	}
	return p, jsondiff.Same(rec.last, ogenBody(p))
}

// ogenBody is the part of a decoded answer that is the body: ogen wraps a
// body that comes with response headers in a ...Headers type.
func ogenBody(answer any) any {
	switch h := answer.(type) {
	case *ogenclient.ListGamesResponseHeaders:
		return &h.Response
	case *ogenclient.ListCoreSnapshotsResponseHeaders:
		return &h.Response
	case *ogenclient.ListEthereumKeyRotationsResponseHeaders:
		return &h.Response
	case *ogenclient.ListNetworkParametersResponseHeaders:
		return &h.Response
	}
	return answer
}

// recorder keeps the body of the last response it carried.
type recorder struct {
	base http.RoundTripper
	last []byte
}

// RoundTrip reads the whole body, keeps it, and hands on a copy.
func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("read the body: %w", err)
	}
	r.last = body
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// optCursor is the pagination.after of a cursor, unset for the first page.
func optCursor(cursor string) ogenclient.OptString {
	if cursor == "" {
		return ogenclient.OptString{}
	}
	return ogenclient.NewOptString(cursor)
}
