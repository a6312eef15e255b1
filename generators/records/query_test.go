package records

import (
	"net/url"
	"reflect"
	"testing"
)

func TestQuery(t *testing.T) {
	q := Query(url.Values{"nodeId": {"a", "b"}, "node_id": {"c"}, "empty": {}, "parties": {"p1", "p2"}, "party": {"p3"}})
	for _, tc := range []struct {
		names []string
		want  string
		ok    bool
	}{
		{[]string{"nodeId", "node_id"}, "a", true},
		{[]string{"node_id", "nodeId"}, "c", true},
		{[]string{"empty", "node_id"}, "c", true},
		{[]string{"empty"}, "", false},
		{[]string{"missing"}, "", false},
		{nil, "", false},
	} {
		if got, ok := q.Get(tc.names...); got != tc.want || ok != tc.ok {
			t.Errorf("Get(%q) = %q, %v; want %q, %v", tc.names, got, ok, tc.want, tc.ok)
		}
	}
	if got, want := q.All("parties", "missing", "party"), []string{"p1", "p2", "p3"}; !reflect.DeepEqual(got, want) {
		t.Errorf("All = %q, want %q", got, want)
	}
	if got := q.All("missing"); got != nil {
		t.Errorf("All of nothing = %q, want nil", got)
	}
}
