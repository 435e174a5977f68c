package d

import "testing"

func TestFails(t *testing.T) { t.Fatal("fails under both") }
