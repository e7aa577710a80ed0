package linematch

import (
	"bytes"
	"encoding/binary"
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// Why a DFA: Go's regexp has no DFA engine, and its backtracker costs a
// call of hundreds of nanoseconds per line. For a pattern with no literal
// to scan for, every line must be tested, which made such searches twenty
// times slower than ripgrep. This is the lazy DFA ripgrep's regex crate
// uses, reduced to what grep needs: "does this line contain a match", one
// table lookup per byte, states built on first use from the program that
// regexp/syntax compiles.
//
// It answers for ASCII bytes from the table and steps non-ASCII runes
// through the NFA (cached per state and rune). Zero-width assertions at
// line start and end (^, $, \A, \z) are supported; word boundaries are not
// (they need the previous character), and a pattern with them keeps the
// regexp engine.

const (
	// maxDFAStates bounds a worker's state cache (each state holds a
	// 1 KiB transition row). A pattern that needs more has its cache
	// flushed and rebuilt; after maxDFAFlushes the DFA gives up and the
	// regexp engine takes over, as ripgrep's does.
	maxDFAStates  = 2048
	maxDFAFlushes = 8
	// maxDFAProg bounds the program size a DFA is built for.
	maxDFAProg = 4096
)

// dfaProg is the immutable part shared by all workers.
type dfaProg struct {
	prog *syntax.Prog
}

// newDFAProg compiles re for the DFA, or returns nil when the DFA cannot
// run it (word boundaries, a very large program).
func newDFAProg(re *syntax.Regexp) *dfaProg {
	prog, err := syntax.Compile(re)
	if err != nil || len(prog.Inst) > maxDFAProg {
		return nil
	}
	for _, in := range prog.Inst {
		if in.Op == syntax.InstEmptyWidth && syntax.EmptyOp(in.Arg)&(syntax.EmptyWordBoundary|syntax.EmptyNoWordBoundary) != 0 {
			return nil
		}
	}
	return &dfaProg{prog: prog}
}

// State flags.
const (
	stMatch = 1 << iota // a match has been seen: the line matches
	stDead              // no thread survives: the line cannot match
)

// dstate is one DFA state: the set of NFA threads (consuming
// instructions, Match, and end-of-line assertions waiting for the end).
type dstate struct {
	pcs      []uint32
	atStart  bool
	endMatch int8 // at end of line: 0 unknown, 1 matches, -1 does not
}

// dfa is one worker's lazily built automaton.
type dfa struct {
	p      *dfaProg
	states []*dstate
	flags  []uint8
	trans  []int32 // len(states)*256; -1 not yet computed
	index  map[string]int32
	runes  map[uint64]int32 // (state<<32 | rune) -> state, for non-ASCII
	start0 int32            // at the start of a line
	idle   int32            // searching past a line's start, no thread begun: see skipIdle
	// skips and skipped count skipIdle's first calls and the bytes
	// they passed; noSkip is set when the runs are too short to pay for
	// the calls (see stopSkipping).
	skips, skipped int
	noSkip         bool
	limit          int // maxDFAStates; smaller in tests
	flushes        int
	failed         bool
	// scratch
	stack []uint32
	seen  []bool
	set   []uint32
	key   []byte
}

func (p *dfaProg) newDFA() *dfa {
	d := &dfa{p: p, seen: make([]bool, len(p.prog.Inst)), limit: maxDFAStates}
	d.flush()
	return d
}

// flush empties the cache, keeping only the start state.
func (d *dfa) flush() {
	d.states, d.flags, d.trans = d.states[:0], d.flags[:0], d.trans[:0]
	d.index = make(map[string]int32)
	d.runes = make(map[uint64]int32)
	d.set = d.set[:0]
	d.closure(uint32(d.p.prog.Start), true)
	d.start0 = d.intern(true)
	d.closure(uint32(d.p.prog.Start), false)
	d.idle = d.intern(false)
}

// closure adds pc and everything reachable from it without consuming a
// character to d.set.
func (d *dfa) closure(pc uint32, atStart bool) {
	d.stack = append(d.stack[:0], pc)
	for len(d.stack) > 0 {
		pc := d.stack[len(d.stack)-1]
		d.stack = d.stack[:len(d.stack)-1]
		if d.seen[pc] {
			continue
		}
		d.seen[pc] = true
		in := &d.p.prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			d.stack = append(d.stack, in.Arg, in.Out)
		case syntax.InstCapture, syntax.InstNop:
			d.stack = append(d.stack, in.Out)
		case syntax.InstEmptyWidth:
			op := syntax.EmptyOp(in.Arg)
			if op&(syntax.EmptyBeginLine|syntax.EmptyBeginText) != 0 {
				if !atStart {
					continue
				}
				op &^= syntax.EmptyBeginLine | syntax.EmptyBeginText
			}
			if op == 0 {
				d.stack = append(d.stack, in.Out)
			} else {
				d.set = append(d.set, pc) // waits for the end of the line
			}
		case syntax.InstFail:
		default: // runes and Match
			d.set = append(d.set, pc)
		}
	}
}

