package conformance

import "io"

// Placeholders until the client and HTML report branches are merged.
func CurrentTraffic() Traffic                       { return Traffic{} }
func WriteHTMLReport(w io.Writer, s *Summary) error { return nil }

func countHint(ex *exchange) string { return "" }
