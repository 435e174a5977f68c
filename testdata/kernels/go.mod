module example.com/kernels

go 1.22
