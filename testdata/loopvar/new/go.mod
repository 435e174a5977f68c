module example.com/loopvar/new

go 1.26
