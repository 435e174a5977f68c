// Command layout is a module with an old go line, build tags, an embedded
// file, an internal package and a user TestMain.
package main

import (
	_ "embed"
	"fmt"

	"example.com/layout/internal/lib"
)

//go:embed greeting.txt
var greeting string

func main() {
	c := lib.NewCounter()
	done := make(chan bool)
	for i := 0; i < 3; i++ {
		go func() {
			c.Inc()
			done <- true
		}()
	}
	for i := 0; i < 3; i++ {
		<-done
	}
	fmt.Print(greeting)
	fmt.Println(c.Value(), platform())
}
