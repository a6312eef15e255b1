package warnings

import (
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/chaindata/harness/generators/records"
)

// queryCases are queries whose parse QueryBuffer must make as
// url.ParseQuery does: the common ones, a repeated key (whose values must
// not run into the next key's), escapes good and bad, empty pairs, a
// semicolon, and more parameters than the buffer keeps a map for.
var queryCases = []string{
	"",
	"pagination.first=100",
	"first=50&cmdTypes=Batch+Proposal",
	"a=1&b=2&a=3&c=4&a=5",
	"a=1&b=2&b=3&c=4",
	"a&b=&=c&&=",
	"key%20one=v%2Fx&plus+key=a+b",
	"a=%zz&b=1",
	"%zz=1&b=2",
	"a=1&b=%",
	"a=1;b=2&c=3",
	"x=1&" + strings.Repeat("k=v&", maxReusedParams) + "y=2",
	strings.Repeat("k=v&", maxReusedParams-2) + "k=w",
	"é=ü&%C3%A9=%C3%BC",
}

// TestQueryBufferParsesAsParseQuery checks each case's values and error
// against url.ParseQuery's, parsed one after another into one buffer, so
// that what a query leaves in the buffer cannot show in the next; then
// again in reverse order.
func TestQueryBufferParsesAsParseQuery(t *testing.T) {
	var buf QueryBuffer
	check := func(raw string) {
		t.Helper()
		want, wantErr := url.ParseQuery(raw)
		got, err := buf.Parse(raw)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Errorf("Parse(%q): error %v, want %v", raw, err, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Parse(%q) = %v, want %v", raw, got, want)
		}
	}
	for _, raw := range queryCases {
		check(raw)
	}
	for i := len(queryCases) - 1; i >= 0; i-- {
		check(queryCases[i])
	}
}

// TestQueryBufferKeepsItsMap checks that a common query is parsed into the
// buffer's own map, with no allocation once the buffer has grown, and that
// a query of more parameters or bytes, or with a semicolon, gets a map of
// its own.
func TestQueryBufferKeepsItsMap(t *testing.T) {
	var buf QueryBuffer
	first, _ := buf.Parse("a=1&b=2")
	second, _ := buf.Parse("c=3")
	if reflect.ValueOf(first).UnsafePointer() != reflect.ValueOf(second).UnsafePointer() {
		t.Error("two common queries were parsed into two maps")
	}
	if len(second) != 1 || second.Get("c") != "3" {
		t.Errorf("the second query parsed to %v, want c=3 alone", second)
	}
	long := "a=" + strings.Repeat("x", maxReusedBytes-2)
	if got, _ := buf.Parse(long); reflect.ValueOf(got).UnsafePointer() != reflect.ValueOf(first).UnsafePointer() {
		t.Errorf("a query of %d bytes was not parsed into the buffer's map", len(long))
	}
	for _, raw := range []string{strings.Repeat("k=v&", maxReusedParams) + "k=v", "a=1;b=2", long + "x"} {
		other, _ := buf.Parse(raw)
		if reflect.ValueOf(other).UnsafePointer() == reflect.ValueOf(first).UnsafePointer() {
			t.Errorf("Parse(%.40q…) used the buffer's map", raw)
		}
	}
	allocs := testing.AllocsPerRun(100, func() { buf.Parse("first=50&cmdTypes=Batch&pagination.after=abc") })
	if allocs != 0 {
		t.Errorf("a common query took %v allocations, want 0", allocs)
	}
}

// FuzzQueryBuffer checks any query against url.ParseQuery, parsed after
// another into the same buffer.
func FuzzQueryBuffer(f *testing.F) {
	for _, raw := range queryCases {
		f.Add(raw, "a=1&a=2&b=3")
	}
	f.Fuzz(func(t *testing.T, before, raw string) {
		var buf QueryBuffer
		buf.Parse(before)
		want, wantErr := url.ParseQuery(raw)
		got, err := buf.Parse(raw)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
			t.Errorf("Parse(%q) after %q = %v, %v; url.ParseQuery: %v, %v", raw, before, got, err, want, wantErr)
		}
	})
}

// TestOfCommonQueriesAllocate checks the findings of the queries most
// requests send, which draw none, are found with no allocation once the
// buffer has grown: the query parsed into it, no finding made, no number
// parsed from an absent value. A value with a '+' takes its unescaped copy.
func TestOfCommonQueriesAllocate(t *testing.T) {
	c := &Checker{MaxPageSize: 5000, TxMaxPageSize: 5000, TxDefaultPageSize: 50, EpochWindow: 100}
	tests := []struct {
		target, listing string
		want            float64
	}{
		{"/api/v2/network/parameters?pagination.first=100", records.ListingNetworkParameters, 0},
		{"/api/v2/snapshots?pagination.first=100&pagination.after=abc", records.ListingSnapshots, 0},
		{"/api/v2/games?pagination.first=100", records.ListingGames, 0},
		{"/api/v2/games?epochFrom=5&epochTo=9", records.ListingGames, 0},
		{"/transactions?first=50", records.ListingTransactions, 0},
		{"/transactions?first=50&cmdTypes=Batch+Proposal", records.ListingTransactions, 1},
	}
	for _, tc := range tests {
		r, err := http.NewRequest(http.MethodGet, tc.target, nil)
		if err != nil {
			t.Fatal(err)
		}
		var buf QueryBuffer
		if q, found := c.OfInto(r, tc.listing, true, &buf); len(q) == 0 || len(found) > 0 {
			t.Errorf("%s: query %v, findings %q; want its parameters and none", tc.target, q, found)
		}
		if got := testing.AllocsPerRun(50, func() { c.OfInto(r, tc.listing, true, &buf) }); got != tc.want {
			t.Errorf("%s: %v allocations, want %v", tc.target, got, tc.want)
		}
	}
}
