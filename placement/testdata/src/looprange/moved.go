package looprange

// Operands that may change in the loop: the range would name the wrong
// array.

func throughPointer(s, t []int) {
	ps := &s
	for i := 0; i < len(s); i++ {
		s[i] = 7 // range "W s[i]: refused: its operand may change through a pointer at line 11"
		if i == 3 {
			*ps = t
		}
	}
}

func pointerUnused(s []int) []int {
	ps := &s
	for i := 0; i < len(s); i++ {
		s[i] = 7 // range "W s[i]: ok"
	}
	return *ps
}

func throughCall(s []int, set func(*[]int)) {
	set(&s)
	for i := 0; i < len(s); i++ {
		s[i] = 7 // range "W s[i]: refused: its operand may change in a call at line 28"
		set(nil)
	}
}

var global []int

func globalSlice(t []int) {
	for i := 0; i < len(global); i++ {
		global[i] = 1 // range "W global[i]: refused: its operand may change in a call at line 37"
		reset(t)
	}
}

func reset(t []int) { global = t }

func indexThroughPointer(s []int, k int) {
	pk := &k
	for i := 0; i < 4; i++ {
		s[i+k] = 1 // range "W s[i + k]: refused: its index may change through a pointer at line 47"
		*pk = 2
	}
}

func storeOfOtherType(s []int, p *int) {
	for i := 0; i < len(s); i++ {
		s[i] = 1 // range "W s[i]: ok"
		*p = i
	}
}

func captured(s []int) func() {
	f := func() { s = nil }
	for i := 0; i < len(s); i++ {
		s[i] = 1 // range "W s[i]: ok"
	}
	return f
}

func capturedCalled(s []int) {
	f := func() { s = nil }
	for i := 0; i < len(s); i++ {
		s[i] = 1 // range "W s[i]: refused: its operand may change in a call at line 70"
		f()
	}
}

// capturedSafe: s is in the static safe class (never stored once
// captured), so no call in the goroutine's loop can change it.
func capturedSafe(s []int, tick func()) {
	done := make(chan bool)
	go func() {
		for i := 0; i < len(s); i++ {
			s[i] = 1 // range "W s[i]: ok"
			tick()
		}
		done <- true
	}()
	<-done
}

// twoInductionVars: s[i+j] moves by two elements per iteration; a range
// of step one would hold the elements in between, never accessed.
func twoInductionVars(s []int) {
	j := 0
	for i := 0; i < len(s)/2; i++ {
		s[i+j] = 1 // range "W s[i + j]: refused: its index moves with two variables of the loop"
		j++
	}
}

// doubling: j has no constant step.
func doubling(s []int) {
	j := 1
	for i := 0; j < len(s); i++ {
		s[j] = i // range "W s[j]: refused: its index moves with a variable of the loop that has no constant step"
		j *= 2
	}
}

// product: i*k is no affine index of i.
func product(s []int, k int) {
	for i := 0; i*k < len(s); i++ {
		s[i*k] = 1 // range "W s[i * k]: refused: its index is the product of a variable of the loop and another value"
	}
}
