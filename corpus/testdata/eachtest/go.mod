module example.com/eachtest

go 1.22
