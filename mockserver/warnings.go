package mockserver

import (
	"net/http"
	"slices"
	"strings"

	"github.com/chaindata/harness/mockserver/store"
	"github.com/chaindata/harness/mockserver/warnings"
)

// WarningHeader is the response header that carries one finding of package
// warnings: what the mock reads differently from what a client likely
// meant.
const WarningHeader = warnings.Header

// servedTypes returns the command types of the rows served (fixtures
// recorded from a network may hold more than the generators make), sorted.
func (s *Server) servedTypes() []string {
	var out []string
	s.store.Read(func(st store.Reader) {
		st.EachTxType(func(name string, _ []int32) { out = append(out, name) })
	})
	slices.Sort(out)
	return out
}

// strictParamsError is the refusal of a request that drew findings, under
// Config.StrictParams: one detail per finding.
func strictParamsError(findings []string) *apiError {
	details := make([]errorDetail, len(findings))
	for i, text := range findings {
		details[i] = errorDetail{Type: errorDetailType, Code: detailNotMapped, Message: "request refused by --strict-params", Inner: text}
	}
	return &apiError{status: http.StatusBadRequest, code: codeInvalidArgument, message: "InvalidArgument error", details: details, refusal: RefusalStrictParams}
}

// unknownPath answers a path no listing is served at: a 404 whose error
// body lists the listings' paths.
func (s *Server) unknownPath(w http.ResponseWriter, r *http.Request) {
	writeError(w, &apiError{
		status: http.StatusNotFound, code: codeNotFound, message: "Not Found",
		details: []errorDetail{{
			Type: errorDetailType, Code: detailNotMapped, Message: "unknown path",
			Inner: "no listing is served at " + warnings.Quote(r.URL.Path) + s.warn.NearPath(r.URL.Path) +
				"; the listings are at " + strings.Join(s.paths, ", "),
		}},
	})
}
