module example.com/cleanups

go 1.26