// intern turns d.set into a state, reusing an equal one.
func (d *dfa) intern(atStart bool) int32 {
	clear(d.seen) // every pc the closures visited, not only those kept
	slices.Sort(d.set)
	d.set = slices.Compact(d.set)
	d.key = d.key[:0]
	if atStart {
		d.key = append(d.key, 1)
	}
	for _, pc := range d.set {
		d.key = binary.LittleEndian.AppendUint32(d.key, pc)
	}
	if i, ok := d.index[string(d.key)]; ok {
		d.set = d.set[:0]
		return i
	}
	s := &dstate{pcs: slices.Clone(d.set), atStart: atStart}
	var fl uint8
	for _, pc := range s.pcs {
		if d.p.prog.Inst[pc].Op == syntax.InstMatch {
			fl |= stMatch
		}
	}
	if len(s.pcs) == 0 {
		fl |= stDead
	}
	i := int32(len(d.states))
	d.states = append(d.states, s)
	d.flags = append(d.flags, fl)
	for b := range 256 {
		switch {
		case b == '\n':
			d.trans = append(d.trans, tNewline)
		case b >= utf8.RuneSelf:
			d.trans = append(d.trans, tNonASCII)
		default:
			d.trans = append(d.trans, tUnknown)
		}
	}
	d.index[string(d.key)] = i
	d.set = d.set[:0]
	return i
}

// step computes the state after s consumes r. Searching is unanchored:
// a new thread starts at every position. When the cache is full it is
// flushed first, which renumbers s: step returns s's new number with the
// next state. t is -1 when the DFA gave up.
func (d *dfa) step(s int32, r rune) (from, t int32) {
	if len(d.states) >= d.limit {
		d.flushes++
		if d.flushes > maxDFAFlushes {
			d.failed = true
			return s, -1
		}
		atStart := d.states[s].atStart
		pcs := d.states[s].pcs
		d.flush()
		d.set = append(d.set, pcs...)
		s = d.intern(atStart)
	}
	st := d.states[s]
	for _, pc := range st.pcs {
		in := &d.p.prog.Inst[pc]
		if in.Op != syntax.InstMatch && in.Op != syntax.InstEmptyWidth && in.MatchRune(r) {
			d.closure(in.Out, false)
		}
	}
	d.closure(uint32(d.p.prog.Start), false)
	return s, d.intern(false)
}

// endMatches reports whether s matches at the end of a line: an
// end-of-line assertion it waits on leads to Match.
//
// The walk is its own rather than closure's: closure keeps an end-of-line
// assertion in the state as something that waits, whereas here the line
// has ended, so the assertion holds and the walk goes through it; and it
// stops at the first Match instead of building a state.
func (d *dfa) endMatches(s int32) bool {
	if d.flags[s]&stMatch != 0 {
		return true
	}
	st := d.states[s]
	if st.endMatch != 0 {
		return st.endMatch > 0
	}
	found := false
	d.stack = d.stack[:0]
	for _, pc := range st.pcs {
		if d.p.prog.Inst[pc].Op == syntax.InstEmptyWidth {
			d.stack = append(d.stack, pc)
		}
	}
	for len(d.stack) > 0 && !found {
		pc := d.stack[len(d.stack)-1]
		d.stack = d.stack[:len(d.stack)-1]
		if d.seen[pc] {
			continue
		}
		d.seen[pc] = true
		in := &d.p.prog.Inst[pc]
		switch in.Op {
		case syntax.InstMatch:
			found = true
		case syntax.InstAlt, syntax.InstAltMatch:
			d.stack = append(d.stack, in.Arg, in.Out)
		case syntax.InstCapture, syntax.InstNop:
			d.stack = append(d.stack, in.Out)
		case syntax.InstEmptyWidth:
			op := syntax.EmptyOp(in.Arg)
			if op&(syntax.EmptyBeginLine|syntax.EmptyBeginText) == 0 || st.atStart {
				d.stack = append(d.stack, in.Out)
			}
		}
	}
	clear(d.seen)
	st.endMatch = -1
	if found {
		st.endMatch = 1
	}
	return found
}

// Transition table entries. A known transition to an ordinary state
// holds that state's row offset (index*256, so the next lookup is one OR);
// everything else is negative and leaves the byte loop.
const (
	tUnknown  = -1 // not computed yet
	tNewline  = -2 // '\n': end of the line
	tNonASCII = -3 // a UTF-8 lead or continuation byte: step a rune
	tIdle     = -4 // to the idle state, whose loops skipIdle passes over
	tSpecial  = -16
)

