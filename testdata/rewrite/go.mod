module example.com/rewrite

go 1.22
