package main

import "testing"

func TestAll(t *testing.T) {
	for _, name := range []string{"a", "b"} {
		t.Run(name, func(t *testing.T) {
			if name == "" {
				t.Fatal("empty")
			}
		})
	}
	main()
}

func BenchmarkSum(b *testing.B) {
	for b.Loop() {
		sum([]int{1, 2})
	}
}
