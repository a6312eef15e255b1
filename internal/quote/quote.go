// Package quote quotes values a client sent for messages that echo them,
// bounded so that a hostile value (a 1 MB cursor) cannot make an answer or a
// log line as large as itself.
package quote

import (
	"strconv"
	"unicode/utf8"
)

// MaxValue is the most bytes of a value Value quotes.
const MaxValue = 200

// MaxMessage is the most bytes of a message Message keeps.
const MaxMessage = 400

// Value returns s quoted as strconv.Quote quotes it when s is at most
// MaxValue bytes; a longer s is cut to its first MaxValue bytes (at a
// character boundary), quoted with an ellipsis, and followed by its length:
//
//	"AAAA…" (65536 bytes)
func Value(s string) string {
	if len(s) <= MaxValue {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:cut(s, MaxValue)]+"…") + " (" + strconv.Itoa(len(s)) + " bytes)"
}

// Message returns msg when it is at most MaxMessage bytes, else its first
// MaxMessage bytes (at a character boundary) followed by an ellipsis and
// its length. It bounds messages made elsewhere (a decoder's error naming a
// field the client sent) that may echo a value whole.
func Message(msg string) string {
	if len(msg) <= MaxMessage {
		return msg
	}
	return msg[:cut(msg, MaxMessage)] + "… (" + strconv.Itoa(len(msg)) + " bytes)"
}

// cut returns the largest i <= n at which s can be cut without splitting a
// UTF-8 sequence: n when s[n] starts a character, else the start of the
// character s[n] is part of, at most utf8.UTFMax-1 bytes before it. Bytes
// that are not UTF-8 are cut at n. It needs utf8.UTFMax-1 <= n < len(s).
func cut(s string, n int) int {
	for i := n; i >= n-(utf8.UTFMax-1); i-- {
		if utf8.RuneStart(s[i]) {
			return i
		}
	}
	return n
}

// Printable returns s with every byte that is not part of a valid UTF-8
// sequence written as \xNN (a backslash already in s stays as it is), so
// that text a deployment sent (a body, a header) can go into a console, an
// XML, JSON or HTML report without raw bytes those cannot carry. Valid
// UTF-8 comes back unchanged, without a copy.
func Printable(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	const hex = "0123456789abcdef"
	b := make([]byte, 0, len(s)+16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, '\\', 'x', hex[s[i]>>4], hex[s[i]&0xf])
			i++
			continue
		}
		b = append(b, s[i:i+size]...)
		i += size
	}
	return string(b)
}
