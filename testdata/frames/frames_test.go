package frames

import (
	"os"
	"testing"
)

var counter int

func TestMain(m *testing.M) {
	func() {
		defer func() {
			if recover() != nil {
				PrintCallers(os.Stdout, "recovered in TestMain")
			}
		}()
		Boom()
	}()
	PrintCallers(os.Stdout, "TestMain")
	code := m.Run()
	counter++
	os.Exit(code)
}

func TestCallers(t *testing.T) {
	counter++
	PrintCallers(os.Stdout, "TestCallers")
}

func Example() {
	PrintCallers(os.Stderr, "Example")
	// Output:
}
