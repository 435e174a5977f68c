module example.com/cgoforms

go 1.24
