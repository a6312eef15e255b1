package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// progressBar draws a one-line progress bar on a terminal, redrawn at most
// ten times a second. A nil *progressBar draws nothing.
type progressBar struct {
	w     io.Writer
	label string
	start time.Time

	mu   sync.Mutex
	last time.Time
}

// newProgressBar returns a bar on w when w is a terminal and quiet is false,
// and nil otherwise.
func newProgressBar(w io.Writer, label string, quiet bool) *progressBar {
	f, ok := w.(*os.File)
	if quiet || !ok || !isTerminal(f) {
		return nil
	}
	return &progressBar{w: w, label: label, start: time.Now()}
}

// update redraws the bar for done of total.
func (p *progressBar) update(done, total int) {
	if p == nil || total <= 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if done < total && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	const width = 30
	filled := width * done / total
	bar := strings.Repeat("=", filled) + strings.Repeat(" ", width-filled)
	fmt.Fprintf(p.w, "\r%s [%s] %3d%% %d/%d %s", p.label, bar, 100*done/total, done, total, now.Sub(p.start).Round(100*time.Millisecond))
}

// finish ends the bar's line.
func (p *progressBar) finish() {
	if p == nil {
		return
	}
	fmt.Fprintln(p.w)
}
