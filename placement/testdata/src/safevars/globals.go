package safevars

import "os"

// Package-level variables of a package other than main: stored only by
// its initialization, before anything that may start a goroutine.

var home = os.Getenv("HOME") // safe

var primes []int // safe

var started int // unsafe "stored in init#2 after a possible goroutine start"

var mainOnly int // unsafe "stored in safevars.main"

var viaCall int // unsafe "stored in safevars.setViaCall"

func init() {
	for p := 2; len(primes) < 10; p++ {
		if isPrime(p) {
			primes = append(primes, p) // want "W t9[len(primes)..len(t9)]"
		}
	}
}

func isPrime(p int) bool {
	for _, q := range primes {
		if p%q == 0 {
			return false // want "R primes[0..rangeindex+2]"
		}
	}
	return true // want "R primes[0..rangeindex+1]"
}

func init() {
	go func() {}()
	started = 1
} // want "W *started"

func setViaCall() { viaCall = 1 } // want "W *viaCall"

func init() { setViaCall() }

// main is an ordinary function outside package main.
func main() { mainOnly = len(home) + started + viaCall } // want "R *started" "R *viaCall" "W *mainOnly"

func readers() int {
	return primes[0] + mainOnly + len(home) // want "R *mainOnly" "R primes[0]"
}
