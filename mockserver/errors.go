package mockserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/chaindata/harness/internal/quote"
)

// gRPC status codes the API uses, and the HTTP status the gateway maps each to.
const (
	codeInvalidArgument = 3
	codeNotFound        = 5
	codeUnimplemented   = 12
	codeInternal        = 13
)

// Error detail codes of the API.
const (
	detailNotMapped         = 10000
	detailInvalidPagination = 10028
)

// errorDetailType is the @type of the API's error details.
const errorDetailType = "type.googleapis.com/core.ErrorDetail"

// apiError is an error answered with the spec's error body.
type apiError struct {
	status  int
	code    int32
	message string
	details []errorDetail
	// refusal names the kind of a 400 refusal of an API request, for the
	// journal and coverage (Refusal... constants); "" for other errors.
	refusal string
}

// as names the kind of refusal e is, and returns it.
func (e *apiError) as(refusal string) *apiError {
	e.refusal = refusal
	return e
}

type errorDetail struct {
	Type    string `json:"@type"`
	Code    int32  `json:"code"`
	Message string `json:"message"`
	Inner   string `json:"inner,omitempty"`
}

func (e *apiError) Error() string {
	if len(e.details) > 0 {
		d := e.details[0]
		return fmt.Sprintf("%s: %s: %s", e.message, d.Message, d.Inner)
	}
	return e.message
}

// invalidPagination is a broken pagination rule (400, detail 10028).
func invalidPagination(format string, a ...any) *apiError {
	return &apiError{
		status: http.StatusBadRequest, code: codeInvalidArgument, message: "InvalidArgument error",
		details: []errorDetail{{Type: errorDetailType, Code: detailInvalidPagination, Message: "invalid pagination", Inner: fmt.Sprintf(format, a...)}},
	}
}

// invalidArgument is any other broken rule (400, detail 10000).
func invalidArgument(message, inner string) *apiError {
	return &apiError{
		status: http.StatusBadRequest, code: codeInvalidArgument, message: "InvalidArgument error",
		details: []errorDetail{{Type: errorDetailType, Code: detailNotMapped, Message: message, Inner: inner}},
	}
}

// parseError is a query value that does not parse (400, no details), worded
// as the gateway words it. The value is quoted by quote.Value, at most 200
// bytes of it, also inside a strconv error (which would quote it whole).
func parseError(field, value string, err error) *apiError {
	var ne *strconv.NumError
	if errors.As(err, &ne) {
		err = fmt.Errorf("strconv.%s: parsing %s: %w", ne.Func, quote.Value(ne.Num), ne.Err)
	}
	return &apiError{
		status: http.StatusBadRequest, code: codeInvalidArgument,
		message: fmt.Sprintf("parsing field %q: %s: %v", field, quote.Value(value), err),
		refusal: RefusalUnparsable,
	}
}

var (
	errNotFound         = &apiError{status: http.StatusNotFound, code: codeNotFound, message: "Not Found"}
	errMethodNotAllowed = &apiError{status: http.StatusNotImplemented, code: codeUnimplemented, message: "Method Not Allowed"}
)

// controlMethodNotAllowed is a method a control API path does not take
// (405, code 12, detail 10000 naming the methods it takes; the handler
// sets Allow).
func controlMethodNotAllowed(method, allow string) *apiError {
	return &apiError{
		status: http.StatusMethodNotAllowed, code: codeUnimplemented, message: "Method Not Allowed",
		details: []errorDetail{{Type: errorDetailType, Code: detailNotMapped, Message: "method not allowed",
			Inner: fmt.Sprintf("%s is not a method of this path; it takes %s", quote.Value(method), allow)}},
	}
}

// badRequestTarget is a request target that is not a path ("*", an
// authority): 400 with the error body, where http.ServeMux would answer an
// empty 400.
func badRequestTarget(target string) *apiError {
	return invalidArgument("invalid request target", "the request target must be a path starting with /, got "+quote.Value(target)).as(RefusalRequestTarget)
}

func internalError(inner string) *apiError {
	return &apiError{
		status: http.StatusInternalServerError, code: codeInternal, message: "Internal error",
		details: []errorDetail{{Type: errorDetailType, Code: detailNotMapped, Message: "internal error", Inner: inner}},
	}
}

// corruptFixture is a page that would serve a row of a damaged fixture
// file (500): inner names the file and the block.
func corruptFixture(inner string) *apiError {
	return &apiError{
		status: http.StatusInternalServerError, code: codeInternal, message: "Internal error",
		details: []errorDetail{{Type: errorDetailType, Code: detailNotMapped, Message: "fixture file damaged", Inner: inner}},
	}
}

// writeError answers with the error body.
func writeError(w http.ResponseWriter, e *apiError) {
	details := e.details
	if details == nil {
		details = []errorDetail{}
	}
	body, _ := json.Marshal(struct {
		Code    int32         `json:"code"`
		Message string        `json:"message"`
		Details []errorDetail `json:"details"`
	}{e.code, e.message, details})
	if e.refusal != "" {
		noteOf(w).refused(e.refusal)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", fmt.Sprint(len(body)+1))
	w.WriteHeader(e.status)
	w.Write(append(body, '\n'))
}
