package looprange

// Control flow: an iteration that skips an access leaves a hole in the
// range; leaving the loop does not.

func breaks(s []int) {
	for i := 0; i < len(s); i++ {
		s[i] = 1 // range "W s[i]: ok"
		if i == 3 {
			break
		}
		s[i] = 2 // range "W s[i]: ok"
	}
}

func returns(s []int) {
	for i := 0; i < len(s); i++ {
		s[i] = 1 // range "W s[i]: ok"
		if i == 3 {
			return
		}
	}
}

func continues(s []int) {
	for i := 0; i < len(s); i++ {
		s[i] = 1 // range "W s[i]: ok"
		if i%2 == 0 {
			continue
		}
		s[i] = 2 // range "W s[i]: refused: an iteration may skip it (continue or goto)"
	}
}

func labelled(s [][]int) {
outer:
	for i := 0; i < len(s); i++ {
		// The inner loop is one statement of the outer one's body: no
		// extent is stored after it.
		for j := 0; j < len(s[i]); j++ { // range "R s[i]: refused: its statement is no assignment, expression, ++/--, var or if condition"
			if s[i][j] < 0 { // range "R s[i]: at access: index out of range at line 41" "R s[i][j]: ok"
				continue outer
			}
		}
		s[i] = nil // range "W s[i]: refused: an iteration may skip it (continue or goto)"
	}
}

func gotos(s []int) {
	for i := 0; i < len(s); i++ {
		if i == 2 {
			goto next
		}
		s[i] = 1 // range "W s[i]: refused: an iteration may skip it (continue or goto)"
	next:
		_ = i
		s[i] = 2 // range "W s[i]: ok"
	}
}

// labelledStmt: no extent is stored after a labelled statement.
func labelledStmt(s []int) {
	for i := 0; i < len(s); i++ {
	L:
		s[i] = 1 // range "W s[i]: refused: its statement is no assignment, expression, ++/--, var or if condition"
		if i < 0 {
			goto L
		}
	}
}

// block: nor after a block.
func block(s []int) {
	for i := 0; i < len(s); i++ {
		{
			s[i] = 1 // range "W s[i]: refused: its statement is no assignment, expression, ++/--, var or if condition"
		}
	}
}

func irreducibleLoop(s []int, skip bool) {
	i := 0
	if skip {
		goto mid
	}
top:
	s[i] = 1 // range "W s[i]: refused: irreducible control flow"
mid:
	i++
	if i < len(s) {
		goto top
	}
}

// gotoInner: the goto makes an inner loop of the statements from L that
// s[i] dominates, while the outer iteration may skip s[i].
func gotoInner(s []int, c, d bool) {
	for i := 0; i < len(s); i++ {
		if c {
			goto M
		}
	L:
		_ = i
		s[i] = 1 // range "W s[i]: refused: an iteration may skip it (continue or goto)"
		if d {
			goto L
		}
	M:
	}
}

type pair struct{ k, v string }

// lookup: the read of e.v on the way out of the loop keeps its own
// check; the condition's reads of e.k are held by the range.
func lookup(kvs []pair, key string) string {
	for i := range kvs {
		e := &kvs[i] // range "R kvs[i]: ok"
		if e.k == key {
			return e.v
		}
	}
	return ""
}

// lookupBreak: the same with break.
func lookupBreak(kvs []pair, key string) (v string) {
	for i := 0; i < len(kvs); i++ {
		e := &kvs[i] // range "R kvs[i]: ok"
		if e.k == key {
			v = e.v
			break
		}
	}
	return v
}

// skipped: a read in a branch that goes on to the next iteration leaves
// a hole in the range.
func skipped(kvs []pair, key string) (n int) {
	for i := range kvs {
		e := &kvs[i] // range "R kvs[i]: refused: not in a statement of a loop body"
		if e.k == key {
			n += len(e.v)
		}
	}
	return n
}
