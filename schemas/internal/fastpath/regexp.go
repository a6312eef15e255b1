package fastpath

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
)

// A pattern of the fast path. gojsonschema matches a pattern with Go's
// regexp: MatchString, does the string contain a match. The fast path
// answers the same question for ASCII strings, which are nearly all the
// strings of a document, by a DFA built once from the very program regexp
// runs (regexp/syntax: parsed with the Perl flags, simplified, compiled, as
// regexp.Compile does), by the subset construction over the 128 ASCII
// bytes. A DFA decides whether any match exists, which is all MatchString
// says, whatever match regexp would prefer. A pattern with an empty-width
// assertion other than the beginning and end of the text (line or word
// boundaries), or whose DFA would pass maxDFAStates, and every string that
// is empty or not ASCII, go to regexp.

// maxDFAStates bounds the states of a pattern's DFA.
const maxDFAStates = 4096

// fastRegexp is a compiled pattern.
type fastRegexp struct {
	re *regexp.Regexp
	// The DFA, when there is one: next[state<<8|c] is the state after
	// byte c, or dfaDead when no match can follow, dfaMatched when a match
	// has ended, dfaNotASCII for a byte that is not ASCII; matched[state]
	// says a match has ended by then, matchedAtEnd[state] that one ends at
	// the end of the text. State 0 is the start.
	next         []int32
	matched      []bool
	matchedAtEnd []bool
}

// The DFA's codes for what is not a state.
const (
	dfaDead     = -1
	dfaMatched  = -2
	dfaNotASCII = -3
)

// compileFastRegexp compiles a pattern as gojsonschema does (regexp.Compile)
// and, when it can, its DFA.
func compileFastRegexp(pattern string) (*fastRegexp, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	f := &fastRegexp{re: re}
	parsed, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return f, nil
	}
	prog, err := syntax.Compile(parsed.Simplify())
	if err != nil {
		return f, nil
	}
	f.buildDFA(prog)
	return f, nil
}

// MatchString reports whether s contains a match of the pattern, as
// regexp.MatchString does.
func (f *fastRegexp) MatchString(s string) bool {
	if f.next == nil || s == "" {
		return f.re.MatchString(s)
	}
	if f.matched[0] {
		return true
	}
	next := f.next
	state := int32(0)
	for i := 0; i < len(s); i++ {
		state = next[int(state)<<8|int(s[i])]
		if state < 0 {
			switch state {
			case dfaMatched:
				return true
			case dfaNotASCII:
				return f.re.MatchString(s)
			}
			return false
		}
	}
	return f.matchedAtEnd[state]
}

// nfa holds what the subset construction needs of a program.
type nfa struct {
	prog *syntax.Prog
	// anchored is true when every match starts at the beginning of the
	// text: no new match is started after it.
	anchored bool
}

// buildDFA builds the DFA; it leaves f.next nil when the program uses what
// the construction does not handle or the DFA grows too big.
func (f *fastRegexp) buildDFA(prog *syntax.Prog) {
	for _, inst := range prog.Inst {
		if inst.Op == syntax.InstEmptyWidth && syntax.EmptyOp(inst.Arg)&^(syntax.EmptyBeginText|syntax.EmptyEndText) != 0 {
			return
		}
	}
	a := nfa{prog: prog, anchored: prog.StartCond()&syntax.EmptyBeginText != 0}
	start, ok := a.closure([]uint32{uint32(prog.Start)}, true)
	if !ok {
		return
	}
	var restart []uint32 // a match starting later
	if !a.anchored {
		if restart, ok = a.closure([]uint32{uint32(prog.Start)}, false); !ok {
			return
		}
	}
	index := map[string]int32{}
	var sets [][]uint32
	add := func(set []uint32) int32 {
		key := setKey(set)
		if i, ok := index[key]; ok {
			return i
		}
		i := int32(len(sets))
		index[key] = i
		sets = append(sets, set)
		f.matched = append(f.matched, a.has(set, syntax.InstMatch))
		f.matchedAtEnd = append(f.matchedAtEnd, a.matchesAtEnd(set))
		return i
	}
	add(start)
	for s := 0; s < len(sets); s++ {
		if len(sets) > maxDFAStates {
			f.next, f.matched, f.matchedAtEnd = nil, nil, nil
			return
		}
		row := make([]int32, 256)
		for c := 128; c < 256; c++ {
			row[c] = dfaNotASCII
		}
		for c := range 128 {
			var outs []uint32
			for _, pc := range sets[s] {
				if a.matchesByte(pc, byte(c)) {
					outs = append(outs, a.prog.Inst[pc].Out)
				}
			}
			next, ok := a.closure(outs, false)
			if !ok {
				f.next, f.matched, f.matchedAtEnd = nil, nil, nil
				return
			}
			next = union(next, restart)
			if len(next) == 0 {
				row[c] = dfaDead
				continue
			}
			row[c] = add(next)
		}
		f.next = append(f.next, row...)
	}
	// A step into a state where a match has ended ends the search.
	for i, to := range f.next {
		if to >= 0 && f.matched[to] {
			f.next[i] = dfaMatched
		}
	}
}

