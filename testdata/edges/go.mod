module example.com/edges

go 1.24
