module example.com/cgorace

go 1.22