// encode returns the table entry that leads to state i: its row offset,
// or, for a match or dead state, a value at or below tSpecial.
func (d *dfa) encode(i int32) int32 {
	switch {
	case d.flags[i] != 0:
		return tSpecial - i<<8
	case i == d.idle && !d.noSkip:
		return tIdle
	}
	return i << 8
}

func decodeSpecial(t int32) int32 { return (tSpecial - t) >> 8 }

// next returns the first line at or after from (a line start) that
// matches. ok is false at the end of data, or when the DFA gave up
// (d.failed; the caller must then use the regexp engine from from).
func (d *dfa) next(data []byte, from int) (start, end int, ok bool) {
	if d.flags[d.start0]&stMatch != 0 {
		// The pattern matches the empty string at a line's start (^,
		// x*): every line matches.
		if from >= len(data) {
			return 0, 0, false
		}
		end := len(data)
		if j := bytes.IndexByte(data[from:], '\n'); j >= 0 {
			end = from + j
		}
		return from, end, true
	}
	s := d.start0 << 8 // row offset of the current state
	idle := d.idle << 8
	ls := from
	trans := d.trans
	for i := from; i < len(data); i++ {
		t := trans[s|int32(data[i])]
		if t >= 0 {
			s = t
			continue
		}
		cur := s >> 8
		switch t {
		case tIdle:
			s = idle
			j := skipIdle((*[256]int32)(trans[idle:idle+256]), data, i+1)
			if d.skips++; d.skips <= skipProbe {
				d.skipped += j - i - 1
				if d.skips == skipProbe && d.skipped < skipProbe*minSkipRun {
					d.stopSkipping()
				}
			}
			i = j - 1
			continue
		case tNewline:
			if d.endMatches(cur) {
				return ls, i, true
			}
			ls, s = i+1, d.start0<<8
			continue
		case tUnknown, tNonASCII:
			var next int32
			if t == tUnknown {
				b := data[i]
				if cur, next = d.step(cur, rune(b)); next < 0 {
					return 0, 0, false
				}
				d.trans[cur<<8|int32(b)] = d.encode(next)
			} else {
				r, size := utf8.DecodeRune(data[i:])
				key := uint64(cur)<<32 | uint64(uint32(r))
				var ok bool
				if next, ok = d.runes[key]; !ok {
					if cur, next = d.step(cur, r); next < 0 {
						return 0, 0, false
					}
					d.runes[uint64(cur)<<32|uint64(uint32(r))] = next
				}
				i += size - 1
			}
			trans, idle = d.trans, d.idle<<8 // a flush or a new state may have moved them
			if d.flags[next] == 0 {
				s = next << 8
				continue
			}
			t = tSpecial - next<<8
		}
		// A match or dead state.
		st := decodeSpecial(t)
		j := bytes.IndexByte(data[i+1:], '\n')
		if d.flags[st]&stMatch != 0 {
			if j < 0 {
				return ls, len(data), true
			}
			return ls, i + 1 + j, true
		}
		if j < 0 { // dead until the end of data
			return 0, 0, false
		}
		i += j + 1 // at the '\n': the next line starts after it
		ls, s = i+1, d.start0<<8
	}
	if ls < len(data) && d.endMatches(s>>8) {
		return ls, len(data), true
	}
	return 0, 0, false
}

// After skipProbe calls, skipIdle stays in use only if it passed at
// least minSkipRun bytes a call on average: a pattern that may begin at
// most bytes (a word's boundary, say) leaves runs too short to pay for
// the calls.
const (
	skipProbe  = 4096
	minSkipRun = 4
)

// skipIdle returns the index of the first byte of data at or after i that
// the idle state's row does not loop on (an entry other than tIdle).
// Most bytes of most lines start no thread of the pattern, and the main
// loop spends a dependent table lookup on each (the next row depends on
// the last lookup); here every lookup is in the same row, so the
// processor overlaps them, four at a time: about 1.6 times the bytes a
// second on source code.
func skipIdle(row *[256]int32, data []byte, i int) int {
	for ; i+4 <= len(data); i += 4 {
		if row[data[i]] != tIdle || row[data[i+1]] != tIdle || row[data[i+2]] != tIdle || row[data[i+3]] != tIdle {
			break
		}
	}
	for i < len(data) && row[data[i]] == tIdle {
		i++
	}
	return i
}

// stopSkipping turns the table's entries to the idle state into plain
// ones, and keeps them so.
func (d *dfa) stopSkipping() {
	d.noSkip = true
	for k, t := range d.trans {
		if t == tIdle {
			d.trans[k] = d.idle << 8
		}
	}
}

// matchLine reports whether line (without its '\n') contains a match;
// valid only while !d.failed.
func (d *dfa) matchLine(line []byte) bool {
	_, _, ok := d.next(line, 0)
	return ok
}
