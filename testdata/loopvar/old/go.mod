module example.com/loopvar/old

go 1.21
