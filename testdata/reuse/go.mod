module example.com/reuse

go 1.26.0
