package lib_test

import (
	"os"
	"sync"
	"testing"

	"example.com/layout/internal/lib"
)

var setup bool

func TestMain(m *testing.M) {
	setup = true
	os.Exit(m.Run())
}

func TestCounter(t *testing.T) {
	if !setup {
		t.Fatal("TestMain did not run")
	}
	c := lib.NewCounter()
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Inc()
		}()
	}
	wg.Wait()
	if c.Value() != 10 {
		t.Fatal(c.Value())
	}
}
