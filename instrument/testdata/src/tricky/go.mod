module example.com/tricky

go 1.26