// closure returns the instructions reachable from pcs without consuming
// input, at the beginning of the text or not: the ones that consume a
// byte, Match, and the assertions of the end of the text, which wait for
// it. Sorted.
func (a nfa) closure(pcs []uint32, atBeginning bool) ([]uint32, bool) {
	seen := map[uint32]bool{}
	var out []uint32
	stack := append([]uint32(nil), pcs...)
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[pc] {
			continue
		}
		seen[pc] = true
		inst := a.prog.Inst[pc]
		switch inst.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, inst.Out, inst.Arg)
		case syntax.InstCapture, syntax.InstNop:
			stack = append(stack, inst.Out)
		case syntax.InstEmptyWidth:
			op := syntax.EmptyOp(inst.Arg)
			if op&syntax.EmptyBeginText != 0 && !atBeginning {
				continue // never again
			}
			if op&syntax.EmptyEndText != 0 {
				out = append(out, pc) // waits for the end
				continue
			}
			stack = append(stack, inst.Out)
		case syntax.InstMatch, syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			out = append(out, pc)
		case syntax.InstFail:
		default:
			return nil, false
		}
	}
	slices.Sort(out)
	return out, true
}

// matchesByte reports whether instruction pc consumes byte c.
func (a nfa) matchesByte(pc uint32, c byte) bool {
	inst := a.prog.Inst[pc]
	switch inst.Op {
	case syntax.InstRune, syntax.InstRune1:
		return inst.MatchRune(rune(c))
	case syntax.InstRuneAny:
		return true
	case syntax.InstRuneAnyNotNL:
		return c != '\n'
	}
	return false
}

// has reports whether the set holds an instruction of kind op.
func (a nfa) has(set []uint32, op syntax.InstOp) bool {
	for _, pc := range set {
		if a.prog.Inst[pc].Op == op {
			return true
		}
	}
	return false
}

// matchesAtEnd reports whether, the text ending here (after at least one
// byte), a match ends: through the assertions of the end that wait.
func (a nfa) matchesAtEnd(set []uint32) bool {
	seen := map[uint32]bool{}
	stack := append([]uint32(nil), set...)
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[pc] {
			continue
		}
		seen[pc] = true
		inst := a.prog.Inst[pc]
		switch inst.Op {
		case syntax.InstMatch:
			return true
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, inst.Out, inst.Arg)
		case syntax.InstCapture, syntax.InstNop:
			stack = append(stack, inst.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(inst.Arg)&syntax.EmptyBeginText == 0 {
				stack = append(stack, inst.Out)
			}
		}
	}
	return false
}

func setKey(set []uint32) string {
	var b strings.Builder
	for _, pc := range set {
		b.WriteString(strconv.FormatUint(uint64(pc), 36))
		b.WriteByte(',')
	}
	return b.String()
}

// union returns the sorted union of two sorted sets.
func union(a, b []uint32) []uint32 {
	if len(b) == 0 {
		return a
	}
	out := make([]uint32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}
