package mocktest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/chaindata/harness/mockserver/faults"
	"github.com/chaindata/harness/mockserver/mocktest"
)

// getWithRetries is the client under test: it asks again after a 429 or a
// 503, waiting as long as Retry-After says, up to tries times.
func getWithRetries(client *http.Client, url string, tries int, log func(string)) ([]byte, error) {
	for attempt := 1; ; attempt++ {
		resp, err := client.Get(url)
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		if (resp.StatusCode != http.StatusServiceUnavailable && resp.StatusCode != http.StatusTooManyRequests) || attempt == tries {
			log(fmt.Sprintf("attempt %d: %s", attempt, resp.Status))
			return body, nil
		}
		wait, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		log(fmt.Sprintf("attempt %d: %s, retry after %ds", attempt, resp.Status, wait))
		time.Sleep(time.Duration(wait) * time.Second)
	}
}

// A client retrying through a forced 503: the mock answers the first request
// to the transaction listing with a 503 and Retry-After: 1, and the next one
// normally. In a test, mocktest.New(t, ...) starts the server and closes it
// when the test ends.
func Example_retryThrough503() {
	srv, err := mocktest.Start(mocktest.Options{Seed: 7, Scale: 0.1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	srv.SetFaults(faults.Rule{Listing: "transactions", Times: 1, Fault: "status=503; retry-after=1"})

	body, err := getWithRetries(http.DefaultClient, srv.URL+"/transactions?first=5", 3, func(s string) { fmt.Println(s) })
	if err != nil {
		fmt.Println(err)
		return
	}
	var page struct {
		Transactions []json.RawMessage `json:"transactions"`
	}
	if err := json.Unmarshal(body, &page); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(page.Transactions), "transactions; faults injected:", srv.Status().Faults.Injected["status"])
	// Output:
	// attempt 1: 503 Service Unavailable, retry after 1s
	// attempt 2: 200 OK
	// 5 transactions; faults injected: 1
}
